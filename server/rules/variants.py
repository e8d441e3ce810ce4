"""Variants as data plus small per-family hooks (RULES.md §0, A, B).

A :class:`Variant` is a record of numbers and flags; what differs between the
two families (deal sizes, which take actions exist, how an opening is judged,
how a round is scored) lives in one :class:`Family` object each. Nothing in
the engine asks which variant it is playing.

>>> get_variant("remi45").threshold, get_variant("etalat").meld_rules.max_jokers
(45, 1)
>>> sorted(VARIANTS)
['etalat', 'etalat51', 'remi', 'remi101', 'remi101-rising', 'remi45', 'remi51']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from server.rules.actions import (
    BuyJoker,
    Discard,
    Draw,
    JokerButton,
    Lay,
    LayOff,
    TakeDiscard,
    TakeRow,
)
from server.rules.errors import ErrorCode, RuleError
from server.rules.melds import (
    DOUBLE,
    FAMILY_A_MELDS,
    FAMILY_B_MELDS,
    RUN,
    MeldRules,
    MeldShape,
    meld_value,
)
from server.rules.tiles import (
    B_FACES,
    FAMILY_A_FACES,
    FULL_SET_IDS,
    JOKER,
    SHORT_SET_IDS,
    FaceNotation,
    face_of,
    rank_of,
)


class OpeningContext(Protocol):
    """What judging an opening needs: a round state, or a seat's view of it."""

    @property
    def variant(self) -> Variant: ...
    @property
    def opened_with(self) -> list[str | None]: ...
    @property
    def last_points_opening(self) -> int | None: ...
    @property
    def last_doubles_opening(self) -> int | None: ...


class OpeningRecord(Protocol):
    """What remembering an opening (B.8) writes: a round state's last openings."""

    @property
    def variant(self) -> Variant: ...

    last_points_opening: int | None
    last_doubles_opening: int | None


class ScoringContext(Protocol):
    """What scoring a finished round reads: a round state (A.16, B.11, B.12)."""

    @property
    def variant(self) -> Variant: ...
    @property
    def players(self) -> int: ...
    @property
    def hands(self) -> list[list[int]]: ...
    @property
    def atu(self) -> int | None: ...
    @property
    def atu_pair(self) -> list[bool]: ...
    @property
    def opened(self) -> list[bool]: ...
    @property
    def opened_with(self) -> list[str | None]: ...
    @property
    def out(self) -> int | None: ...
    @property
    def out_with_joker_meld(self) -> bool: ...
    @property
    def last_discard_joker(self) -> bool: ...
    @property
    def anyone_opened_at_turn_start(self) -> bool: ...
    def credits(self, seat: int) -> int: ...


FLAT_UNOPENED_A = -100  # A.16
ATU_PAIR_BONUS = 50  # A.16
B_WIN = 101  # B.11
B_UNOPENED_PENALTY = 202  # B.12
B_JOKER_IN_HAND = 101  # B.5


@dataclass
class SeatScore:
    """How one seat's round total was made (shown in the round summary)."""

    seat: int
    total: int
    laid: int = 0
    hand: int = 0
    bonus: int = 0
    atu_pair: int = 0
    multiplier: int = 1
    note: str = ""
    opened: bool = False
    """Whether the seat opened in the round (going out counts): a profile's openings."""
    doublings: list[str] = field(default_factory=list)
    """Why ``multiplier`` is what it is, one entry a factor, their product the multiplier:
    ``atu_ace`` / ``atu_joker`` (×2, A.16), ``joker_out`` (×2, etalat's going out on a
    joker), ``closing_joker`` / ``closing_hand`` (×2) and ``closing_hand_joker`` (×4),
    B.11 (in family B the closer's own bonus already holds its factor, named by its
    note)."""


@dataclass
class RoundResult:
    """A finished round: why it ended, who went out, every seat's total."""

    reason: str  # "out" | "stock"
    out: int | None
    scores: list[int]
    closing: str | None = None  # family B: normal | joker | hand | hand_joker
    breakdown: list[SeatScore] = field(default_factory=list)


