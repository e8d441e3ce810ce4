"""The one loop timer that wakes a room actor: at a command or at the time the room
core says its next thing is due (:func:`server.rooms.core.clock.next_wakeup`)."""

from __future__ import annotations

import asyncio


class Alarm:
    """Wakes the actor's loop at a command or at a set time, whichever comes first."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def wake(self) -> None:
        """Wake the loop now (a command arrived, or the time came)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def arm(self, when: float | None) -> None:
        """Ring at ``when`` at the latest. A timer set to ring no later is kept: the loop
        looks again when it rings, and sets the time then due."""
        timer = self._timer
        if timer is not None:
            if when is not None and timer.when() <= when:
                return
            timer.cancel()
            self._timer = None
        if when is not None:
            self._timer = self.loop.call_at(when, self._ring)

    def _ring(self) -> None:
        self._timer = None
        self.wake()

    async def wait(self) -> None:
        """Until :meth:`wake` or the timer. A wait cancelled late (after a newer wait
        began) leaves the newer one in place: clearing it would leave the actor deaf."""
        waiter = self._waiter = self.loop.create_future()
        try:
            await waiter
        finally:
            if self._waiter is waiter:
                self._waiter = None
