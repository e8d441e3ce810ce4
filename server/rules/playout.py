"""Random legal play of whole rounds, from the FULL state (an engine test and bench tool).

This is not a bot: it looks at every hand and the stock order is irrelevant
to it, but it does read the whole state. :func:`random_action` returns an
action for ``state.turn`` that the engine accepts, with a realistic mix:
draws, breaking the row (family A, at the top and deeper) or taking the
discard (family B), openings and later melds found greedily in the hand
(sets, runs with jokers, doubles in B), lay-offs, joker buy-backs, the atu
when going out, the joker button (B.9) and discards. Candidate melds are
checked with the engine's own :func:`~server.rules.melds.read_meld` and the
family's opening rules, so nothing is applied to try it.

:func:`play_round` plays a round to its end (the stock runs out at the
latest, A.15/B.13). It never uses the global random: pass a
:class:`random.Random`.

>>> import random
>>> from server.rules.state import new_round
>>> s = new_round("remi45", players=3, seed=11)
>>> stats = play_round(s, random.Random(1))
>>> s.over, stats.fallbacks, stats.actions == len(s.log)
(True, 0, True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.rules.errors import RuleError
from server.rules.melds import DOUBLE, RUN, SET, MeldRules, MeldShape, fit_layoff, read_meld
from server.rules.state import TAKE, RoundState
from server.rules.tiles import JOKER, face_of, make_face

Pattern = tuple[int, str, tuple[int, ...]]  # (estimated value, kind, faces; JOKER = any joker)

# How often a seat does what it could do (a realistic mix, not a strategy).
P_TAKE_TOP = 0.6  # take the row's top / the discard when a meld with it exists
P_TAKE_DEEP = 0.5  # family A: reach below the top when opened
P_JOKER_BUTTON = 0.3  # family B, when available
P_OPEN = 0.85
P_LAY = 0.75
P_LAYOFF = 0.7
P_BUY = 0.6
P_PLAIN_LIST = 0.5  # write a joker-free meld as a plain list (kind inferred)
P_KEEP_JOKER = 0.9  # prefer discarding a natural tile


@dataclass
class PlayStats:
    """What :func:`play_round` did."""

    actions: int = 0
    fallbacks: int = 0  # generated actions the engine refused (a playout bug; 0 expected)
    kinds: Counter[str] = field(default_factory=Counter)


# ------------------------------------------------------------------ pools
def _face(rank: int, suit: int) -> int:
    """The face of a run position (rank 14 is the ace high)."""
    return make_face(1 if rank == 14 else rank, suit)


def _index(tiles: Sequence[int]) -> tuple[dict[int, list[int]], list[int]]:
    """Naturals by face, and the jokers."""
    by_face: dict[int, list[int]] = {}
    jokers: list[int] = []
    for t in tiles:
        if t >= 104:
            jokers.append(t)
        else:
            f = t % 52
            lst = by_face.get(f)
            if lst is None:
                by_face[f] = [t]
            else:
                lst.append(t)
    return by_face, jokers


_RUN_SUMS: dict[MeldRules, list[int]] = {}


def _run_sums(rules: MeldRules) -> list[int]:
    """Prefix sums of run position values: a run low..high is worth s[high] - s[low - 1]."""
    sums = _RUN_SUMS.get(rules)
    if sums is None:
        sums = [0]
        for r in range(1, 15):
            sums.append(sums[-1] + rules.position_value(RUN, r))
        _RUN_SUMS[rules] = sums
    return sums


def _patterns(
    by_face: dict[int, list[int]], jokers: int, rules: MeldRules, kinds: tuple[str, ...]
) -> list[Pattern]:
    """Candidate melds (by face) the pool can make; greedy selection assigns ids."""
    out: list[Pattern] = []
    value = rules.position_value
    sums = _run_sums(rules)
    max_j = rules.max_jokers
    joker_ok = jokers > 0 and (max_j is None or max_j >= 1)
    if RUN in kinds:
        top = rules.top_rank
        for suit in range(4):
            base = suit * 13 - 1
            present = [False] * (top + 2)
            for r in range(1, 14):
                if base + r in by_face:
                    present[r] = True
            if top == 14:
                present[14] = present[1]
            segs: list[tuple[int, int]] = []
            r = 1
            while r <= top:
                if present[r]:
                    s = r
                    while r < top and present[r + 1]:
                        r += 1
                    segs.append((s, r))
                r += 1
            for a, b in segs:
                if b - a >= 2:
                    if b - a >= 13:  # A..K..A: a run never holds a rank twice
                        a += 1
                    faces = tuple(_face(x, suit) for x in range(a, b + 1))
                    out.append((sums[b] - sums[a - 1], RUN, faces))
                    if b - a >= 4:  # also a short piece, leaving tiles for later
                        out.append((sums[a + 2] - sums[a - 1], RUN, faces[:3]))
            if joker_ok:
                for i, (a, b) in enumerate(segs):
                    if b - a == 1:  # a pair of neighbours and a joker at one end
                        if b + 1 <= top:
                            lo, faces = a, (_face(a, suit), _face(b, suit), JOKER)
                        elif a - 1 >= 1:
                            lo, faces = a - 1, (JOKER, _face(a, suit), _face(b, suit))
                        else:
                            continue
                        out.append((sums[lo + 2] - sums[lo - 1], RUN, faces))
                    if i + 1 < len(segs) and segs[i + 1][0] == b + 2:  # a one-rank gap
                        b2 = segs[i + 1][1]
                        start = max(a, b2 - 12)
                        if b2 - start >= 2:
                            faces = tuple(
                                JOKER if x == b + 1 else _face(x, suit)
                                for x in range(start, b2 + 1)
                            )
                            out.append((sums[b2] - sums[start - 1], RUN, faces))
                if jokers >= 2 and (max_j is None or max_j >= 2):
                    for a, b in segs:
                        if a == b and a + 2 <= min(top, 13):  # one natural and two jokers
                            out.append(
                                (sums[a + 2] - sums[a - 1], RUN, (make_face(a, suit), JOKER, JOKER))
                            )
    if SET in kinds:
        for rank in range(1, 14):
            faces = tuple(f for f in (rank - 1, rank + 12, rank + 25, rank + 38) if f in by_face)
            if len(faces) >= 3:
                out.append((value(SET, rank) * len(faces), SET, faces))
            elif len(faces) == 2 and joker_ok:
                out.append((value(SET, rank) * 3, SET, (*faces, JOKER)))
    if DOUBLE in kinds:
        for f, ids in by_face.items():
            rank = f % 13 + 1
            if len(ids) >= 2:
                out.append((2 * value(DOUBLE, rank), DOUBLE, (f, f)))
            elif joker_ok:
                out.append((2 * value(DOUBLE, rank) - 1, DOUBLE, (f, JOKER)))
    return out


def _assign(
    faces: tuple[int, ...], by_face: dict[int, list[int]], jokers: list[int]
) -> list[int] | None:
    """Take one tile id per face from the pool (put back on failure)."""
    ids: list[int] = []
    for f in faces:
        lst = jokers if f == JOKER else by_face.get(f)
        if not lst:
            for t, g in zip(ids, faces, strict=False):
                (jokers if g == JOKER else by_face[g]).append(t)
            return None
        ids.append(lst.pop())
    return ids


def _select(
    patterns: list[Pattern],
    pool: Sequence[int],
    budget: int,
    rng: random.Random,
    rules: MeldRules,
    must: int | None = None,
    run_first: bool = False,
    limit: int | None = None,
) -> list[MeldShape]:
    """Greedily pick disjoint melds (at most ``budget`` tiles), ``must`` in the first one."""
    by_face, jokers = _index(pool)
    order = [(v + rng.random() * 8, k, f) for v, k, f in patterns]
    order.sort(reverse=True)
    if run_first:
        order.sort(key=lambda p: p[1] != RUN)
    if must is not None:
        mf = face_of(must)
        order = [p for p in order if mf in p[2]] + [p for p in order if mf not in p[2]]
        lst = jokers if mf == JOKER else by_face[mf]
        lst.remove(must)
        lst.append(must)  # popped first
    shapes: list[MeldShape] = []
    used = 0
    for _, kind, faces in order:
        if used + len(faces) > budget:
            continue
        ids = _assign(faces, by_face, jokers)
        if ids is None:
            continue
        if must is not None and not shapes and must not in ids:
            return []
        try:
            shapes.append(read_meld(ids, kind, rules))
        except RuleError:
            continue
        used += len(ids)
        if limit is not None and len(shapes) >= limit:
            break
    if must is not None and (not shapes or must not in shapes[0].tiles):
        return []
    return shapes


def _meld_json(shape: MeldShape, rng: random.Random) -> Any:
    tiles = list(shape.tiles)
    if shape.kind != DOUBLE and all(t < 104 for t in tiles) and rng.random() < P_PLAIN_LIST:
        if shape.kind == SET or rng.random() < 0.5:
            return tiles
        rng.shuffle(tiles)  # the engine sorts a joker-free run (A.5)
        return tiles
    return {"kind": shape.kind, "tiles": tiles}


# ------------------------------------------------------------- new melds
def _kinds_for(state: RoundState, seat: int) -> tuple[str, ...]:
    """Meld kinds the seat may lay now after its opening (B.7)."""
    if not state.variant.meld_rules.doubles:
        return (RUN, SET)
    if state.opened_with[seat] == "doubles":
        return (DOUBLE,)
    if "doubles" in state.opened_with:
        return (RUN, SET, DOUBLE)
    return (RUN, SET)


def _new_melds(
    state: RoundState,
    seat: int,
    pool: Sequence[int],
    budget: int,
    rng: random.Random,
    must: int | None = None,
) -> list[MeldShape] | None:
    """Melds the seat may lay now from ``pool`` (the opening if not opened); None if none."""
    rules = state.variant.meld_rules
    family = state.family
    by_face, jokers = _index(pool)
    if state.opened[seat]:
        patterns = _patterns(by_face, len(jokers), rules, _kinds_for(state, seat))
        if not patterns:
            return None
        shapes = _select(
            patterns, pool, budget, rng, rules, must, limit=None if rng.random() < 0.7 else 1
        )
        if not shapes:
            return None
        try:
            family.check_later_melds(state, seat, shapes)
        except RuleError:
            return None
        return shapes
    tries: list[tuple[str, ...]] = [(RUN, SET)]
    if rules.doubles:
        tries.append((DOUBLE,))
        rng.shuffle(tries)
    for kinds in tries:
        patterns = _patterns(by_face, len(jokers), rules, kinds)
        if not patterns:
            continue
        shapes = _select(
            patterns, pool, budget, rng, rules, must, run_first=state.variant.run_required
        )
        if not shapes:
            continue
        try:
            family.check_opening(state, seat, shapes)
        except RuleError:
            continue
        return shapes
    return None


def _could_meld(face: int, by_face: dict[int, list[int]], jokers: int) -> bool:
    """Cheap filter: does the pool hold a neighbour of ``face`` (or a joker)?"""
    if face == JOKER or jokers:
        return True
    rank, suit = face % 13 + 1, face // 13
    if sum(1 for s in range(4) if s != suit and make_face(rank, s) in by_face) >= 2:
        return True
    if face in by_face:  # a double (family B)
        return True
    near = 0
    for d in (-2, -1, 1, 2):  # wrapping is too generous, which a filter may be
        if make_face((rank + d - 1) % 13 + 1, suit) in by_face:
            near += 1
    return near >= 2


# ------------------------------------------------------------------ take
def _take_action(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any]:
    family = state.family
    hand = state.hands[seat]
    row = state.row
    if (
        state.options.joker_button
        and state.joker_credits[seat] >= 1
        and not state.button_used[seat]
        and rng.random() < P_JOKER_BUTTON
    ):
        return {"do": "joker_button"}
    blocked = family.first_turn_restricted and state.first_turn(seat)
    if row and not blocked:
        by_face, jokers = _index(hand)
        if family.row_break:
            indices = [len(row) - 1] if rng.random() < P_TAKE_TOP else []
            if state.opened[seat] and len(row) > 1 and rng.random() < P_TAKE_DEEP:
                lowest = 0
                depth = state.options.row_depth
                if depth is not None:
                    lowest = max(0, len(row) - depth)
                deep = list(range(lowest, len(row) - 1))
                indices.extend(rng.sample(deep, min(3, len(deep))))
                rng.shuffle(indices)
            for index in indices:
                tile = row[index]
                if not _could_meld(face_of(tile), by_face, len(jokers)):
                    continue
                pool = [*hand, *row[index:]]
                shapes = _new_melds(state, seat, pool, len(pool) - 1, rng, must=tile)
                if shapes:
                    return {
                        "do": "take_row",
                        "index": index,
                        "melds": [_meld_json(s, rng) for s in shapes],
                    }
        elif rng.random() < P_TAKE_TOP:
            top = row[-1]
            if state.opened[seat] and rng.random() < 0.5:
                for k, end in _layoff_spots(state).get(face_of(top), []):
                    if fit_layoff(
                        state.table[k], top, end, state.variant.meld_rules, family.joker_layoff
                    ):
                        lo: dict[str, Any] = {"tile": top, "meld": k}
                        if end is not None:
                            lo["end"] = end
                        return {"do": "take_discard", "melds": [], "layoffs": [lo]}
            if _could_meld(face_of(top), by_face, len(jokers)):
                pool = [*hand, top]
                shapes = _new_melds(state, seat, pool, len(pool) - 1, rng, must=top)
                if shapes:
                    return {"do": "take_discard", "melds": [_meld_json(s, rng) for s in shapes]}
    return {"do": "draw"}


# ----------------------------------------------------------------- build
def _layoff_spots(state: RoundState) -> dict[int, list[tuple[int, str | None]]]:
    """Face -> [(meld index, end)] where a natural of that face fits (A.10, B.3)."""
    spots: dict[int, list[tuple[int, str | None]]] = {}
    top = state.variant.meld_rules.top_rank
    for k, m in enumerate(state.table):
        n = len(m.tiles)
        if m.kind == RUN:
            if n >= 13:
                continue
            high = m.low + n - 1
            if high + 1 <= top:
                spots.setdefault(make_face(1 if high == 13 else high + 1, m.suit), []).append(
                    (k, "high")
                )
            if m.low > 1:
                spots.setdefault(make_face(m.low - 1, m.suit), []).append((k, "low"))
        elif m.kind == SET and n < 4:
            have = m.natural_suits()
            for s in range(4):
                if s not in have:
                    spots.setdefault(make_face(m.low, s), []).append((k, None))
    return spots


def _joker_spots(state: RoundState) -> list[tuple[int, str | None]]:
    """Family B: where a joker may be laid off (a run's end, a 3-set)."""
    out: list[tuple[int, str | None]] = []
    top = state.variant.meld_rules.top_rank
    for k, m in enumerate(state.table):
        n = len(m.tiles)
        if m.kind == RUN and n < 13:
            if m.low + n <= top:
                out.append((k, "high"))
            if m.low > 1:
                out.append((k, "low"))
        elif m.kind == SET and n == 3:
            out.append((k, None))
    return out


def _layoff_action(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any] | None:
    hand = state.hands[seat]
    if len(hand) < 2 or not state.table:
        return None
    spots = _layoff_spots(state)
    rules = state.variant.meld_rules
    joker_layoff = state.family.joker_layoff
    cands: list[tuple[int, int, str | None]] = []
    jspots: list[tuple[int, str | None]] | None = None
    keep_joker = len(hand) == 2  # B.11: leave the joker for a joker closing
    for t in hand:
        if t >= 104:
            if joker_layoff and not keep_joker:
                if jspots is None:
                    jspots = _joker_spots(state)
                cands.extend((t, k, e) for k, e in jspots)
        else:
            for k, e in spots.get(t % 52, ()):
                cands.append((t, k, e))
    rng.shuffle(cands)
    for t, k, e in cands[:4]:
        where = fit_layoff(state.table[k], t, e, rules, joker_layoff)
        if where is None:
            continue
        action: dict[str, Any] = {"do": "layoff", "tile": t, "meld": k}
        if where in ("low", "high") and (where == "low" or rng.random() < 0.5):
            action["end"] = where
        return action
    return None


def _buy_action(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any] | None:
    by_face, _ = _index(state.hands[seat])
    consumes = state.family.consumes_bought_jokers
    cands: list[tuple[int, int]] = []
    for k, m in enumerate(state.table):
        for i, t in enumerate(m.tiles):
            if t < 104 or (consumes and t in state.consumed):
                continue
            if m.kind == SET:
                have = m.natural_suits()
                faces = [make_face(m.low, s) for s in range(4) if s not in have]
            else:
                stood = m.stands_for(i)
                faces = [stood] if stood is not None else []
            for f in faces:
                ids = by_face.get(f)
                if ids:
                    cands.append((ids[0], k))
    if not cands:
        return None
    tile, k = rng.choice(cands)
    return {"do": "buy_joker", "tile": tile, "meld": k}


def _atu_lay(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any] | None:
    """A.12: go out with the atu inside a new meld (the lay leaves one tile)."""
    atu = state.atu
    hand = state.hands[seat]
    if atu is None or state.atu_taken_by is not None or len(hand) > 10:
        return None
    pool = [*hand, atu]
    shapes = _new_melds(state, seat, pool, len(hand), rng, must=atu)
    if not shapes or sum(len(s.tiles) for s in shapes) != len(hand):
        return None
    return {"do": "lay", "melds": [_meld_json(s, rng) for s in shapes], "atu": True}


def _discard_action(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any]:
    hand = state.hands[seat]
    naturals = [t for t in hand if t < 104]
    if naturals and (state.variant.joker_discard_restricted or rng.random() < P_KEEP_JOKER):
        return {"do": "discard", "tile": rng.choice(naturals)}
    return {"do": "discard", "tile": rng.choice(hand)}


def _build_action(state: RoundState, seat: int, rng: random.Random) -> dict[str, Any]:
    family = state.family
    hand = state.hands[seat]
    if len(hand) == 1 or (family.first_turn_restricted and state.first_turn(seat)):
        return _discard_action(state, seat, rng)
    if family.has_atu:
        action = _atu_lay(state, seat, rng)
        if action is not None:
            return action
    if not state.opened[seat]:
        if rng.random() < P_OPEN:
            shapes = _new_melds(state, seat, hand, len(hand) - 1, rng)
            if shapes:
                return {"do": "lay", "melds": [_meld_json(s, rng) for s in shapes]}
        return _discard_action(state, seat, rng)
    if rng.random() < P_LAY:
        shapes = _new_melds(state, seat, hand, len(hand) - 1, rng)
        if shapes:
            return {"do": "lay", "melds": [_meld_json(s, rng) for s in shapes]}
    if rng.random() < P_BUY:
        action = _buy_action(state, seat, rng)
        if action is not None:
            return action
    if rng.random() < P_LAYOFF:
        action = _layoff_action(state, seat, rng)
        if action is not None:
            return action
    return _discard_action(state, seat, rng)


# ------------------------------------------------------------------ api
def random_action(state: RoundState, rng: random.Random) -> dict[str, Any]:
    """A random action for ``state.turn`` that the engine accepts (the state is not changed)."""
    if state.over:
        raise ValueError("the round is over")
    seat = state.turn
    if state.phase == TAKE:
        return _take_action(state, seat, rng)
    return _build_action(state, seat, rng)


def plain_action(state: RoundState, rng: random.Random) -> dict[str, Any]:
    """The simplest legal action: draw at the take step, else a discard."""
    if state.phase == TAKE:
        return {"do": "draw"}
    return _discard_action(state, state.turn, rng)


def play_round(state: RoundState, rng: random.Random, max_actions: int = 5000) -> PlayStats:
    """Play random legal actions until the round is over; returns what was done.

    An action the engine refuses (which would be a playout bug: the engine
    changes nothing then) is counted in ``fallbacks`` and replaced by a plain
    draw or discard.
    """
    stats = PlayStats()
    while not state.over:
        if stats.actions >= max_actions:
            raise RuntimeError(f"the round did not end within {max_actions} actions")
        action = random_action(state, rng)
        try:
            state.apply(state.turn, action)
        except RuleError:
            stats.fallbacks += 1
            action = plain_action(state, rng)
            state.apply(state.turn, action)
        stats.actions += 1
        stats.kinds[action["do"]] += 1
    return stats