class Family:
    """What one rule family does differently; subclassed once per family."""

    name: str
    notation: FaceNotation
    has_atu: bool
    first_turn_restricted: bool  # A.4
    take_actions: frozenset[type]
    build_actions: frozenset[type]
    consumes_bought_jokers: bool  # A.11 vs B.10
    joker_layoff: bool  # A.10 vs B.3
    row_break: bool  # A.9 (deep takes) vs B.4 (only the last discard)
    has_short_game: bool  # §1: family A's one-pack game for 2
    joker_button: bool  # B.9: the room option exists
    faces: str  # "cards" (ranks and suits, §1) or "numbers" (numbers and colours)
    rack_rows: int  # rows of the player's rack at the table (a hand of 15 or of 22)
    scores_laid: bool  # A.16: laid tiles score (laid − hand); B.12: only penalties
    unopened_score: int  # a seat that never opened: A.16 flat −100, B.12 −202

    def tile_ids(self, short_game: bool) -> tuple[int, ...]:
        return FULL_SET_IDS

    def hand_sizes(self, short_game: bool) -> tuple[int, int]:
        raise NotImplementedError

    def hand_value(self, face: int) -> int:
        raise NotImplementedError

    def check_opening(self, state: OpeningContext, seat: int, shapes: Sequence[MeldShape]) -> str:
        """Raise the opening error for ``shapes`` or return the opening kind."""
        raise NotImplementedError

    def check_later_melds(
        self, state: OpeningContext, seat: int, shapes: Sequence[MeldShape]
    ) -> None:
        """Restrictions on melds laid after the opening (B.7); none in family A."""

    def record_opening(
        self, state: OpeningRecord, seat: int, kind: str, shapes: Sequence[MeldShape]
    ) -> None:
        """Remember what the rising threshold (B.8) needs; nothing in family A."""

    def score(self, state: ScoringContext) -> RoundResult:
        raise NotImplementedError


def _a_hand_value(face: int) -> int:
    """A.6 in hand: joker 50, ace 25, 2..9 = 5, T..K = 10."""
    if face == JOKER:
        return 50
    rank = rank_of(face)
    return 25 if rank == 1 else (5 if rank <= 9 else 10)


class FamilyA(Family):
    """Remi, Remi 45/51 and Remi Etalat (seeds 000 and 004)."""

    name = "A"
    notation = FAMILY_A_FACES
    has_atu = True
    first_turn_restricted = True
    take_actions = frozenset({Draw, TakeRow})
    build_actions = frozenset({Lay, LayOff, BuyJoker, Discard})
    consumes_bought_jokers = True
    joker_layoff = False
    row_break = True
    has_short_game = True
    joker_button = False
    faces = "cards"
    rack_rows = 2
    scores_laid = True
    unopened_score = FLAT_UNOPENED_A

    def tile_ids(self, short_game: bool) -> tuple[int, ...]:
        return SHORT_SET_IDS if short_game else FULL_SET_IDS

    def hand_sizes(self, short_game: bool) -> tuple[int, int]:
        return (11, 10) if short_game else (15, 14)  # A.2, §1

    def hand_value(self, face: int) -> int:
        return _a_hand_value(face)

    def check_opening(self, state: OpeningContext, seat: int, shapes: Sequence[MeldShape]) -> str:
        """A.8: the total must reach the threshold and include a run."""
        v = state.variant
        total = sum(meld_value(s, v.meld_rules) for s in shapes)
        if total < v.threshold:
            raise RuleError(
                ErrorCode.BELOW_THRESHOLD, f"the opening is worth {total}, it needs {v.threshold}"
            )
        if v.run_required and not any(s.kind == RUN for s in shapes):
            raise RuleError(ErrorCode.RUN_REQUIRED, "an opening must include a run")
        return "points"

    def score(self, state: ScoringContext) -> RoundResult:
        """A.16: laid − hand, going-out bonus, flat −100, atu pair, doublings."""
        v = state.variant
        atu_face = face_of(state.atu) if state.atu is not None else None
        atu_doubles = atu_face is not None and (atu_face == JOKER or rank_of(atu_face) == 1)
        breakdown = []
        for seat in range(state.players):
            laid = state.credits(seat)
            hand = sum(_a_hand_value(face_of(t)) for t in state.hands[seat])
            row = SeatScore(seat, 0, laid=laid, hand=hand)
            row.opened = seat == state.out or state.opened[seat]
            if seat == state.out:
                joker_out = state.out_with_joker_meld or state.last_discard_joker
                row.bonus = v.out_bonus_joker if joker_out else v.out_bonus
                base = laid + row.bonus
                note = "went out"
            elif state.opened[seat]:
                base = laid - hand
                note = "opened"
            else:
                base = FLAT_UNOPENED_A
                note = "never laid a meld: flat −100"
            if state.atu_pair[seat] and (seat == state.out or state.opened[seat]):
                row.atu_pair = ATU_PAIR_BONUS
                base += ATU_PAIR_BONUS
            if seat == state.out and v.joker_out_doubles and state.last_discard_joker:
                row.multiplier *= 2
                row.doublings.append("joker_out")
            if atu_doubles:
                row.multiplier *= 2
                row.doublings.append("atu_joker" if atu_face == JOKER else "atu_ace")
            row.total = base * row.multiplier
            row.note = note
            breakdown.append(row)
        return RoundResult(
            "out" if state.out is not None else "stock",
            state.out,
            [r.total for r in breakdown],
            None,
            breakdown,
        )


