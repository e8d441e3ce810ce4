"""The round state machine (RULES.md A.1–A.15, B.1–B.13, §C).

A round is fully defined by (variant, options, deal, actions): :func:`new_round`
deals from a seed, :meth:`RoundState.apply` validates and applies one action,
raising :class:`~server.rules.errors.RuleError` and changing nothing when the
action is illegal.

>>> s = new_round("remi45", players=2, seed=1)
>>> s.turn, s.phase, [len(h) for h in s.hands], s.stock_count
(0, 'build', [15, 14], 76)
>>> s.apply(1, {"do": "draw"})
Traceback (most recent call last):
...
server.rules.errors.RuleError: not_your_turn: it is seat 0's turn
>>> _ = s.apply(0, {"do": "discard", "tile": s.hands[0][0]})
>>> s.turn, s.phase, len(s.row)
(1, 'take', 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.rules.actions import (
    Action,
    BuyJoker,
    Discard,
    Draw,
    JokerButton,
    Lay,
    LayOff,
    LayoffSpec,
    MeldSpec,
    TakeDiscard,
    TakeRow,
    action_tiles,
    action_to_dict,
    check_action,
    parse_action,
)
from server.rules.errors import ErrorCode, RuleError
from server.rules.melds import MeldShape, TableMeld, fit_layoff, read_meld
from server.rules.shuffle import commitment, shuffled
from server.rules.tiles import JOKER, face_of
from server.rules.variants import RoundResult, Variant, get_variant

TAKE = "take"
BUILD = "build"
OVER = "over"
JOKER_BUTTON_FIRST_ID = 106  # B.9: jokers from outside the 106 tiles


@dataclass(frozen=True)
class RoundOptions:
    """Room options that change a round (RULES.md §1, A.9, B.9)."""

    row_depth: int | None = None  # A.9: how deep the row is visible; None = all
    short_game: bool = False  # §1: family A, 2 players, one pack
    joker_button: bool = False  # B.9
    joker_credits: tuple[int, ...] | None = None  # B.9: per seat, supplied by the caller

    def to_dict(self) -> dict[str, Any]:
        return {
            "row_depth": self.row_depth,
            "short_game": self.short_game,
            "joker_button": self.joker_button,
            "joker_credits": list(self.joker_credits) if self.joker_credits else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundOptions:
        credits = data.get("joker_credits")
        return cls(
            row_depth=data.get("row_depth"),
            short_game=bool(data.get("short_game")),
            joker_button=bool(data.get("joker_button")),
            joker_credits=tuple(credits) if credits is not None else None,
        )


@dataclass(frozen=True)
class Deal:
    """Who starts, every hand, the atu (family A) and the stock, top first; for a seeded
    deal, the seed's ``commitment`` (server/rules/shuffle.py: public from the deal on,
    unlike the seed; None for a deal set up by hand)."""

    first: int
    hands: tuple[tuple[int, ...], ...]
    atu: int | None
    stock: tuple[int, ...]
    commitment: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "hands": [list(h) for h in self.hands],
            "atu": self.atu,
            "stock": list(self.stock),
            "commitment": self.commitment,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Deal:
        return cls(
            int(data["first"]),
            tuple(tuple(h) for h in data["hands"]),
            data.get("atu"),
            tuple(data["stock"]),
            data.get("commitment"),
        )


def deal_tiles(
    variant: Variant,
    players: int,
    seed: int | str,
    first: int = 0,
    options: RoundOptions | None = None,
) -> Deal:
    """A seeded deal (A.2, B.1): the set's ids shuffled from the seed (docs/fairness.md),
    then dealt in blocks: seat 0's hand, seat 1's..., the first player's one tile more,
    then the atu (family A), the rest the stock, top first."""
    options = options or RoundOptions()
    _check_table(variant, players, first, options)
    order = shuffled(variant.family.tile_ids(options.short_game), seed)
    big, small = variant.family.hand_sizes(options.short_game)
    hands: list[tuple[int, ...]] = []
    pos = 0
    for seat in range(players):
        size = big if seat == first else small
        hands.append(tuple(order[pos : pos + size]))
        pos += size
    atu = None
    if variant.family.has_atu:
        atu = order[pos]
        pos += 1
    return Deal(first, tuple(hands), atu, tuple(order[pos:]), commitment(seed))


def _check_table(variant: Variant, players: int, first: int, options: RoundOptions) -> None:
    if not 2 <= players <= 4:
        raise ValueError("a table has 2 to 4 players")
    if not 0 <= first < players:
        raise ValueError("the first player must be a seat of the table")
    if options.short_game and (players != 2 or not variant.family.has_atu):
        raise ValueError("the short game is for 2 players of family A only")
    if options.row_depth is not None and options.row_depth < 1:
        raise ValueError("row_depth must be at least 1 or null")
    credits = options.joker_credits
    if (
        JokerButton in variant.family.take_actions
        and credits is not None
        and (len(credits) != players or any(c < 0 for c in credits))
    ):
        raise ValueError("joker_credits must give one non-negative count per seat (B.9)")


@dataclass
class Event:
    """What one applied action did: a public part and a part only the actor sees."""

    seat: int
    do: str
    public: dict[str, Any]
    private: dict[str, Any] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        out = {"seat": self.seat, "do": self.do, **self.public}
        if seat == self.seat:
            out.update(self.private)
        return out


class RoundState:
    """One round: hands, stock, row, table, turn and phase."""

    def __init__(
        self, variant: Variant, players: int, deal: Deal, options: RoundOptions | None = None
    ) -> None:
        self.variant = variant
        self.family = variant.family
        self.players = players
        self.options = options or RoundOptions()
        _check_table(variant, players, deal.first, self.options)
        self.deal = deal
        self.first = deal.first
        self.hands: list[list[int]] = [list(h) for h in deal.hands]
        self.stock: list[int] = list(reversed(deal.stock))  # top at the end
        self.row: list[int] = []
        # Who discarded each row tile, aligned on the row's newest end (a row set
        # from outside, as a test or the shadow state does, may have it shorter).
        self.row_by: list[int] = []
        self.table: list[TableMeld] = []
        self.atu = deal.atu
        self.atu_taken_by: int | None = None
        self.turn = deal.first
        self.phase = BUILD  # the first player starts by building/discarding (A.3, B.1)
        self.opened = [False] * players
        self.opened_with: list[str | None] = [None] * players
        self.turns_done = [0] * players
        self.consumed: set[int] = set()
        self.out: int | None = None
        self.stock_ran_out = False
        self.last_discard_joker = False
        self.out_with_joker_meld = False
        self.turn_laid_joker = False
        self.anyone_opened_at_turn_start = False
        self.last_points_opening: int | None = None
        self.last_doubles_opening: int | None = None
        credits = self.options.joker_credits
        self.joker_credits = list(credits) if credits is not None else [0] * players
        self.button_used = [False] * players
        self.next_button_id = JOKER_BUTTON_FIRST_ID
        self.log: list[tuple[int, dict[str, Any]]] = []
        self._result: RoundResult | None = None
        atu_face = face_of(deal.atu) if deal.atu is not None else None
        self.atu_pair = [
            atu_face is not None and any(face_of(t) == atu_face for t in h) for h in deal.hands
        ]  # A.16: dealt the atu's other copy
        total = sum(len(h) for h in self.hands) + len(self.stock) + (deal.atu is not None)
        ids = {t for h in self.hands for t in h} | set(self.stock)
        if deal.atu is not None:
            ids.add(deal.atu)
        if len(ids) != total:
            raise ValueError("a tile id is dealt twice")
        # Every tile id of the round: the set's (§1) and the deal's, then the joker
        # button's (B.9); an action naming any other id is bad_action (§C).
        self.tile_ids: set[int] = set(self.family.tile_ids(self.options.short_game)) | ids

    # ----------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def result(self) -> RoundResult | None:
        """The scored result once the round is over (A.16, B.11–B.12)."""
        if self.phase != OVER:
            return None
        if self._result is None:
            self._result = self.family.score(self)
        return self._result

    def credits(self, seat: int) -> int:
        """Points laid by ``seat``: its credits on the table (A.7)."""
        rules = self.variant.meld_rules
        total = 0
        for meld in self.table:
            for i, owner in enumerate(meld.owners):
                if owner == seat:
                    total += rules.position_value(meld.kind, meld.rank_at(i))
        return total

    def first_turn(self, seat: int) -> bool:
        """A.4: the seat has not finished a turn of this round yet."""
        return self.turns_done[seat] == 0

    def row_depth_allows(self, index: int) -> bool:
        depth = self.options.row_depth
        return depth is None or len(self.row) - index <= depth

    # ----------------------------------------------------------------- actions
    def apply(self, seat: int, action: Action | Mapping[str, Any]) -> Event:
        """Validate and apply one action of ``seat``; raises :class:`RuleError`.

        The checks run in §C order, malformed input first (``bad_action``), the same
        for a JSON action and an action object (:func:`~server.rules.actions.check_action`):
        a seat that is not one of the table's, an action the variant does not have
        (``take_row`` in family B, B.14), a tile id that does not exist in the round,
        the atu named in a ``lay`` without ``atu: true`` (A.12). A refused action
        changes nothing."""
        act: Action
        if type(action) is dict or not isinstance(action, _ACTION_CLASSES):
            act = parse_action(action)  # JSON, or anything else: refused there
        else:
            act = check_action(action)
        if (
            type(seat) is not int and (isinstance(seat, bool) or not isinstance(seat, int))
        ) or not 0 <= seat < self.players:
            raise RuleError(ErrorCode.BAD_ACTION, "no such seat")
        kind = type(act)
        family = self.family
        if kind not in family.take_actions and kind not in family.build_actions:
            raise RuleError(ErrorCode.BAD_ACTION, "this variant has no such action")
        if type(act) is Discard:  # the usual move: one tile
            if act.tile not in self.tile_ids:
                raise RuleError(ErrorCode.BAD_ACTION, "there is no such tile in this round")
        elif kind is not Draw and kind is not JokerButton:
            self._check_tile_ids(act)
        if self.phase == OVER:
            raise RuleError(ErrorCode.ROUND_OVER, "the round is over")
        if seat != self.turn:
            raise RuleError(ErrorCode.NOT_YOUR_TURN, f"it is seat {self.turn}'s turn")
        wanted = TAKE if kind in family.take_actions else BUILD
        if self.phase != wanted:
            raise RuleError(
                ErrorCode.WRONG_PHASE,
                "take a tile first" if wanted == BUILD else "you have already taken",
            )
        if kind in _FIRST_TURN_REFUSED and family.first_turn_restricted and self.first_turn(seat):
            raise RuleError(
                ErrorCode.FIRST_TURN,
                "nothing reaches the table in a seat's first turn (draw and discard)",
            )
        event: Event = _HANDLERS[kind](self, seat, act)
        self.log.append((seat, action_to_dict(act)))
        return event

    def _check_tile_ids(self, action: Action) -> None:
        """§C, malformed input: every tile id exists in the round; the atu is named in a
        ``lay`` only with ``atu: true`` while it lies beside the stock (A.12, A.18)."""
        tiles = action_tiles(action)
        ids = self.tile_ids
        for t in tiles:
            if t not in ids:
                raise RuleError(ErrorCode.BAD_ACTION, "there is no such tile in this round")
        if isinstance(action, Lay):
            atu = self.atu
            if action.atu:
                if atu is None:
                    raise RuleError(ErrorCode.BAD_ACTION, "this round has no atu")
                if atu not in tiles:
                    raise RuleError(ErrorCode.BAD_ACTION, "'atu' is set but no meld holds the atu")
            elif atu is not None and self.atu_taken_by is None and atu in tiles:
                raise RuleError(
                    ErrorCode.BAD_ACTION, "the atu is laid only by a lay that says 'atu': true"
                )

    def _require_hand(self, seat: int, tiles: Iterable[int], extra: Iterable[int] = ()) -> None:
        have = set(self.hands[seat])
        have.update(extra)
        for t in tiles:
            if t not in have:
                raise RuleError(ErrorCode.TILE_NOT_IN_HAND, f"tile {t} is not in your hand")

    def _read(self, specs: Sequence[MeldSpec]) -> list[MeldShape]:
        rules = self.variant.meld_rules
        return [read_meld(m.tiles, m.kind, rules) for m in specs]

    def _check_new_melds(self, seat: int, shapes: Sequence[MeldShape]) -> str | None:
        """Opening rules (A.8, B.6) or later-meld rules (B.7); the opening kind."""
        if self.opened[seat]:
            self.family.check_later_melds(self, seat, shapes)
            return None
        return self.family.check_opening(self, seat, shapes)

    def _place_melds(self, seat: int, shapes: Sequence[MeldShape], opening: str | None) -> None:
        for s in shapes:
            self.table.append(
                TableMeld(s.kind, list(s.tiles), [seat] * len(s.tiles), s.low, s.suit)
            )
            if any(face_of(t) == JOKER for t in s.tiles):
                self.turn_laid_joker = True
        if opening is not None:
            self.opened[seat] = True
            self.opened_with[seat] = opening
            self.family.record_opening(self, seat, opening, shapes)

    def _meld_index(self, index: int) -> TableMeld:
        if index >= len(self.table):
            raise RuleError(ErrorCode.BAD_ACTION, f"there is no meld {index} on the table")
        return self.table[index]

    def _remove(self, seat: int, tiles: Iterable[int]) -> None:
        gone = set(tiles)
        self.hands[seat] = [t for t in self.hands[seat] if t not in gone]

    def _draw(self, seat: int, action: Draw) -> Event:
        if not self.stock:  # A.15, B.13: accepted, the round ends with nobody out
            self.stock_ran_out = True
            self.phase = OVER
            return Event(seat, "draw", {"stock_empty": True, "over": True})
        tile = self.stock.pop()
        self.hands[seat].append(tile)
        self.phase = BUILD
        return Event(seat, "draw", {}, {"tile": tile})

    def _discard(self, seat: int, action: Discard) -> Event:
        self._require_hand(seat, [action.tile])
        hand = self.hands[seat]
        is_joker = face_of(action.tile) == JOKER
        if (
            is_joker
            and self.variant.joker_discard_restricted
            and any(face_of(t) != JOKER for t in hand)
        ):
            raise RuleError(
                ErrorCode.JOKER_DISCARD,
                "a joker can be discarded only when you hold nothing but jokers",
            )
        hand.remove(action.tile)
        self.row.append(action.tile)
        self.row_by.append(seat)
        public: dict[str, Any] = {"tile": action.tile}
        if not hand:  # going out (A.14, B.11)
            self.out = seat
            self.last_discard_joker = is_joker
            self.out_with_joker_meld = self.turn_laid_joker
            self.phase = OVER
            public["over"] = True
        else:
            self.turns_done[seat] += 1
            self.turn = (seat + 1) % self.players
            self.phase = TAKE
            self.turn_laid_joker = False
            self.anyone_opened_at_turn_start = any(self.opened)
        return Event(seat, "discard", public)

    def _lay(self, seat: int, action: Lay) -> Event:
        extra: list[int] = []
        if action.atu and self.atu is not None:  # A.12 (apply checked the rest first)
            if self.atu_taken_by is not None:
                raise RuleError(ErrorCode.ATU_TAKEN, "the atu has already been taken")
            extra.append(self.atu)
        tiles = action_tiles(action)
        self._require_hand(seat, tiles, extra)
        shapes = self._read(action.melds)
        opening = self._check_new_melds(seat, shapes)
        left = len(self.hands[seat]) - (len(tiles) - len(extra))
        if left < 1:
            raise RuleError(ErrorCode.MUST_KEEP_DISCARD, "keep one tile to discard")
        if action.atu and left != 1:
            raise RuleError(
                ErrorCode.ATU_NOT_GOING_OUT,
                "the atu may be taken only when the lay leaves exactly one tile",
            )
        self._remove(seat, tiles)
        if action.atu:
            self.atu_taken_by = seat
        first = len(self.table)
        self._place_melds(seat, shapes, opening)
        return Event(
            seat,
            "lay",
            {"melds": self._melds_public(first), "atu": action.atu, "opened": opening is not None},
        )

    def _take_row(self, seat: int, action: TakeRow) -> Event:
        if not self.row:
            raise RuleError(ErrorCode.EMPTY_ROW, "the discard row is empty")
        index = action.index
        if index >= len(self.row):
            raise RuleError(ErrorCode.BAD_ACTION, f"the row has no tile {index}")
        coming = self.row[index:]
        tiles = action_tiles(action)
        self._require_hand(seat, tiles, coming)
        shapes = self._read(action.melds)
        deep = index < len(self.row) - 1
        if deep and not self.opened[seat]:
            raise RuleError(
                ErrorCode.NOT_OPENED,
                "only a seat that has opened may reach below the top of the row",
            )
        opening = self._check_new_melds(seat, shapes)
        if not self.row_depth_allows(index):
            raise RuleError(ErrorCode.TOO_DEEP, "that tile is deeper than the row lets you see")
        if self.row[index] not in tiles:
            raise RuleError(
                ErrorCode.TAKEN_TILE_UNUSED,
                "the taken tile must be used in a new meld in the same move",
            )
        if len(self.hands[seat]) + len(coming) - len(tiles) < 1:
            raise RuleError(ErrorCode.MUST_KEEP_DISCARD, "keep one tile to discard")
        del self.row[index:]
        del self.row_by[max(0, len(self.row_by) - len(coming)) :]
        self.hands[seat].extend(coming)
        self._remove(seat, tiles)
        first = len(self.table)
        self._place_melds(seat, shapes, opening)
        self.phase = BUILD
        return Event(
            seat,
            "take_row",
            {
                "index": index,
                "tiles": coming,
                "melds": self._melds_public(first),
                "opened": opening is not None,
            },
        )

    def _layoff_check(self, seat: int, meld: TableMeld, spec: LayoffSpec | LayOff) -> str:
        if face_of(spec.tile) == JOKER and not self.family.joker_layoff:
            raise RuleError(
                ErrorCode.JOKER_LAYOFF, "a joker reaches the table only inside a new meld"
            )
        where = fit_layoff(
            meld, spec.tile, spec.end, self.variant.meld_rules, self.family.joker_layoff
        )
        if where is None:
            raise RuleError(ErrorCode.LAYOFF_DOES_NOT_FIT, "that tile does not fit on that meld")
        return where

    @staticmethod
    def _attach(meld: TableMeld, tile: int, owner: int, where: str) -> None:
        if where == "low":
            meld.tiles.insert(0, tile)
            meld.owners.insert(0, owner)
            meld.low -= 1
        else:
            meld.tiles.append(tile)
            meld.owners.append(owner)

    def _layoff(self, seat: int, action: LayOff) -> Event:
        meld = self._meld_index(action.meld)
        self._require_hand(seat, [action.tile])
        if not self.opened[seat]:
            raise RuleError(ErrorCode.NOT_OPENED, "open before laying off")
        where = self._layoff_check(seat, meld, action)
        if len(self.hands[seat]) < 2:
            raise RuleError(ErrorCode.MUST_KEEP_DISCARD, "keep one tile to discard")
        self.hands[seat].remove(action.tile)
        self._attach(meld, action.tile, seat, where)
        return Event(seat, "layoff", {"tile": action.tile, "meld": action.meld, "end": where})

    def _buy_joker(self, seat: int, action: BuyJoker) -> Event:
        meld = self._meld_index(action.meld)
        self._require_hand(seat, [action.tile])
        if not self.opened[seat]:
            raise RuleError(ErrorCode.NOT_OPENED, "open before buying back a joker")
        face = face_of(action.tile)
        matches: list[int] = []
        if face != JOKER:
            matches = [i for i in range(len(meld.tiles)) if face in meld.replacements(i)]
        if not matches:
            raise RuleError(
                ErrorCode.WRONG_REPLACEMENT,
                "that tile is not the one a joker of this meld stands for",
            )
        free = [i for i in matches if meld.tiles[i] not in self.consumed]
        if not free:
            raise RuleError(
                ErrorCode.JOKER_CONSUMED, "a joker bought back once cannot be bought again"
            )
        i = free[0]
        joker = meld.tiles[i]
        meld.tiles[i] = action.tile
        meld.owners[i] = seat
        hand = self.hands[seat]
        hand.remove(action.tile)
        hand.append(joker)
        if self.family.consumes_bought_jokers:  # A.11; B.10 has no consumption
            self.consumed.add(joker)
        return Event(
            seat,
            "buy_joker",
            {"tile": action.tile, "meld": action.meld, "position": i},
            {"joker": joker},
        )

    def _take_discard(self, seat: int, action: TakeDiscard) -> Event:
        if not self.row:
            raise RuleError(ErrorCode.EMPTY_ROW, "there is no discard to take")
        top = self.row[-1]
        for lo in action.layoffs:  # §C: an index out of range is bad_action, as in take_row
            if lo.meld >= len(self.table) + len(action.melds):
                raise RuleError(ErrorCode.BAD_ACTION, f"there is no meld {lo.meld} on the table")
        tiles = action_tiles(action)
        self._require_hand(seat, tiles, [top])
        shapes = self._read(action.melds)
        was_open = self.opened[seat]
        if not was_open and action.layoffs and not action.melds:
            raise RuleError(ErrorCode.NOT_OPENED, "open before laying off")
        opening = self._check_new_melds(seat, shapes) if (shapes or not was_open) else None
        in_melds = any(top in m.tiles for m in action.melds)
        in_layoffs = any(lo.tile == top for lo in action.layoffs)
        if not (in_melds or (was_open and in_layoffs)):
            raise RuleError(
                ErrorCode.TAKEN_TILE_UNUSED,
                "the taken discard must be used at once in this move"
                + ("" if was_open else ", inside your opening"),
            )
        # Lay-offs apply after the new melds, on copies, so a refusal changes nothing.
        table = list(self.table) + [
            TableMeld(s.kind, list(s.tiles), [seat] * len(s.tiles), s.low, s.suit) for s in shapes
        ]
        copies: dict[int, TableMeld] = {}
        for lo in action.layoffs:
            meld = copies.get(lo.meld)
            if meld is None:
                src = table[lo.meld]
                meld = TableMeld(src.kind, list(src.tiles), list(src.owners), src.low, src.suit)
                copies[lo.meld] = meld
            self._attach(meld, lo.tile, seat, self._layoff_check(seat, meld, lo))
        if len(self.hands[seat]) + 1 - len(tiles) < 1:
            raise RuleError(ErrorCode.MUST_KEEP_DISCARD, "keep one tile to discard")
        self.row.pop()
        if self.row_by:
            self.row_by.pop()
        self.hands[seat].append(top)
        self._remove(seat, tiles)
        first = len(self.table)
        self._place_melds(seat, shapes, opening)
        for index, meld in copies.items():
            self.table[index] = meld
        self.phase = BUILD
        return Event(
            seat,
            "take_discard",
            {
                "tile": top,
                "melds": self._melds_public(first),
                "layoffs": [{"tile": lo.tile, "meld": lo.meld} for lo in action.layoffs],
                "opened": opening is not None,
            },
        )

    def _joker_button(self, seat: int, action: JokerButton) -> Event:
        if not self.options.joker_button or self.joker_credits[seat] < 1 or self.button_used[seat]:
            raise RuleError(
                ErrorCode.BUTTON_UNAVAILABLE,
                "the joker button is off, used this round, or you have no credit",
            )
        tile = self.next_button_id
        self.next_button_id += 1
        self.joker_credits[seat] -= 1
        self.button_used[seat] = True
        self.tile_ids.add(tile)
        self.hands[seat].append(tile)
        self.phase = BUILD
        return Event(seat, "joker_button", {}, {"tile": tile})

    def _melds_public(self, first: int) -> list[dict[str, Any]]:
        return [meld_public(m) for m in self.table[first:]]

    # -------------------------------------------------------------- persistence
    def tile_locations(self) -> dict[int, str]:
        """Where every tile is: 'hand:N', 'stock', 'row', 'table', 'atu' (for invariants)."""
        where: dict[int, str] = {}
        for seat, hand in enumerate(self.hands):
            for t in hand:
                where[t] = f"hand:{seat}"
        for t in self.stock:
            where[t] = "stock"
        for t in self.row:
            where[t] = "row"
        for m in self.table:
            for t in m.tiles:
                where[t] = "table"
        if self.atu is not None and self.atu_taken_by is None:
            where[self.atu] = "atu"
        return where


def meld_public(meld: TableMeld) -> dict[str, Any]:
    """A table meld as every seat sees it (§D: tiles with their credits); ``stands_for``
    gives, for each position, null for a natural tile and for a joker the faces that may
    buy it back (:meth:`~server.rules.melds.TableMeld.replacements`: one face in a run,
    the missing suits of the rank in a set)."""
    return {
        "kind": meld.kind,
        "tiles": list(meld.tiles),
        "owners": list(meld.owners),
        "low": meld.low,
        "suit": meld.suit,
        "stands_for": [
            meld.replacements(i) if face_of(t) == JOKER else None for i, t in enumerate(meld.tiles)
        ],
    }


_ACTION_CLASSES = (Draw, Discard, Lay, TakeRow, LayOff, BuyJoker, TakeDiscard, JokerButton)
_FIRST_TURN_REFUSED = frozenset({Lay, TakeRow, LayOff, BuyJoker})  # A.4

# Each action class's handler.
_HANDLERS: dict[type, Callable[[RoundState, int, Any], Event]] = {
    Draw: RoundState._draw,
    Discard: RoundState._discard,
    Lay: RoundState._lay,
    TakeRow: RoundState._take_row,
    LayOff: RoundState._layoff,
    BuyJoker: RoundState._buy_joker,
    TakeDiscard: RoundState._take_discard,
    JokerButton: RoundState._joker_button,
}


def new_round(
    variant: str | Variant,
    players: int,
    seed: int | str,
    first: int = 0,
    options: RoundOptions | None = None,
) -> RoundState:
    """Deal a seeded round of ``variant``."""
    v = get_variant(variant) if isinstance(variant, str) else variant
    options = options or RoundOptions()
    return RoundState(v, players, deal_tiles(v, players, seed, first, options), options)


def replay(
    variant: str | Variant,
    players: int,
    deal: Deal,
    options: RoundOptions | None,
    actions: Iterable[Sequence[Any]],
) -> RoundState:
    """Rebuild a round from its deal and its action log: ``(seat, action)`` pairs,
    tuples or lists (a log read back from JSON)."""
    v = get_variant(variant) if isinstance(variant, str) else variant
    state = RoundState(v, players, deal, options)
    for seat, action in actions:
        state.apply(seat, action)
    return state
