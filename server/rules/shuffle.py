"""The deal's shuffle and the seed's commitment: a documented algorithm anyone can run
again (docs/fairness.md, with test vectors; RULES.md §D keeps the seed hidden until the
round is over).

The seed is a text (an int seed is written in decimal). Its **commitment**, sent to
every seat when the round is dealt, is ``SHA-256(seed)`` in lowercase hex. The
**shuffle** is Fisher–Yates (Durstenfeld's form) over the tile ids in ascending order,
driven by a stream of 32-bit words: block ``k`` (0, 1, 2, ...) of the stream is
``SHA-256("remi-shuffle/1:" + seed + ":" + k)`` (``k`` in decimal, the whole text
UTF-8), read as eight big-endian 32-bit words. For ``i`` from ``n - 1`` down to 1 a
position ``j`` in ``0..i`` is drawn by rejection: the next word ``x`` is used when
``x < 2**32 - 2**32 % (i + 1)`` (``j = x % (i + 1)``), otherwise it is dropped and the
next one is read; then the ids at ``i`` and ``j`` swap. Only ``hashlib`` of the standard
library is used: the same code runs on the server and under Pyodide.

>>> commitment("abc")
'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
>>> shuffled((0, 1, 2, 3, 4, 5, 6, 7), "doc")
[4, 0, 3, 6, 5, 2, 1, 7]
>>> shuffled(range(8), "doc") == shuffled((0, 1, 2, 3, 4, 5, 6, 7), "doc")
True
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Iterator

SCHEME = "sha256-fisher-yates/1"
"""The name of this commitment and shuffle, stored with every committed round."""

STREAM_PREFIX = "remi-shuffle/1:"
_WORDS = 1 << 32


def seed_text(seed: int | str) -> str:
    """The seed as the text that is hashed (an int in decimal)."""
    return str(seed)


def commitment(seed: int | str) -> str:
    """``SHA-256(seed)``, lowercase hex: what every seat is given before the deal."""
    return hashlib.sha256(seed_text(seed).encode("utf-8")).hexdigest()


def stream_block(seed: int | str, k: int) -> bytes:
    """Block ``k`` of the shuffle's stream: 32 bytes derived from the seed (secret until
    the round is over, like the seed itself)."""
    return hashlib.sha256(f"{STREAM_PREFIX}{seed_text(seed)}:{k}".encode()).digest()


def _words(seed: int | str) -> Iterator[int]:
    """The stream as big-endian 32-bit words, block after block."""
    k = 0
    while True:
        yield from struct.unpack(">8I", stream_block(seed, k))
        k += 1


def shuffled(ids: Iterable[int], seed: int | str) -> list[int]:
    """``ids`` sorted ascending, then shuffled by the seeded Fisher–Yates above.

    >>> sorted(shuffled(range(106), 7)) == list(range(106))
    True
    >>> shuffled(range(106), 7) == shuffled(range(106), 7) != shuffled(range(106), 8)
    True
    """
    order = sorted(ids)
    words = _words(seed)
    for i in range(len(order) - 1, 0, -1):
        m = i + 1
        limit = _WORDS - _WORDS % m
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % m
        order[i], order[j] = order[j], order[i]
    return order