def _b_hand_value(face: int) -> int:
    return B_JOKER_IN_HAND if face == JOKER else rank_of(face)


class FamilyB(Family):
    """Remi 101 (seed 001): numbered tiles, doubles, penalty scoring."""

    name = "B"
    notation = B_FACES
    has_atu = False
    first_turn_restricted = False
    take_actions = frozenset({Draw, TakeDiscard, JokerButton})
    build_actions = frozenset({Lay, LayOff, BuyJoker, Discard})
    consumes_bought_jokers = False
    joker_layoff = True
    row_break = False
    has_short_game = False
    joker_button = True
    faces = "numbers"
    rack_rows = 3
    scores_laid = False
    unopened_score = -B_UNOPENED_PENALTY

    def hand_sizes(self, short_game: bool) -> tuple[int, int]:
        return (22, 21)  # B.1

    def hand_value(self, face: int) -> int:
        return _b_hand_value(face)

    def thresholds(self, state: OpeningContext) -> tuple[int, int]:
        """(points, doubles) an opening needs now (B.6, rising B.8)."""
        v = state.variant
        points, doubles = v.threshold, v.doubles_threshold
        if v.rising:
            if state.last_points_opening is not None:
                points = max(points, state.last_points_opening + 1)
            if state.last_doubles_opening is not None:
                doubles = max(doubles, state.last_doubles_opening + 1)
        return points, doubles

    def check_opening(self, state: OpeningContext, seat: int, shapes: Sequence[MeldShape]) -> str:
        """B.6: runs/sets worth the threshold, or enough doubles, never mixed."""
        points, doubles = self.thresholds(state)
        n_doubles = sum(1 for s in shapes if s.kind == DOUBLE)
        if n_doubles and n_doubles != len(shapes):
            raise RuleError(
                ErrorCode.DOUBLES_RESTRICTED,
                "an opening is either runs and sets or doubles, not both",
            )
        if shapes and n_doubles == len(shapes):
            if n_doubles < doubles:
                raise RuleError(
                    ErrorCode.BELOW_THRESHOLD,
                    f"an opening on doubles needs {doubles} doubles, not {n_doubles}",
                )
            return "doubles"
        total = sum(meld_value(s, state.variant.meld_rules) for s in shapes)
        if total < points:
            raise RuleError(
                ErrorCode.BELOW_THRESHOLD, f"the opening is worth {total}, it needs {points}"
            )
        return "points"

    def record_opening(
        self, state: OpeningRecord, seat: int, kind: str, shapes: Sequence[MeldShape]
    ) -> None:
        if kind == "doubles":
            state.last_doubles_opening = len(shapes)
        else:
            state.last_points_opening = sum(meld_value(s, state.variant.meld_rules) for s in shapes)

    def check_later_melds(
        self, state: OpeningContext, seat: int, shapes: Sequence[MeldShape]
    ) -> None:
        """B.7: a doubles opener lays only doubles; doubles for others once allowed."""
        has_double = any(s.kind == DOUBLE for s in shapes)
        if state.opened_with[seat] == "doubles":
            if any(s.kind != DOUBLE for s in shapes):
                raise RuleError(
                    ErrorCode.DOUBLES_RESTRICTED,
                    "a seat that opened on doubles may lay only doubles",
                )
        elif has_double and "doubles" not in state.opened_with:
            raise RuleError(
                ErrorCode.DOUBLES_RESTRICTED,
                "doubles may be laid only after some seat has opened on doubles",
            )

    def score(self, state: ScoringContext) -> RoundResult:
        """B.11 closing kinds and the B.12 penalty table."""
        closing: str | None = None
        multiplier = 1
        if state.out is not None:
            from_hand = not state.anyone_opened_at_turn_start
            joker = state.last_discard_joker
            closing = (
                ("hand_joker" if joker else "hand")
                if from_hand
                else ("joker" if joker else "normal")
            )
            multiplier = {"normal": 1, "joker": 2, "hand": 2, "hand_joker": 4}[closing]
        breakdown = []
        for seat in range(state.players):
            hand = sum(_b_hand_value(face_of(t)) for t in state.hands[seat])
            row = SeatScore(seat, 0, laid=state.credits(seat), hand=hand)
            row.opened = seat == state.out or state.opened_with[seat] is not None
            if seat == state.out:
                row.bonus = B_WIN * multiplier
                row.total = row.bonus
                row.note = f"closed ({closing})"
            else:
                kind = state.opened_with[seat]
                if kind is None:
                    penalty, row.note = B_UNOPENED_PENALTY, "not opened"
                elif kind == "doubles":
                    penalty, row.note = 2 * hand, "opened on doubles: 2 × hand"
                else:
                    penalty, row.note = hand, "opened: hand"
                row.multiplier = multiplier
                if multiplier != 1:
                    row.doublings.append(f"closing_{closing}")
                row.total = -penalty * multiplier
            breakdown.append(row)
        return RoundResult(
            "out" if state.out is not None else "stock",
            state.out,
            [r.total for r in breakdown],
            closing,
            breakdown,
        )


