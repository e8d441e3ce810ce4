"""The WebSocket protocol of a room: every message as a pydantic model.

The models are the source of truth: ``docs/protocol.md`` is generated from them
(:mod:`server.protocol.docs`), the browser's message types are checked against
their JSON schema, and the server's frames are built from them. Client messages
and their parsing live in :mod:`server.protocol.client`, server messages and the
codes in :mod:`server.protocol.server`.
"""

from server.protocol.client import (
    ACTION_MODELS,
    CLIENT_MODELS,
    CLIENT_TYPES,
    ActionMessage,
    AnyClientMessage,
    GameAction,
    Hello,
    LeaveMessage,
    NextRoundMessage,
    PingMessage,
    ProtocolError,
    QueryMessage,
    RackMessage,
    ReactMessage,
    RoomMessage,
    parse_client,
)
from server.protocol.common import MAX_RACK_SLOTS, MAX_SEQ
from server.protocol.server import (
    CLOSE_CODES,
    ERROR_CODES,
    EVENT_KINDS,
    SERVER_MODELS,
    Ack,
    ErrorMessage,
    EventMessage,
    Pong,
    QueryResult,
    ReactionMessage,
    RoomInfo,
    Scores,
    SeatState,
    ServerMessage,
    Snapshot,
    You,
    validate_server,
)

__all__ = [
    "ACTION_MODELS",
    "CLIENT_MODELS",
    "CLIENT_TYPES",
    "CLOSE_CODES",
    "ERROR_CODES",
    "EVENT_KINDS",
    "MAX_RACK_SLOTS",
    "MAX_SEQ",
    "SERVER_MODELS",
    "Ack",
    "ActionMessage",
    "AnyClientMessage",
    "ErrorMessage",
    "EventMessage",
    "GameAction",
    "Hello",
    "LeaveMessage",
    "NextRoundMessage",
    "PingMessage",
    "Pong",
    "ProtocolError",
    "QueryMessage",
    "QueryResult",
    "RackMessage",
    "ReactMessage",
    "ReactionMessage",
    "RoomInfo",
    "RoomMessage",
    "Scores",
    "SeatState",
    "ServerMessage",
    "Snapshot",
    "You",
    "parse_client",
    "validate_server",
]
