"""The meld solver: valid melds only, the opening rules, the atu, jokers, doubles."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from server.bots.solver import solve, spec_for, to_ids
from server.rules.errors import RuleError
from server.rules.melds import DOUBLE, RUN, SET, TableMeld, meld_value, read_meld
from server.rules.tiles import B_FACES, FAMILY_A_FACES, JOKER, face_of
from server.rules.variants import get_variant


def faces(text: str, family_b: bool = False) -> list[int]:
    notation = B_FACES if family_b else FAMILY_A_FACES
    return [notation.parse(t) for t in text.split()]


def ids_for(fs: list[int]) -> list[int]:
    """Distinct tile ids for faces (first copy, then second; jokers 104, 105, 106...)."""
    used: Counter[int] = Counter()
    out = []
    jokers = 104
    for f in fs:
        if f == JOKER:
            out.append(jokers)
            jokers += 1
        else:
            out.append(f + 52 * used[f])
            used[f] += 1
    return out


def test_opening_needs_threshold_and_run() -> None:
    v = get_variant("remi51")
    hand = faces("QS QD QC KS KD KC 2H 3H 4H 9C")
    sol = solve(hand, spec_for(v, opened=False))
    assert sol.value >= 51 and any(m.kind == RUN for m in sol.melds)
    no_run = faces("QS QD QC KS KD KC 2H 3H 9C 9D")
    assert solve(no_run, spec_for(v, opened=False)).melds == []
    assert solve(no_run, spec_for(v, opened=True)).melds  # once opened, sets alone are fine


def test_remi_needs_only_a_run() -> None:
    sol = solve(faces("2H 3H 4H 9C KD"), spec_for(get_variant("remi"), opened=False))
    assert [m.kind for m in sol.melds] == [RUN]


def test_keeps_one_tile_to_discard() -> None:
    sol = solve(faces("2H 3H 4H 5S 5D 5C"), spec_for(get_variant("remi"), opened=True))
    assert len(sol.left) == 3 and len(sol.melds) == 1  # both melds would empty the hand
    sol = solve(faces("2H 3H 4H 5S 5D 5C 9C"), spec_for(get_variant("remi"), opened=True))
    assert sol.left == faces("9C") and sol.going_out


def test_atu_only_when_going_out() -> None:
    v = get_variant("remi45")
    hand = faces("TH JH QH KS KD 4C")  # KS KD + the atu KC makes a set; 4C is discarded
    atu = FAMILY_A_FACES.parse("KC")
    sol = solve(hand, spec_for(v, opened=True, atu_face=atu, out_bonus=50.0))
    assert sol.atu_used and sol.going_out and sol.left == [FAMILY_A_FACES.parse("4C")]
    plan = to_ids(sol, ids_for(hand), v.meld_rules, atu_id=atu + 52)
    assert plan is not None and any(atu + 52 in tiles for _, tiles in plan.melds)
    # Without going out the atu stays where it is.
    hand2 = faces("TH JH QH KS KD 4C 9D")
    sol2 = solve(hand2, spec_for(v, opened=True, atu_face=atu, out_bonus=50.0))
    assert not sol2.atu_used


def test_etalat_one_joker_per_meld() -> None:
    hand = faces("5H JK JK 9S 9D 2C")
    for vid, most in (("etalat", 1), ("remi45", 2)):
        sol = solve(hand, spec_for(get_variant(vid), opened=True))
        for m in sol.melds:
            assert m.faces.count(JOKER) <= most


def test_forced_tile_goes_into_a_new_meld() -> None:
    v = get_variant("remi45")
    hand = faces("7H 8H 9S 9D 9C 4S")
    forced = FAMILY_A_FACES.parse("9H")
    sol = solve([*hand, forced], spec_for(v, opened=True, forced_face=forced))
    assert any(forced in m.faces for m in sol.melds)
    impossible = solve([*faces("2C 5D KS"), forced], spec_for(v, opened=True, forced_face=forced))
    assert impossible.gain == float("-inf")


def test_layoffs_onto_the_table() -> None:
    v = get_variant("remi45")
    run = TableMeld(RUN, ids_for(faces("5H 6H 7H")), [1, 1, 1], 5, 1)
    st = TableMeld(SET, ids_for(faces("9S 9D 9C")), [2, 2, 2], 9, -1)
    hand = faces("3H 4H 8H 9H 9H KC")
    sol = solve(hand, spec_for(v, opened=True, table=[run, st], layoffs=True))
    laid = sorted(f for m in sol.layoffs for f in m.faces)
    assert laid == sorted(faces("3H 4H 8H 9H 9H"))
    plan = to_ids(sol, ids_for(hand), v.meld_rules, table=[run, st])
    assert plan is not None and len(plan.layoffs) == 5


def test_family_b_doubles_opening() -> None:
    v = get_variant("remi101")
    hand = faces("1R 1R 2B 2B 3K 3K 4Y 4Y 5R JK 9B 12K", family_b=True)
    sol = solve(
        hand,
        spec_for(
            v, opened=False, kinds=frozenset({DOUBLE}), opening_kind="doubles", doubles_needed=5
        ),
    )
    assert len(sol.melds) == 5 and all(m.kind == DOUBLE for m in sol.melds)
    sol6 = solve(
        hand,
        spec_for(
            v, opened=False, kinds=frozenset({DOUBLE}), opening_kind="doubles", doubles_needed=6
        ),
    )
    assert sol6.melds == []


def test_family_b_points_opening() -> None:
    v = get_variant("remi101")
    hand = faces("13R 13B 13K 12R 12B 12K 11Y 12Y 13Y 2R 5K", family_b=True)
    sol = solve(hand, spec_for(v, opened=False, threshold=101))
    assert sol.value >= 101
    assert solve(hand, spec_for(v, opened=False, threshold=120)).melds == []


@pytest.mark.parametrize("vid", ["remi", "remi45", "etalat51", "remi101"])
def test_random_hands_give_valid_melds(vid: str) -> None:
    v = get_variant(vid)
    family_b = not v.family.has_atu
    rng = random.Random(vid)
    for _ in range(150):
        tiles = rng.sample(range(106), 22 if family_b else 15)
        hand = [face_of(t) for t in tiles]
        opened = rng.random() < 0.5
        spec = spec_for(v, opened=opened)
        if family_b and not opened and rng.random() < 0.5:
            spec = spec_for(
                v, opened=False, kinds=frozenset({DOUBLE}), opening_kind="doubles", doubles_needed=5
            )
        sol = solve(hand, spec)
        plan = to_ids(sol, tiles, v.meld_rules)
        assert plan is not None
        laid = [t for _, ts in plan.melds for t in ts]
        assert sorted(laid + plan.left) == sorted(tiles)
        assert len(plan.left) >= 1
        shapes = []
        for kind, ts in plan.melds:
            try:
                shape = read_meld(ts, kind, v.meld_rules)
            except RuleError as err:  # pragma: no cover - the assertion says it
                raise AssertionError(f"{ts}: {err}") from err
            shapes.append(shape)
        assert sum(meld_value(s, v.meld_rules) for s in shapes) == sol.value
        if shapes and not opened:
            v.family.check_opening(_Ctx(v), 0, shapes)


class _Ctx:
    def __init__(self, variant: object) -> None:
        self.variant = variant
        self.opened_with: list[str | None] = [None, None]
        self.last_points_opening = None
        self.last_doubles_opening = None


def test_table_fit_faces_match_fits_table() -> None:
    """The per-table set of lay-off faces agrees with the per-meld check, both run tops."""
    from server.bots.knowledge import table_fit_faces
    from server.bots.planner import fits_table
    from server.rules.tiles import make_face

    rng = random.Random(7)
    for _ in range(300):
        table = []
        for _ in range(rng.randint(0, 6)):
            if rng.random() < 0.5:
                n = rng.randint(3, 13)
                low = rng.randint(1, 15 - n)
                suit = rng.randrange(4)
                tiles = [make_face(1 if r == 14 else r, suit) for r in range(low, low + n)]
                table.append(TableMeld(RUN, tiles, [0] * n, low, suit))
            else:
                rank = rng.randint(1, 13)
                suits = rng.sample(range(4), rng.randint(2, 4))
                tiles = [make_face(rank, s) for s in suits]
                if len(tiles) < 4 and rng.random() < 0.5:
                    tiles.append(104)
                table.append(TableMeld(SET, tiles, [0] * len(tiles), rank, -1))
        for top in (13, 14):
            want = {f for f in range(52) if any(fits_table(m, f, top) for m in table)}
            assert table_fit_faces(table, top) == want


def test_run_windows_are_those_the_hand_can_fill() -> None:
    """build_windows lists exactly the run windows with a tile held and at most as many
    gaps as jokers (the per-suit bit masks against a plain count)."""
    from server.bots.solver import _run_windows, build_windows

    rng = random.Random(11)
    for vid in ("remi", "etalat", "remi101"):
        v = get_variant(vid)
        rules = v.meld_rules
        spec = spec_for(v, opened=True, kinds=frozenset({RUN}), layoffs=False)
        for _ in range(200):
            counts = [0] * 53
            for f in rng.sample(range(52), rng.randint(1, 20)):
                counts[f] = rng.randint(1, 2)
            counts[JOKER] = rng.randint(0, 2)
            maxj = (
                counts[JOKER] if rules.max_jokers is None else min(counts[JOKER], rules.max_jokers)
            )
            want = []
            for per_suit in _run_windows(rules):
                for _, _, w in per_suit:
                    held = sum(1 for f in w.slots if counts[f] > 0)
                    if held and len(w.slots) - held <= maxj:
                        want.append(w)
            got = [w for w in build_windows(counts, spec) if w.kind == RUN]
            assert sorted(got, key=repr) == sorted(want, key=repr)
