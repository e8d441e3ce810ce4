"""The provably fair deal (docs/fairness.md): the test vectors of the
document, its reference implementation against the engine's shuffle, the spread of the
shuffle, and the checks of a finished round on random rounds of every variant: a true
round passes, and every kind of tampering (seed, commitment, deal, action, result) fails.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from server.rules import VARIANTS, RoundOptions, get_variant, new_round
from server.rules.fairness import parse_record, published, verify_record
from server.rules.playout import play_round
from server.rules.shuffle import SCHEME, commitment, shuffled, stream_block
from server.rules.state import deal_tiles
from server.rules.tiles import face_of

DOC = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text(encoding="utf-8")


def _vectors() -> list[dict[str, Any]]:
    block = DOC.split("## Test vectors", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    vectors: list[dict[str, Any]] = json.loads(block)
    return vectors


def _reference() -> dict[str, Any]:
    """The document's reference implementation, run as written."""
    code = DOC.split("```python\n", 1)[1].split("\n```", 1)[0]
    space: dict[str, Any] = {}
    exec(compile(code, "docs/fairness.md", "exec"), space)  # the document's own code
    return space


REF = _reference()


def test_the_document_has_a_vector_for_each_family() -> None:
    vectors = _vectors()
    assert {(v["family"], v["short_game"]) for v in vectors} == {
        ("A", False),
        ("A", True),
        ("B", False),
    }
    assert all(get_variant(v["variant"]).family.name == v["family"] for v in vectors)


@pytest.mark.parametrize("vector", _vectors(), ids=lambda v: f"{v['variant']}-{v['seed']}")
def test_a_vector_is_what_the_engine_and_the_reference_give(vector: dict[str, Any]) -> None:
    variant = get_variant(vector["variant"])
    options = RoundOptions(short_game=vector["short_game"])
    seed = vector["seed"]
    assert commitment(seed) == vector["commitment"] == REF["commitment"](seed)
    assert stream_block(seed, 0).hex() == vector["block0"]
    ids = variant.family.tile_ids(options.short_game)
    assert shuffled(ids, seed) == vector["order"] == REF["shuffle"](list(ids), seed)
    deal = deal_tiles(variant, vector["players"], seed, vector["first"], options)

    def faces(tiles: Any) -> str:
        return " ".join(variant.family.notation.format(face_of(t)) for t in tiles)

    assert [faces(h) for h in deal.hands] == vector["hands"]
    assert (faces([deal.atu]) if deal.atu is not None else None) == vector["atu"]
    assert faces(deal.stock) == vector["stock"]
    hands, atu, stock = REF["deal"](
        vector["order"],
        vector["players"],
        vector["first"],
        variant.family.hand_sizes(options.short_game),
        variant.family.has_atu,
    )
    assert (hands, atu, stock) == ([list(h) for h in deal.hands], deal.atu, list(deal.stock))
    assert deal.commitment == vector["commitment"]


def test_the_small_vectors() -> None:
    # FIPS 180-2's SHA-256("abc"): the commitment is plain SHA-256 of the seed's UTF-8.
    assert commitment("abc") == ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert shuffled(range(8), "doc") == [4, 0, 3, 6, 5, 2, 1, 7]
    assert "`[4, 0, 3, 6, 5, 2, 1, 7]`" in DOC and SCHEME in DOC
    assert commitment(12) == commitment("12")  # an int seed is its decimal text


def test_the_reference_implementation_agrees_with_the_engine_on_many_seeds() -> None:
    rng = random.Random(20)
    seeds: list[str] = ["", "ș", "a:1", "0" * 32, *(rng.randbytes(16).hex() for _ in range(150))]
    for n, seed in enumerate(seeds):
        ids = rng.sample(range(200), 1 + n % 106)
        assert shuffled(ids, seed) == REF["shuffle"](ids, seed), seed
        assert commitment(seed) == REF["commitment"](seed)
    assert shuffled([], "x") == [] and shuffled([5], "x") == [5]


def test_the_shuffle_spreads_every_order_evenly() -> None:
    """24,000 shuffles of 4 ids: each of the 24 orders about 1,000 times (a wrong bound,
    such as drawing j from the whole list, makes some orders twice as likely)."""
    counts = Counter(tuple(shuffled(range(4), f"spread-{i}")) for i in range(24_000))
    assert len(counts) == 24
    assert all(820 <= c <= 1180 for c in counts.values()), counts
    # Where tile 0 ends up over 106-tile deals: about 1/106 in every position.
    spots = Counter(shuffled(range(106), f"spot-{i}").index(0) for i in range(10_600))
    assert len(spots) == 106 and max(spots.values()) < 170 and min(spots.values()) > 50


# ------------------------------------------------------------------ a finished round

ROUNDS = [(vid, players) for vid in sorted(VARIANTS) for players in (2, 3, 4)]


