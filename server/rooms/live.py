"""The live side of the rooms: the set of running room actors of this node.

:class:`LiveRooms` creates a :class:`~server.rooms.actor.RoomActor` when a
connection arrives or the owner starts a match, and listens to the lobby (it is the
:class:`~server.rooms.lobby.service.RoomEvents` of the room service). Its pacing (bot
delay, round pause, turn time scale, ...) is read from the injected
:class:`~server.settings.Settings`, like everything else.

An actor runs only while this node holds its room's lease (:mod:`server.rooms.cluster.node`,
:mod:`server.storage.leases`): the lease is claimed before the actor boots, every write
of the actor is fenced by it, and it is released when the actor stops. At start-up the
node restores the playing rooms whose lease it wins (with no Redis: every playing
room, as it owns them all). Every third of ``REMI_LEASE_SECONDS`` it beats
(:meth:`LiveRooms.tick`): it stops the actors of rooms whose lease another node took,
and adopts the playing rooms no live node holds (a node that died or stopped). A stop
hands the rooms over: the actors stop, the leases are released, then the connections
are closed with 1012 so that their clients reconnect, to the node that takes the room.

It also closes the sockets of revoked sessions (:meth:`LiveRooms.sessions_revoked`):
on this instance at once, on the others through the bus's ``sessions`` topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from server.errors import Code, ServerError
from server.rooms.actor import MOVED, RoomActor, seats_of_view
from server.rooms.botplay import BotRunner
from server.rooms.cluster.bridge import Bridge, Bridges, Moved, RemoteConn
from server.rooms.cluster.node import Cluster, Elsewhere
from server.rooms.conn import Conn
from server.rooms.core.messages import Closed, Revoked, SeatsChanged, Start, Stop
from server.rooms.journal import Journal
from server.rooms.lobby.service import RoomView
from server.storage.leases import Fence, Fenced

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from server.accounts.identity import PlayerInfo
    from server.bus import Bus
    from server.economy.ledger import Economy
    from server.metrics import Metrics
    from server.rooms.lobby.quickstart import QuickStart
    from server.rooms.lobby.service import RoomEvents, RoomService
    from server.settings import Settings
    from server.storage.database import Database
    from server.storage.gamelog import GameLog

log = logging.getLogger(__name__)

CLUSTER_TOPIC = "cluster"
"""The bus topic of hand-overs: ``{"released": [room ids], "from": node}``: the other
nodes adopt those rooms at once."""

COMMAND_TRIES = 3
"""How often a room command is routed again when its room changed hands meanwhile."""

SESSIONS_TOPIC = "sessions"
"""The bus topic of revoked sessions: ``{"revoked": [session ids], "from": instance}``."""

RECENT_REVOKED = 4096
"""Revoked session ids remembered, so a socket authenticated just before its session
was revoked, and attached just after, is closed too."""

ADOPT_AT_ONCE = 200
"""Most orphaned playing rooms one heartbeat adopts (the next one takes more)."""


class Services(Protocol):
    """What the live rooms use of the server's services (:class:`server.services.Services`,
    which the app passes): named here so that the rooms import nothing above them."""

    @property
    def settings(self) -> Settings: ...
    @property
    def db(self) -> Database: ...
    @property
    def gamelog(self) -> GameLog: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def economy(self) -> Economy: ...
    @property
    def rooms(self) -> RoomService: ...
    @property
    def quick(self) -> QuickStart: ...
    @property
    def bus(self) -> Bus: ...
    @property
    def redis(self) -> Redis | None: ...


class LiveContext:
    """What an actor needs from the server."""

    def __init__(self, services: Services, rooms: LiveRooms) -> None:
        self.services = services
        self.journal = Journal(services.db)
        self.bots = BotRunner(services.settings.bot_searches)
        self._rooms = rooms
        self.cluster = rooms.cluster

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def db(self) -> Database:
        return self.services.db

    @property
    def gamelog(self) -> GameLog:
        return self.services.gamelog

    @property
    def metrics(self) -> Metrics:
        return self.services.metrics

    def new_seed(self) -> str:
        """A new round's deal seed: 128 random bits (the browser tests script it by
        replacing ``secrets`` in this module, web/e2e/serve.py)."""
        return secrets.token_hex(16)

    def forget(self, actor: RoomActor) -> None:
        self._rooms.forget(actor)

    def fenced(self, actor: RoomActor, exc: Fenced) -> None:
        """A write of the actor was refused: another node plays its room now."""
        self._rooms.fenced(actor, exc)

    def lease_valid(self) -> bool:
        """Whether this node's leases can be trusted now (its last heartbeat is recent)."""
        return self.cluster.valid()

    def db_stalled(self) -> bool:
        """Whether a write is waiting for a database that does not answer."""
        return self.journal.stalled_since is not None

    def match_over(self, room_id: str) -> None:
        """The actor stored the match result: tell the listeners (off the actor's path)."""
        self._rooms.match_over(room_id)


