"""The WebSocket protocol of a room: every message as a pydantic model.

These models are the source of truth. ``docs/protocol.md`` is generated from
them (``python -m server.protocol > docs/protocol.md``) and a test fails when
the two disagree. Client messages are validated with :func:`parse_client`;
server messages are built by the room actor as plain dicts for speed, and the
tests validate every frame they receive against :data:`ServerMessage`.

>>> msg = parse_client('{"type": "action", "seq": 3, "base_version": 17, '
...                    '"action": {"do": "discard", "tile": 40}}')
>>> msg.seq, msg.action.do, msg.action.tile
(3, 'discard', 40)
>>> try:
...     parse_client('{"type": "action", "seq": 3, "base_version": 1, "action": {"do": "fly"}}')
... except ProtocolError as err:
...     print(err.code)
bad_action
>>> try:
...     parse_client('{"type": "dance"}')
... except ProtocolError as err:
...     print(err.code, err.message)
bad_message type: 'dance' is not a message type (hello, action, rack, query, leave, ping)
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from server.rules.errors import ErrorCode

MAX_SEQ = 2**53 - 1
"""Largest ``seq`` (a JavaScript safe integer)."""
MAX_RACK_SLOTS = 64
"""Most slots a rack layout may have."""

TileId = Annotated[int, Field(strict=True, ge=0, le=1023, description="A tile id (RULES.md §1).")]
Seq = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        le=MAX_SEQ,
        description="Client sequence number, increasing per player; a resend reuses it.",
    ),
]
Version = Annotated[int, Field(strict=True, ge=0, description="A room version.")]
Index = Annotated[int, Field(strict=True, ge=0, le=1023)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- engine actions


class MeldSpec(_Model):
    """A new meld with its kind named (otherwise give the bare list of tile ids)."""

    kind: Literal["set", "run", "double"] | None = Field(
        default=None, description="Only needed when the tiles could form several kinds."
    )
    tiles: list[TileId] = Field(min_length=1, max_length=40)


Meld = Annotated[
    list[TileId] | MeldSpec,
    Field(description="A list of tile ids, or {kind, tiles}."),
]
Melds = Annotated[list[Meld], Field(max_length=30)]


class LayoffSpec(_Model):
    """One lay-off inside ``take_discard``."""

    tile: TileId
    meld: Index = Field(description="Index of the table meld (creation order).")
    end: Literal["low", "high"] | None = None


class DrawAction(_Model):
    """Take the top tile of the stock (an empty stock ends the round, A.15/B.13)."""

    do: Literal["draw"]


class DiscardAction(_Model):
    """Discard a tile: ends the turn (or the round, when it is the last tile)."""

    do: Literal["discard"]
    tile: TileId


class LayAction(_Model):
    """Lay new melds from the hand (``atu``: family A, take the atu with them, A.12)."""

    do: Literal["lay"]
    melds: Melds = Field(min_length=1)
    atu: bool = False


class TakeRowAction(_Model):
    """Family A: break the discard row at ``index`` and lay melds using that tile (A.9)."""

    do: Literal["take_row"]
    index: Index
    melds: Melds = Field(default_factory=list)


class LayoffAction(_Model):
    """Add one tile of the hand to a table meld."""

    do: Literal["layoff"]
    tile: TileId
    meld: Index
    end: Literal["low", "high"] | None = None


class BuyJokerAction(_Model):
    """Replace a table joker by the tile it stands for and take the joker."""

    do: Literal["buy_joker"]
    tile: TileId
    meld: Index


class TakeDiscardAction(_Model):
    """Family B: take the last discard and use it at once (B.4)."""

    do: Literal["take_discard"]
    melds: Melds = Field(default_factory=list)
    layoffs: list[LayoffSpec] = Field(default_factory=list, max_length=30)


class JokerButtonAction(_Model):
    """Family B with the joker button: take a joker instead of drawing (B.9)."""

    do: Literal["joker_button"]


GameAction = Annotated[
    DrawAction
    | DiscardAction
    | LayAction
    | TakeRowAction
    | LayoffAction
    | BuyJokerAction
    | TakeDiscardAction
    | JokerButtonAction,
    Field(discriminator="do"),
]
ACTION_MODELS: tuple[type[_Model], ...] = (
    DrawAction,
    DiscardAction,
    LayAction,
    TakeRowAction,
    LayoffAction,
    BuyJokerAction,
    TakeDiscardAction,
    JokerButtonAction,
)

_ACTION_EXAMPLES: dict[type[_Model], Any] = {
    DrawAction: [{"do": "draw"}],
    DiscardAction: [{"do": "discard", "tile": 40}],
    LayAction: [
        {"do": "lay", "melds": [[0, 1, 2], {"kind": "set", "tiles": [9, 22, 35]}]},
        {"do": "lay", "melds": [[13, 14, 15, 16]], "atu": True},
    ],
    TakeRowAction: [{"do": "take_row", "index": 2, "melds": [[30, 31, 32]]}],
    LayoffAction: [{"do": "layoff", "tile": 3, "meld": 0, "end": "high"}],
    BuyJokerAction: [{"do": "buy_joker", "tile": 3, "meld": 1}],
    TakeDiscardAction: [
        {"do": "take_discard", "melds": [[18, 19, 20]], "layoffs": [{"tile": 21, "meld": 0}]}
    ],
    JokerButtonAction: [{"do": "joker_button"}],
}
for _model, _examples_list in _ACTION_EXAMPLES.items():
    _model.model_config["json_schema_extra"] = {"examples": _examples_list}

# --------------------------------------------------------------------------- client → server


class Hello(_Model):
    """First message of a connection (and again to take a seat back after ``leave``).

    The server answers with the events after ``last_version`` when it still
    holds them all, otherwise with a ``snapshot``.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"type": "hello", "last_version": None},
                {"type": "hello", "last_version": 1041},
                {"type": "hello", "last_version": 1041, "patches": True},
            ]
        }
    )
    type: Literal["hello"]
    last_version: Version | None = Field(
        default=None, description="The last version this client holds, or null."
    )
    patches: bool = Field(
        default=False,
        description="Receive each event's view as a ``patch`` against the previous version "
        "instead of the whole view, and ``seats``/``scores`` only when they changed "
        "(see ``event``). Applies to this connection until it closes.",
    )


