"""Property tests: random legal play of whole rounds in every variant.

Every round is played by :mod:`server.rules.playout` (plus some random junk
actions the engine may accept or refuse). After every action the test checks:

- every tile is in exactly one place (106 or 54 ids, plus joker-button jokers);
- hand sizes, stock and row follow from the action applied (A.2, A.3, A.9, B.1, B.4);
- no view (each seat's, the spectator's) holds a tile id of another seat's
  hand or of the stock, nor the seed (§D);
- an illegal action raises :class:`RuleError` and changes nothing (§C);

and at the end that ``replay(deal, log)`` rebuilds the same round and that the
scores match a recomputation written here from RULES.md A.16 / B.11–B.12
(the engine's scoring code is not called).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import (
    Deal,
    RoundOptions,
    RoundState,
    RuleError,
    new_round,
    replay,
    spectator_view,
    view_for,
)
from server.rules.playout import random_action

FAMILY_A = ("remi", "remi45", "remi51", "etalat", "etalat51")
FAMILY_B = ("remi101", "remi101-rising")
JOKER_MIN_ID = 104

# (variant, players, short game): every variant with 2, 3, 4 players, and the short game.
TABLES = [(v, p, False) for v in FAMILY_A + FAMILY_B for p in (2, 3, 4)] + [
    (v, 2, True) for v in FAMILY_A
]

SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------- helpers
def fingerprint(state: RoundState) -> str:
    """Everything that may change in a round (the rules and the deal never do)."""
    fixed = {"variant", "family", "options", "deal", "_result"}  # _result: a cache
    return repr(sorted((k, v) for k, v in vars(state).items() if k not in fixed))


def meld_tiles(melds: Sequence[Any]) -> list[int]:
    out: list[int] = []
    for m in melds:
        out.extend(m["tiles"] if isinstance(m, Mapping) else m)
    return out


def everywhere(state: RoundState) -> list[int]:
    """Every tile id in every place, duplicates kept."""
    tiles = [t for h in state.hands for t in h] + list(state.stock) + list(state.row)
    tiles += [t for m in state.table for t in m.tiles]
    if state.atu is not None and state.atu_taken_by is None:
        tiles.append(state.atu)
    return tiles


def check_tiles(state: RoundState, expected: set[int]) -> None:
    tiles = everywhere(state)
    assert len(tiles) == len(set(tiles)), "a tile is in two places"
    assert set(tiles) == expected
    assert set(state.tile_locations()) == expected


# Integers of a view that are not tile ids (counts, seats, ranks, scores).
SCALAR_NOT_TILE = {
    "players",
    "seat",
    "first",
    "turn",
    "row_offset",
    "row_length",
    "row_depth",
    "stock_count",
    "tiles",
    "credits",
    "low",
    "suit",
    "atu_taken_by",
    "last_points_opening",
    "last_doubles_opening",
    "joker_credits",
    "out",
    "total",
    "laid",
    "hand",
    "bonus",
    "atu_pair",
    "multiplier",
    "doublings",
}
LIST_NOT_TILE = {"owners", "scores", "row_by", "stands_for"}  # seats, faces (not ids)


def view_tile_ids(
    node: Any, key: str | None = None, out: set[int] | None = None, in_list: bool = False
) -> set[int]:
    """Every integer of a JSON view that could be a tile id (any list element counts)."""
    out = set() if out is None else out
    if isinstance(node, dict):
        for k, v in node.items():
            view_tile_ids(v, k, out)
    elif isinstance(node, list):
        if key in LIST_NOT_TILE:
            return out
        for v in node:
            view_tile_ids(v, key, out, in_list=True)
    elif (
        isinstance(node, int)
        and not isinstance(node, bool)
        and (in_list or key not in SCALAR_NOT_TILE)
    ):
        out.add(node)
    return out


def check_views(state: RoundState, seed: str) -> None:
    public_jokers = set(state.consumed)  # bought back in front of everybody
    for seat in [*range(state.players), None]:
        view = view_for(state, seat) if seat is not None else spectator_view(state)
        text = json.dumps(view.to_dict())
        assert seed not in text
        if state.over:
            continue
        hidden = set(state.stock)
        for other in range(state.players):
            if other != seat:
                hidden.update(state.hands[other])
        hidden -= public_jokers
        leaked = view_tile_ids(json.loads(text)) & hidden
        assert not leaked, f"view of {seat} shows hidden tiles {leaked}"
        if seat is not None:
            assert view.hand == state.hands[seat]
        assert [s.tiles for s in view.seats] == [len(h) for h in state.hands]
        assert len(view.row_by) == len(view.row) and None not in view.row_by


def check_sizes(
    before: Mapping[str, Any], state: RoundState, seat: int, action: Mapping[str, Any]
) -> None:
    """Hand, stock and row sizes follow from the action applied."""
    hands = list(before["hands"])
    stock, row = before["stock"], before["row"]
    do = action["do"]
    if do == "draw":
        if stock:
            hands[seat] += 1
            stock -= 1
        else:
            assert state.over and state.out is None
    elif do == "discard":
        hands[seat] -= 1
        row += 1
    elif do == "lay":
        hands[seat] -= len(meld_tiles(action["melds"])) - (1 if action.get("atu") else 0)
    elif do == "take_row":
        coming = row - action["index"]
        hands[seat] += coming - len(meld_tiles(action["melds"]))
        row -= coming
    elif do == "layoff":
        hands[seat] -= 1
    elif do == "buy_joker":
        pass
    elif do == "take_discard":
        hands[seat] += 1 - len(meld_tiles(action.get("melds", []))) - len(action.get("layoffs", []))
        row -= 1
    elif do == "joker_button":
        hands[seat] += 1
    else:  # pragma: no cover
        raise AssertionError(do)
    assert [len(h) for h in state.hands] == hands
    assert (len(state.stock), len(state.row)) == (stock, row)
    if not state.over:
        assert all(len(h) >= 1 for h in state.hands)  # A.13
    if do == "discard" and not state.over:
        assert (state.turn, state.phase) == ((seat + 1) % state.players, "take")


def sizes(state: RoundState) -> dict[str, Any]:
    return {
        "hands": [len(h) for h in state.hands],
        "stock": len(state.stock),
        "row": len(state.row),
    }


# ------------------------------------------------------- illegal actions
def illegal_actions(state: RoundState, rng: random.Random) -> list[tuple[int, Any]]:
    """(seat, action) pairs that no rule allows."""
    turn = state.turn
    own = state.hands[turn]
    foreign = [t for s, h in enumerate(state.hands) if s != turn for t in h] + list(state.stock)
    alien = rng.choice(foreign) if foreign else 999
    tile = rng.choice(own)
    out: list[tuple[int, Any]] = [
        ((turn + rng.randrange(1, state.players)) % state.players, random_action(state, rng)),
        (state.players, {"do": "draw"}),
        (turn, {"do": "fly"}),
        (turn, {"do": "discard", "tile": -1}),
        (turn, {"do": "lay", "melds": []}),
        (turn, {"do": "lay", "melds": [[tile, tile, tile]]}),
        (turn, {"do": "discard", "tile": alien}),
        (turn, {"do": "lay", "melds": [[alien, *own[:2]]]}),
        (turn, {"do": "layoff", "tile": alien, "meld": 0}),
        (turn, {"do": "buy_joker", "tile": alien, "meld": 0}),
        (turn, {"do": "discard", "tile": 999}),
        (turn, {"do": "take_row", "index": len(state.row) + 1, "melds": [[tile]]}),
    ]
    if state.phase == "take":
        out.append((turn, {"do": "discard", "tile": tile}))  # wrong phase
    else:
        out.append((turn, {"do": "draw"}))
        out.append((turn, {"do": "take_discard", "melds": [[tile]]}))
    return out


def junk_action(state: RoundState, rng: random.Random) -> dict[str, Any]:
    """A random action from the seat's own tiles: the engine may accept it or not."""
    hand = state.hands[state.turn]
    pick = rng.random()
    n_melds = len(state.table)

    def some() -> list[int]:
        return rng.sample(hand, min(len(hand), rng.randint(2, 5)))

    def meld() -> Any:
        tiles = some()
        return (
            {"kind": rng.choice(["set", "run", "double"]), "tiles": tiles}
            if rng.random() < 0.5
            else tiles
        )

    if pick < 0.2:
        return {"do": "lay", "melds": [meld() for _ in range(rng.randint(1, 3))]}
    if pick < 0.4:
        action = {"do": "layoff", "tile": rng.choice(hand), "meld": rng.randrange(n_melds + 1)}
        if rng.random() < 0.3:
            action["end"] = rng.choice(["low", "high"])
        return action
    if pick < 0.5:
        return {"do": "buy_joker", "tile": rng.choice(hand), "meld": rng.randrange(n_melds + 1)}
    if pick < 0.65:
        return {"do": "take_row", "index": rng.randrange(len(state.row) + 1), "melds": [meld()]}
    if pick < 0.8:
        pool = [*hand, *state.row[-1:]]
        return {"do": "take_discard", "melds": [{"tiles": rng.sample(pool, min(3, len(pool)))}]}
    if pick < 0.9:
        return {"do": "discard", "tile": rng.choice(hand)}
    return {"do": rng.choice(["draw", "joker_button"])}


