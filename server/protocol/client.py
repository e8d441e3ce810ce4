"""Messages from a client to the server, and how a client frame is parsed.

:func:`parse_client` validates one text frame into one of these models or raises
:class:`ProtocolError` (``bad_action`` for a malformed action, else ``bad_message``).

>>> msg = parse_client('{"type": "action", "seq": 3, "base_version": 17, '
...                    '"action": {"do": "discard", "tile": 40}}')
>>> msg.seq, msg.action
(3, Discard(tile=40))
>>> try:
...     parse_client('{"type": "action", "seq": 3, "base_version": 1, "action": {"do": "fly"}}')
... except ProtocolError as err:
...     print(err.code)
bad_action
>>> try:
...     parse_client('{"type": "dance"}')
... except ProtocolError as err:
...     print(err.code, err.message.split(" (")[0])
bad_message type: 'dance' is not a message type
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from server.errors import Code, ServerError
from server.ids import ID_PATTERN
from server.protocol.common import (
    MAX_RACK_SLOTS,
    Index,
    Model,
    Reaction,
    Seq,
    TileId,
    Version,
)
from server.rules import actions as engine
from server.rules.errors import ErrorCode, RuleError

# --------------------------------------------------------------------------- engine actions


class MeldSpec(Model):
    """A new meld with its kind named (otherwise give the bare list of tile ids)."""

    kind: Literal["set", "run", "double"] | None = Field(
        default=None, description="Only needed when the tiles could form several kinds."
    )
    tiles: list[TileId] = Field(min_length=1, max_length=engine.MAX_MELD_TILES)


Meld = Annotated[
    list[TileId] | MeldSpec,
    Field(description="A list of tile ids, or {kind, tiles}."),
]
Melds = Annotated[list[Meld], Field(max_length=engine.MAX_MELDS)]


class LayoffSpec(Model):
    """One lay-off inside ``take_discard``."""

    tile: TileId
    meld: Index = Field(description="Index of the table meld (creation order).")
    end: Literal["low", "high"] | None = None


class DrawAction(Model):
    """Take the top tile of the stock (an empty stock ends the round, A.15/B.13)."""

    do: Literal["draw"]


class DiscardAction(Model):
    """Discard a tile: ends the turn (or the round, when it is the last tile)."""

    do: Literal["discard"]
    tile: TileId


class LayAction(Model):
    """Lay new melds from the hand (``atu``: family A, take the atu with them, A.12)."""

    do: Literal["lay"]
    melds: Melds = Field(min_length=1)
    atu: bool = False


class TakeRowAction(Model):
    """Family A: break the discard row at ``index`` and lay melds using that tile (A.9)."""

    do: Literal["take_row"]
    index: Index
    melds: Melds = Field(default_factory=list)


class LayoffAction(Model):
    """Add one tile of the hand to a table meld."""

    do: Literal["layoff"]
    tile: TileId
    meld: Index
    end: Literal["low", "high"] | None = None


class BuyJokerAction(Model):
    """Replace a table joker by the tile it stands for and take the joker."""

    do: Literal["buy_joker"]
    tile: TileId
    meld: Index


class TakeDiscardAction(Model):
    """Family B: take the last discard and use it at once (B.4)."""

    do: Literal["take_discard"]
    melds: Melds = Field(default_factory=list)
    layoffs: list[LayoffSpec] = Field(default_factory=list, max_length=engine.MAX_LAYOFFS)


class JokerButtonAction(Model):
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
ACTION_MODELS: tuple[type[Model], ...] = (
    DrawAction,
    DiscardAction,
    LayAction,
    TakeRowAction,
    LayoffAction,
    BuyJokerAction,
    TakeDiscardAction,
    JokerButtonAction,
)

_ACTION_EXAMPLES: dict[type[Model], Any] = {
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


def _engine_action(value: Any) -> engine.Action:
    """The rules' own reading of a client's action (:func:`server.rules.parse_action`,
    the one validator the server and the offline practice share): its ``bad_action``
    becomes the validation error of the ``action`` field."""
    try:
        return engine.parse_action(value)
    except RuleError as err:
        raise PydanticCustomError(BAD_ACTION_ERROR, err.message) from None


BAD_ACTION_ERROR = "bad_action"
"""The validation error type of an action the rules refuse."""

EngineAction = Annotated[
    engine.Action,
    PlainValidator(_engine_action, json_schema_input_type=GameAction),
    PlainSerializer(engine.action_to_dict, return_type=dict[str, Any]),
]
"""A move as the engine's action object, read by the rules (the action models above
give its JSON schema, its documentation and the browser's types; they are not
instantiated)."""

# --------------------------------------------------------------------------- client → server


class Hello(Model):
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
                {
                    "type": "hello",
                    "last_version": None,
                    "patches": True,
                    "device": "k3Jx9_Qm-2Lw8aZp",
                },
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
    device: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=ID_PATTERN,
        description="A random id of this device (browser tab), the same on each of its "
        "connections. The seat's older connections from another device are then closed "
        "with ``played_elsewhere`` (4409); ones that named no device never are.",
    )


class ActionMessage(Model):
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
    action: EngineAction


class RackMessage(Model):
    """Save this seat's rack layout: tile ids in rack order, null for a gap."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"type": "rack", "seq": 15, "layout": [40, 3, None, 17, 66]}]
        }
    )
    type: Literal["rack"]
    seq: Seq
    layout: list[TileId | None] = Field(max_length=MAX_RACK_SLOTS)