class ActionMessage(_Model):
    """A move (RULES.md A.18/B.14, tiles by id). Answered by ``ack`` or ``error``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"type": "action", "seq": 12, "base_version": 1041, "action": {"do": "draw"}},
                {
                    "type": "action",
                    "seq": 13,
                    "base_version": 1042,
                    "action": {
                        "do": "lay",
                        "melds": [[0, 1, 2], {"kind": "set", "tiles": [9, 22, 35]}],
                    },
                },
                {
                    "type": "action",
                    "seq": 14,
                    "base_version": 1043,
                    "action": {"do": "discard", "tile": 40},
                },
            ]
        }
    )
    type: Literal["action"]
    seq: Seq
    base_version: Version = Field(
        description="The room version the move was decided on; another one is refused "
        "with stale_version."
    )
    action: GameAction


class RackMessage(_Model):
    """Save this seat's rack layout: tile ids in rack order, null for a gap."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"type": "rack", "seq": 15, "layout": [40, 3, None, 17, 66]}]
        }
    )
    type: Literal["rack"]
    seq: Seq
    layout: list[TileId | None] = Field(max_length=MAX_RACK_SLOTS)


class QueryMessage(_Model):
    """Ask the engine about this seat's view (answered by ``query_result``).

    ``formations``: each tile-id list judged as a meld, plus whether laying them
    all now would pass the opening rules. ``row_preview``: which tiles taking the
    row at ``index`` would bring, and which indices are reachable now.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "query",
                    "seq": 16,
                    "query": "formations",
                    "formations": [[0, 1, 2], [9, 22]],
                },
                {"type": "query", "seq": 17, "query": "row_preview", "index": 3},
            ]
        }
    )
    type: Literal["query"]
    seq: Seq
    query: Literal["formations", "row_preview"]
    formations: list[Annotated[list[TileId], Field(max_length=40)]] | None = Field(
        default=None, max_length=30
    )
    index: Index | None = None


class LeaveMessage(_Model):
    """The back arrow: the seat is marked away and a bot plays it until ``hello``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "leave"}]})
    type: Literal["leave"]