# ------------------------------------------------ independent scoring
def a_table_value(kind: str, rank: int) -> int:
    """A.6 on the table; ``rank`` 14 is the ace high."""
    if rank == 1:
        return 25 if kind == "set" else 5
    if rank == 14:
        return 10
    return 5 if rank <= 9 else 10


def a_hand_value(tile: int) -> int:
    """A.6 in hand: joker 50, ace 25, 2..9 = 5, T..K = 10."""
    if tile >= JOKER_MIN_ID:
        return 50
    rank = tile % 52 % 13 + 1
    return 25 if rank == 1 else (5 if rank <= 9 else 10)


def b_hand_value(tile: int) -> int:
    """B.5: the number, a joker 101."""
    return 101 if tile >= JOKER_MIN_ID else tile % 52 % 13 + 1


def position_ranks(kind: str, tiles: Sequence[int], ace_high: bool) -> list[int]:
    """The rank every position of a table meld stands for, read from its tiles."""
    naturals = [(i, t % 52 % 13 + 1) for i, t in enumerate(tiles) if t < JOKER_MIN_ID]
    i, rank = naturals[0]
    if kind != "run":
        return [rank] * len(tiles)
    if ace_high and rank == 1 and i > 0:
        rank = 14  # an ace after another position can only be high (A.5)
    return [rank - i + k for k in range(len(tiles))]


