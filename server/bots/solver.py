"""Meld solver: the best arrangement of a hand (and lay-offs onto the table).

The solver works on *faces* (the two copies of a face are interchangeable)
and maps the answer back to tile ids at the end. It enumerates candidate
*windows* — sets, runs of 3 to 5 tiles (any longer run splits into those
with the same value), doubles (family B) and lay-offs onto table melds — and
runs a depth-first branch and bound over the lowest face still in hand: use
it in one of its windows, or leave every remaining copy in hand. Jokers fill
the missing slots of a window. The objective is

    sum over laid tiles of  w_hand * hand value  +  w_pos * table value
    + going-out bonus when exactly one tile is left to discard,

subject to the opening rules when the seat has not opened (family A:
threshold and a run; family B: points, or enough doubles, never mixed), the
atu (only in a lay that leaves exactly one tile), a forced tile (a tile
taken from the row must go into a new meld) and keeping one tile to
discard. Every meld it emits is checked with the engine's ``read_meld`` and
``meld_value``.

>>> from server.rules.tiles import FAMILY_A_FACES as F
>>> from server.rules.variants import get_variant
>>> spec = spec_for(get_variant("remi45"), opened=False)
>>> hand = [F.parse(t) for t in "4H 5H 6H 7H QS QD QC 2C 9D".split()]
>>> sol = solve(hand, spec)
>>> [(m.kind, [F.format(f) for f in m.faces]) for m in sol.melds]
[('set', ['QS', 'QD', 'QC']), ('run', ['4H', '5H', '6H', '7H'])]
>>> sol.value, sorted(F.format(f) for f in sol.left)
(50, ['2C', '9D'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from server.rules.errors import RuleError
from server.rules.melds import (
    DOUBLE,
    RUN,
    SET,
    MeldRules,
    TableMeld,
    fit_layoff,
    meld_value,
    read_meld,
)
from server.rules.tiles import JOKER, face_of, make_face, rank_of, suit_of
from server.rules.variants import Variant

NFACES = 53  # 52 natural faces and the joker
LAYOFF = "layoff"
MAX_RUN_WINDOW = 5
MAX_EXTENSION = 4


@dataclass(frozen=True, slots=True)
class Window:
    """A candidate meld or lay-off, by faces.

    ``slots`` holds the natural face each position wants (``JOKER`` for a
    position only a joker fills); in a ``flex`` window a position whose
    face is not in hand takes a joker instead.
    """

    kind: str  # set | run | double | layoff
    slots: tuple[int, ...]
    pos: tuple[int, ...]  # table value of each position
    low: int
    suit: int
    flex: bool
    value: int
    target: int = -1  # lay-off: index of the table meld
    end: str | None = None  # lay-off: "low" / "high" (runs), None (sets)
    res: int = 0  # lay-off: resource bit (one per meld end)


@dataclass(slots=True)
class Spec:
    """What the solver must respect and what it maximises."""

    rules: MeldRules
    hand_values: tuple[int, ...]  # per face 0..52 (A.6 / B.5)
    max_pos: tuple[int, ...]  # best table value per face (bounds)
    kinds: frozenset[str]  # new meld kinds allowed
    opened: bool
    opening_kind: str = "points"  # points | doubles (when not opened)
    threshold: int = 0
    run_required: bool = False
    doubles_needed: int = 0
    table: Sequence[TableMeld] = ()
    layoffs: bool = False  # lay-offs allowed (once opened)
    joker_layoff: bool = False  # family B
    atu_face: int | None = None
    forced_face: int | None = None
    forced_layoff_ok: bool = False
    w_hand: float = 1.0
    w_pos: float = 1.0
    out_bonus: float = 0.0
    out_bonus_joker: float = 0.0  # instead of out_bonus when the last tile is a joker
    node_limit: int = 20000


@dataclass(frozen=True, slots=True)
class Placed:
    """A window as placed: the faces used per position (JOKER where a joker went)."""

    kind: str
    faces: tuple[int, ...]
    window: Window


@dataclass(slots=True)
class Solution:
    gain: float
    melds: list[Placed] = field(default_factory=list)
    layoffs: list[Placed] = field(default_factory=list)
    left: list[int] = field(default_factory=list)  # faces left in hand (not the atu)
    atu_used: bool = False
    value: int = 0  # table value of the new melds
    going_out: bool = False
    nodes: int = 0
    complete: bool = True  # False when the node limit cut the search

    @property
    def laid_tiles(self) -> int:
        return sum(len(m.faces) for m in self.melds) + sum(len(m.faces) for m in self.layoffs)


@lru_cache(maxsize=32)
def variant_tables(variant: Variant) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per face: the hand value, and the best table value any meld gives it (bounds)."""
    rules = variant.meld_rules
    hv = tuple(variant.family.hand_value(f) for f in range(NFACES))
    best_pos = []
    for f in range(52):
        r = rank_of(f)
        best = max(rules.position_value(SET, r), rules.position_value(RUN, r))
        if r == 1 and rules.ace_high:
            best = max(best, rules.position_value(RUN, 14))
        best_pos.append(best)
    best_pos.append(max(best_pos))
    return hv, tuple(best_pos)