FAMILY_A = FamilyA()
FAMILY_B = FamilyB()


@dataclass(frozen=True)
class Variant:
    """One row of RULES.md §0 with the numbers its rules need."""

    id: str
    family: Family
    threshold: int
    meld_rules: MeldRules
    run_required: bool = False
    out_bonus: int = 0  # A.16
    out_bonus_joker: int = 0
    joker_out_doubles: bool = False  # etalat, A.16
    joker_discard_restricted: bool = False  # etalat, A.14
    doubles_threshold: int = 0  # B.6
    rising: bool = False  # B.8
    title: str = ""
    seed: str = ""  # the seed text of RULES.md the variant comes from


def _remi(vid: str, threshold: int, title: str) -> Variant:
    return Variant(
        vid,
        FAMILY_A,
        threshold,
        FAMILY_A_MELDS,
        run_required=True,
        out_bonus=50,
        out_bonus_joker=100,
        title=title,
        seed="000",
    )


def _etalat(vid: str, threshold: int, title: str) -> Variant:
    return Variant(
        vid,
        FAMILY_A,
        threshold,
        FAMILY_A_MELDS.with_max_jokers(1),
        run_required=True,
        out_bonus=100,
        out_bonus_joker=100,
        joker_out_doubles=True,
        joker_discard_restricted=True,
        title=title,
        seed="004",
    )


def _remi101(vid: str, rising: bool, title: str) -> Variant:
    return Variant(
        vid,
        FAMILY_B,
        101,
        FAMILY_B_MELDS,
        doubles_threshold=5,
        rising=rising,
        title=title,
        seed="001",
    )


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        _remi("remi", 0, "Remi"),
        _remi("remi45", 45, "Remi 45"),
        _remi("remi51", 51, "Remi 51"),
        _etalat("etalat", 45, "Remi Etalat"),
        _etalat("etalat51", 51, "Remi Etalat 51"),
        _remi101("remi101", False, "Remi 101"),
        _remi101("remi101-rising", True, "Remi 101 (rising)"),
    )
}


def get_variant(variant_id: str) -> Variant:
    """The variant with this id; ``KeyError`` names the valid ones."""
    try:
        return VARIANTS[variant_id]
    except KeyError:
        raise KeyError(f"unknown variant {variant_id!r}; one of {', '.join(VARIANTS)}") from None