def turns(log: Sequence[tuple[int, Mapping[str, Any]]]) -> list[tuple[int, int]]:
    """(seat, index of the turn's first action), one per turn."""
    out: list[tuple[int, int]] = []
    for i, (seat, _) in enumerate(log):
        if not out or out[-1][0] != seat:
            out.append((seat, i))
    return out


def openings(log: Sequence[tuple[int, Mapping[str, Any]]]) -> dict[int, tuple[int, str]]:
    """seat -> (index of its opening action, "doubles" | "points")."""
    out: dict[int, tuple[int, str]] = {}
    for i, (seat, action) in enumerate(log):
        melds = action.get("melds") or []
        if seat in out or action["do"] not in ("lay", "take_row", "take_discard") or not melds:
            continue
        sizes_ = [len(meld_tiles([m])) for m in melds]
        out[seat] = (i, "doubles" if all(n == 2 for n in sizes_) else "points")
    return out


def expected_scores(
    state: RoundState, log: Sequence[tuple[int, Mapping[str, Any]]], etalat: bool
) -> tuple[str, int | None, str | None, list[int]]:
    """(reason, out, closing, scores) from the final state, per A.16 / B.11–B.12."""
    last_seat, last = log[-1]
    went_out = last["do"] == "discard" and not state.hands[last_seat]
    out = last_seat if went_out else None
    reason = "out" if went_out else "stock"
    if not went_out:
        assert last["do"] == "draw" and not state.stock
    opened = openings(log)
    last_turn_start = turns(log)[-1][1]
    joker_last = went_out and last["tile"] >= JOKER_MIN_ID
    players = state.players
    if state.family.has_atu:  # family A
        credits = [0] * players
        for m in state.table:
            for owner, rank in zip(m.owners, position_ranks(m.kind, m.tiles, True), strict=True):
                credits[owner] += a_table_value(m.kind, rank)
        atu = state.deal.atu
        assert atu is not None
        atu_face = 52 if atu >= JOKER_MIN_ID else atu % 52
        atu_doubles = atu_face == 52 or atu_face % 13 == 0
        scores = []
        for seat in range(players):
            hand = sum(a_hand_value(t) for t in state.hands[seat])
            if seat == out:
                laid_joker = any(
                    t >= JOKER_MIN_ID
                    for _, a in log[last_turn_start:]
                    if a["do"] in ("lay", "take_row")
                    for t in meld_tiles(a["melds"])
                )
                bonus = 100 if etalat or laid_joker or joker_last else 50
                total = credits[seat] + bonus
            elif seat in opened:
                total = credits[seat] - hand
            else:
                total = -100
            dealt_pair = any(
                (52 if t >= JOKER_MIN_ID else t % 52) == atu_face for t in state.deal.hands[seat]
            )
            if dealt_pair and (seat == out or seat in opened):
                total += 50
            if etalat and seat == out and joker_last:
                total *= 2
            if atu_doubles:
                total *= 2
            scores.append(total)
        return reason, out, None, scores
    # family B
    closing = None
    multiplier = 1
    if went_out:
        from_hand = not any(i < last_turn_start for i, _ in opened.values())
        closing = (
            ("hand_joker" if joker_last else "hand")
            if from_hand
            else ("joker" if joker_last else "normal")
        )
        multiplier = {"normal": 1, "joker": 2, "hand": 2, "hand_joker": 4}[closing]
    scores = []
    for seat in range(players):
        if seat == out:
            scores.append(101 * multiplier)
            continue
        hand = sum(b_hand_value(t) for t in state.hands[seat])
        if seat not in opened:
            penalty = 202
        elif opened[seat][1] == "doubles":
            penalty = 2 * hand
        else:
            penalty = hand
        scores.append(-penalty * multiplier)
    return reason, out, closing, scores