class PingMessage(_Model):
    """Keep-alive; answered by ``pong``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "ping"}]})
    type: Literal["ping"]


ClientMessage = Annotated[
    Hello | ActionMessage | RackMessage | QueryMessage | LeaveMessage | PingMessage,
    Field(discriminator="type"),
]
CLIENT_MODELS: tuple[type[_Model], ...] = (
    Hello,
    ActionMessage,
    RackMessage,
    QueryMessage,
    LeaveMessage,
    PingMessage,
)
CLIENT_TYPES = ("hello", "action", "rack", "query", "leave", "ping")

# --------------------------------------------------------------------------- server → client

_VIEW_EXAMPLE: Any = {
    "variant_id": "remi",
    "players": 2,
    "seat": 0,
    "first": 0,
    "turn": 0,
    "phase": "build",
    "hand": [40, 3, 17, 66, 8, 91, 12, 57, 30, 5, 77, 101, 23, 44, 104],
    "seats": [
        {
            "seat": 0,
            "tiles": 15,
            "opened": False,
            "opened_with": None,
            "credits": 0,
            "first_turn": True,
        },
        {
            "seat": 1,
            "tiles": 14,
            "opened": False,
            "opened_with": None,
            "credits": 0,
            "first_turn": True,
        },
    ],
    "table": [],
    "row": [],
    "row_offset": 0,
    "row_length": 0,
    "row_depth": None,
    "atu": 61,
    "atu_taken_by": None,
    "stock_count": 76,
    "consumed": [],
    "last_points_opening": None,
    "last_doubles_opening": None,
    "joker_button": False,
    "joker_credits": 0,
    "button_used": False,
    "over": False,
    "result": None,
    "hands": None,
    "opened_with": [None, None],
}


class SeatState(_Model):
    """What every connection sees of one seat."""

    seat: int
    player_id: str | None = Field(description="The seated player, null for a bot seat.")
    name: str | None = Field(description="The player's display name (null for a bot seat).")
    bot_level: str | None = Field(description="Level of the bot that fills or stands in.")
    is_bot: bool = Field(description="A seat filled by a bot (no player).")
    away: bool = Field(description="The player left or disconnected: a bot plays for them.")
    unresponsive: bool = Field(
        description="Timed out twice in a row: a bot plays at once until the player acts."
    )
    bot_playing: bool = Field(description="A bot plays this seat now (is_bot, away, unresponsive).")
    total: int = Field(description="The seat's match total so far.")


class Scores(_Model):
    """The score sheet: each finished round's additions per seat, and the totals."""

    rounds: list[list[int]]
    totals: list[int]
    over: bool = Field(description="The match is over.")
    winners: list[int] = Field(description="Seats with the highest total once over (ties share).")


class RoomInfo(_Model):
    """The room as a whole."""

    id: str
    status: Literal["waiting", "playing", "finished"]
    settings: dict[str, Any] = Field(description="The room settings (see the HTTP API).")
    round: int = Field(description="Number of the current (or last) round, 1-based; 0 before.")
    turn_seconds: float = Field(description="Seconds each turn lasts.")


class You(_Model):
    """Who this connection is."""

    player_id: str
    seat: int | None = Field(description="The connection's seat; null for a spectator.")


_SEATS_EXAMPLE: Any = [
    {
        "seat": 0,
        "player_id": "k3J9xq0aZb1Q",
        "name": "Ana",
        "bot_level": "normal",
        "is_bot": False,
        "away": False,
        "unresponsive": False,
        "bot_playing": False,
        "total": 0,
    },
    {
        "seat": 1,
        "player_id": None,
        "name": None,
        "bot_level": "normal",
        "is_bot": True,
        "away": False,
        "unresponsive": False,
        "bot_playing": True,
        "total": 0,
    },
]
_SCORES_EXAMPLE: Any = {"rounds": [], "totals": [0, 0], "over": False, "winners": []}


