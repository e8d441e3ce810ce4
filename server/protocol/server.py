"""Messages from the server to a client (docs/protocol.md): their models, the events,
the error and close codes.

The room's frames have the shapes of these models (server/rooms/core/frames.py); the tests
validate every frame they receive with :func:`validate_server`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from server.errors import Code
from server.protocol.common import Model, Reaction, Seq, Version
from server.rules.errors import ErrorCode

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
    "row_by": [],
    "commitment": "a647cfc08f2d829b019b24f11930f11c7513b5c60dc79675233871a1533f59ef",
}


class SeatState(Model):
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


class Scores(Model):
    """The score sheet: each finished round's additions per seat, and the totals."""

    rounds: list[list[int]]
    totals: list[int]
    over: bool = Field(description="The match is over.")
    winners: list[int] = Field(description="Seats with the highest total once over (ties share).")


class RoomInfo(Model):
    """The room as a whole."""

    id: str
    status: Literal["waiting", "playing", "finished"]
    kind: Literal["practice", "normal", "quick", "arena", "tournament"] = Field(
        description="The room's kind (it never changes): practice settles and rates nothing."
    )
    settings: dict[str, Any] = Field(description="The room settings (see the HTTP API).")
    round: int = Field(description="Number of the current (or last) round, 1-based; 0 before.")
    turn_seconds: float = Field(description="Seconds each turn lasts.")


class You(Model):
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


class RecentEvent(Model):
    """One of the round's last events, as in the ``event`` frame that brought it."""

    version: Version
    event: dict[str, Any] = Field(description="What happened; see 'Events' below.")


class Snapshot(Model):
    """The whole state this connection may see (§D): after ``hello`` when a replay is impossible."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "snapshot",
                    "version": 1041,
                    "room": {
                        "id": "Xc2v9Lq0PpTa",
                        "kind": "normal",
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
                    "recent": [
                        {
                            "version": 1040,
                            "event": {"seat": 1, "do": "discard", "tile": 77, "by": "bot"},
                        }
                    ],
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
    recent: list[RecentEvent] = Field(
        default_factory=list,
        description="The current round's last events (from its ``round_start`` on, at most "
        "the server's ``snapshot_recent_events``), oldest first, each as this seat sees it "
        "(RULES.md §D): for the move log of a client that missed them.",
    )


class EventMessage(Model):
    """One change of the room, filtered for this connection's seat.

    ``view``, ``seats``, ``deadline`` and ``scores`` describe the room after the
    event. In a replay (``replay`` true) only the last event carries them; the
    earlier ones have them null.

    A connection whose ``hello`` asked for ``patches`` gets, instead of the whole
    ``view`` (then null), a ``patch``: the top-level keys of the view whose value
    differs from what this connection last received, with their values now (``{}``
    when none does). The client replaces
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
                            {
                                "seat": 0,
                                "tiles": 14,
                                "opened": False,
                                "opened_with": None,
                                "credits": 0,
                                "first_turn": False,
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


class Ack(Model):
    """An ``action`` or ``rack`` was accepted and committed; ``version`` is the room's after it."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "ack", "seq": 14, "version": 1043}]}
    )
    type: Literal["ack"]
    seq: Seq
    version: Version


class ErrorMessage(Model):
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
    retry_after_ms: int | None = None
    """For a refusal that a later try may not get (``busy``, ``database_unavailable``):
    send the message again (with a new seq) no sooner than this, backing off further
    if it is refused again."""


class QueryResult(Model):
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
                            "taken_used": None,
                        },
                    },
                },
                {
                    "type": "query_result",
                    "seq": 17,
                    "result": {
                        "index": 3,
                        "tiles": [30, 12],
                        "reachable": [4],
                        "block": {
                            "code": "not_opened",
                            "message": "only a seat that has opened may reach below the top "
                            "of the row",
                        },
                    },
                },
            ]
        }
    )
    type: Literal["query_result"]
    seq: Seq
    result: dict[str, Any]


class Pong(Model):
    """Answer to ``ping``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "pong"}]})
    type: Literal["pong"]