# --------------------------------------------------------------- the test
def play_and_check(
    variant: str,
    players: int,
    short: bool,
    seed: int,
    play_seed: int,
    depth: int | None,
    credits: Sequence[int] | None,
) -> RoundState:
    rng = random.Random(play_seed)
    seed_text = f"prop-seed-{seed:012x}"
    family_b = variant in FAMILY_B
    options = RoundOptions(
        row_depth=None if family_b else depth,
        short_game=short,
        joker_button=credits is not None,
        joker_credits=tuple(credits[:players]) if credits is not None else None,
    )
    state = new_round(variant, players, seed_text, first=seed % players, options=options)
    big, small = (22, 21) if family_b else ((11, 10) if short else (15, 14))
    assert [len(h) for h in state.hands] == [
        big if s == state.first else small for s in range(players)
    ]
    expected = set(range(52)) | {104, 105} if short else set(range(106))
    check_tiles(state, expected)
    check_views(state, seed_text)
    applied: list[tuple[int, dict[str, Any]]] = []
    steps = 0
    while not state.over:
        steps += 1
        assert steps < 3000, "the round does not end"
        if rng.random() < 0.25:
            illegal = rng.choice(illegal_actions(state, rng))
            fp = fingerprint(state)
            with pytest.raises(RuleError):
                state.apply(*illegal)
            assert fingerprint(state) == fp, f"refused {illegal} changed the state"
        junk = rng.random() < 0.15
        seat = state.turn
        action = junk_action(state, rng) if junk else random_action(state, rng)
        before = sizes(state)
        hand_before = set(state.hands[seat])
        fp = fingerprint(state)
        try:
            state.apply(seat, action)
        except RuleError as err:
            assert junk, f"the playout made an illegal action {action}: {err}"
            assert fingerprint(state) == fp, f"refused {action} changed the state"
            continue
        applied.append((seat, action))
        check_sizes(before, state, seat, action)
        if action["do"] == "joker_button":
            new = set(state.hands[seat]) - hand_before
            assert len(new) == 1 and min(new) >= 106
            expected |= new
        check_tiles(state, expected)
        check_views(state, seed_text)
    # replay from the JSON deal and log gives the same round
    deal = Deal.from_dict(json.loads(json.dumps(state.deal.to_dict())))
    again = replay(variant, players, deal, options, json.loads(json.dumps(state.log)))
    assert fingerprint(again) == fingerprint(state)
    # scoring, recomputed here
    result = state.result
    assert result is not None
    reason, out, closing, scores = expected_scores(state, applied, variant.startswith("etalat"))
    assert (result.reason, result.out, result.closing, result.scores) == (
        reason,
        out,
        closing,
        scores,
    )
    assert again.result is not None and again.result.scores == scores
    return state