class Snapshot(_Model):
    """The whole state this connection may see (§D): after ``hello`` when a replay is impossible."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "snapshot",
                    "version": 1041,
                    "room": {
                        "id": "Xc2v9Lq0PpTa",
                        "status": "playing",
                        "settings": {"variant": "remi", "seats": 2, "turn_seconds": 30},
                        "round": 1,
                        "turn_seconds": 30.0,
                    },
                    "you": {"player_id": "k3J9xq0aZb1Q", "seat": 0},
                    "seats": _SEATS_EXAMPLE,
                    "view": _VIEW_EXAMPLE,
                    "rack": [40, 3, None, 17, 66, 8, 91, 12, 57, 30, 5, 77, 101, 23, 44, 104],
                    "deadline": 1767225600.5,
                    "server_time": 1767225571.2,
                    "scores": _SCORES_EXAMPLE,
                    "last_seq": 11,
                }
            ]
        }
    )
    type: Literal["snapshot"]
    version: Version
    room: RoomInfo
    you: You
    seats: list[SeatState]
    view: dict[str, Any] | None = Field(
        description="The engine's SeatView for this seat (spectator view for a spectator); "
        "null before the first round."
    )
    rack: list[int | None] | None = Field(
        description="This seat's saved rack layout, reconciled with the hand: a tile that left "
        "the hand leaves an empty slot (null; no tile shifts), a new tile takes the first empty "
        "slot or is appended; null for spectators."
    )
    deadline: float | None = Field(description="End of the current turn, unix seconds.")
    server_time: float = Field(description="The server's clock when sending, unix seconds.")
    scores: Scores
    last_seq: int | None = Field(description="The highest seq this player has used, if any.")


class EventMessage(_Model):
    """One change of the room, filtered for this connection's seat.

    ``view``, ``seats``, ``deadline`` and ``scores`` describe the room after the
    event. In a replay (``replay`` true) only the last event carries them; the
    earlier ones have them null.

    A connection whose ``hello`` asked for ``patches`` gets, instead of the whole
    ``view`` (then null), a ``patch``: the view's top-level keys that the event may
    have changed since the previous version, with their values now (``{}`` when the
    round did not change; a key may come with the value it already had: the keys are
    those the engine names for the move, not a comparison). The client replaces
    those keys of the view it holds; the result is exactly the seat's view at this
    version. When the server does not patch (a new round is dealt, an abandoned
    round is taken away, the first event after a ``snapshot`` taken before a round
    existed, ...) it sends the whole ``view`` and ``patch`` null; a client replaces
    its view then. Such a connection also gets
    ``seats`` and ``scores`` only in the events where they changed (null means
    unchanged); the last event of a replay always carries the whole ``view``,
    ``seats`` and ``scores``.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "event",
                    "version": 1042,
                    "event": {"seat": 0, "do": "discard", "tile": 40, "by": "player"},
                    "view": {
                        **_VIEW_EXAMPLE,
                        "turn": 1,
                        "phase": "take",
                        "row": [40],
                        "row_length": 1,
                    },
                    "seats": _SEATS_EXAMPLE,
                    "deadline": 1767225631.2,
                    "server_time": 1767225601.2,
                    "scores": _SCORES_EXAMPLE,
                    "replay": False,
                },
                {
                    "type": "event",
                    "version": 1042,
                    "event": {"seat": 0, "do": "discard", "tile": 40, "by": "player"},
                    "view": None,
                    "patch": {
                        "turn": 1,
                        "phase": "take",
                        "hand": [3, 17, 66, 8, 91, 12, 57, 30, 5, 77, 101, 23, 44, 104],
                        "seats": [
                            {"seat": 0, "tiles": 14, "opened": False, "opened_with": None,
                             "credits": 0, "first_turn": False},
                            {"seat": 1, "tiles": 14, "opened": False, "opened_with": None,
                             "credits": 0, "first_turn": True},
                        ],
                        "row": [40],
                        "row_length": 1,
                    },
                    "seats": None,
                    "deadline": 1767225631.2,
                    "server_time": 1767225601.2,
                    "scores": None,
                    "replay": False,
                },
            ]
        }
    )
    type: Literal["event"]
    version: Version
    event: dict[str, Any] = Field(description="What happened; see 'Events' below.")
    view: dict[str, Any] | None
    patch: dict[str, Any] | None = Field(
        default=None,
        description="With ``patches``: the view's keys the event may have changed, with "
        "their values now.",
    )
    seats: list[SeatState] | None
    deadline: float | None
    server_time: float
    scores: Scores | None
    replay: bool = False


class Ack(_Model):
    """An ``action`` or ``rack`` was accepted and committed; ``version`` is the room's after it."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "ack", "seq": 14, "version": 1043}]}
    )
    type: Literal["ack"]
    seq: Seq
    version: Version


class ErrorMessage(_Model):
    """A refused message. Nothing changed. ``seq`` is the refused message's, if it had one."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "error",
                    "seq": 14,
                    "code": "not_your_turn",
                    "message": "it is seat 1's turn",
                },
                {
                    "type": "error",
                    "seq": None,
                    "code": "bad_message",
                    "message": "the frame is not valid JSON",
                },
            ]
        }
    )
    type: Literal["error"]
    seq: int | None
    code: str
    message: str


