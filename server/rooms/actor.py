"""The room actor: the server's shell around one room core, one asyncio task per live room.

The room's game flow is the core's (:class:`~server.rooms.core.room.RoomCore`, pure); the
actor does its I/O. Its inbox holds typed commands only (:data:`Inbound`: the core's
commands of :mod:`server.rooms.core.messages`, and its own ``Start`` and ``Stop``): a
connection's validated message becomes the core's command as it arrives
(:meth:`RoomActor.receive`), the lobby posts its news as the core's commands
(:meth:`RoomActor.post`). The actor hands them to the core one at a time, in arrival
order, together with the time and what is due
(:meth:`~server.rooms.core.room.RoomCore.run_due`). It performs each effect a step
yields, in order, and sends the frames the step made:

* records go through the :class:`~server.rooms.journal.Journal` and are committed
  before the frames that follow them are sent (a move is in the round's log before
  it is acknowledged or broadcast);
* reads (joker credits, a logged move, a new round's seed) go to the database or the
  random source.

A bot's search the core asks for (a ``BotRequest`` in its outbox) runs in a task of its
own on the :class:`~server.rooms.botplay.BotRunner`; its decision comes back through
the inbox like any other input. Meanwhile the room answers hellos, queries and moves
and its timers fire; a decision for a room that has moved on is dropped by the core.

Versions are reserved in blocks in ``rooms.version`` so that a restarted server never
reuses a version a client may hold. Every write carries the room's
:class:`~server.storage.leases.Fence` (this node's lease and epoch): once another node
has taken the room, a write is refused with :class:`~server.storage.leases.Fenced` and
the actor stops at once, closing its connections with 1012 (the clients reconnect, to
the new owner). While the node's leases are in doubt (no heartbeat for
``REMI_LEASE_SECONDS``: the database is away, or the process was paused) the room does
nothing, refusing moves with ``database_unavailable``, until a heartbeat says whether it
is still this node's (then its clocks are moved on by the pause) or another's (then it
stops).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Coroutine, Generator
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from pydantic_core import to_json

from server.economy.ledger import NoJokerCredit
from server.economy.settlement import JokerSpend, MatchFinish, RoundFinish
from server.errors import Code
from server.protocol import (
    ActionMessage,
    Hello,
    LeaveMessage,
    NextRoundMessage,
    QueryMessage,
    RackMessage,
    ReactMessage,
    RoomMessage,
)
from server.rooms import restore, store
from server.rooms.botplay import BotRunner
from server.rooms.conn import Conn
from server.rooms.core.clock import Now, Timers
from server.rooms.core.config import Pacing, RoomConfig
from server.rooms.core.frames import PONG
from server.rooms.core.frames import error as error_frame
from server.rooms.core.messages import (
    READ_FAILED,
    Acked,
    Act,
    AppendAction,
    Ask,
    Attach,
    BeginRound,
    BotDecision,
    BotRequest,
    ClockRestarted,
    Close,
    Command,
    Effect,
    FindLogged,
    FinishRound,
    Gone,
    LoggedMove,
    MatchEnded,
    NewSeed,
    NextRound,
    Played,
    React,
    ReadCredits,
    RecordMatch,
    Rejected,
    ReserveVersions,
    SaveRack,
    Seat,
    SeatsChanged,
    Send,
    SetRack,
    Start,
    Stop,
)
from server.rooms.core.messages import Hello as CoreHello
from server.rooms.core.messages import Leave as CoreLeave
from server.rooms.core.room import RoomCore
from server.rooms.timers import Alarm
from server.storage.gamelog import TurnClock
from server.storage.leases import Fence, Fenced

__all__ = ["PONG", "ClientMessage", "RoomActor", "error_frame", "seats_of_view"]
# PONG and error_frame: what server/ws.py answers without the actor.

log = logging.getLogger(__name__)

WRITES = (Act, SetRack)
"""The commands that write to the database."""

FAILED = "the server failed on this message: reload the table to see it as it is"
"""The answer to a move whose handling failed unexpectedly (it may or may not be in)."""

DATABASE_UNAVAILABLE = (
    "the database does not answer: your move was not played; play it again in a moment "
    "(every move already acknowledged is kept)"
)

BUSY = "the server is catching up: your move was not played; play it again in a moment"

RETRY_DATABASE_MS = 1000
"""The retry hint of ``database_unavailable``: the journal tries the database again
every few hundred milliseconds up to 2 s."""

MOVED = 1012
"""The close code of a room's connections when another node plays it now (or this one
hands it over as it stops): the client reconnects, and reaches the new owner."""


class ActorContext(Protocol):
    """What an actor needs from its node (:class:`server.rooms.live.LiveContext`)."""

    @property
    def settings(self) -> Any: ...
    @property
    def db(self) -> Any: ...
    @property
    def gamelog(self) -> Any: ...
    @property
    def metrics(self) -> Any: ...
    @property
    def journal(self) -> Any: ...
    @property
    def bots(self) -> BotRunner: ...
    @property
    def services(self) -> Any: ...
    @property
    def cluster(self) -> Any: ...

    def new_seed(self) -> str: ...
    def forget(self, actor: RoomActor) -> None: ...
    def fenced(self, actor: RoomActor, exc: Fenced) -> None: ...
    def lease_valid(self) -> bool: ...
    def db_stalled(self) -> bool: ...
    def match_over(self, room_id: str) -> None: ...


def pacing_of(config: Any) -> Pacing:
    """The room core's pacing from the server's settings."""
    return Pacing(
        bot_delay=config.bot_delay_seconds,
        round_pause=config.round_pause_seconds,
        reconnect_grace=config.reconnect_grace_seconds,
        unresponsive_after=config.unresponsive_after_timeouts,
        empty_grace=config.empty_room_grace_seconds,
        idle_grace=config.idle_actor_seconds,
        replay_events=config.replay_buffer_events,
        recent_events=config.snapshot_recent_events,
        reactions_per_minute=config.reactions_per_minute,
        version_block=config.version_block,
    )


def seats_of_view(view: Any) -> tuple[Seat, ...]:
    """The seats of the lobby's room view (:class:`~server.rooms.lobby.service.RoomView`)."""
    return tuple(
        Seat(
            seat=sv.seat,
            player_id=sv.player.id if sv.player else None,
            name=sv.player.display_name if sv.player else None,
            bot_level=sv.bot_level if sv.player is None else None,
        )
        for sv in view.seats
    )


