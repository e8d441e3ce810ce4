"""Every frame a room sends, built by pure functions from the protocol's models.

The models are those of :mod:`server.protocol.server` (docs/protocol.md is generated
from them); each function here takes plain values and returns the frame's JSON text.
Nothing here reads a room, a connection or a clock: the caller passes what the frame
shows (:mod:`server.rooms.audience` decides which frame a connection gets).

>>> ack(7, 42)
'{"type":"ack","seq":7,"version":42}'
>>> error(None, "bad_message", "send hello first")
'{"type":"error","seq":null,"code":"bad_message","message":"send hello first"}'
>>> PONG
'{"type":"pong"}'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from server.protocol.server import (
    Ack,
    ErrorMessage,
    EventMessage,
    Pong,
    QueryResult,
    RecentEvent,
    RoomInfo,
    Scores,
    SeatState,
    Snapshot,
    You,
)
from server.rooms.options import kind_of

PONG = Pong(type="pong").model_dump_json()
"""The answer to a ``ping``."""

_WITHOUT_PATCH: set[str] = {"patch"}


class ShownSeat(Protocol):
    """What a seat of a live room shows in ``seats`` (:class:`~server.rooms.presence.SeatSlot`)."""

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


def error(seq: int | None, code: str, message: str) -> str:
    """An ``error``: the message ``seq`` (if any) was refused with ``code``."""
    return ErrorMessage(type="error", seq=seq, code=code, message=message).model_dump_json()


def ack(seq: int, version: int) -> str:
    """An ``ack``: the message ``seq`` was accepted; the room is at ``version`` after it."""
    return Ack(type="ack", seq=seq, version=version).model_dump_json()


def query_result(seq: int, result: dict[str, Any]) -> str:
    """A ``query_result``: the engine's answer to the query ``seq``."""
    return QueryResult(type="query_result", seq=seq, result=result).model_dump_json()


def seat_states(
    seats: Sequence[ShownSeat], totals: Sequence[int], default_level: str
) -> list[SeatState]:
    """The ``seats`` member: each seat, who plays it and its match total.

    A bot plays a seat that has no player, or whose player is away or unresponsive.
    """
    return [
        SeatState(
            seat=slot.seat,
            player_id=slot.player_id,
            name=slot.name,
            bot_level=slot.bot_level or default_level,
            is_bot=slot.player_id is None,
            away=slot.away,
            unresponsive=slot.unresponsive,
            bot_playing=slot.player_id is None or slot.away or slot.unresponsive,
            total=totals[slot.seat],
        )
        for slot in seats
    ]


def scores(
    rounds: Sequence[Sequence[int]], totals: Sequence[int], over: bool, winners: Sequence[int]
) -> Scores:
    """The ``scores`` member; ``winners`` are shown once the match is over."""
    return Scores(
        rounds=[list(r) for r in rounds],
        totals=list(totals),
        over=over,
        winners=list(winners) if over else [],
    )


def room_info(
    room_id: str, status: str, settings: dict[str, Any], round_number: int, turn_seconds: float
) -> RoomInfo:
    """The ``room`` member of a snapshot."""
    return RoomInfo.model_validate(
        {
            "id": room_id,
            "status": status,
            "kind": kind_of(settings),
            "settings": settings,
            "round": round_number,
            "turn_seconds": turn_seconds,
        }
    )


def event(
    version: int,
    change: dict[str, Any],
    *,
    view: dict[str, Any] | None,
    seats: list[SeatState] | None,
    deadline: float | None,
    server_time: float,
    scores: Scores | None,
    replay: bool = False,
    patch: dict[str, Any] | None = None,
    patching: bool = False,
) -> str:
    """An ``event``: ``change`` as this seat sees it, and the room after it.

    ``patching``: the connection asked for patches; its frames have the ``patch``
    member (a whole ``view`` comes with ``patch`` null), the others never do.
    """
    # Built from values already made for the protocol (``seats`` and ``scores`` are its
    # models, ``view`` is the engine's): constructed, not validated again.
    message = EventMessage.model_construct(
        type="event",
        version=version,
        event=change,
        view=view,
        patch=patch,
        seats=seats,
        deadline=deadline,
        server_time=server_time,
        scores=scores,
        replay=replay,
    )
    return message.model_dump_json(exclude=None if patching else _WITHOUT_PATCH)


def replayed(version: int, change: dict[str, Any], server_time: float) -> str:
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
    )


def snapshot(
    version: int,
    room: RoomInfo,
    player_id: str,
    seat: int | None,
    *,
    seats: list[SeatState],
    view: dict[str, Any] | None,
    rack: list[int | None] | None,
    deadline: float | None,
    server_time: float,
    scores: Scores,
    last_seq: int | None,
    recent: Sequence[tuple[int, dict[str, Any]]] = (),
) -> str:
    """A ``snapshot``: everything this connection may see of the room at ``version``;
    ``recent``: the round's last events (version, this seat's copy)."""
    return Snapshot(
        type="snapshot",
        version=version,
        room=room,
        you=You(player_id=player_id, seat=seat),
        seats=seats,
        view=view,
        rack=rack,
        deadline=deadline,
        server_time=server_time,
        scores=scores,
        last_seq=last_seq,
        recent=[RecentEvent.model_construct(version=v, event=e) for v, e in recent],
    ).model_dump_json()