class QueryResult(_Model):
    """The engine's answer to a ``query``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "query_result",
                    "seq": 16,
                    "result": {
                        "formations": [
                            {"valid": True, "code": None, "message": "", "kind": "run", "value": 6},
                            {
                                "valid": False,
                                "code": "invalid_meld",
                                "message": "a meld has at least 3 tiles",
                                "kind": None,
                                "value": 0,
                            },
                        ],
                        "lock": {
                            "locked": True,
                            "code": "below_threshold",
                            "message": "the opening needs 45 points",
                            "value": 6,
                            "threshold": 45,
                            "has_run": True,
                            "run_required": True,
                            "doubles": 0,
                            "doubles_needed": None,
                            "opened": False,
                        },
                    },
                },
                {
                    "type": "query_result",
                    "seq": 17,
                    "result": {"index": 3, "tiles": [30, 12], "reachable": [4]},
                },
            ]
        }
    )
    type: Literal["query_result"]
    seq: Seq
    result: dict[str, Any]


class Pong(_Model):
    """Answer to ``ping``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "pong"}]})
    type: Literal["pong"]


ServerMessage = Annotated[
    Snapshot | EventMessage | Ack | ErrorMessage | QueryResult | Pong,
    Field(discriminator="type"),
]
SERVER_MODELS: tuple[type[_Model], ...] = (
    Snapshot,
    EventMessage,
    Ack,
    ErrorMessage,
    QueryResult,
    Pong,
)

# --------------------------------------------------------------------------- events and codes

EVENT_KINDS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "draw",
        "A seat drew from the stock. Only the drawer's copy has `tile`. "
        "`by` is `player`, `bot` (a bot seat, or a bot standing in for an away or "
        "unresponsive player) or `timeout` (the bot finishing a turn whose time ran out).",
        {"seat": 1, "do": "draw", "by": "bot"},
    ),
    (
        "discard",
        "A seat discarded `tile` onto the row (`over` when it went out).",
        {"seat": 0, "do": "discard", "tile": 40, "by": "player"},
    ),
    (
        "lay",
        "New melds (as on the table: kind, tiles, owners, low, suit).",
        {
            "seat": 0,
            "do": "lay",
            "melds": [
                {"kind": "run", "tiles": [0, 1, 2], "owners": [0, 0, 0], "low": 1, "suit": 0}
            ],
            "atu": False,
            "opened": True,
            "by": "player",
        },
    ),
    (
        "take_row",
        "Family A: the row was broken at `index`; `tiles` came into the hand.",
        {
            "seat": 1,
            "do": "take_row",
            "index": 2,
            "tiles": [30, 12],
            "melds": [],
            "opened": False,
            "by": "player",
        },
    ),
    (
        "layoff",
        "A tile was added to table meld `meld`.",
        {"seat": 0, "do": "layoff", "tile": 3, "meld": 0, "end": "high", "by": "player"},
    ),
    (
        "buy_joker",
        "A table joker was bought back; only the buyer's copy names the `joker`.",
        {"seat": 0, "do": "buy_joker", "tile": 3, "meld": 0, "position": 2, "by": "player"},
    ),
    (
        "take_discard",
        "Family B: the last discard was taken and used at once.",
        {
            "seat": 2,
            "do": "take_discard",
            "tile": 18,
            "melds": [],
            "layoffs": [{"tile": 18, "meld": 1}],
            "opened": False,
            "by": "player",
        },
    ),
    (
        "joker_button",
        "Family B: a seat used the joker button (only its copy has `tile`).",
        {"seat": 3, "do": "joker_button", "by": "player"},
    ),
    (
        "round_start",
        "A round was dealt; `first` starts.",
        {"do": "round_start", "round": 2, "first": 1},
    ),
    (
        "round_over",
        "The round ended; `result` is the engine's scored result (all hands are in the view).",
        {
            "do": "round_over",
            "round": 2,
            "result": {
                "reason": "out",
                "out": 0,
                "scores": [150, -20],
                "closing": None,
                "breakdown": [],
            },
            "scores": [150, -20],
            "totals": [230, -45],
            "next_round_in": 5.0,
        },
    ),
    (
        "match_over",
        "The match ended: `reason` is `end_condition`, or `abandoned` when no player "
        "was connected for the grace period.",
        {
            "do": "match_over",
            "reason": "end_condition",
            "totals": [230, -45],
            "winners": [0],
            "rounds": 2,
        },
    ),
    (
        "presence",
        "A seat's away/unresponsive flags changed (also in `seats`).",
        {"do": "presence", "seat": 1, "away": True, "unresponsive": False},
    ),
    (
        "timeout",
        "The turn time ran out: the bot finishes the turn; `timeouts` counts consecutive ones.",
        {"do": "timeout", "seat": 0, "timeouts": 1},
    ),
    ("room_changed", "A waiting room's seats changed (see `seats`).", {"do": "room_changed"}),
]