@pytest.mark.parametrize(
    ("variant", "players", "short"),
    TABLES,
    ids=[f"{v}-{p}p{'-short' if s else ''}" for v, p, s in TABLES],
)
@SETTINGS
@given(
    seed=st.integers(0, 2**40),
    play_seed=st.integers(0, 2**32),
    depth=st.one_of(st.none(), st.integers(1, 6)),
    credits=st.one_of(st.none(), st.lists(st.integers(0, 2), min_size=4, max_size=4)),
)
def test_random_rounds(
    variant: str,
    players: int,
    short: bool,
    seed: int,
    play_seed: int,
    depth: int | None,
    credits: list[int] | None,
) -> None:
    play_and_check(
        variant, players, short, seed, play_seed, depth, credits if variant in FAMILY_B else None
    )


def test_playout_covers_the_rules() -> None:
    """The random play reaches every kind of action and ending (a sanity check)."""
    seen: set[str] = set()
    endings: set[tuple[str, str | None]] = set()
    for i in range(40):
        for variant in ("remi", "etalat", "remi101"):
            credits = (1, 1, 1, 1) if variant == "remi101" else None
            state = new_round(
                variant,
                4,
                i,
                options=RoundOptions(joker_button=credits is not None, joker_credits=credits),
            )
            rng = random.Random(i)
            while not state.over:
                action = random_action(state, rng)
                if action["do"] == "take_row":
                    seen.add(
                        "take_row_deep" if action["index"] < len(state.row) - 1 else "take_row_top"
                    )
                if action.get("atu"):
                    seen.add("atu")
                if action.get("layoffs"):
                    seen.add("take_discard_layoff")
                state.apply(state.turn, action)
                seen.add(action["do"])
            assert state.result is not None
            endings.add((state.result.reason, state.result.closing))
    assert seen >= {
        "draw",
        "discard",
        "lay",
        "take_row_top",
        "take_row_deep",
        "layoff",
        "buy_joker",
        "take_discard",
        "take_discard_layoff",
        "joker_button",
        "atu",
    }
    assert endings >= {("out", None), ("stock", None), ("out", "normal")}
