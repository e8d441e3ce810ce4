"""Every frame a room sends, built by pure functions as plain values and encoded once.

The shapes are the protocol's models (:mod:`server.protocol.server`, from which
docs/protocol.md is generated; the tests validate every frame against them), built
here with the standard library only so that the same room runs under Pyodide. Each
function takes plain values and returns the frame's JSON text, encoded by the
:data:`Encode` the room was given (the server passes ``pydantic_core.to_json``, the
offline practice :func:`dumps`): nothing here reads a room, a connection or a clock.

>>> ack(7, 42)
'{"type":"ack","seq":7,"version":42}'
>>> error(None, Code.BAD_MESSAGE, "send hello first")
'{"type":"error","seq":null,"code":"bad_message","message":"send hello first"}'
>>> PONG
'{"type":"pong"}'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from server.errors import Code
from server.rules.errors import ErrorCode

Encode = Callable[[Any], bytes]
"""Turns plain JSON values into JSON bytes (compact, UTF-8)."""


def dumps(value: Any) -> bytes:
    """The standard library's compact JSON: what the offline practice encodes with."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def text(value: Any, encode: Encode = dumps) -> str:
    return encode(value).decode()


PONG = text({"type": "pong"})
"""The answer to a ``ping``."""


class ShownSeat(Protocol):
    """What a seat shows in ``seats`` (:class:`~server.rooms.core.presence.SeatSlot`)."""

    @property
    def seat(self) -> int: ...
    @property
    def player_id(self) -> str | None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def bot_level(self) -> str | None: ...
    @property
    def away(self) -> bool: ...
    @property
    def unresponsive(self) -> bool: ...


def error(
    seq: int | None,
    code: Code | ErrorCode,
    message: str,
    encode: Encode = dumps,
    retry_after_ms: int | None = None,
) -> str:
    """An ``error``: the message ``seq`` (if any) was refused with ``code`` (one of the
    enums: the server's :class:`~server.errors.Code` or the rules' §C
    :class:`~server.rules.errors.ErrorCode`); ``retry_after_ms`` when a later try may
    succeed (``busy``, ``database_unavailable``)."""
    frame: dict[str, Any] = {"type": "error", "seq": seq, "code": code.value, "message": message}
    if retry_after_ms is not None:
        frame["retry_after_ms"] = retry_after_ms
    return text(frame, encode)


def ack(seq: int, version: int, encode: Encode = dumps) -> str:
    """An ``ack``: the message ``seq`` was accepted; the room is at ``version`` after it."""
    return text({"type": "ack", "seq": seq, "version": version}, encode)


def query_result(seq: int, result: dict[str, Any], encode: Encode = dumps) -> str:
    """A ``query_result``: the engine's answer to the query ``seq``."""
    return text({"type": "query_result", "seq": seq, "result": result}, encode)


def reaction(seat: int, what: str, encode: Encode = dumps) -> str:
    """A ``reaction`` shown by ``seat``."""
    return text({"type": "reaction", "seat": seat, "reaction": what}, encode)


def seat_states(
    seats: Sequence[ShownSeat], totals: Sequence[int], default_level: str
) -> list[dict[str, Any]]:
    """The ``seats`` member: each seat, who plays it and its match total.

    A bot plays a seat that has no player, or whose player is away or unresponsive.
    """
    return [
        {
            "seat": slot.seat,
            "player_id": slot.player_id,
            "name": slot.name,
            "bot_level": slot.bot_level or default_level,
            "is_bot": slot.player_id is None,
            "away": slot.away,
            "unresponsive": slot.unresponsive,
            "bot_playing": slot.player_id is None or slot.away or slot.unresponsive,
            "total": totals[slot.seat],
        }
        for slot in seats
    ]


def scores(
    rounds: Sequence[Sequence[int]], totals: Sequence[int], over: bool, winners: Sequence[int]
) -> dict[str, Any]:
    """The ``scores`` member; ``winners`` are shown once the match is over."""
    return {
        "rounds": [list(r) for r in rounds],
        "totals": list(totals),
        "over": over,
        "winners": list(winners) if over else [],
    }


def room_info(
    room_id: str,
    status: str,
    settings: dict[str, Any],
    round_number: int,
    turn_seconds: float,
    kind: str = "normal",
) -> dict[str, Any]:
    """The ``room`` member of a snapshot."""
    return {
        "id": room_id,
        "status": status,
        "kind": kind,
        "settings": settings,
        "round": round_number,
        "turn_seconds": float(turn_seconds),
    }


def event(
    version: int,
    change: dict[str, Any],
    *,
    view: dict[str, Any] | None,
    seats: list[dict[str, Any]] | None,
    deadline: float | None,
    server_time: float,
    scores: dict[str, Any] | None,
    replay: bool = False,
    patch: dict[str, Any] | None = None,
    patching: bool = False,
    encode: Encode = dumps,
) -> str:
    """An ``event``: ``change`` as this seat sees it, and the room after it.

    ``patching``: the connection asked for patches; its frames have the ``patch``
    member (a whole ``view`` comes with ``patch`` null), the others never do.
    """
    frame: dict[str, Any] = {"type": "event", "version": version, "event": change, "view": view}
    if patching:
        frame["patch"] = patch
    frame["seats"] = seats
    frame["deadline"] = deadline
    frame["server_time"] = server_time
    frame["scores"] = scores
    frame["replay"] = replay
    return text(frame, encode)


def replayed(
    version: int, change: dict[str, Any], server_time: float, encode: Encode = dumps
) -> str:
    """A replayed event that is not the last of its replay: the event alone."""
    return event(
        version,
        change,
        view=None,
        seats=None,
        deadline=None,
        server_time=server_time,
        scores=None,
        replay=True,
        encode=encode,
    )


def snapshot(
    version: int,
    room: dict[str, Any],
    player_id: str,
    seat: int | None,
    *,
    seats: list[dict[str, Any]],
    view: dict[str, Any] | None,
    rack: list[int | None] | None,
    deadline: float | None,
    server_time: float,
    scores: dict[str, Any],
    last_seq: int | None,
    recent: Sequence[tuple[int, dict[str, Any]]] = (),
    encode: Encode = dumps,
) -> str:
    """A ``snapshot``: everything this connection may see of the room at ``version``;
    ``recent``: the round's last events (version, this seat's copy)."""
    return text(
        {
            "type": "snapshot",
            "version": version,
            "room": room,
            "you": {"player_id": player_id, "seat": seat},
            "seats": seats,
            "view": view,
            "rack": rack,
            "deadline": deadline,
            "server_time": server_time,
            "scores": scores,
            "last_seq": last_seq,
            "recent": [{"version": v, "event": e} for v, e in recent],
        },
        encode,
    )