ERROR_CODES: list[tuple[str, str]] = [
    *[(code.value, "RULES.md §C") for code in ErrorCode],
    ("bad_message", "The frame is not JSON, not a known message, or a field is invalid."),
    (
        "stale_version",
        "`base_version` is not the room's current version; re-decide and resend with a new seq.",
    ),
    ("seq_reused", "This seq was already used by this player for a different message."),
    ("not_seated", "Only a seated player may do this (spectators watch)."),
    ("room_closed", "The room is not playing (waiting, between rounds or finished)."),
    ("rate_limited", "Too many messages; the connection is closed with 1008."),
    ("not_authenticated", "No valid token (cookie or bearer); the connection is closed with 4401."),
    (
        "room_not_found",
        "No such room, or a private room without membership or ?code=; closed with 4404.",
    ),
    ("internal_error", "The server could not store the move; nothing changed."),
]

CLOSE_CODES: list[tuple[int, str]] = [
    (1000, "Normal close."),
    (1001, "The server is shutting down; reconnect with hello{last_version}."),
    (1008, "Policy: message budget exceeded (rate_limited) or the client is too slow to read."),
    (1009, "A frame was larger than the limit (16 KB)."),
    (4401, "Not authenticated."),
    (4404, "Room not found (or not visible)."),
]

# --------------------------------------------------------------------------- parsing


class ProtocolError(Exception):
    """A client message that cannot be accepted: ``code`` and a human ``message``."""

    def __init__(self, code: str, message: str, seq: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.seq = seq


_client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)
_action_adapter: TypeAdapter[Any] = TypeAdapter(GameAction)

AnyClientMessage = Hello | ActionMessage | RackMessage | QueryMessage | LeaveMessage | PingMessage


def _describe(exc: ValidationError, skip: int) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = [str(p) for p in err.get("loc", ())][skip:]
        where = ".".join(loc) or "message"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def parse_client(text: str | bytes) -> AnyClientMessage:
    """Parse and validate one client frame; raises :class:`ProtocolError`.

    A valid frame is validated straight from its JSON (one pass, no dict built
    first); an invalid one goes through :func:`_parse_refused`, which names the problem.
    """
    try:
        valid: AnyClientMessage = _client_adapter.validate_json(text)
        return valid
    except ValidationError:
        pass
    return _parse_refused(text)