ClientMessage = RoomMessage
"""A connection's validated message that goes to its room."""

Inbound = Command | Start | Stop
"""What the actor's inbox holds, in arrival order: the core's commands and its own."""


def command_of(cid: int, msg: ClientMessage) -> Command:
    """Connection ``cid``'s validated message as the core's command: the one place a
    protocol model becomes the core's type (a move's action is the engine's action object
    already, built by the protocol's validation)."""
    match msg:
        case Hello():
            return CoreHello(cid, msg.last_version, bool(msg.patches), msg.device)
        case ActionMessage():
            return Act(cid, msg.seq, msg.base_version, msg.action)
        case RackMessage():
            return SetRack(cid, msg.seq, tuple(msg.layout))
        case QueryMessage():
            return Ask(
                cid,
                msg.seq,
                msg.query,
                tuple(tuple(f) for f in (msg.formations or [])),
                msg.taken,
                msg.index,
            )
        case ReactMessage():
            return React(cid, msg.reaction)
        case LeaveMessage():
            return CoreLeave(cid)
        case NextRoundMessage():
            return NextRound(cid)
    raise TypeError(f"not a room message: {type(msg).__name__}")  # pragma: no cover


class RoomActor:
    """The live room; see the module docstring."""

    def __init__(self, room_id: str, ctx: ActorContext, fence: Fence | None = None) -> None:
        self.room_id = room_id
        self.ctx = ctx
        self.fence = fence
        """This node's lease of the room: every write is conditional on it."""
        self.loop = asyncio.get_running_loop()
        self.core = RoomCore(
            RoomConfig(room_id, "remi", 0),
            pacing_of(ctx.settings),
            encode=to_json,
            bot_clock=time.perf_counter,
        )
        self.conns: list[Conn] = []
        self._by_id: dict[int, Conn] = {}
        self.stopped = False
        self.booted = asyncio.Event()
        self.boot_error: BaseException | None = None
        self.inbox: deque[Inbound] = deque()
        self.alarm = Alarm(self.loop)
        self.task: asyncio.Task[None] | None = None
        self._t0 = 0.0
        self._t_ack = 0.0
        self.close_code = 1001
        """How the connections are closed when the actor stops (:data:`MOVED`: the room
        is played elsewhere now)."""
        self.dropped = False
        """Another node plays the room now: its lease is not this node's to release."""
        self.keep_conns = False
        """Stop without closing the connections (a hand-over closes them itself)."""
        self._beside: set[asyncio.Task[None]] = set()
        """Work under way beside the inbox: the bots' searches (each posts its decision
        to the inbox) and the turn clock's records."""

    # ------------------------------------------------------------------ what others read

    @property
    def status(self) -> str:
        return self.core.status

    @property
    def version(self) -> int:
        return self.core.version

    @property
    def round_number(self) -> int:
        return self.core.round_number

    @property
    def timers(self) -> Timers:
        return self.core.timers

    def seat_connected(self, seat: int) -> bool:
        return self.core.seat_connected(seat)

    def player_connected(self, player_id: str) -> bool:
        """Whether the player has an open connection to the room (seated or watching)."""
        return any(p.player_id == player_id and not p.closed for p in self.core.peers.values())

    def turn_clock(self) -> TurnClock | None:
        """The running turn's clock now, as a heartbeat records it (None: no turn)."""
        clock = self.core.turn_clock(self.loop.time())
        if clock is None:
            return None
        left, since = clock
        return TurnClock(left, datetime.fromtimestamp(since, UTC))

    # ------------------------------------------------------------------ plumbing

    def start(self) -> None:
        """Start the actor's task."""
        self.task = asyncio.create_task(self._main(), name=f"room-{self.room_id}")

    def join(self, conn: Conn) -> None:
        """Register ``conn`` (a socket here, or a bridged one) before its ``hello``."""
        if conn.id not in self._by_id:
            self.conns.append(conn)
            self._by_id[conn.id] = conn
        self._queue(Attach(conn.id, conn.player_id, conn.session_id))

    def post(self, command: Inbound) -> None:
        """Queue a command (the lobby's news, a connection gone, ``Start``, ``Stop``);
        the actor handles its inbox in arrival order."""
        self._queue(command)

    def receive(self, conn: Conn, msg: ClientMessage, t0: float | None = None) -> None:
        """Queue ``conn``'s validated message as the core's command (``t0``: when its
        frame arrived, for the move's metrics). A move or a rack layout that cannot be
        written now (the database is away, or the node's leases in doubt) is refused at
        once with ``database_unavailable``: nothing was played."""
        if isinstance(msg, Hello) and conn.id not in self._by_id:
            self.join(conn)
        command = command_of(conn.id, msg)
        if isinstance(command, WRITES):
            refusal = self._refusal()
            if refusal is not None:
                code, text, retry_ms = refusal
                self.ctx.metrics.reject(code.value)
                conn.send(error_frame(command.seq, code, text, retry_after_ms=retry_ms))
                return
            if isinstance(command, Act):
                self._t0 = time.perf_counter() if t0 is None else t0
        self._queue(command)

    def gone(self, conn: Conn) -> None:
        """``conn`` is closed: the core forgets it."""
        self._queue(Gone(conn.id))

    def _queue(self, command: Inbound) -> None:
        self.inbox.append(command)
        self.alarm.wake()

    def _refusal(self) -> tuple[Code, str, int] | None:
        """Why a write cannot be made now, told truly, with a retry hint (ms): the
        database does not answer (a write waits for it, or the last heartbeat failed),
        or the node is only late in confirming its leases (``busy``: the next heartbeat
        settles it). None: it can."""
        ctx = self.ctx
        if ctx.db_stalled():
            return Code.DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE, RETRY_DATABASE_MS
        if ctx.lease_valid():
            return None
        if ctx.cluster.failing:
            return Code.DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE, RETRY_DATABASE_MS
        return Code.BUSY, BUSY, max(100, round(ctx.cluster.interval * 1000))

    def _now(self) -> Now:
        return Now(self.loop.time(), time.time())

    async def _main(self) -> None:
        try:
            await self._boot()
        except BaseException as exc:
            self.boot_error = exc
            self.stopped = True
            self.booted.set()
            self.ctx.forget(self)
            if not isinstance(exc, asyncio.CancelledError):
                log.exception("room_boot_failed", extra={"room_id": self.room_id})
            return
        self.booted.set()
        self.ctx.metrics.live_rooms.inc()
        try:
            await self._loop()
        finally:
            self.stopped = True
            self.alarm.arm(None)
            for search in self._beside:
                search.cancel()
            self.ctx.forget(self)
            self.ctx.metrics.live_rooms.dec()
            if not self.keep_conns:
                for conn in self.conns:
                    conn.close(self.close_code)

    def _moved(self, exc: Fenced) -> None:
        """A write was fenced: another node plays the room now; stop at once."""
        self.close_code = MOVED
        self.ctx.fenced(self, exc)

    async def _loop(self) -> None:
        core = self.core
        while True:
            if not self.ctx.lease_valid() and not await self._sit_out():
                return
            while self.inbox:
                command = self.inbox.popleft()
                if isinstance(command, Stop) or self.dropped:
                    return
                try:
                    if isinstance(command, Start):
                        await self._started()
                    else:
                        await self._drive(core.handle(command))
                        self._sync(command)
                except Fenced as exc:
                    self._moved(exc)
                    return
                except Exception:
                    log.exception("room_command_failed", extra={"room_id": self.room_id})
                    self._failed(command)
            try:
                await self._drive(core.run_due())
                if core.did:
                    continue
            except Fenced as exc:
                self._moved(exc)
                return
            except Exception:
                log.exception("room_timer_failed", extra={"room_id": self.room_id})
                await asyncio.sleep(0.5)
            if self.inbox:
                continue
            core.tell_time(self._now())
            if core.should_stop():
                return
            self.alarm.arm(core.next_wakeup())
            await self.alarm.wait()

    def _failed(self, command: Inbound) -> None:
        """A move or rack layout whose handling failed unexpectedly still gets an answer
        (``internal_error``): its sender is never left waiting."""
        self._deliver()
        if isinstance(command, WRITES):
            conn = self._by_id.get(command.conn)
            if conn is not None:
                conn.send(error_frame(command.seq, Code.INTERNAL_ERROR, FAILED))

    def _sync(self, command: Command) -> None:
        """Each connection's seat and flags as the core has them (read by the bridge and
        the tests), and the connections gone forgotten."""
        if isinstance(command, Gone):
            conn = self._by_id.pop(command.conn, None)
            if conn is not None and conn in self.conns:
                self.conns.remove(conn)
            return
        if not isinstance(command, CoreHello | CoreLeave | SeatsChanged):
            return
        for conn in self.conns:
            peer = self.core.peers.get(conn.id)
            if peer is not None:
                conn.seat, conn.ready, conn.left = peer.seat, peer.ready, peer.left
                conn.device = peer.device

    # ------------------------------------------------------------------ the core's steps

    async def _drive(self, step: Generator[Effect, Any, None]) -> None:
        """Run one step of the core: before each effect, send the frames made so far;
        perform the effect (a write is committed before anything after it is sent)."""
        core = self.core
        result: Any = None
        try:
            while True:
                core.tell_time(self._now())
                try:
                    effect = step.send(result)
                except StopIteration:
                    return
                self._deliver()
                result = await self._perform(effect)
        finally:
            step.close()
            self._deliver()

    def _deliver(self) -> None:
        metrics = self.ctx.metrics
        for out in self.core.take():
            match out:
                case Send(conn=cid, frame=frame):
                    conn = self._by_id.get(cid)
                    if conn is not None:
                        conn.send(frame)
                case Close(conn=cid, code=code):
                    conn = self._by_id.get(cid)
                    if conn is not None:
                        conn.close(code)
                case Rejected(code=code):
                    metrics.reject(code)
                case Acked():
                    self._t_ack = time.perf_counter()
                case Played(source=source):
                    if source == "player":
                        metrics.action_done(self._t_ack - self._t0, time.perf_counter() - self._t0)
                    metrics.move(self.core.config.variant, source)
                case MatchEnded():
                    self.ctx.match_over(self.room_id)
                case BotRequest():
                    self._aside(self._search(out))
                case ClockRestarted():
                    self._aside(self._record_clock())

    def _aside(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the room's inbox (cancelled when the actor stops)."""
        task = asyncio.create_task(work, name=f"room-{self.room_id}-aside")
        self._beside.add(task)
        task.add_done_callback(self._beside.discard)

    async def _record_clock(self) -> None:
        """Record the running turn's clock now (``rooms.turn_left``, as a heartbeat
        does): a clock started without a logged move that says so (the room restored,
        its player back) is what a restart must give the turn, even before the next
        heartbeat."""
        clock = self.turn_clock()
        if clock is None or self.stopped:
            return
        fences = [self.fence] if self.fence is not None else []
        try:
            await self.ctx.gamelog.mark_alive({self.room_id: clock}, fences=fences)
        except Exception as exc:  # the database is away: the next heartbeat records it
            log.warning(
                "turn_clock_not_recorded", extra={"room_id": self.room_id, "error": repr(exc)}
            )

    async def _search(self, ask: BotRequest) -> None:
        """Run the bot's search away from the room's inbox; post its decision (a bot
        whose search failed outright decides nothing: the core plays a fallback move)."""
        ctx = self.ctx
        t0 = time.perf_counter()
        try:
            choice, searched = await ctx.bots.choose(ask.bot, ask.view)
        except Exception:
            log.exception("bot_search_failed", extra={"room_id": self.room_id})
            choice, searched = None, ask.bot
        ctx.metrics.bot_searched(time.perf_counter() - t0)
        if not self.stopped:
            self._queue(BotDecision(ask.seat, ask.version, ask.bot, choice, searched))

    async def _perform(self, effect: Effect) -> Any:
        ctx, fence = self.ctx, self.fence
        match effect:
            case ReserveVersions(upto=upto):
                await ctx.gamelog.set_version(self.room_id, upto, fence)
                return None
            case AppendAction():
                spend = (
                    None
                    if effect.spend is None
                    else JokerSpend(effect.spend, self.room_id, effect.round_number, effect.seat)
                )
                try:
                    await ctx.journal.append_action(
                        cast(int, effect.round_key),
                        effect.index,
                        effect.seat,
                        effect.action,
                        effect.client_seq,
                        effect.source,
                        effect.version,
                        spend,
                        fence,
                    )
                except NoJokerCredit:
                    return "no_joker_credit"
                except Fenced:
                    raise  # the room is played elsewhere now: nothing to undo, the actor stops
                except Exception:
                    log.exception("action_write_failed", extra={"room_id": self.room_id})
                    return "failed"
                return "ok"
            case BeginRound():
                return await ctx.journal.begin_round(
                    self.room_id,
                    effect.number,
                    effect.variant,
                    effect.seed,
                    effect.first,
                    dict(effect.stored),
                    fence,
                )
            case FinishRound():
                await ctx.journal.finish_round(
                    RoundFinish(
                        cast(int, effect.round_key), dict(effect.result), list(effect.scores)
                    ),
                    fence,
                )
                return None
            case RecordMatch():
                await ctx.gamelog.record_match(
                    MatchFinish(
                        self.room_id, list(effect.totals), list(effect.winners), effect.rounds
                    ),
                    fence,
                )
                return None
            case SaveRack():
                await ctx.journal.set_rack(
                    self.room_id,
                    effect.seat,
                    {"round": effect.round, "layout": list(effect.layout)},
                    fence,
                )
                return None
            case ReadCredits():
                return await ctx.services.economy.credits_of(list(effect.player_ids))
            case NewSeed():
                return ctx.new_seed()
            case FindLogged():
                try:
                    move = await store.logged_move(ctx.db, self.room_id, effect.seat, effect.seq)
                except Exception:
                    log.exception(
                        "resend_read_failed", extra={"room_id": self.room_id, "seq": effect.seq}
                    )
                    return READ_FAILED
                return None if move is None else LoggedMove(move.action, move.version)
        raise ValueError(f"unknown effect {effect!r}")  # pragma: no cover

    # ------------------------------------------------------------------ boot / restore

    async def _boot(self) -> None:
        """Take the room up from the database (:func:`server.rooms.restore.load`), then
        finish what the last owner left undone: a round played out, a match over (its
        result not yet written: ended again, docs/economy.md)."""
        ctx = self.ctx
        config, restored = await restore.load(ctx.db, ctx.gamelog, self.room_id, ctx.settings)
        core = self.core
        core.config = config
        core.tell_time(self._now())
        core.restore(restored)
        await self._drive(core.resume())
        if core.status == "playing":
            self._aside(self._record_clock())  # the turn's clock restarted here
            log.info(
                "room_restored",
                extra={
                    "room_id": self.room_id,
                    "round": core.round_number,
                    "version": core.version,
                },
            )

    async def _started(self) -> None:
        """The lobby started the waiting room: loaded as started, its first round dealt."""
        if self.core.status != "waiting":
            return
        ctx = self.ctx
        started = await restore.started(ctx.db, ctx.gamelog, self.room_id, ctx.settings)
        if started is not None:
            await self._drive(self.core.handle(started))
            for conn in self.conns:
                peer = self.core.peers.get(conn.id)
                if peer is not None:
                    conn.seat = peer.seat

    async def _sit_out(self) -> bool:
        """Wait while the node's leases are in doubt; False when the actor is to stop
        meanwhile (a ``stop`` command came). The room's clocks move on by the pause (no
        turn ran out, no player went away meanwhile)."""
        t0 = self.loop.time()
        log.warning("room_paused", extra={"room_id": self.room_id})
        renewed = self.ctx.cluster.renewed
        while not self.ctx.lease_valid():
            if any(isinstance(command, Stop) for command in self.inbox):
                return False
            waits = {
                asyncio.ensure_future(renewed.wait()),
                asyncio.ensure_future(self.alarm.wait()),
            }
            _, pending = await asyncio.wait(waits, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
        if self.dropped or any(isinstance(command, Stop) for command in self.inbox):
            return False  # the heartbeat that ended the doubt found the room taken: stop now
        gap = self.loop.time() - t0
        self.core.shift(gap)
        log.info("room_resumed", extra={"room_id": self.room_id, "paused_s": round(gap, 3)})
        return True