def _played(vid: str, players: int, k: int = 0) -> tuple[dict[str, Any], Any]:
    family_b = get_variant(vid).family.name == "B"
    options = RoundOptions(joker_button=True, joker_credits=(1,) * players) if family_b else None
    seed = random.Random(f"{vid}/{players}/{k}").randbytes(16).hex()
    state = new_round(vid, players, seed, first=(k + players) % players, options=options)
    play_round(state, random.Random(k))
    assert state.over
    record = json.loads(json.dumps(published(state, seed)))  # as it travels
    return record, state


def _failed(record: dict[str, Any]) -> list[str]:
    return [c.name for c in verify_record(record) if not c.ok]


@pytest.mark.parametrize(("vid", "players"), ROUNDS)
def test_a_true_round_passes_every_check(vid: str, players: int) -> None:
    record, state = _played(vid, players)
    checks = verify_record(record)
    assert [(c.name, c.ok) for c in checks] == [
        ("commitment", True),
        ("deal", True),
        ("log", True),
        ("result", True),
    ]
    assert record["result"]["scores"] == state.result.scores
    assert record["commitment"] == commitment(record["seed"])


def _swap_hand_tiles(r: dict[str, Any]) -> None:
    a, b = r["deal"]["hands"][0], r["deal"]["hands"][1]
    a[0], b[0] = b[0], a[0]


def _swap_stock(r: dict[str, Any]) -> None:
    stock = r["deal"]["stock"]
    stock[0], stock[-1] = stock[-1], stock[0]


def _other_discard(r: dict[str, Any]) -> None:
    """The first discard names a tile of another seat's hand instead."""
    other = r["deal"]["hands"][(r["first"] + 1) % r["players"]]
    for _, action in r["actions"]:
        if action["do"] == "discard":
            action["tile"] = other[0]
            return


def _breakdown(r: dict[str, Any]) -> None:
    r["result"]["breakdown"][0]["hand"] += 5


def _scores(r: dict[str, Any]) -> None:
    r["result"]["scores"][0] += 5


TAMPERING: list[tuple[str, Callable[[dict[str, Any]], None], set[str]]] = [
    # what is changed, how, which checks must fail (at least)
    (
        "seed",
        lambda r: r.update(seed=r["seed"][:-1] + ("0" if r["seed"][-1] != "0" else "1")),
        {"commitment", "deal"},
    ),
    ("commitment", lambda r: r.update(commitment=commitment("another seed")), {"commitment"}),
    ("hands", _swap_hand_tiles, {"deal"}),
    ("stock", _swap_stock, {"deal"}),
    (
        "atu or first seat",
        lambda r: r["deal"].update(first=(r["first"] + 1) % r["players"]),
        {"deal"},
    ),
    ("an action", _other_discard, {"log"}),
    ("the last action", lambda r: r["actions"].pop(), {"log", "result"}),
    ("the result", _scores, {"result"}),
    ("a seat's points", _breakdown, {"result"}),
]


@pytest.mark.parametrize(
    ("vid", "players"),
    [("remi45", 3), ("etalat", 2), ("remi101", 4), ("remi101-rising", 3), ("remi", 4)],
)
@pytest.mark.parametrize(("what", "tamper", "fails"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_a_tampered_record_is_detected(
    vid: str, players: int, what: str, tamper: Callable[[dict[str, Any]], None], fails: set[str]
) -> None:
    record, _ = _played(vid, players, 1)
    assert _failed(record) == []
    bad = copy.deepcopy(record)
    tamper(bad)
    assert bad != record
    failed = set(_failed(bad))
    assert fails <= failed, f"{what}: {failed}"
    if what == "commitment":
        assert failed == {"commitment"}  # the rest still holds: only the promise is broken


def test_a_record_without_commitment_or_seed() -> None:
    record, _ = _played("remi", 2)
    legacy = {**record, "commitment": None}
    [commit, *rest] = verify_record(legacy)
    assert not commit.ok and "without a commitment" in commit.detail
    assert all(c.ok for c in rest)
    with pytest.raises(ValueError, match="no seed"):
        parse_record({**record, "seed": None})


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"variant": "nope"},
        {"variant": "remi", "players": "2"},
        {
            "variant": "remi",
            "players": 2,
            "first": 0,
            "seed": "x",
            "options": {},
            "deal": {},
            "actions": [],
        },
        {
            "variant": "remi",
            "players": 2,
            "first": 0,
            "seed": "x",
            "options": {},
            "deal": {"first": 0, "hands": [], "stock": []},
            "actions": [[0]],
        },
    ],
)
def test_a_malformed_record_is_a_clear_error(bad: Any) -> None:
    with pytest.raises(ValueError, match=re.compile("record|variant", re.I)):
        verify_record(bad)


def test_a_record_for_an_impossible_table_fails_without_raising() -> None:
    record, _ = _played("remi45", 2)
    checks = verify_record({**record, "players": 7})
    assert [c.ok for c in checks] == [True, False, False, False]
