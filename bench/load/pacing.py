"""How the tables move during a phase: at human pace, or as fast as they can.

* :class:`Paced`: every table moves once per ``interval`` seconds, the tables'
  first moves spread at random over the first interval; a move that cannot start
  at its tick (between rounds) starts at the table's next frame.
* :class:`Saturated`: every table sends its next move as soon as the last one
  reached all four seats (from that frame's callback: no task or timer per move).

Both are driven by callbacks (no coroutine per table); one watchdog a second
gives up a move that has waited ``MOVE_TIMEOUT`` seconds (counted as an error,
``timeout``) and retries tables that wait. A phase ends at its time, once the
moves in flight have completed or timed out.
"""

from __future__ import annotations

import asyncio
import os
import random
from time import monotonic, perf_counter

from .stats import Sample
from .table import Table

MOVE_TIMEOUT = 30.0


def cpu_s() -> float:
    """CPU seconds (user + system) of this process."""
    t = os.times()
    return t.user + t.system


class Phase:
    """The common part: the phase's sample, its end, the watchdog."""

    def __init__(self, tables: list[Table], duration: float) -> None:
        self.tables = tables
        self.duration = duration
        self.sample = Sample()
        self.loop = asyncio.get_running_loop()
        self.end = 0.0
        self.finished: asyncio.Future[None] = self.loop.create_future()

    async def run(self) -> Sample:
        """Run the phase to its end; its sample (``elapsed``: from start to end)."""
        cpu0, t0 = cpu_s(), perf_counter()
        self.end = monotonic() + self.duration
        for table in self.tables:
            table.driver, table.pending = self, False
        self.begin()
        watchdog = self.loop.call_later(1.0, self.watch)
        try:
            await self.finished
        finally:
            watchdog.cancel()
            for table in self.tables:
                table.driver, table.pending = None, False
        self.sample.elapsed = perf_counter() - t0
        self.sample.cpu = cpu_s() - cpu0
        return self.sample

    def begin(self) -> None:
        raise NotImplementedError

    def completed(self, table: Table, ok: bool) -> None:
        raise NotImplementedError

    def watch(self) -> None:
        now, over = perf_counter(), monotonic() >= self.end
        busy = False
        for table in self.tables:
            if table.busy and now - table.t0 > MOVE_TIMEOUT:
                table.fail("timeout")
            if table.busy:
                busy = True
            elif table.pending and not over:
                table.try_move()
                busy = busy or table.busy
        if over and not busy:
            if not self.finished.done():
                self.finished.set_result(None)
            return
        left = self.end - monotonic()
        # Every second; at the end, then every 50 ms until the last moves are in.
        delay = 0.05 if over else min(1.0, max(left, 0.0))
        self.loop.call_later(delay, self.watch)


class Paced(Phase):
    """One move per table every ``interval`` seconds."""

    def __init__(self, tables: list[Table], duration: float, interval: float) -> None:
        super().__init__(tables, duration)
        self.interval = interval

    def begin(self) -> None:
        start = self.loop.time()
        for table in self.tables:
            at = start + random.random() * self.interval
            self.loop.call_at(at, self.tick, table, at)

    def tick(self, table: Table, at: float) -> None:
        if monotonic() >= self.end:
            return
        table.try_move()
        self.loop.call_at(at + self.interval, self.tick, table, at + self.interval)

    def completed(self, table: Table, ok: bool) -> None:
        table.pending = False


class Saturated(Phase):
    """Every table moves again as soon as its last move reached all four seats."""

    def begin(self) -> None:
        for table in self.tables:
            table.try_move()

    def completed(self, table: Table, ok: bool) -> None:
        if monotonic() >= self.end:
            table.pending = False
        elif ok:
            table.try_move()
        else:  # a refused move: try again in 10 ms
            table.pending = False
            self.loop.call_later(0.01, table.try_move)