class QueryMessage(Model):
    """Ask the engine about this seat's view (answered by ``query_result``).

    ``formations``: each tile-id list judged as a meld, plus whether laying them
    all now would pass the opening rules; with ``taken`` (a row tile or the last
    discard about to be taken with them), also whether a valid one holds it.
    ``row_preview``: which tiles taking the row at ``index`` would bring, which
    indices are reachable now, and why ``index`` is not (``block``).
    ``arrange``: the hand split into the best melds the engine finds, for the
    rack's "arrange" button (``melds`` with their kind and value, ``left``).
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
                {
                    "type": "query",
                    "seq": 18,
                    "query": "formations",
                    "formations": [[30, 31, 32]],
                    "taken": 30,
                },
                {"type": "query", "seq": 17, "query": "row_preview", "index": 3},
                {"type": "query", "seq": 19, "query": "arrange"},
            ]
        }
    )
    type: Literal["query"]
    seq: Seq
    query: Literal["formations", "row_preview", "arrange"]
    formations: list[Annotated[list[TileId], Field(max_length=40)]] | None = Field(
        default=None, max_length=30
    )
    index: Index | None = None
    taken: TileId | None = Field(
        default=None,
        description="formations: the tile a take would bring (A.9, B.4): the lock says "
        "whether a valid formation holds it.",
    )


class LeaveMessage(Model):
    """The back arrow: the seat is marked away and a bot plays it until ``hello``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "leave"}]})
    type: Literal["leave"]


class NextRoundMessage(Model):
    """The round summary was read: the next deal need not wait for this seat. It starts
    once every human seat that is connected has sent this, or when the round pause
    (``next_round_in`` of ``round_over``) ends, whichever comes first. Not a move: it
    changes no turn clock and is ignored outside the pause between rounds."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "next_round"}]})
    type: Literal["next_round"]


class ReactMessage(Model):
    """A quick reaction from the seat (a fixed phrase or emoji, never free text), shown
    beside the seat to everyone in the room as ``reaction``. Not a move, not stored.
    A seat may send a few in a short time (``reactions_limited`` past that)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "react", "reaction": "well_played"}]}
    )
    type: Literal["react"]
    reaction: Reaction


class PingMessage(Model):
    """Keep-alive; answered by ``pong``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "ping"}]})
    type: Literal["ping"]


ClientMessage = Annotated[
    Hello
    | ActionMessage
    | RackMessage
    | QueryMessage
    | LeaveMessage
    | NextRoundMessage
    | ReactMessage
    | PingMessage,
    Field(discriminator="type"),
]
CLIENT_MODELS: tuple[type[Model], ...] = (
    Hello,
    ActionMessage,
    RackMessage,
    QueryMessage,
    LeaveMessage,
    NextRoundMessage,
    ReactMessage,
    PingMessage,
)
CLIENT_TYPES = ("hello", "action", "rack", "query", "leave", "next_round", "react", "ping")


class ProtocolError(ServerError):
    """A client frame that cannot be accepted: ``bad_message``, or the rules'
    ``bad_action`` for a malformed action (RULES.md §C)."""


_client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)

RoomMessage = (
    Hello
    | ActionMessage
    | RackMessage
    | QueryMessage
    | LeaveMessage
    | NextRoundMessage
    | ReactMessage
)
"""A client message its room handles (a ``ping`` is answered where it arrives)."""
AnyClientMessage = RoomMessage | PingMessage


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
    except (ValidationError, RecursionError):
        pass
    return _parse_refused(text)


def _parse_refused(text: str | bytes) -> AnyClientMessage:
    """The steps after a frame failed ``validate_json``: they name the problem."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(Code.BAD_MESSAGE, "the frame is not valid JSON") from None
    except RecursionError:  # e.g. 2,000 nested arrays: no message nests that deep
        raise ProtocolError(Code.BAD_MESSAGE, "the frame's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError(Code.BAD_MESSAGE, "a message is a JSON object with a 'type'")
    kind = data.get("type")
    raw_seq = data.get("seq")
    seq = raw_seq if isinstance(raw_seq, int) and not isinstance(raw_seq, bool) else None
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            Code.BAD_MESSAGE,
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
            first = errors[0]
            ours = first.get("type") == BAD_ACTION_ERROR  # the rules' own words
            message = str(first.get("msg")) if ours else _describe(exc, 1)
            raise ProtocolError(ErrorCode.BAD_ACTION, message, seq) from None
        raise ProtocolError(Code.BAD_MESSAGE, _describe(exc, 1), seq) from None
    return msg