def spec_for(variant: Variant, opened: bool, **kw: object) -> Spec:
    """A spec with the variant's values; ``kw`` sets any other field."""
    family = variant.family
    hv, max_pos = variant_tables(variant)
    kinds = frozenset({SET, RUN})
    spec = Spec(
        rules=variant.meld_rules,
        hand_values=hv,
        max_pos=max_pos,
        kinds=kinds,
        opened=opened,
        threshold=variant.threshold,
        run_required=variant.run_required,
        doubles_needed=variant.doubles_threshold,
        joker_layoff=family.joker_layoff,
        w_pos=1.0 if family.scores_laid else 0.0,
    )
    for key, value in kw.items():
        setattr(spec, key, value)
    return spec


# FACE[rank][suit] for ranks 1..14 (14: the ace above the king); rank 0 holds nothing
FACE = tuple(
    () if r == 0 else tuple(make_face(1 if r == 14 else r, s) for s in range(4)) for r in range(15)
)


@lru_cache(maxsize=8)
def _run_windows(rules: MeldRules) -> tuple[tuple[tuple[int, int, Window], ...], ...]:
    """Every run window of the rules, per suit, as (low, high, window) in the order
    ``build_windows`` lists them: by lowest rank, then by length."""
    pv = rules.position_value
    top = rules.top_rank
    per_suit = []
    for s in range(4):
        out = []
        for low in range(1, top - 1):
            for length in range(3, MAX_RUN_WINDOW + 1):
                high = low + length - 1
                if high > top:
                    break
                slots = tuple(FACE[r][s] for r in range(low, high + 1))
                pos = tuple(pv(RUN, r) for r in range(low, high + 1))
                out.append((low, high, Window(RUN, slots, pos, low, s, True, sum(pos))))
        per_suit.append(tuple(out))
    return tuple(per_suit)


@lru_cache(maxsize=4096)
def _set_windows(rules: MeldRules, rank: int, present: int, maxj: int) -> tuple[Window, ...]:
    """The 3- and 4-sets of ``rank`` from the suits in the bit mask ``present`` (every
    subset of them, jokers for the rest, at most ``maxj``)."""
    suits = [s for s in range(4) if present >> s & 1]
    v = rules.position_value(SET, rank)
    out = []
    for mask in range(1, 1 << len(suits)):
        chosen = tuple(FACE[rank][suits[i]] for i in range(len(suits)) if mask >> i & 1)
        for size in (3, 4):
            nj = size - len(chosen)
            if nj < 0 or nj > maxj:
                continue
            out.append(Window(SET, chosen + (JOKER,) * nj, (v,) * size, rank, -1, False, v * size))
    return tuple(out)


def build_windows(counts: Sequence[int], spec: Spec) -> list[Window]:
    """Every candidate window the hand ``counts`` (per face) could fill."""
    rules = spec.rules
    pv = rules.position_value
    jokers = counts[JOKER]
    maxj = jokers if rules.max_jokers is None else min(jokers, rules.max_jokers)
    out: list[Window] = []
    if RUN in spec.kinds:
        top = rules.top_rank
        for s, windows in enumerate(_run_windows(rules)):
            # seen[r]: how many of the ranks 1..r of this suit are in hand
            seen = [0] * (top + 1)
            for r in range(1, top + 1):
                seen[r] = seen[r - 1] + (counts[FACE[r][s]] > 0)
            for low, high, w in windows:
                present = seen[high] - seen[low - 1]
                if present and high - low + 1 - present <= maxj:
                    out.append(w)
    if SET in spec.kinds:
        for r in range(1, 14):
            present = 0
            for s in range(4):
                if counts[FACE[r][s]] > 0:
                    present |= 1 << s
            if present:
                out.extend(_set_windows(rules, r, present, maxj))
    if DOUBLE in spec.kinds:
        for f in range(52):
            v = pv(DOUBLE, rank_of(f))
            if counts[f] >= 2:
                out.append(Window(DOUBLE, (f, f), (v, v), rank_of(f), suit_of(f), False, 2 * v))
            if counts[f] >= 1 and maxj >= 1:
                out.append(Window(DOUBLE, (f, JOKER), (v, v), rank_of(f), suit_of(f), False, 2 * v))
    if spec.layoffs:
        out.extend(_layoff_windows(counts, spec))
    return out


