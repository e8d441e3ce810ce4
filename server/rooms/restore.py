"""What a room actor reads to take up its room: the room as the database holds it.

A booting actor (a restarted server, or a room another node played) gives its room
core (:meth:`~server.rooms.core.room.RoomCore.restore`) the room's settings, seats and
rack layouts, version and status and, once the match has started, the finished
rounds' scores, the round in play with its log and the time its turn had left
(:func:`~server.rooms.match.restored_turn_left`), and the seqs of the moves already
logged (for resends). When the lobby starts a waiting room the actor reads its seats
again (:func:`started`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.rooms.core.config import RoomConfig
from server.rooms.core.messages import Restored, Seat, Started, StoredRound
from server.rooms.core.rack import saved_layout
from server.rooms.lobby.options import RoomSettings, kind_of
from server.rooms.match import end_condition, restored_turn_left
from server.rooms.store import logged_seqs, player_names, round_lines

if TYPE_CHECKING:
    from server.settings import Settings
    from server.storage.database import Database
    from server.storage.gamelog import GameLog, SeatRecord


def config_of(room_id: str, settings: RoomSettings, config: Settings) -> RoomConfig:
    """The room core's settings for a room with these settings on this server."""
    base = settings.turn_seconds or config.default_turn_seconds
    shown = settings.model_dump(mode="json")
    return RoomConfig(
        room_id=room_id,
        variant=settings.variant,
        seats=settings.seats,
        end=end_condition(settings),
        row_depth=settings.row_depth,
        short_game=settings.short_game,
        joker_button=settings.joker_button,
        bot_level=settings.bot_level,
        turn_seconds=float(base) * config.turn_time_scale,
        kind=kind_of(shown),
        plays_to_the_end=settings.plays_to_the_end,
        shown=shown,
    )


async def seats_of(db: Database, seats: list[SeatRecord]) -> tuple[Seat, ...]:
    """The room's seats from the stored ones, with their players' names."""
    names = await player_names(db, [s.player_id for s in seats])
    out = []
    for s in seats:
        layout, rack_round = saved_layout(s.rack)
        out.append(
            Seat(
                seat=s.seat,
                player_id=s.player_id,
                name=names.get(s.player_id) if s.player_id else None,
                bot_level=s.bot_level if s.player_id is None else None,
                rack=(None if layout is None else tuple(layout), rack_round),
            )
        )
    return tuple(out)


def no_show_wait(settings: RoomSettings, config: Settings) -> float:
    """Seconds beyond the reconnect grace before a player who is not there is away:
    a tournament's table waits REMI_TOURNAMENT_BOT_WAIT_SECONDS in all."""
    if not settings.plays_to_the_end:
        return 0.0
    return max(0.0, config.tournament_bot_wait_seconds - config.reconnect_grace_seconds)


async def load(
    db: Database, gamelog: GameLog, room_id: str, config: Settings
) -> tuple[RoomConfig, Restored]:
    """The room as the database holds it (the module docstring)."""
    record = await gamelog.load(room_id)
    settings = RoomSettings.model_validate(record.settings)
    room = config_of(room_id, settings, config)
    seats = await seats_of(db, record.seats)
    if record.status == "waiting":
        return room, Restored(status=record.status, version=record.version, seats=seats)
    history = await round_lines(db, room_id, len(seats))
    logged = await logged_seqs(db, room_id)
    current = record.current_round
    stored = None
    if current is not None and record.status == "playing":
        left = restored_turn_left(
            current, record.last_alive, room.turn_seconds or 0.0, room_id, record.clock
        )
        stored = StoredRound(
            number=current.number,
            variant=current.variant,
            seed=current.seed,
            first=current.first_seat,
            options=current.options,
            actions=tuple((a.seat, a.action) for a in current.actions),
            turn_left=left,
            key=current.id,
        )
    return room, Restored(
        status=record.status,
        version=record.version,
        seats=seats,
        history=tuple(tuple(line) for line in history),
        current=stored,
        logged={seat: frozenset(seqs) for seat, seqs in logged.items()},
        late=no_show_wait(settings, config),
    )


async def started(db: Database, gamelog: GameLog, room_id: str, config: Settings) -> Started | None:
    """The waiting room the lobby just started, as stored (None: it is not playing)."""
    record = await gamelog.load(room_id)
    if record.status != "playing":
        return None
    settings = RoomSettings.model_validate(record.settings)
    logged = await logged_seqs(db, room_id)
    return Started(
        seats=await seats_of(db, record.seats),
        logged={seat: frozenset(seqs) for seat, seqs in logged.items()},
        config=config_of(room_id, settings, config),
    )
