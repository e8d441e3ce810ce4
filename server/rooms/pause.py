"""A room's pause while this node's leases are in doubt.

With no heartbeat for ``REMI_LEASE_SECONDS`` (the database is away, or the process was
paused) the node cannot tell whether its rooms are still its own
(:mod:`server.rooms.cluster`). A room then does nothing, its moves refused with
``database_unavailable`` (:meth:`~server.rooms.actor.RoomActor.post`), until a
heartbeat says: still this node's, and the room's clocks move on by the pause (no turn
ran out, no player went away meanwhile); another node's, and the actor stops at once,
before it acts on anything more.

:func:`sit_out` is the room actor's own (:mod:`server.rooms.actor`): it runs in its task.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.rooms.actor import RoomActor

log = logging.getLogger(__name__)


async def sit_out(actor: RoomActor) -> bool:
    """Wait while the node's leases are in doubt; False when the actor is to stop
    meanwhile (a ``stop`` command came). The room's clocks move on by the pause."""
    t0 = actor.loop.time()
    log.warning("room_paused", extra={"room_id": actor.room_id})
    renewed = actor.ctx.cluster.renewed
    while not actor.ctx.lease_valid():
        if any(command[0] == "stop" for command in actor.inbox):
            return False
        waits = {asyncio.ensure_future(renewed.wait()), asyncio.ensure_future(
            actor.alarm.wait())}
        _, pending = await asyncio.wait(waits, timeout=1.0,
                                        return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
    if actor.dropped or any(command[0] == "stop" for command in actor.inbox):
        return False  # the heartbeat that ended the doubt found the room taken: stop now
    gap = actor.loop.time() - t0
    actor.timers.shift(gap)
    for slot in actor.seats:
        if slot.gone_at is not None:
            slot.gone_at += gap
    log.info("room_resumed", extra={"room_id": actor.room_id, "paused_s": round(gap, 3)})
    return True