def _parse_refused(text: str | bytes) -> AnyClientMessage:
    """The steps after a frame failed ``validate_json``: they name the problem."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError("bad_message", "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = data.get("type")
    raw_seq = data.get("seq")
    seq = raw_seq if isinstance(raw_seq, int) and not isinstance(raw_seq, bool) else None
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "bad_message",
            f"type: {kind!r} is not a message type ({', '.join(CLIENT_TYPES)})",
            seq,
        )
    try:
        msg: AnyClientMessage = _client_adapter.validate_python(data)
    except ValidationError as exc:
        errors = exc.errors()
        in_action = kind == "action" and all(
            tuple(e.get("loc", ()))[:2] == ("action", "action") for e in errors
        )
        if in_action:
            raise ProtocolError("bad_action", _describe(exc, 1), seq) from None
        raise ProtocolError("bad_message", _describe(exc, 1), seq) from None
    return msg


def validate_server(data: dict[str, Any]) -> Any:
    """Validate one server message (used by the tests on every received frame)."""
    return _server_adapter.validate_python(data)


def action_dict(action: BaseModel) -> dict[str, Any]:
    """The engine's JSON form of a validated action: its ``model_dump(exclude_none=True)``,
    written out per action model (the same dict, keys in the same order, new lists).

    >>> action_dict(DiscardAction(do="discard", tile=40))
    {'do': 'discard', 'tile': 40}
    """
    dump = _ACTION_DUMPS.get(type(action))
    if dump is None:
        return action.model_dump(exclude_none=True)
    return dump(action)


def _meld_dumps(melds: list[list[int] | MeldSpec]) -> list[Any]:
    out: list[Any] = []
    for meld in melds:
        if type(meld) is MeldSpec:  # not isinstance: through ABCMeta for a pydantic model
            tiles = list(meld.tiles)
            out.append(
                {"tiles": tiles} if meld.kind is None else {"kind": meld.kind, "tiles": tiles}
            )
        else:
            out.append(list(meld))
    return out


def _layoff_spec_dump(spec: LayoffSpec) -> dict[str, Any]:
    if spec.end is None:
        return {"tile": spec.tile, "meld": spec.meld}
    return {"tile": spec.tile, "meld": spec.meld, "end": spec.end}


def _layoff_dump(a: LayoffAction) -> dict[str, Any]:
    if a.end is None:
        return {"do": a.do, "tile": a.tile, "meld": a.meld}
    return {"do": a.do, "tile": a.tile, "meld": a.meld, "end": a.end}


_ACTION_DUMPS: dict[type[BaseModel], Callable[[Any], dict[str, Any]]] = {
    DrawAction: lambda a: {"do": a.do},
    DiscardAction: lambda a: {"do": a.do, "tile": a.tile},
    LayAction: lambda a: {"do": a.do, "melds": _meld_dumps(a.melds), "atu": a.atu},
    TakeRowAction: lambda a: {"do": a.do, "index": a.index, "melds": _meld_dumps(a.melds)},
    LayoffAction: _layoff_dump,
    BuyJokerAction: lambda a: {"do": a.do, "tile": a.tile, "meld": a.meld},
    TakeDiscardAction: lambda a: {
        "do": a.do,
        "melds": _meld_dumps(a.melds),
        "layoffs": [_layoff_spec_dump(spec) for spec in a.layoffs],
    },
    JokerButtonAction: lambda a: {"do": a.do},
}


# --------------------------------------------------------------------------- documentation


def _type_name(tp: Any) -> str:
    """A short, stable name of a field type for the documentation."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, types.UnionType):
        if all(isinstance(a, type) and a in ACTION_MODELS for a in args):
            return "action (see Actions)"
        return " | ".join(_type_name(a) for a in args)
    if origin is list:
        return f"list[{_type_name(args[0])}]"
    if origin is dict:
        return "object"
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in args)
    if tp is type(None):
        return "null"
    names = {int: "int", str: "string", bool: "bool", float: "number"}
    if tp in names:
        return names[tp]
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp.__name__
    return "any"


def _field_rows(model: type[BaseModel]) -> list[str]:
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, info in model.model_fields.items():
        if name == "type":
            continue
        ann = _type_name(info.annotation).replace("|", "\\|")
        required = "yes" if info.is_required() else "no"
        desc = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | `{ann}` | {required} | {desc} |")
    return rows


def _examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    extra = model.model_config.get("json_schema_extra")
    if isinstance(extra, dict):
        examples = extra.get("examples", [])
        if isinstance(examples, list):
            return [e for e in examples if isinstance(e, dict)]
    return []


def _model_section(model: type[BaseModel]) -> list[str]:
    type_field = model.model_fields.get("type") or model.model_fields.get("do")
    tag = ""
    if type_field is not None and type_field.annotation is not None:
        args = getattr(type_field.annotation, "__args__", ())
        tag = str(args[0]) if args else ""
    lines = [f"### `{tag}`" if tag else f"### {model.__name__}", ""]
    lines.append(inspect.cleandoc(model.__doc__ or ""))
    lines.append("")
    if len(model.model_fields) > 1:
        lines += _field_rows(model)
        lines.append("")
    for example in _examples(model):
        lines += ["```json", json.dumps(example, ensure_ascii=False), "```", ""]
    return lines


