"""The room actor: one asyncio task per live room, the only thing that changes its game.

Connections and the lobby post commands (:meth:`RoomActor.post`); the actor
handles them one at a time, in arrival order, together with what its timers say
is due (:mod:`server.rooms.timers`). It starts from the room as the database holds
it (:mod:`server.rooms.restore`) and holds the game's flow: the match and its rounds
(:mod:`server.rooms.rounds`), the room ``version`` (one per change), who plays each
seat (:mod:`server.rooms.presence`, :mod:`server.rooms.takeover`) and the turn clock.

* A move is appended to the round's action log and committed (through the
  :class:`~server.rooms.journal.Journal`) before it is acknowledged or broadcast.
* Every change is an event with the next version; :mod:`server.rooms.audience`
  sends each connection its seat's frame (:mod:`server.rooms.frames`) and keeps the
  last events for reconnecting clients.
* Versions are reserved in blocks in ``rooms.version`` so that a restarted server
  never reuses a version a client may hold.
* Every write carries the room's :class:`~server.storage.leases.Fence` (this node's
  lease and epoch, :mod:`server.rooms.live`): once another node has taken the room, a
  write is refused with :class:`~server.storage.leases.Fenced` and the actor stops at
  once, closing its connections with 1012 (the clients reconnect, to the new owner).
  While the node's leases are in doubt (no heartbeat for ``REMI_LEASE_SECONDS``: the
  database is away, or the process was paused) the room does nothing, refusing moves
  with ``database_unavailable``, until a heartbeat says whether it is still this node's
  (then its clocks are moved on by the pause) or another's (then it stops;
  :mod:`server.rooms.pause`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from server.economy.ledger import NoJokerCredit
from server.errors import Code
from server.protocol import ActionMessage, Hello, RackMessage, action_dict
from server.rooms import devices, frames, pause, presence, query, restore, rounds, timers
from server.rooms.audience import Audience, Change, Shown, Table, next_table
from server.rooms.conn import Conn
from server.rooms.frames import PONG
from server.rooms.frames import error as error_frame
from server.rooms.options import RoomSettings
from server.rooms.presence import SeatSlot
from server.rooms.rack import layout_error, normalize_rack
from server.rooms.reactions import Reactions
from server.rooms.replies import Replies
from server.rooms.takeover import Takeover, bot_controls, move_source
from server.rooms.timers import Alarm, Due, Timers
from server.rules import Match, RoundState, RuleError, replay
from server.storage.leases import Fence, Fenced

if TYPE_CHECKING:
    from server.rooms.live import LiveContext

__all__ = ["PONG", "RoomActor", "error_frame"]
# PONG and error_frame: what server/ws.py answers without the actor (server/rooms/frames.py).

log = logging.getLogger(__name__)

RESERVE_MARGIN = 16
"""Versions left in the reserved block when the next block is reserved."""

WRITES = frozenset(("action", "rack"))
"""The commands that write to the database."""

FAILED = "the server failed on this message: reload the table to see it as it is"
"""The answer to a move whose handling failed unexpectedly (it may or may not be in)."""

DATABASE_UNAVAILABLE = (
    "the database does not answer: your move was not played; play it again in a moment "
    "(every move already acknowledged is kept)"
)

MOVED = 1012
"""The close code of a room's connections when another node plays it now (or this one
hands it over as it stops): the client reconnects, and reaches the new owner."""


class RoomActor:
    """The live room; see the module docstring."""

    def __init__(self, room_id: str, ctx: LiveContext, fence: Fence | None = None) -> None:
        self.room_id = room_id
        self.ctx = ctx
        self.fence = fence
        """This node's lease of the room: every write is conditional on it."""
        self.loop = asyncio.get_running_loop()
        self.status = "waiting"
        self.settings = RoomSettings()
        self.seats: list[SeatSlot] = []
        self.match: Match | None = None
        self.round: RoundState | None = None
        self.round_id: int | None = None
        self.round_number = 0
        # The current round's deal seed: shown with its round_over, never before (§D).
        self.round_seed: str | None = None
        self.version = 0
        self.reserved = 0
        self.conns: list[Conn] = []
        self.audience = Audience(
            ctx.settings.replay_buffer_events, ctx.settings.snapshot_recent_events
        )
        self._last_table: Table | None = None
        self.replies = Replies(ctx.db, room_id)
        self.takeover = Takeover(room_id, ctx.bots)
        self.timers = Timers()
        self.summary_read: set[int] = set()  # seats that sent next_round in this pause
        self.reactions = Reactions(ctx.settings.reactions_per_minute)
        self.stopped = False
        self.booted = asyncio.Event()
        self.boot_error: BaseException | None = None
        self.inbox: deque[tuple[Any, ...]] = deque()
        self.alarm = Alarm(self.loop)
        self.task: asyncio.Task[None] | None = None
        self.close_code = 1001
        """How the connections are closed when the actor stops (:data:`MOVED`: the room
        is played elsewhere now)."""
        self.dropped = False
        """Another node plays the room now: its lease is not this node's to release."""
        self.keep_conns = False
        """Stop without closing the connections (a hand-over closes them itself)."""

    # ------------------------------------------------------------------ plumbing

    def start(self) -> None:
        """Start the actor's task."""
        self.task = asyncio.create_task(self._main(), name=f"room-{self.room_id}")

    def post(self, *command: Any) -> None:
        """Queue a command; the actor handles commands in arrival order. A move or a rack
        layout that cannot be written now (the database is away, or the node's leases in
        doubt) is refused at once with ``database_unavailable``: nothing was played."""
        if command[0] in WRITES and not self._writable():
            conn, msg = command[1], command[2]
            self.ctx.metrics.reject(Code.DATABASE_UNAVAILABLE.value)
            conn.send(error_frame(msg.seq, Code.DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE))
            return
        self.inbox.append(command)
        self.alarm.wake()

    def _writable(self) -> bool:
        return self.ctx.lease_valid() and not self.ctx.db_stalled()

    @property
    def turn_seconds(self) -> float:
        base = self.settings.turn_seconds or self.ctx.settings.default_turn_seconds
        return float(base) * self.ctx.settings.turn_time_scale

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
        while True:
            if not self.ctx.lease_valid() and not await pause.sit_out(self):
                return
            while self.inbox:
                command = self.inbox.popleft()
                if command[0] == "stop":
                    return
                try:
                    await self.reserve_ahead()
                    await self._handle(command)
                except Fenced as exc:
                    self._moved(exc)
                    return
                except Exception:
                    log.exception("room_command_failed", extra={"room_id": self.room_id})
                    self._failed(command)
            try:
                await self.reserve_ahead()
                if await self._run_due():
                    continue
            except Fenced as exc:
                self._moved(exc)
                return
            except Exception:
                log.exception("room_timer_failed", extra={"room_id": self.room_id})
                await asyncio.sleep(0.5)
            if self.inbox:
                continue
            if self._should_stop():
                return
            self.alarm.arm(self._next_wakeup())
            await self.alarm.wait()

    def _failed(self, command: tuple[Any, ...]) -> None:
        """A move or rack layout whose handling failed unexpectedly still gets an answer
        (``internal_error``): its sender is never left waiting."""
        if command[0] in WRITES:
            conn, msg = command[1], command[2]
            conn.send(error_frame(msg.seq, Code.INTERNAL_ERROR, FAILED))

    def _should_stop(self) -> bool:
        t = self.timers
        if self.status == "playing" or self.conns:
            t.idle_since = None
            return False
        now = self.loop.time()
        if t.idle_since is None:
            t.idle_since = now
        return now >= t.idle_since + self.ctx.settings.idle_actor_seconds

    async def reserve_ahead(self) -> None:
        if self.reserved - self.version < RESERVE_MARGIN:
            self.reserved = self.version + self.ctx.settings.version_block
            await self.ctx.gamelog.set_version(self.room_id, self.reserved, self.fence)

    # ------------------------------------------------------------------ boot / restore

    async def _boot(self) -> None:
        """Take the room up from the database (:func:`server.rooms.restore.boot`), then
        finish what the last owner left undone: a round played out, a match over (its
        result not yet written: ended again, docs/economy.md)."""
        await restore.boot(self)
        if self.status != "playing":
            return
        if self.round is not None and self.round.over:
            await rounds.finish(self)
        elif self.round is None and self.match is not None and self.match.over:
            await rounds.end_match(self, "end_condition")
        log.info(
            "room_restored",
            extra={"room_id": self.room_id, "round": self.round_number, "version": self.version},
        )

    # ------------------------------------------------------------------ commands

    async def _handle(self, command: tuple[Any, ...]) -> None:
        kind = command[0]
        if kind == "attach":
            self.conns.append(command[1])
        elif kind == "hello":
            self._on_hello(command[1], command[2])
        elif kind == "action":
            await self._on_action(command[1], command[2], command[3])
        elif kind == "rack":
            await self._on_rack(command[1], command[2])
        elif kind == "query":
            conn, msg = command[1], command[2]
            conn.send(query.answer(self.round, conn.seat, msg))
        elif kind == "leave":
            self._on_leave(command[1])
        elif kind == "next_round":
            self._on_next_round(command[1])
        elif kind == "react":
            self.reactions.react(command[1], command[2], self.conns, self.loop.time())
        elif kind == "gone":
            self._on_gone(command[1])
        elif kind == "room_changed":
            restore.room_changed(self, command[1])
        elif kind == "started":
            await restore.started(self)
        elif kind == "revoked":
            gone = devices.signed_out(self.conns, command[1])
            devices.close_all(gone, devices.SESSION_REVOKED_FRAME, devices.SESSION_REVOKED)
        else:  # pragma: no cover - programming error
            raise ValueError(f"unknown command {kind!r}")

    def _on_next_round(self, conn: Conn) -> None:
        """The seat read the round summary: deal now once every connected human has."""
        if self.timers.next_round_at is None or conn.seat is None or conn.closed:
            return
        self.summary_read.add(conn.seat)
        if presence.summary_read_by_all(self.seats, self.seat_connected, self.summary_read):
            self.timers.next_round_at = self.loop.time()

    def seat_of(self, player_id: str) -> int | None:
        return next((s.seat for s in self.seats if s.player_id == player_id), None)

    def seat_connected(self, seat: int) -> bool:
        return any(c.seat == seat and c.ready and not c.left for c in self.conns)

    def update_empty(self) -> None:
        t = self.timers
        if self.status != "playing" or self.settings.plays_to_the_end or any(
            c.ready and not c.left and c.seat is not None for c in self.conns
        ):
            t.empty_since = None
        elif t.empty_since is None:
            t.empty_since = self.loop.time()

    def _on_hello(self, conn: Conn, msg: Hello) -> None:
        if conn.closed:
            return
        if conn not in self.conns:
            self.conns.append(conn)
        conn.seat = self.seat_of(conn.player_id)
        conn.ready = True
        conn.left = False
        if msg.device is not None:
            conn.device = msg.device
        displaced = devices.displaced_by(conn, self.conns)
        devices.close_all(displaced, devices.PLAYED_ELSEWHERE_FRAME, devices.PLAYED_ELSEWHERE)
        self.audience.hello(conn, bool(msg.patches))
        shown = self._shown()
        if not self.audience.replay(conn, msg.last_version, shown):
            self.audience.snapshot(
                conn,
                shown,
                self._room_info(),
                self._rack(conn.seat),
                self.replies.last_seq(conn.player_id, conn.seat),
            )
        if conn.seat is not None:
            self._take_back(conn.seat)
        self.update_empty()

    def _take_back(self, seat: int) -> None:
        """The seat's player is here again: the bot stops (mid-turn included)."""
        slot = self.seats[seat]
        if presence.returned(slot):
            if self._is_turn(seat) and not slot.unresponsive:
                self.timers.start_turn(self.loop.time(), self.turn_seconds)
            self.emit(Change(presence.presence_event(slot)))

    def _on_leave(self, conn: Conn) -> None:
        conn.left = True
        seat = conn.seat
        if seat is not None and not self.seat_connected(seat):
            slot = self.seats[seat]
            if presence.left(slot, self.status == "playing"):
                self.timers.bot_at = self.loop.time() + self.ctx.settings.bot_delay_seconds
                self.emit(Change(presence.presence_event(slot)))
        self.update_empty()

    def _on_gone(self, conn: Conn) -> None:
        with contextlib.suppress(ValueError):
            self.conns.remove(conn)
        self.audience.forget(conn)
        seat = conn.seat
        if seat is not None and conn.ready and not conn.left and not self.seat_connected(seat):
            presence.disconnected(self.seats[seat], self.loop.time(), self.status == "playing")
        self.update_empty()

    # ------------------------------------------------------------------ moves

    async def _resent(self, conn: Conn, msg: ActionMessage | RackMessage) -> bool:
        """A seq already answered gets its answer again, never a second apply (from
        memory, or from the room's log: :mod:`server.rooms.replies`)."""
        reply = await self.replies.resend(conn.player_id, conn.seat, msg.seq, msg, self.version)
        if reply is None:
            return False
        conn.send(reply)
        return True

    async def _on_action(self, conn: Conn, msg: ActionMessage, t0: float) -> None:
        if await self._resent(conn, msg):
            return
        reply = await self._player_move(conn, msg, t0)
        self.replies.put(conn.player_id, msg.seq, msg, reply)

    def _refuse(self, conn: Conn, seq: int, code: str, message: str) -> str:
        reply = error_frame(seq, code, message)
        conn.send(reply)
        return reply

    async def _player_move(self, conn: Conn, msg: ActionMessage, t0: float) -> str:
        seat = conn.seat
        if seat is None:
            return self._refuse(conn, msg.seq, "not_seated", "only a seated player can play")
        state = self.round
        if self.status != "playing" or state is None:
            return self._refuse(conn, msg.seq, "room_closed", f"the room is {self.status}")
        if msg.base_version != self.version:
            self.ctx.metrics.reject("stale_version")
            self._player_acted(seat, accepted=False)
            return self._refuse(
                conn,
                msg.seq,
                "stale_version",
                f"the room is at version {self.version}, not {msg.base_version}",
            )
        prev_turn = state.turn
        try:
            event = state.apply(seat, action_dict(msg.action))
        except RuleError as err:
            self.ctx.metrics.reject(err.code.value)
            self._player_acted(seat, accepted=False)
            return self._refuse(conn, msg.seq, err.code.value, err.message)
        stored = await self._commit(seat, msg.seq, "player")
        if stored == "no_joker_credit":
            self._player_acted(seat, accepted=False)
            return self._refuse(
                conn, msg.seq, "no_joker_credit", "your account holds no joker credit (B.9)"
            )
        if stored != "ok":
            return self._refuse(conn, msg.seq, "internal_error", "the move could not be stored")
        self.replies.logged(seat, msg.seq)
        reply = frames.ack(msg.seq, self.version + 1)
        conn.send(reply)  # before the event: the client knows its move is in
        t_ack = time.perf_counter()
        changed = self._clock_after_move(seat, prev_turn, player=True)
        self.emit(Change.of_move(event, "player"))
        metrics = self.ctx.metrics
        metrics.action_done(t_ack - t0, time.perf_counter() - t0)
        metrics.move(self.settings.variant, "player")
        if changed:
            self.emit(Change(presence.presence_event(self.seats[seat])))
        if state.over:
            await rounds.finish(self)
        return reply

    def _clock_after_move(self, seat: int, prev_turn: int, player: bool) -> bool:
        """The clocks after a move by ``seat``, set before its event is built so that the
        event carries the deadline of the turn it starts. A player's move also brings
        them back (:func:`~server.rooms.presence.acted`): True when their flags changed."""
        state = self.round
        assert state is not None
        t = self.timers
        now = self.loop.time()
        t.bot_at = now + self.ctx.settings.bot_delay_seconds
        changed = presence.acted(self.seats[seat], accepted=True) if player else False
        if state.over:
            t.stop_turn()
        elif state.turn != prev_turn or (player and (t.timed_out or changed)):
            t.start_turn(now, self.turn_seconds)
        return changed

    def _player_acted(self, seat: int, accepted: bool) -> None:
        """The player sent a move that was refused: they are back all the same."""
        slot = self.seats[seat]
        changed = presence.acted(slot, accepted)
        if self._is_turn(seat) and (self.timers.timed_out or changed):
            self.timers.start_turn(self.loop.time(), self.turn_seconds)
        if changed:
            self.emit(Change(presence.presence_event(slot)))

    def _is_turn(self, seat: int) -> bool:
        state = self.round
        return state is not None and not state.over and state.turn == seat

    async def _commit(self, seat: int, client_seq: int | None, source: str) -> str:
        """Write the move just applied, with the version its event gets (its ack's, what
        a resend is answered with); on failure undo it in memory. The joker button of a
        seat with a player spends the player's credit in the same transaction.

        Returns ``ok``, ``no_joker_credit`` (the account had none: spent in another room
        meanwhile) or ``failed``."""
        state = self.round
        assert state is not None and self.round_id is not None
        action = state.log[-1][1]
        player_id = self.seats[seat].player_id
        spend = None
        if action.get("do") == "joker_button" and player_id is not None:
            spend = (player_id, self.room_id, self.round_number)
        outcome = "ok"
        try:
            await self.ctx.journal.append_action(
                self.round_id, len(state.log), seat, action, client_seq, source,
                self.version + 1, spend, self.fence,
            )
        except NoJokerCredit:
            outcome = "no_joker_credit"
        except Fenced:
            raise  # the room is played elsewhere now: nothing to undo, the actor stops
        except Exception:
            log.exception("action_write_failed", extra={"room_id": self.room_id})
            outcome = "failed"
        if outcome != "ok":
            undone = replay(
                state.variant, state.players, state.deal, state.options, state.log[:-1]
            )
            if outcome == "no_joker_credit":
                undone.joker_credits[seat] = 0  # the round's button is gone for the seat
            self.round = undone
        return outcome

    async def _bot_step(self, seat: int) -> None:
        state = self.round
        assert state is not None
        slot = self.seats[seat]
        source = move_source(slot)
        prev_turn = state.turn
        level = slot.bot_level or self.settings.bot_level
        t0 = time.perf_counter()
        event = await self.takeover.move(state, seat, level)
        self.ctx.metrics.bot_searched(time.perf_counter() - t0)
        if event is None or await self._commit(seat, None, source) != "ok":
            self.timers.bot_at = self.loop.time() + 1.0
            return
        self._clock_after_move(seat, prev_turn, player=False)
        self.emit(Change.of_move(event, source))
        self.ctx.metrics.move(self.settings.variant, source)
        if state.over:
            await rounds.finish(self)

    def _timeout(self, seat: int) -> None:
        slot = self.seats[seat]
        unresponsive = presence.timed_out(slot, self.ctx.settings.unresponsive_after_timeouts)
        self.timers.timed_out = True
        self.timers.bot_at = self.loop.time()
        self.emit(Change({"do": "timeout", "seat": seat, "timeouts": slot.timeouts}))
        if unresponsive:
            self.emit(Change(presence.presence_event(slot)))

    # ------------------------------------------------------------------ timers

    def _bot_turn(self) -> bool:
        state = self.round
        return (
            state is not None
            and not state.over
            and bot_controls(self.seats[state.turn], self.timers.timed_out)
        )

    async def _run_due(self) -> bool:
        """Do what is due now; True when something was done (look again at once)."""
        now = self.loop.time()
        settings = self.ctx.settings
        playing = self.status == "playing"
        for slot in presence.overdue(self.seats, now, settings.reconnect_grace_seconds, playing):
            self.timers.bot_at = now + settings.bot_delay_seconds
            self.emit(Change(presence.presence_event(slot)))
        state = self.round
        in_round = state is not None and not state.over
        todo = timers.due(
            self.timers,
            now,
            playing=playing,
            in_round=in_round,
            bot_turn=self._bot_turn(),
            empty_grace=settings.empty_room_grace_seconds,
        )
        if todo is None:
            return False
        if todo is Due.ABANDON:
            await rounds.end_match(self, "abandoned")
        elif todo is Due.DEAL:
            await rounds.start(self)
        elif state is not None and todo is Due.BOT:
            await self._bot_step(state.turn)
        elif state is not None:
            self._timeout(state.turn)
        return True

    def _next_wakeup(self) -> float | None:
        settings = self.ctx.settings
        state = self.round
        times = [
            presence.next_overdue(self.seats, settings.reconnect_grace_seconds),
            timers.next_wakeup(
                self.timers,
                self.loop.time(),
                playing=self.status == "playing",
                in_round=state is not None and not state.over,
                bot_turn=self._bot_turn(),
                empty_grace=settings.empty_room_grace_seconds,
                connected=bool(self.conns),
                idle_grace=settings.idle_actor_seconds,
            ),
        ]
        due = [t for t in times if t is not None]
        return min(due) if due else None

    # ------------------------------------------------------------------ rack and queries

    async def _on_rack(self, conn: Conn, msg: RackMessage) -> None:
        if await self._resent(conn, msg):
            return
        reply = await self._set_rack(conn, msg)
        conn.send(reply)
        self.replies.put(conn.player_id, msg.seq, msg, reply)

    async def _set_rack(self, conn: Conn, msg: RackMessage) -> str:
        """Save the seat's rack layout. Not a move: the turn clock, a timeout and the
        seat's presence stay as they are."""
        seat = conn.seat
        if seat is None:
            return error_frame(msg.seq, "not_seated", "only a seated player has a rack")
        state = self.round
        problem = layout_error(list(msg.layout), state.hands[seat] if state is not None else [])
        if problem is not None:
            return error_frame(msg.seq, "bad_message", problem)
        slot = self.seats[seat]
        layout = list(msg.layout)
        await self.ctx.journal.set_rack(
            self.room_id, seat, {"round": self.round_number, "layout": layout}, self.fence
        )
        slot.rack = layout
        slot.rack_round = self.round_number
        return frames.ack(msg.seq, self.version)

    # ------------------------------------------------------------------ what is shown

    def emit(self, change: Change) -> None:
        """Give the change the next version, keep it for replays, send it to everyone."""
        if self.version >= self.reserved:  # pragma: no cover - reserve_ahead keeps a margin
            log.warning("version_block_exceeded", extra={"room_id": self.room_id})
        self.version += 1
        self.audience.record(self.version, change)
        if self.conns:
            self.audience.publish(change, self.conns, self._shown())

    def _shown(self) -> Shown:
        """The room at this version, as its connections see it."""
        return Shown(self.version, self.round, self.round_id, self._table())

    def _table(self) -> Table:
        match = self.match
        self._last_table = next_table(
            self._last_table,
            self.seats,
            match.totals if match is not None else [0] * len(self.seats),
            self.settings.bot_level,
            match.history if match is not None else [],
            match is not None and (match.over or self.status == "finished"),
            match.winners if match is not None else [],
            self._deadline(),
        )
        return self._last_table

    def _deadline(self) -> float | None:
        state = self.round
        if self.status != "playing" or state is None or state.over:
            return None
        return self.timers.deadline_wall

    def _room_info(self) -> Any:
        return frames.room_info(
            self.room_id,
            self.status,
            self.settings.model_dump(mode="json"),
            self.round_number,
            self.turn_seconds,
        )

    def _rack(self, seat: int | None) -> list[int | None] | None:
        """The seat's saved layout fitted to its hand (None: a spectator)."""
        if seat is None:
            return None
        slot, state = self.seats[seat], self.round
        layout = slot.rack if slot.rack_round == self.round_number else None
        return normalize_rack(layout, state.hands[seat] if state is not None else [])
