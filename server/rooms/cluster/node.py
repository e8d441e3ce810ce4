"""This server process as a node among others on one database: its heartbeat, its
claims of rooms, and whether its leases can still be trusted.

Each node has a random id, a row in ``cluster_nodes`` and the leases of the rooms it
plays (:mod:`server.storage.leases`). Every third of ``REMI_LEASE_SECONDS`` it beats
(:meth:`Cluster.beat`): its leases hold for another ``lease_seconds``, counted here from
the moment the heartbeat was *sent*, so this node stops trusting them before the
database lets another node take them (:meth:`Cluster.valid`). A node paused past that
(a SIGSTOP, a long GC pause, a lost database) must beat again before its rooms act.

With no Redis (the embedded default) a node cannot reach the others' rooms, so it
owns every room: its claims take the lease whatever holds it (``force``). The epoch
still grows with each claim, so two such nodes on one database by mistake never both
write a room: each claim fences the other's writes.

The heartbeat that keeps the leases trusted runs on a thread of its own, with its own
event loop and database connection (:meth:`Cluster.start_beating`): a node whose event
loop is seconds behind (thousands of tables, a long pause of the collector) still beats
on time, so its leases lapse only when the database says so: a beat that finds the
node's row not yet expired by the database's clock, as did the thread's previous beat
less than a lease before (nobody could have taken a room meanwhile), extends the trust
at once, even if this node's own count had run out (:meth:`Cluster.extend`). After a
longer gap (the process was paused) the row may have been renewed by the event loop's
own beat after it expired: the trust is then left to that beat
(:meth:`server.rooms.live.LiveRooms.beat`), which first drops the rooms another node
took, so a room dropped at wake-up never acts first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Iterator

from server.settings import Settings
from server.storage.database import Database, sqlite_path
from server.storage.leases import Fence, Leases, Owner

log = logging.getLogger(__name__)


class Elsewhere(Exception):
    """Another live node plays the room (``owner``), or this node cannot claim it now
    (``owner`` None: it is stopping)."""

    def __init__(self, room_id: str, owner: Owner | None) -> None:
        super().__init__(room_id)
        self.room_id = room_id
        self.owner = owner


class Cluster:
    """The node's identity, heartbeat and claims (see the module docstring)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.node = os.urandom(8).hex()
        self.name = settings.node_name or f"{socket.gethostname()}:{os.getpid()}"
        self.ttl = settings.lease_seconds
        self.single = not settings.redis_url
        """No Redis: this node owns every room (its claims are forced)."""
        self.leases = Leases(db, self.node, self.name, self.ttl)
        self.valid_until = 0.0
        """Until when (monotonic) this node's leases are trusted: a beat's sending + ttl."""
        self.draining = False
        """Stopping: no new claim."""
        self.beats = 0
        self.beat_failures = 0
        self.claims_won = 0
        self.claims_lost = 0
        self._lapse_logged = False
        self.renewed = asyncio.Event()
        """Set at each successful beat (paused rooms wait for it), then cleared."""
        self.failing = False
        """The database did not take the last heartbeat (as opposed to a node that is
        merely late: its refusals say ``busy``, not ``database_unavailable``)."""
        self._settings = settings
        self._thread: threading.Thread | None = None
        self._main_loop: asyncio.AbstractEventLoop | None = None
        self._thread_alive: tuple[float, int] | None = None
        """The heartbeat thread's last beat that found the row alive: when it was sent, and
        how many of the event loop's own heartbeats had begun by then."""
        self._loop_beats = 0
        """The event loop's own heartbeats begun (:meth:`own_beat`)."""
        self._loop_beating = False
        """Whether one of them is under way."""
        self._thread_loop: asyncio.AbstractEventLoop | None = None
        self._thread_stop: asyncio.Event | None = None
        self._stop_requested = threading.Event()

    @property
    def interval(self) -> float:
        """Seconds between heartbeats."""
        return self.ttl / 3

    def valid(self) -> bool:
        """Whether this node's leases can be trusted now."""
        if time.monotonic() < self.valid_until:
            return True
        self._lapsed()
        return False

    def _lapsed(self) -> None:
        """Log once when the leases stopped being trusted (``since``: that instant)."""
        if self._lapse_logged or not self.valid_until:
            return
        self._lapse_logged = True
        since = time.time() - (time.monotonic() - self.valid_until)
        log.warning("node_leases_lapsed", extra={"node": self.node, "since": since})

    async def join(self) -> None:
        """Register the node (its leases count from now)."""
        sent = time.monotonic()
        await self.leases.register()
        self.trust(sent)
        log.info(
            "node_joined", extra={"node": self.node, "node_name": self.name, "single": self.single}
        )

    @contextlib.contextmanager
    def own_beat(self) -> Iterator[None]:
        """Around the event loop's heartbeat, from its write to its trust: the thread's
        beats cannot tell its renewal of an expired row from their own chain."""
        self._loop_beats += 1
        self._loop_beating = True
        try:
            yield
        finally:
            self._loop_beating = False

    async def beat(self) -> float | None:
        """The heartbeat: when it was sent (what :meth:`trust` takes once the node has
        checked which leases it still holds), None if the database did not take it."""
        return await self._beat(self.leases)

    async def _beat(self, leases: Leases) -> float | None:
        sent, _ = await self._beat_alive(leases)
        return sent

    async def _beat_alive(self, leases: Leases) -> tuple[float | None, bool]:
        """A heartbeat: when it was sent (None: the database did not take it), and
        whether the node's row was still alive by the database's clock."""
        sent = time.monotonic()
        try:
            async with asyncio.timeout(self.ttl):  # a database that drops packets: failed
                alive = await leases.beat()
        except Exception as exc:
            self.beat_failures += 1
            self.failing = True
            log.warning("node_beat_failed", extra={"node": self.node, "error": repr(exc)})
            return None, False
        self.failing = False
        self.beats += 1
        return sent, alive

    def start_beating(self) -> None:
        """Start the heartbeat's own thread (see the module docstring). Not for an
        in-memory SQLite database, which another connection would not see."""
        if self._thread is not None or (
            self._settings.is_sqlite and sqlite_path(self._settings.database_url) is None
        ):
            return
        self._stop_requested.clear()
        self._main_loop = asyncio.get_running_loop()
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._beating(),), name="node-heartbeat", daemon=True
        )
        self._thread.start()

    async def stop_beating(self) -> None:
        """Stop the heartbeat's thread (before the node's row is deleted: a beat would
        put it back)."""
        thread = self._thread
        self._thread = None
        if thread is None:
            return
        self._stop_requested.set()  # seen by a thread whose loop is not running yet
        loop, stop = self._thread_loop, self._thread_stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended already
                loop.call_soon_threadsafe(stop.set)
        await asyncio.to_thread(thread.join, 2 * self.ttl)

    async def _beating(self) -> None:
        """The heartbeat thread's loop: a beat every third of the lease (a little
        jittered), on a database engine of its own."""
        stop = self._thread_stop = asyncio.Event()
        self._thread_loop = asyncio.get_running_loop()
        db = Database(self._settings)
        leases = Leases(db, self.node, self.name, self.ttl)
        try:
            while not stop.is_set() and not self._stop_requested.is_set():
                loop_beats = self._loop_beats
                sent, alive = await self._beat_alive(leases)
                self.thread_beat(sent, alive, loop_beats)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.interval * random.uniform(0.85, 1.0))
        finally:
            await leases.close()
            await db.dispose()

    def thread_beat(self, sent: float | None, alive: bool, loop_beats: int = -1) -> None:
        """The heartbeat thread's beat sent at ``sent`` (None: the database did not take
        it, ``loop_beats``: the event loop's heartbeats begun by then) found the node's
        row ``alive``: :meth:`extend` if its previous beat did too, and either less than
        ``ttl`` before or with no heartbeat of the event loop begun or under way since
        (then only the thread renewed the row, and found it alive each time: however
        slow its beats, as on a loop seconds late, the row never expired)."""
        last = self._thread_alive
        self._thread_alive = (sent, loop_beats) if sent is not None and alive else None
        if sent is None or not alive or last is None:
            return
        last_sent, last_loop_beats = last
        alone = last_loop_beats == self._loop_beats and not self._loop_beating
        if sent - last_sent < self.ttl or alone:
            self.extend(sent)

    def extend(self, sent: float) -> None:
        """The heartbeat thread's beat sent at ``sent`` found the node's row alive, and so
        did its previous beat, less than ``ttl`` before: the row never expired between
        them, so no other node can have taken a room, and the leases hold until ``ttl``
        after ``sent`` (trusted again at once if this node's own count had run out). A
        row found alive after a longer gap (the process was paused, the beats failed)
        may have been renewed by the node's own heartbeat after it expired: that beat
        first stops the rooms another node took meanwhile
        (:meth:`server.rooms.live.LiveRooms.beat`), then trusts again."""
        lapsed = time.monotonic() >= self.valid_until
        self.valid_until = max(self.valid_until, sent + self.ttl)
        if lapsed and self._main_loop is not None:  # log it, wake the rooms
            with contextlib.suppress(RuntimeError):
                self._main_loop.call_soon_threadsafe(self.trust, sent)

    def trust(self, sent: float) -> None:
        """The node's leases hold until ``ttl`` after ``sent`` (a heartbeat's sending);
        the rooms that waited for it go on."""
        was_valid = self.valid() and not self._lapse_logged
        self.valid_until = max(self.valid_until, sent + self.ttl)
        if not was_valid:
            self._lapse_logged = False
            log.info("node_leases_trusted", extra={"node": self.node, "at": time.time()})
        self.renewed.set()
        self.renewed.clear()

    async def claim(self, room_id: str) -> Fence:
        """Take the room's lease for this node; :class:`Elsewhere` when another live node
        holds it (or this one is stopping); ``KeyError`` if there is no such room."""
        if self.draining:
            raise Elsewhere(room_id, None)
        got = await self.leases.claim(room_id, force=self.single)
        if isinstance(got, Owner):
            self.claims_lost += 1
            raise Elsewhere(room_id, got)
        self.claims_won += 1
        log.info(
            "room_claimed",
            extra={"room_id": room_id, "epoch": got, "node": self.node, "at": time.time()},
        )
        return self.leases.fence(room_id, got)

    async def leave(self, fences: list[Fence]) -> None:
        """Release these leases and the node's row: the others may take its rooms now."""
        at = time.time()  # the actors have stopped: the rooms are no longer played here
        await self.stop_beating()
        await self.leases.close()
        try:
            await self.leases.release(fences)
            await self.leases.leave()
        except Exception as exc:  # the database is away: the leases expire by themselves
            log.warning("node_leave_failed", extra={"node": self.node, "error": repr(exc)})
            return
        for f in fences:
            log.info(
                "room_released",
                extra={"room_id": f.room_id, "epoch": f.epoch, "node": self.node, "at": at},
            )
