"""Counts, in the server under test, the objects CPython's collector promotes to its
oldest generation, by kind (``python -m bench.load --promotions``; never loaded by the
product). Promotions are what start a full collection: CPython 3.11 runs one once the
objects promoted since the last exceed a quarter of those the oldest generation holds.

Imported at start-up as ``sitecustomize`` (this folder on ``PYTHONPATH``) when
``REMI_BENCH_PROMOTIONS`` names a file: at the start of every collection of the middle
generation it counts the objects of the two young generations by kind (a coroutine or
a method by its function's name, a future by its callbacks'); at its end it adds them,
less what the collection freed, to a running total, written as JSON to that file at most
once a second. An upper bound: tuples and dicts that the collection stops tracking
(holding nothing it tracks) are counted as promoted; what a full collection itself moves
out of the young generations is not counted. Counting costs the server time: a run's
other figures are not the product's.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import time
from typing import Any

OUT = os.environ.get("REMI_BENCH_PROMOTIONS")


def kind(obj: Any) -> str:
    """What an object is, as precisely as is cheap to say."""
    name = type(obj).__qualname__
    try:
        if name in ("coroutine", "generator", "async_generator"):
            return f"{name} {obj.__qualname__}"
        if name == "method":
            return f"method {obj.__func__.__qualname__}"
        if name == "builtin_function_or_method" and obj.__self__ is not None:
            return f"builtin method {type(obj.__self__).__qualname__}.{obj.__name__}"
        if name == "Future":
            callbacks = getattr(obj, "_callbacks", None) or []
            return "Future for " + ",".join(
                kind(c[0] if isinstance(c, tuple) else c) for c in callbacks
            )
        if name == "TimerHandle":
            return f"TimerHandle of {kind(obj._callback)}"
    except Exception:  # an attribute a C type does not have: its type name will do
        pass
    return name


def install(path: str) -> None:
    total: collections.Counter[str] = collections.Counter()
    young: collections.Counter[str] = collections.Counter()
    written = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 1:
            return
        if phase == "start":
            young.clear()
            for generation in (0, 1):
                young.update(kind(obj) for obj in gc.get_objects(generation))
            return
        total.update(young)
        total["(freed by the collection)"] -= info["collected"]
        now = time.monotonic()
        if now - written[0] >= 1.0:
            written[0] = now
            with open(f"{path}.tmp", "w", encoding="utf-8") as f:
                json.dump(dict(total), f)
            os.replace(f"{path}.tmp", path)

    gc.callbacks.append(watch)


if OUT:
    install(OUT)