def _layoff_windows(counts: Sequence[int], spec: Spec) -> list[Window]:
    rules = spec.rules
    pv = rules.position_value
    flex = spec.joker_layoff
    jokers = counts[JOKER] if flex else 0
    out: list[Window] = []
    for k, m in enumerate(spec.table):
        n = len(m.tiles)
        if m.kind == RUN:
            cap = min(MAX_EXTENSION, 13 - n)
            high = m.low + n - 1
            for end, step, start in (("low", -1, m.low - 1), ("high", 1, high + 1)):
                faces: list[int] = []
                values: list[int] = []
                present = 0
                for length in range(1, cap + 1):
                    r = start + step * (length - 1)
                    if r < 1 or r > rules.top_rank:
                        break
                    faces.append(FACE[r][m.suit])
                    values.append(pv(RUN, r))
                    present += counts[faces[-1]] > 0
                    if present == 0 or length - present > jokers:
                        continue
                    out.append(
                        Window(
                            LAYOFF,
                            tuple(faces),
                            tuple(values),
                            m.low,
                            m.suit,
                            flex,
                            sum(values),
                            k,
                            end,
                            1 << (2 * k + (end == "high")),
                        )
                    )
        elif m.kind == SET and n < 4:
            have = m.natural_suits()
            v = pv(SET, m.low)
            for s in range(4):
                f = FACE[m.low][s]
                if s not in have and counts[f] > 0:
                    out.append(
                        Window(LAYOFF, (f,), (v,), m.low, -1, False, v, k, None, 1 << (2 * k))
                    )
    return out


def _joker_layoff_windows(spec: Spec) -> list[Window]:
    """Family B: a lone joker laid off at a run end or into a 3-set (best value first)."""
    rules = spec.rules
    pv = rules.position_value
    out: list[Window] = []
    for k, m in enumerate(spec.table):
        n = len(m.tiles)
        if m.kind == RUN and n < 13:
            high = m.low + n - 1
            if high + 1 <= rules.top_rank:
                v = pv(RUN, high + 1)
                out.append(
                    Window(
                        LAYOFF, (JOKER,), (v,), m.low, m.suit, False, v, k, "high", 1 << (2 * k + 1)
                    )
                )
            if m.low - 1 >= 1:
                v = pv(RUN, m.low - 1)
                out.append(
                    Window(LAYOFF, (JOKER,), (v,), m.low, m.suit, False, v, k, "low", 1 << (2 * k))
                )
        elif m.kind == SET and n == 3:
            v = pv(SET, m.low)
            out.append(Window(LAYOFF, (JOKER,), (v,), m.low, -1, False, v, k, None, 1 << (2 * k)))
    out.sort(key=lambda w: -w.value)
    return out


