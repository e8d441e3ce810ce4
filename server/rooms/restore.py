"""How a room actor takes up its room: from the database when it boots, from the lobby
while the room waits.

A booting actor (a restarted server, or a room another node played) rebuilds the room
as the database holds it (:func:`boot`): its settings, seats and rack layouts, version
and status and, once the match has started, the match so far and the round in play
(:mod:`server.rooms.match`), every player away until they say ``hello`` again. While
the room waits, the lobby posts its seats' changes (:func:`room_changed`) and its
start (:func:`started`: the room loaded as started, its first round dealt).

These functions are the room actor's own (:mod:`server.rooms.actor`): they run in its
task, on its state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.rooms import rounds
from server.rooms.audience import Change
from server.rooms.match import restored_match, restored_round, restored_turn_left
from server.rooms.options import RoomSettings
from server.rooms.presence import SeatSlot
from server.rooms.rack import saved_layout
from server.rooms.store import player_names, round_lines

if TYPE_CHECKING:
    from server.rooms.actor import RoomActor
    from server.rooms.service import RoomView
    from server.settings import Settings
    from server.storage.database import Database
    from server.storage.gamelog import RoomRecord, RoundRecord, SeatRecord


async def seat_slots(db: Database, seats: list[SeatRecord]) -> list[SeatSlot]:
    """The live room's seats from the stored ones, with their players' names."""
    names = await player_names(db, [s.player_id for s in seats])
    return [
        SeatSlot(
            seat=s.seat,
            player_id=s.player_id,
            name=names.get(s.player_id) if s.player_id else None,
            bot_level=s.bot_level if s.player_id is None else None,
        )
        for s in seats
    ]


def no_show_wait(settings: RoomSettings, config: Settings) -> float:
    """Seconds beyond the reconnect grace before a player who is not there is away:
    a tournament's table waits REMI_TOURNAMENT_BOT_WAIT_SECONDS in all."""
    if not settings.plays_to_the_end:
        return 0.0
    return max(0.0, config.tournament_bot_wait_seconds - config.reconnect_grace_seconds)


async def boot(actor: RoomActor) -> None:
    """Rebuild the room as the database holds it (the module docstring). A playing room
    between two rounds deals the next one at once; what the last owner left undone (a
    round played out, a match over) the actor finishes itself (``RoomActor._boot``)."""
    ctx = actor.ctx
    record = await ctx.gamelog.load(actor.room_id)
    actor.settings = RoomSettings.model_validate(record.settings)
    actor.seats = await seat_slots(ctx.db, record.seats)
    actor.version = record.version
    await actor.reserve_ahead()
    actor.status = record.status
    now = actor.loop.time()
    for slot, stored in zip(actor.seats, record.seats, strict=True):
        slot.rack, slot.rack_round = saved_layout(stored.rack)
    if actor.status == "waiting":
        return
    await load_match(actor)
    if actor.status != "playing":
        return
    # Restoring a playing room: every player starts disconnected (at a tournament's
    # table, which starts this way, away after REMI_TOURNAMENT_BOT_WAIT_SECONDS).
    late = no_show_wait(actor.settings, ctx.settings)
    for slot in actor.seats:
        if slot.player_id is not None:
            slot.gone_at = now + late
    actor.update_empty()
    current = record.current_round
    if current is not None:
        restore_round(actor, current, record)
    elif actor.match is None or not actor.match.over:
        actor.timers.next_round_at = now


async def load_match(actor: RoomActor) -> None:
    """The match so far, from its finished rounds' scores, and the answers the room
    already gave to moves (:mod:`server.rooms.replies`)."""
    players = len(actor.seats)
    history = await round_lines(actor.ctx.db, actor.room_id, players)
    actor.match = restored_match(actor.settings, players, history)
    actor.round_number = len(history)
    await actor.replies.load()


def restore_round(actor: RoomActor, current: RoundRecord, record: RoomRecord) -> None:
    """The round in play, replayed from its log, its turn clock running with the time
    the turn had left (:func:`~server.rooms.match.restored_turn_left`)."""
    actor.round = restored_round(current, len(actor.seats))
    actor.round_id = current.id
    actor.round_number = current.number
    actor.round_seed = current.seed
    left = restored_turn_left(
        current, record.last_alive, actor.turn_seconds, actor.room_id, record.clock
    )
    actor.timers.start_turn(actor.loop.time(), left)


def room_changed(actor: RoomActor, view: RoomView) -> None:
    """The lobby changed the waiting room's seats: each seat keeps its rack layout and
    each connection finds its player's seat again."""
    if actor.status != "waiting":
        return
    old = {s.seat: s for s in actor.seats}
    actor.seats = []
    for sv in view.seats:
        prev = old.get(sv.seat)
        actor.seats.append(
            SeatSlot(
                seat=sv.seat,
                player_id=sv.player.id if sv.player else None,
                name=sv.player.display_name if sv.player else None,
                bot_level=sv.bot_level if sv.player is None else None,
                rack=prev.rack if prev else None,
            )
        )
    for conn in actor.conns:
        conn.seat = actor.seat_of(conn.player_id)
    actor.emit(Change({"do": "room_changed"}))


async def started(actor: RoomActor) -> None:
    """The lobby started the waiting room: it is loaded as started, each player not
    connected now counts as gone (away after the reconnect grace), the first round is
    dealt."""
    if actor.status != "waiting":
        return
    record = await actor.ctx.gamelog.load(actor.room_id)
    if record.status != "playing":
        return
    actor.settings = RoomSettings.model_validate(record.settings)
    actor.seats = await seat_slots(actor.ctx.db, record.seats)
    for conn in actor.conns:
        conn.seat = actor.seat_of(conn.player_id)
    actor.status = "playing"
    await load_match(actor)
    now = actor.loop.time()
    for slot in actor.seats:
        if slot.player_id is not None and not actor.seat_connected(slot.seat):
            slot.gone_at = now
    actor.update_empty()
    await rounds.start(actor)
