"""The actor's alarm (server/rooms/timers.py): a wait cancelled late never deafens a
newer one (a paused room's cancelled wait once left the actor unable to hear a move)."""

from __future__ import annotations

import asyncio

from server.rooms.timers import Alarm


async def test_a_late_cancelled_wait_leaves_the_newer_wait_awake() -> None:
    alarm = Alarm(asyncio.get_running_loop())
    old = asyncio.ensure_future(alarm.wait())
    await asyncio.sleep(0)  # the old wait is waiting
    new = asyncio.ensure_future(alarm.wait())
    await asyncio.sleep(0)  # the newer wait began before the old one is cancelled
    old.cancel()
    await asyncio.sleep(0)  # the old wait's cancellation runs its clean-up
    assert old.cancelled()
    alarm.wake()
    await asyncio.wait_for(new, timeout=1)
    assert new.done() and not new.cancelled()


async def test_the_timer_rings_a_wait() -> None:
    loop = asyncio.get_running_loop()
    alarm = Alarm(loop)
    alarm.arm(loop.time() + 0.01)
    await asyncio.wait_for(alarm.wait(), timeout=1)