def solve(hand: Sequence[int], spec: Spec) -> Solution:
    """The best arrangement of the faces ``hand`` under ``spec`` (see the module doc).

    The answer always exists: laying nothing is valid unless a forced tile
    must be used, in which case a solution with ``gain == -inf`` and no
    melds means "impossible".
    """
    counts = [0] * NFACES
    for f in hand:
        counts[f] += 1
    hand_n = len(hand)
    atu = spec.atu_face
    hand_atu = counts[atu] if atu is not None else 0
    if atu is not None:
        counts[atu] += 1
    windows = build_windows(counts, spec)
    jwins = _joker_layoff_windows(spec) if spec.layoffs and spec.joker_layoff else []
    hv = spec.hand_values
    wh, wp = spec.w_hand, spec.w_pos
    gain_of = [wh * hv[f] + wp * spec.max_pos[f] for f in range(NFACES)]
    # Sort windows by their best gain per tile, so good solutions come first.
    windows.sort(key=lambda w: -(sum(wh * hv[f] for f in w.slots) + wp * w.value) / len(w.slots))
    by_face: list[list[int]] = [[] for _ in range(NFACES)]
    for i, w in enumerate(windows):
        for f in set(w.slots):
            if f != JOKER and counts[f] > 0:
                by_face[f].append(i)
    active = [f for f in range(52) if counts[f] > 0 and by_face[f]]
    active.sort(key=lambda f: (f != spec.forced_face, len(by_face[f])))  # forced, then
    # the most constrained face first
    inactive_faces = [
        f for f in range(52) if counts[f] > 0 and not by_face[f] for _ in range(counts[f])
    ]
    rules = spec.rules
    maxj = 99 if rules.max_jokers is None else rules.max_jokers
    unopened = not spec.opened
    doubles_mode = unopened and spec.opening_kind == "doubles"
    threshold = spec.threshold if unopened and not doubles_mode else 0
    dneed = spec.doubles_needed if doubles_mode else 0
    forced = spec.forced_face
    ob_max = max(spec.out_bonus, spec.out_bonus_joker, 0.0)
    ob_left = 1 if atu is None else 2  # more tiles left than this: no going out
    cap = [13 - len(m.tiles) for m in spec.table]
    ext = [0] * len(spec.table)
    limit = spec.node_limit

    st_rem_ub = sum(counts[f] * gain_of[f] for f in active) + counts[JOKER] * gain_of[JOKER]
    st_rem_val = (
        sum(counts[f] * spec.max_pos[f] for f in active) + counts[JOKER] * spec.max_pos[JOKER]
    )

    # Mutable search state, kept in one list for speed of closure access.
    cur_gain = 0.0
    rem_ub = st_rem_ub
    rem_val = st_rem_val
    cur_value = 0
    n_new = 0
    n_run = 0
    n_double = 0
    n_lay = 0
    res_used = 0
    placed_atu = 0
    placed_atu_new = 0
    forced_new = 0
    forced_lo = 0
    left_n = len(inactive_faces)
    nodes = 0
    stack: list[tuple[int, tuple[int, ...]]] = []
    left_faces: list[int] = []
    best_gain = float("-inf")
    best: (
        tuple[
            tuple[tuple[int, tuple[int, ...]], ...],
            tuple[int, ...],
            bool,
            int,
            int,
            tuple[Window, ...],
        ]
        | None
    ) = None

    def leaf() -> None:
        nonlocal best_gain, best
        jl = counts[JOKER]
        atu_used = atu is not None and placed_atu > hand_atu
        if atu_used and not placed_atu_new:
            return  # the atu reaches the table only inside a new meld
        atu_free = 1 if atu is not None and not atu_used else 0
        hand_left = left_n + jl - atu_free
        hand_j = jl - (1 if atu_free and atu == JOKER else 0)
        if hand_left < 1:
            return
        if forced is not None and forced_new < 1 and not (spec.forced_layoff_ok and forced_lo):
            return
        if unopened and (n_new or n_lay):
            if not n_new:
                return
            if doubles_mode:
                if n_double < dneed:
                    return
            elif cur_value < threshold or (spec.run_required and not n_run):
                return
        if atu_used and (hand_left != 1 or (unopened and n_lay)):
            return
        picked: list[Window] = []
        if jwins and hand_j and (spec.opened or n_new):
            bits = res_used
            for w in jwins:
                if len(picked) >= hand_j:
                    break
                if not bits & w.res:
                    bits |= w.res
                    picked.append(w)
        best_local = float("-inf")
        best_k = 0
        g = 0.0
        for k in range(len(picked) + 1):
            if k:
                g += wh * hv[JOKER] + wp * picked[k - 1].value
            hl = hand_left - k
            if hl < 1:
                break
            bonus = 0.0
            if hl == 1:
                bonus = spec.out_bonus_joker if hand_j - k == 1 else spec.out_bonus
            if g + bonus > best_local:
                best_local, best_k = g + bonus, k
        gain = cur_gain + best_local
        if gain > best_gain:
            best_gain = gain
            jl_left = jl - best_k
            lf = [*left_faces, *([JOKER] * jl_left)]
            best = (
                tuple(stack),
                tuple(lf),
                atu_used,
                cur_value,
                hand_left - best_k,
                tuple(picked[:best_k]),
            )

    def apply(w: Window) -> tuple[int, ...] | None:
        nonlocal cur_gain, rem_ub, rem_val, cur_value, n_new, n_run, n_double, n_lay
        nonlocal res_used, placed_atu, placed_atu_new, forced_new, forced_lo
        if w.res:
            if res_used & w.res:
                return None
            if w.target >= 0 and ext[w.target] + len(w.slots) > cap[w.target]:
                return None
        used: list[int] = []
        nj = 0
        natural = 0
        for g in w.slots:
            if g != JOKER and counts[g] > 0:
                counts[g] -= 1
                used.append(g)
                natural += 1
            elif (g == JOKER or w.flex) and counts[JOKER] > 0 and nj < maxj:
                counts[JOKER] -= 1
                used.append(JOKER)
                nj += 1
            else:
                for u in used:
                    counts[u] += 1
                return None
        if natural == 0:
            for u in used:
                counts[u] += 1
            return None
        faces = tuple(used)
        g_sum = 0.0
        ub_sum = 0.0
        for i, u in enumerate(faces):
            g_sum += wh * hv[u] + wp * w.pos[i]
            ub_sum += gain_of[u]
            rem_val -= spec.max_pos[u]
            if u == atu:
                placed_atu += 1
                if w.kind != LAYOFF:
                    placed_atu_new += 1
        cur_gain += g_sum
        rem_ub -= ub_sum
        if w.kind == LAYOFF:
            n_lay += 1
            res_used |= w.res
            ext[w.target] += len(faces)
            if forced is not None and forced in faces:
                forced_lo += 1
        else:
            n_new += 1
            cur_value += w.value
            if w.kind == RUN:
                n_run += 1
            elif w.kind == DOUBLE:
                n_double += 1
            if forced is not None and forced in faces:
                forced_new += 1
        return faces

    def undo(w: Window, faces: tuple[int, ...]) -> None:
        nonlocal cur_gain, rem_ub, rem_val, cur_value, n_new, n_run, n_double, n_lay
        nonlocal res_used, placed_atu, placed_atu_new, forced_new, forced_lo
        g_sum = 0.0
        ub_sum = 0.0
        for i, u in enumerate(faces):
            counts[u] += 1
            g_sum += wh * hv[u] + wp * w.pos[i]
            ub_sum += gain_of[u]
            rem_val += spec.max_pos[u]
            if u == atu:
                placed_atu -= 1
                if w.kind != LAYOFF:
                    placed_atu_new -= 1
        cur_gain -= g_sum
        rem_ub += ub_sum
        if w.kind == LAYOFF:
            n_lay -= 1
            res_used &= ~w.res
            ext[w.target] -= len(faces)
            if forced is not None and forced in faces:
                forced_lo -= 1
        else:
            n_new -= 1
            cur_value -= w.value
            if w.kind == RUN:
                n_run -= 1
            elif w.kind == DOUBLE:
                n_double -= 1
            if forced is not None and forced in faces:
                forced_new -= 1

    na = len(active)

    def rec(ai: int, start: int) -> None:
        nonlocal nodes, left_n, rem_ub, rem_val
        nodes += 1
        if nodes > limit:
            return
        while ai < na and counts[active[ai]] == 0:
            ai += 1
            start = 0
        if ai == na:
            leaf()
            return
        if cur_gain + rem_ub + (ob_max if left_n <= ob_left else 0.0) <= best_gain:
            return
        if unopened and n_new:
            if doubles_mode:
                if n_double + (sum(counts) // 2) < dneed:
                    return
            elif cur_value + rem_val < threshold:
                return
        f = active[ai]
        lst = by_face[f]
        for k in range(start, len(lst)):
            w = windows[lst[k]]
            faces = apply(w)
            if faces is None:
                continue
            stack.append((lst[k], faces))
            rec(ai, k)
            stack.pop()
            undo(w, faces)
        if f == forced and not forced_new and not spec.forced_layoff_ok:
            return  # the forced tile must go into a new meld
        c = counts[f]
        counts[f] = 0
        left_n += c
        rem_ub -= c * gain_of[f]
        rem_val -= c * spec.max_pos[f]
        for _ in range(c):
            left_faces.append(f)
        rec(ai + 1, 0)
        for _ in range(c):
            left_faces.pop()
        counts[f] = c
        left_n -= c
        rem_ub += c * gain_of[f]
        rem_val += c * spec.max_pos[f]

    impossible_opening = unopened and (
        (doubles_mode and (sum(counts) // 2) < dneed)
        or (not doubles_mode and st_rem_val < threshold)
    )
    if impossible_opening:
        # Only "lay nothing" is possible (and only when no tile is forced).
        if forced is None:
            return Solution(0.0, left=sorted(hand), going_out=hand_n == 1, nodes=0)
        return Solution(float("-inf"), left=sorted(hand), nodes=0)
    rec(0, 0)
    if best is None:
        return Solution(float("-inf"), left=list(hand), nodes=nodes, complete=nodes <= limit)
    chosen, lf, atu_used, value, hand_left, jused = best
    melds: list[Placed] = []
    layoffs: list[Placed] = []
    for idx, faces in chosen:
        w = windows[idx]
        placed = Placed(w.kind, faces, w)
        (layoffs if w.kind == LAYOFF else melds).append(placed)
    for w in jused:
        layoffs.append(Placed(LAYOFF, (JOKER,), w))
    leftover = [*inactive_faces, *lf]
    if atu is not None and not atu_used:
        leftover.remove(atu)
    leftover.sort()
    return Solution(
        best_gain,
        melds,
        layoffs,
        leftover,
        atu_used,
        value,
        going_out=hand_left == 1,
        nodes=nodes,
        complete=nodes <= limit,
    )


# ----------------------------------------------------------------- to tile ids
@dataclass(slots=True)
class IdPlan:
    """A solution in tile ids: new melds (kind, tiles), lay-offs (tile, meld, end)."""

    melds: list[tuple[str, list[int]]]
    layoffs: list[tuple[int, int, str | None]]
    left: list[int]
    atu_used: bool
    uses_forced_in_meld: bool = False


def to_ids(
    sol: Solution,
    hand_ids: Sequence[int],
    rules: MeldRules,
    atu_id: int | None = None,
    forced_id: int | None = None,
    table: Sequence[TableMeld] = (),
) -> IdPlan | None:
    """Give every face of ``sol`` a tile id and check each meld with the engine.

    New melds take ids before lay-offs, so a forced tile lands in a new meld;
    the atu is used only for a face the hand lacks. Returns None if the
    engine would refuse a meld or a lay-off (a solver bug).
    """
    pools: dict[int, list[int]] = {}
    for t in hand_ids:
        pools.setdefault(face_of(t), []).append(t)
    if forced_id is not None:
        pool = pools[face_of(forced_id)]
        pool.remove(forced_id)
        pool.insert(0, forced_id)
    if atu_id is not None and sol.atu_used:
        pools.setdefault(face_of(atu_id), []).insert(0, atu_id)  # new melds come first

    def take(face: int) -> int:
        return pools[face].pop(0)

    melds: list[tuple[str, list[int]]] = []
    try:
        for m in sol.melds:
            tiles = [take(f) for f in m.faces]
            shape = read_meld(tiles, m.kind, rules)
            if meld_value(shape, rules) != m.window.value:
                return None
            melds.append((m.kind, tiles))
        layoffs: list[tuple[int, int, str | None]] = []
        copies: dict[int, TableMeld] = {}
        for lo in sol.layoffs:
            w = lo.window
            for f in lo.faces:
                tile = take(f)
                meld = copies.get(w.target)
                if meld is None:
                    src = table[w.target]
                    meld = TableMeld(src.kind, list(src.tiles), list(src.owners), src.low, src.suit)
                    copies[w.target] = meld
                where = fit_layoff(meld, tile, w.end, rules, True)
                if where is None or (w.end is not None and where != w.end):
                    return None
                if where == "low":
                    meld.tiles.insert(0, tile)
                    meld.owners.insert(0, -1)
                    meld.low -= 1
                else:
                    meld.tiles.append(tile)
                    meld.owners.append(-1)
                layoffs.append((tile, w.target, w.end))
    except (RuleError, KeyError, IndexError):
        return None
    left = [t for pool in pools.values() for t in pool if t != atu_id]
    if sol.atu_used and not any(atu_id in tiles for _, tiles in melds):
        return None
    used_forced = forced_id is not None and any(forced_id in tiles for _, tiles in melds)
    return IdPlan(melds, layoffs, left, sol.atu_used, used_forced)