class ReactionMessage(Model):
    """A seat's quick reaction (``react``), to everyone in the room. Not an event of the
    game: it has no version, is not stored and is not replayed on reconnect."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "reaction", "seat": 1, "reaction": "wow"}]}
    )
    type: Literal["reaction"]
    seat: int
    reaction: Reaction


ServerMessage = Annotated[
    Snapshot | EventMessage | Ack | ErrorMessage | QueryResult | Pong | ReactionMessage,
    Field(discriminator="type"),
]
SERVER_MODELS: tuple[type[Model], ...] = (
    Snapshot,
    EventMessage,
    Ack,
    ErrorMessage,
    QueryResult,
    Pong,
    ReactionMessage,
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
        "New melds (as on the table: kind, tiles, owners, low, suit, and `stands_for`: per "
        "position null, or for a joker the faces that buy it back).",
        {
            "seat": 0,
            "do": "lay",
            "melds": [
                {
                    "kind": "run",
                    "tiles": [0, 104, 2],
                    "owners": [0, 0, 0],
                    "low": 1,
                    "suit": 0,
                    "stands_for": [None, [1], None],
                }
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
        "A round was dealt; `first` starts. `commitment` is SHA-256 of the round's secret "
        "seed (hex), given before any move: the seed comes with `round_over`, and anyone "
        "can then check the deal (docs/fairness.md). It is also the view's `commitment`.",
        {
            "do": "round_start",
            "round": 2,
            "first": 1,
            "commitment": "a647cfc08f2d829b019b24f11930f11c7513b5c60dc79675233871a1533f59ef",
        },
    ),
    (
        "round_over",
        "The round ended; `result` is the engine's scored result (all hands are in the view). "
        "`seed` is the round's deal seed, revealed now: SHA-256(`seed`) is the `commitment` "
        "of its `round_start`, and the documented shuffle of the seed gives the deal "
        "(docs/fairness.md; GET /api/rooms/{id}/rounds/{n}/verify).",
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
            "seed": "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c",
            "commitment": "a647cfc08f2d829b019b24f11930f11c7513b5c60dc79675233871a1533f59ef",
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

SOCKET_CODES: tuple[Code, ...] = (
    Code.BAD_MESSAGE,
    Code.STALE_VERSION,
    Code.SEQ_REUSED,
    Code.NOT_SEATED,
    Code.ROOM_CLOSED,
    Code.OWNER_GONE,
    Code.RATE_LIMITED,
    Code.NOT_AUTHENTICATED,
    Code.ROOM_NOT_FOUND,
    Code.INTERNAL_ERROR,
    Code.SESSION_REVOKED,
    Code.PLAYED_ELSEWHERE,
    Code.ORIGIN_REFUSED,
    Code.REACTIONS_LIMITED,
    Code.DATABASE_UNAVAILABLE,
    Code.BUSY,
    Code.ROOM_UNREACHABLE,
)
"""The server's codes an ``error`` frame can carry (besides RULES.md §C's)."""

ERROR_CODES: list[tuple[str, str]] = [
    *[(code.value, "RULES.md §C") for code in ErrorCode],
    *[(code.value, code.describe()) for code in SOCKET_CODES],
]

CLOSE_CODES: list[tuple[int, str]] = [
    (1000, "Normal close."),
    (1001, "The server is shutting down; reconnect with hello{last_version}."),
    (1008, "Policy: message budget exceeded (rate_limited) or the client is too slow to read."),
    (1009, "A frame was larger than the limit (16 KB)."),
    (
        1012,
        "The room is played by another server node now (a node stopped and handed it "
        "over, another took it after this one lost its lease, or the link to its node came "
        "back after a loss): reconnect at once with hello{last_version}; the node you reach "
        "plays the room or forwards to the one that does.",
    ),
    (
        1013,
        "Try again later: the handshake could not reach the database (after an `error` "
        "`database_unavailable`); reconnect with the usual back-off.",
    ),
    (
        4003,
        "The page's origin is refused (after an `error` `origin_refused`): a page of "
        "another site, not listed in REMI_ALLOWED_ORIGINS. Do not reconnect.",
    ),
    (4401, "Not authenticated."),
    (
        4403,
        "Signed out: the token this connection was opened with was revoked (after an "
        "`error` `session_revoked`). Forget the token; do not reconnect with it.",
    ),
    (4404, "Room not found (or not visible)."),
    (
        4409,
        "The seat is played from another device or tab (after an `error` "
        "`played_elsewhere`). Do not reconnect by yourself: a new connection's `hello` takes "
        "the seat back.",
    ),
]

_server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def validate_server(data: dict[str, Any]) -> Any:
    """Validate one server message (the tests do it for every frame they receive)."""
    return _server_adapter.validate_python(data)