class LiveRooms:
    """Running room actors of this process; also the room service's event sink."""

    def __init__(self, services: Services, forward: RoomEvents | None = None) -> None:
        self.services = services
        self.cluster = Cluster(services.db, services.settings)
        self.ctx = LiveContext(services, self)
        self.actors: dict[str, RoomActor] = {}
        self._forward = forward
        self._locks: dict[str, asyncio.Lock] = {}
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._cluster_task: asyncio.Task[None] | None = None
        self._notices: set[asyncio.Task[None]] = set()
        self._releases: set[asyncio.Task[None]] = set()
        self._cluster_watch: asyncio.Task[None] | None = None
        self.bridges: Bridges | None = None
        """The Redis links to the other nodes (None without Redis: this node owns every
        room)."""
        self._sessions_task: asyncio.Task[None] | None = None
        self._quick_task: asyncio.Task[None] | None = None
        self._owner_gone: dict[str, float] = {}
        """Waiting rooms whose owner this node found gone: since when (monotonic)."""
        # Not ``secrets``: the browser tests script that module's token_hex (new_seed).
        self._instance = os.urandom(8).hex()
        self._revoked: set[str] = set()
        self._revoked_order: deque[str] = deque()
        self.watching = asyncio.Event()
        """Set once this instance listens to the other instances' revocations."""
        self.started = False
        self.stopping = asyncio.Event()
        """Set when the node begins to stop: long HTTP streams (the lobby's events) end."""
        self.rooms_dropped = 0
        """Rooms stopped because another node took their lease."""
        self.rooms_fenced = 0
        """Rooms stopped because one of their writes was fenced."""
        self._handed_off = False
        services.metrics.node.source = self

    def rooms_owned(self) -> int:
        """The rooms this node plays: its running actors while its leases are trusted,
        none while they are in doubt (paused past the lease, or cut off from the
        database: another node may be taking them)."""
        if not self.cluster.valid():
            return 0
        return sum(1 for a in self.actors.values() if not a.stopped and not a.dropped)

    def node_figures(self) -> dict[str, Any]:
        """This node's figures for /metrics (:class:`server.metrics.NodeCollector`)."""
        cluster, journal, bridges = self.cluster, self.ctx.journal, self.bridges
        return {
            "rooms_owned": self.rooms_owned(),
            "beats": cluster.beats,
            "beat_failures": cluster.beat_failures,
            "claims_won": cluster.claims_won,
            "claims_lost": cluster.claims_lost,
            "dropped": self.rooms_dropped,
            "fenced_rooms": self.rooms_fenced,
            "fenced_writes": journal.fenced,
            "bridged_client": bridges.client_side if bridges is not None else 0,
            "bridged_owner": bridges.owner_side if bridges is not None else 0,
            "write_failures": journal.failed,
            "commit_seconds": journal.commit_seconds,
        }

    @property
    def settings(self) -> Settings:
        """The server's settings: the live rooms' pacing is read from them."""
        return self.services.settings

    async def start(self) -> None:
        """Start the journal and the bots' worker, join the cluster and restore the
        playing rooms whose lease this node wins (every one with no Redis)."""
        self.ctx.journal.start()
        self.ctx.bots.start()  # the bots' worker starts beside the restores, not after them
        self.started = True
        self.cluster.draining = False
        self.stopping.clear()
        self._sessions_task = asyncio.create_task(self._watch_sessions())
        self._quick_task = asyncio.create_task(self._quick_start_loop())
        redis = self.services.redis
        if redis is not None and not self.cluster.single:
            self.bridges = Bridges(self, redis)
            await self.bridges.start()
            self._cluster_watch = asyncio.create_task(self._watch_cluster())
        try:
            await self.cluster.join()
            if self.cluster.single:
                room_ids = await self.services.gamelog.unfinished_rooms()
            else:
                room_ids = await self.cluster.leases.orphans(limit=1_000_000)
        except Exception:  # the database is down: serve anyway (/healthz reports it)
            log.exception("room_restore_skipped")
            # Rooms booted later (when their players come) are marked alive from then on.
            self._start_loops()
            return
        for room_id in room_ids:
            try:
                await self.actor(room_id)
            except Elsewhere:
                continue  # another node won it
            except Exception:
                log.exception("room_restore_failed", extra={"room_id": room_id})
        # Only now: every restored room has read the last_alive of the previous run.
        self._start_loops()

    def _start_loops(self) -> None:
        self.cluster.start_beating()
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())
        self._cluster_task = asyncio.create_task(self._cluster_loop())

    async def _cluster_loop(self) -> None:
        """The node's heartbeat, every third of the lease (a little jittered); the rest of
        the node's upkeep (:meth:`maintain`) in a task of its own, so that a slow one never
        delays a heartbeat."""
        upkeep: asyncio.Task[None] | None = None
        try:
            while True:
                await asyncio.sleep(self.cluster.interval * random.uniform(0.85, 1.0))
                try:
                    await self.beat()
                except Exception:  # never let it die: the leases would lapse
                    log.exception("node_tick_failed")
                self.hand_off_if_cut_off()
                if upkeep is None or upkeep.done():
                    upkeep = asyncio.create_task(self.maintain())
        finally:
            if upkeep is not None:
                upkeep.cancel()

    def hand_off_if_cut_off(self) -> None:
        """A node whose heartbeat the database has not taken for a whole lease (cut off
        from PostgreSQL) closes its sockets with 1012, once per outage: their clients
        reconnect through the load balancer to a node that reaches the database, which
        plays their rooms (this node's own rooms too, once their leases have lapsed).
        Not a node alone (no Redis): there is no other node to go to."""
        cluster = self.cluster
        if cluster.single or cluster.draining:
            return
        if cluster.valid() or not cluster.failing:
            self._handed_off = False
            return
        if self._handed_off:
            return
        self._handed_off = True
        closed = 0
        if self.bridges is not None:
            for bridge in list(self.bridges.rooms.values()):
                closed += len(bridge.conns)
                bridge.close_all(MOVED)
        for actor in list(self.actors.values()):
            for conn in list(actor.conns):
                if not isinstance(conn, RemoteConn):  # another node's client: not ours
                    closed += 1
                    conn.close(MOVED)
        log.warning("node_sockets_handed_off", extra={"node": cluster.node, "sockets": closed})

    async def tick(self) -> None:
        """One heartbeat, then the upkeep (:meth:`beat`, :meth:`maintain`)."""
        await self.beat()
        await self.maintain()

    async def maintain(self) -> None:
        """The sockets bridged to owners that are gone, and the orphaned rooms adopted."""
        if self.bridges is not None:
            try:
                await self.bridges.check()
            except Exception as exc:
                log.warning("bridge_check_failed", extra={"error": repr(exc)})
        if not self.cluster.single and not self.cluster.draining:
            try:
                await self.adopt()
            except Exception:
                log.exception("room_adoption_failed")

    async def beat(self) -> None:
        """The heartbeat: renew this node's leases, stop the actors of rooms another node
        took, then trust the leases again."""
        cluster = self.cluster
        with cluster.own_beat():
            sent = await cluster.beat()
            if sent is None:
                return
            try:
                held = await cluster.leases.held()
            except Exception as exc:
                log.warning("node_leases_unread", extra={"error": repr(exc)})
                return
            for actor in list(self.actors.values()):
                fence = actor.fence
                if (
                    fence is not None
                    and not actor.stopped
                    and held.get(actor.room_id) != fence.epoch
                ):
                    self._drop(actor, "lease_lost")
            # Only now: a room paused while the leases were in doubt goes on if still held.
            cluster.trust(sent)

    async def adopt(self) -> int:
        """Claim and restore playing rooms that no live node holds; how many."""
        try:
            orphans = await self.cluster.leases.orphans(limit=ADOPT_AT_ONCE)
        except Exception as exc:
            log.warning("node_orphans_unread", extra={"error": repr(exc)})
            return 0
        random.shuffle(orphans)  # nodes adopting at once mostly take different rooms
        adopted = 0
        for room_id in orphans:
            if room_id in self.actors or self.cluster.draining:
                continue
            try:
                await self.actor(room_id)
            except Elsewhere:
                continue
            except Exception:
                log.exception("room_adopt_failed", extra={"room_id": room_id})
                continue
            adopted += 1
            log.info("room_adopted", extra={"room_id": room_id, "node": self.cluster.node})
        return adopted

    def _drop(self, actor: RoomActor, reason: str) -> None:
        """Stop an actor whose room another node plays now: its clients reconnect there."""
        log.info(
            "room_dropped",
            extra={
                "room_id": actor.room_id,
                "reason": reason,
                "node": self.cluster.node,
                "epoch": actor.fence.epoch if actor.fence else None,
                "at": time.time(),
            },
        )
        actor.close_code = MOVED
        actor.dropped = True
        self.rooms_dropped += 1
        actor.post(Stop())

    def fenced(self, actor: RoomActor, exc: Fenced) -> None:
        """An actor's write was refused by the fence: it stops (:meth:`RoomActor._moved`)."""
        actor.dropped = True
        self.rooms_fenced += 1
        log.warning(
            "room_fenced",
            extra={
                "room_id": actor.room_id,
                "node": self.cluster.node,
                "error": str(exc),
                "epoch": actor.fence.epoch if actor.fence else None,
                "at": time.time(),
            },
        )

    def _playing(self) -> list[RoomActor]:
        return [a for a in self.actors.values() if a.status == "playing" and not a.stopped]

    async def heartbeat(self, actors: list[RoomActor] | None = None) -> None:
        """Record that this server is playing its rooms now (``rooms.last_alive``), with
        each room's turn clock (what a restart gives the turn)."""
        playing = self._playing() if actors is None else actors
        clocks = {a.room_id: a.turn_clock() for a in playing}
        fences = [a.fence for a in playing if a.fence is not None]
        try:
            await self.services.gamelog.mark_alive(clocks, fences=fences)
        except Exception as exc:  # the database is down: the next beat will do
            log.warning("heartbeat_failed", extra={"error": repr(exc)})

    async def _heartbeat_loop(self) -> None:
        """Every ``heartbeat_seconds``: a restart measures the downtime from the last beat."""
        while True:
            await self.heartbeat()
            await asyncio.sleep(self.settings.heartbeat_seconds)

    async def _quick_start_loop(self) -> None:
        """Start the quick start rooms whose wait is over (server/rooms/lobby/quickstart.py) and
        close the waiting rooms whose owner is gone (:meth:`close_abandoned`): every
        second, or a quarter of the wait when it is shorter."""
        s = self.settings
        every = max(0.05, min(1.0, s.quick_start_wait_seconds / 4, s.owner_gone_seconds / 4))
        while True:
            try:
                await self.services.quick.start_due()
                await self.close_abandoned()
            except Exception as exc:  # the database is down: the next look will do
                log.warning("quick_start_loop_failed", extra={"error": repr(exc)})
            await asyncio.sleep(every)

    async def close_abandoned(self, now: float | None = None) -> int:
        """Close the waiting rooms only their owner can start whose owner has had no
        socket on the room for ``owner_gone_seconds`` (``now``: monotonic seconds, the
        loop's clock by default); returns how many. The room's actor knows its sockets
        (a socket on another node is bridged to it); a room with no actor anywhere has
        none. A room another live node plays is that node's to watch. Its seated players
        are told ``owner_gone`` and their sockets closed with 4410; it leaves the lobby."""
        limit = self.settings.owner_gone_seconds
        at = time.monotonic() if now is None else now
        rooms = await self.services.rooms.owned_waiting(older_than=limit)
        closed = 0
        gone = self._owner_gone
        for room_id, owner_id in rooms:
            actor = self.actors.get(room_id)
            if actor is not None and not actor.stopped:
                if actor.player_connected(owner_id):
                    gone.pop(room_id, None)
                    continue
            elif not self.cluster.single:
                owner = await self.cluster.leases.owner(room_id)
                if owner is not None and owner.alive and owner.node != self.cluster.node:
                    gone.pop(room_id, None)
                    continue
            since = gone.setdefault(room_id, at)
            if at - since < limit:
                continue
            gone.pop(room_id, None)
            if await self.services.rooms.close_waiting(room_id) is None:
                continue
            closed += 1
            actor = self.actors.get(room_id)
            if actor is not None and not actor.stopped:
                actor.post(Closed(Code.OWNER_GONE, "the room's owner has gone: it is closed"))
                actor.post(Stop())
        for room_id in set(gone) - {r for r, _ in rooms}:
            del gone[room_id]
        return closed

    async def stop(self) -> None:
        """Hand the rooms over: stop every actor, record the time of the stop, stop the
        journal, release the leases, then close the connections with 1012 (their
        clients reconnect, to the node that takes each room). Once only."""
        if self.cluster.draining:
            return
        self.cluster.draining = True
        self.stopping.set()
        tasks = (
            self._heartbeat_task,
            self._sessions_task,
            self._cluster_task,
            self._cluster_watch,
            self._quick_task,
        )
        for task in tasks:
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._heartbeat_task = self._sessions_task = self._cluster_task = None
        self._cluster_watch = self._quick_task = None
        playing = self._playing() if self.started else []
        actors = list(self.actors.values())
        for actor in actors:
            actor.keep_conns = True
            actor.post(Stop())
        for actor in actors:
            if actor.task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(actor.task), 5)
                except (TimeoutError, Exception):
                    actor.task.cancel()
                    with contextlib.suppress(BaseException):
                        await actor.task
        self.actors.clear()
        if self._notices:
            await asyncio.wait(set(self._notices), timeout=5)
        # The last beat: the rooms were played until now (their actors have stopped).
        await self.heartbeat(playing)
        self.ctx.bots.close()
        await self.ctx.journal.stop()
        if self._releases:
            await asyncio.wait(set(self._releases), timeout=5)
        if self.started:
            held = [a.fence for a in actors if a.fence is not None and not a.dropped]
            await self.cluster.leave(held)
            if held and self.bridges is not None:
                released = {"released": [f.room_id for f in held], "from": self.cluster.node}
                with contextlib.suppress(Exception):
                    await self.services.bus.publish(CLUSTER_TOPIC, released)
        for actor in actors:
            for conn in actor.conns:
                conn.close(MOVED)
        if self.bridges is not None:
            await self.bridges.stop()
            self.bridges = None
        self.started = False

    def forget(self, actor: RoomActor) -> None:
        if self.actors.get(actor.room_id) is actor:
            del self.actors[actor.room_id]
            fence = actor.fence
            if fence is not None and not actor.dropped and not actor.keep_conns:
                self._release_later(fence)

    def _release_later(self, fence: Fence) -> None:
        """Give the lease of a room whose actor stopped (idle) back, off its path."""

        async def release() -> None:
            at = time.time()  # the actor has stopped: the room is no longer played here
            try:
                await self.cluster.leases.release([fence])
                log.info(
                    "room_released",
                    extra={
                        "room_id": fence.room_id,
                        "epoch": fence.epoch,
                        "node": fence.node,
                        "at": at,
                    },
                )
            except Exception as exc:  # it lapses with the node if the database is away
                log.warning(
                    "room_release_failed", extra={"room_id": fence.room_id, "error": repr(exc)}
                )

        task = asyncio.create_task(release())
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

    async def actor(self, room_id: str) -> RoomActor:
        """The room's running actor, started (and booted) if needed: this node claims the
        room's lease first (:class:`~server.rooms.cluster.Elsewhere` when another live
        node holds it)."""
        while True:
            actor = self.actors.get(room_id)
            if actor is None:
                lock = self._locks.setdefault(room_id, asyncio.Lock())
                try:
                    async with lock:
                        actor = self.actors.get(room_id)
                        if actor is None:
                            await self._not_elsewhere(room_id)
                            fence = await self.cluster.claim(room_id)
                            actor = RoomActor(room_id, self.ctx, fence)
                            self.actors[room_id] = actor
                            actor.start()
                finally:
                    self._locks.pop(room_id, None)
            await actor.booted.wait()
            if actor.boot_error is not None:
                raise actor.boot_error
            if not actor.stopped:
                return actor

    async def _not_elsewhere(self, room_id: str) -> None:
        """:class:`~server.rooms.cluster.Elsewhere` when another live node plays the room,
        found by a read (most sockets of a room bridged to its owner: no write each)."""
        cluster = self.cluster
        if cluster.single:
            return
        owner = await cluster.leases.owner(room_id)
        if owner is not None and owner.alive and owner.node not in (None, cluster.node):
            cluster.claims_lost += 1
            raise Elsewhere(room_id, owner)

    async def attach(self, room_id: str, conn: Conn) -> RoomActor | Bridge:
        """The room's actor with ``conn`` registered on it (before its hello); or, when
        another node plays the room, the :class:`~server.rooms.cluster.bridge.Bridge` to it.
        :class:`~server.rooms.cluster.Elsewhere` (owner None) while this node stops."""
        while True:
            try:
                actor = await self.actor(room_id)
            except Elsewhere as elsewhere:
                owner = elsewhere.owner
                if owner is None or owner.node is None or self.bridges is None:
                    raise
                return self.bridges.attach(room_id, owner.node, conn)
            if not actor.stopped:
                self.join(actor, conn)
                return actor

    def join(self, actor: RoomActor, conn: Conn) -> None:
        """Register ``conn`` on a running actor (a socket here, or a bridged one)."""
        actor.join(conn)
        if conn.session_id in self._revoked:
            actor.post(Revoked(frozenset((conn.session_id,))))

    # -- room commands (the HTTP API), on the room's owner ----------------------

    async def command(self, op: str, room_id: str, player: PlayerInfo, **args: Any) -> RoomView:
        """Run a room command (``take_seat``, ``join_by_code``, ``leave_seat``,
        ``start``) on the node that plays the room: here (claiming the room if nobody
        plays it), or on its owner through the bridge. Its writes are fenced by the
        owner's lease."""
        if not self.started:  # an app whose lifespan did not run (some tests)
            return await self._run(op, room_id, player, None, args)
        for _ in range(COMMAND_TRIES):
            try:
                actor = await self.actor(room_id)
            except KeyError:
                raise ServerError(Code.ROOM_NOT_FOUND, f"no room {room_id!r}") from None
            except Elsewhere as elsewhere:
                owner = elsewhere.owner
                if owner is None or owner.node is None or self.bridges is None:
                    raise ServerError(
                        Code.ROOM_UNREACHABLE, "this server is stopping: send the request again"
                    ) from None
                try:
                    view = await self.bridges.call(owner.node, op, room_id, player, args)
                except Moved:
                    await asyncio.sleep(0.05)
                    continue
                return RoomView.model_validate(view)
            try:
                return await self._run(op, room_id, player, actor.fence, args)
            except Fenced:
                await asyncio.sleep(0.05)  # the actor is dropped: route again
        raise ServerError(Code.ROOM_UNREACHABLE, "the room is changing hands: try again")

    async def run_here(
        self, op: str, room_id: str, player: PlayerInfo, args: dict[str, Any]
    ) -> RoomView:
        """A room command sent by another node: run it if this node plays the room,
        else :class:`~server.rooms.cluster.bridge.Moved`."""
        actor = self.actors.get(room_id)
        if actor is None or actor.stopped or self.cluster.draining:
            raise Moved(room_id)
        await actor.booted.wait()
        try:
            return await self._run(op, room_id, player, actor.fence, args)
        except Fenced:
            raise Moved(room_id) from None

    async def _run(
        self,
        op: str,
        room_id: str,
        player: PlayerInfo,
        fence: Fence | None,
        args: dict[str, Any],
    ) -> RoomView:
        rooms = self.services.rooms
        if op == "take_seat":
            return await rooms.take_seat(
                room_id, int(args["seat"]), player, args.get("code"), fence=fence
            )
        if op == "join_by_code":
            return await rooms.join_by_code(str(args["code"]), player, fence=fence)
        if op == "leave_seat":
            return await rooms.leave_seat(room_id, player, fence=fence)
        if op == "start":
            return await rooms.start(room_id, player, fence=fence)
        raise ValueError(f"unknown room command {op!r}")

    # -- hand-overs of other nodes ---------------------------------------------

    async def _watch_cluster(self) -> None:
        """Adopt at once the rooms another node released as it stopped."""
        try:
            async with self.services.bus.subscribe(CLUSTER_TOPIC) as sub:
                async for message in sub:
                    if message.get("from") not in (None, self.cluster.node) and message.get(
                        "released"
                    ):
                        await asyncio.sleep(random.uniform(0, 0.2))  # not all at once
                        await self.adopt()
        except asyncio.CancelledError:
            raise
        except Exception:  # the heartbeat adopts them anyway
            log.exception("cluster_watch_failed")

    # -- revoked sessions -------------------------------------------------------

    async def sessions_revoked(self, session_ids: list[str]) -> None:
        """Close the sockets opened with these sessions' tokens: here at once, on the
        other instances through the bus (best effort: the tokens are refused anyway)."""
        if not session_ids:
            return
        self._close_revoked(session_ids)
        try:
            await self.services.bus.publish(
                SESSIONS_TOPIC, {"revoked": session_ids, "from": self._instance}
            )
        except Exception as exc:  # Redis away: this instance's sockets are closed
            log.warning("sessions_publish_failed", extra={"error": repr(exc)})

    def _close_revoked(self, session_ids: list[str]) -> None:
        for sid in session_ids:
            if sid not in self._revoked:
                self._revoked.add(sid)
                self._revoked_order.append(sid)
        while len(self._revoked_order) > RECENT_REVOKED:
            self._revoked.discard(self._revoked_order.popleft())
        ids = frozenset(session_ids)
        for actor in list(self.actors.values()):
            if not actor.stopped:
                actor.post(Revoked(ids))

    async def _watch_sessions(self) -> None:
        """Close the sockets of sessions another instance revoked."""
        try:
            async with self.services.bus.subscribe(SESSIONS_TOPIC) as sub:
                self.watching.set()
                async for message in sub:
                    ids = _revoked_ids(message, self._instance)
                    if ids:
                        self._close_revoked(ids)
        except asyncio.CancelledError:
            raise
        except Exception:  # never let it die silently; revocation still holds in the db
            log.exception("sessions_watch_failed")

    # -- RoomEvents -----------------------------------------------------------

    async def room_changed(self, room: RoomView) -> None:
        actor = self.actors.get(room.id)
        if actor is not None and not actor.stopped:
            actor.post(SeatsChanged(seats_of_view(room)))
        elif self.bridges is not None:  # changed here (a timer, a tournament): tell its owner
            await self._tell_owner("room_changed", room)
        if self._forward is not None:
            await self._forward.room_changed(room)

    async def room_started(self, room: RoomView) -> None:
        if self.started:
            try:
                actor = await self.actor(room.id)
            except Elsewhere:  # started here (a timer, a tournament): its owner deals
                await self._tell_owner("started", room)
            else:
                actor.post(Start())
        if self._forward is not None:
            await self._forward.room_started(room)

    async def _tell_owner(self, kind: str, room: RoomView) -> None:
        """Pass a lobby change made on this node to the node that plays the room."""
        if self.bridges is None:
            return
        try:
            owner = await self.cluster.leases.owner(room.id)
        except Exception as exc:
            log.warning("room_notice_failed", extra={"room_id": room.id, "error": repr(exc)})
            return
        if owner is not None and owner.alive and owner.node not in (None, self.cluster.node):
            assert owner.node is not None
            self.bridges.notice(owner.node, kind, room)

    async def room_finished(self, room: RoomView) -> None:
        if self._forward is not None:
            await self._forward.room_finished(room)

    def match_over(self, room_id: str) -> None:
        """Announce a finished match as :meth:`room_finished` in a task of its own."""
        task = asyncio.create_task(self._announce_finished(room_id))
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _announce_finished(self, room_id: str) -> None:
        try:
            room = await self.services.rooms.room_view(room_id)
            await self.room_finished(room)
        except Exception as exc:  # a notification must never break a room
            log.warning(
                "room_finished_notice_failed", extra={"room_id": room_id, "error": repr(exc)}
            )


def _revoked_ids(message: dict[str, Any], instance: str) -> list[str]:
    """The session ids of a ``sessions`` message another instance sent (else none).

    >>> _revoked_ids({"revoked": ["a", "b"], "from": "x"}, "y"), _revoked_ids({}, "y")
    (['a', 'b'], [])
    >>> _revoked_ids({"revoked": ["a"], "from": "y"}, "y")
    []
    """
    ids = message.get("revoked")
    if message.get("from") == instance or not isinstance(ids, list):
        return []
    return [i for i in ids if isinstance(i, str)]