def render_markdown() -> str:
    """The text of docs/protocol.md."""
    from server.rules.views import SeatView

    out: list[str] = [
        "# WebSocket protocol",
        "",
        "<!-- Generated from server/protocol.py by `python -m server.protocol > docs/protocol.md`;"
        " tests/server/test_ws_protocol_doc.py fails when they disagree. -->",
        "",
        "Endpoint: `GET /ws/rooms/{room_id}` (WebSocket; add `?code=<invite>` to watch a "
        "private room you are not seated in). Authentication: the guest cookie `remi_token` "
        "(browsers) or `Authorization: Bearer <token>`. A handshake whose `Origin` is not in "
        "the server's allowlist is refused (HTTP 403); a client that sends no `Origin` "
        "(not a browser) is allowed. Text frames only, one JSON object each, at most 16 KB; "
        "permessage-deflate is off. Each connection may send 100 messages per 20 s.",
        "",
        "Every message has a `type`. The server keeps one authoritative room: every change "
        "is an `event` with the next room `version`. A connection sees only its own seat's "
        "view (RULES.md §D), or the spectator view when it has no seat.",
        "",
        "## Flow",
        "",
        "1. Connect, send `hello` with the last `version` you hold (null the first time).",
        "2. The server replays the `event`s you missed when it still holds them all, "
        "otherwise it sends a `snapshot`. Either way you are then current.",
        "3. Send `action`s with a fresh `seq` and the `base_version` you decided on. The "
        "server commits the move to the database, then answers `ack{seq, version}` and "
        "broadcasts the `event` to every connection. A refused move gets "
        "`error{seq, code, message}`.",
        "4. Resending a `seq` (after a reconnect, say) returns the original `ack`/`error` "
        "and applies nothing. A move based on another version than the current one is "
        "refused with `stale_version`.",
        "5. Turn time: `deadline` is when the current turn ends. Then a bot, seeing only "
        'that seat\'s view, finishes the turn (`timeout` event, `by: "timeout"`). After 2 '
        "timeouts in a row the seat is `unresponsive` and the bot plays its turns at once "
        "until the player sends an action. `leave` (or a lost connection, after a short "
        "grace) marks the seat `away` and the bot plays; `hello` again (from any device, "
        "same token) takes the seat back, mid-turn included.",
        "6. Between rounds the next round starts by itself after a short pause, until the "
        "room's end condition (RULES.md A.17): then `match_over`. A room with no player "
        "connected ends after a grace period (`match_over`, reason `abandoned`); the scores "
        "of finished rounds are kept.",
        "",
        "## Client → server",
        "",
    ]
    for model in CLIENT_MODELS:
        out += _model_section(model)
    out += [
        "### Actions (`action.action`)",
        "",
        "Malformed actions are refused with `bad_action`; illegal ones with the RULES.md §C code.",
        "",
    ]
    for model in ACTION_MODELS:
        out += _model_section(model)
    out += ["### Meld objects (`melds[]`)", "", inspect.cleandoc(MeldSpec.__doc__ or ""), ""]
    out += [*_field_rows(MeldSpec), ""]
    out += ["### Lay-offs (`layoffs[]`)", "", inspect.cleandoc(LayoffSpec.__doc__ or ""), ""]
    out += [*_field_rows(LayoffSpec), ""]
    out += ["## Server → client", ""]
    for model in SERVER_MODELS:
        out += _model_section(model)
    out += ["### Seat entries (`seats[]`)", "", *_field_rows(SeatState), ""]
    out += ["### Score sheet (`scores`)", "", *_field_rows(Scores), ""]
    out += ["### Room (`room`)", "", *_field_rows(RoomInfo), ""]
    view_fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(SeatView))
    out += [
        "### The view (`view`)",
        "",
        "The engine's SeatView (docs/engine-api.md): " + view_fields + ". `hand` is this "
        "seat's own tiles only; `hands` (every hand) and `result` appear once the round is "
        "over. A spectator's view has an empty `hand`.",
        "",
        "## Events",
        "",
        "`event.do` names what happened. Engine moves carry the acting `seat` and `by`.",
        "",
    ]
    for name, text, example in EVENT_KINDS:
        out += [f"### `{name}`", "", text, "", "```json", json.dumps(example), "```", ""]
    out += ["## Error codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| `{code}` | {text} |" for code, text in ERROR_CODES]
    out += ["", "## Close codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| {code} | {text} |" for code, text in CLOSE_CODES]
    out.append("")
    return "\n".join(out)


def all_examples() -> list[tuple[type[BaseModel], dict[str, Any]]]:
    """Every documented example with its model (for the tests)."""
    out: list[tuple[type[BaseModel], dict[str, Any]]] = []
    for model in (*CLIENT_MODELS, *SERVER_MODELS, *ACTION_MODELS):
        out += [(model, e) for e in _examples(model)]
    return out


if __name__ == "__main__":  # pragma: no cover
    from server import protocol as _protocol  # the importable module, not __main__

    sys.stdout.write(_protocol.render_markdown())
