"""The room core: one room's game flow, pure, driven by a shell.

It owns who sits where and who plays each seat (:mod:`~server.rooms.core.presence`), the
room ``version`` (one per change), the turns and their clocks
(:mod:`~server.rooms.core.clock`), a bot's takeover and its hand-back, the rounds and
the match's end, the answers kept for resends (:mod:`~server.rooms.core.replies`), and
what each connection last received and the frame that brings it up to date
(:mod:`~server.rooms.core.audience`). Standard library only, no clock, no global
random, no I/O: it runs in the server's actor (:mod:`server.rooms.actor`) and in the
offline practice's worker (:mod:`server.practice.room`), so both send the same frames.

Each input is one step: :meth:`RoomCore.handle` (a :data:`~server.rooms.core.messages.Command`),
:meth:`RoomCore.run_due` (the time came), :meth:`RoomCore.restore` then
:meth:`RoomCore.resume` (a room taken up from its records). A step is a generator: it
yields an :data:`~server.rooms.core.messages.Effect` each time it needs the shell (a
record to persist, something only the shell can read, a bot's decision) and gets its
answer back; the frames and notes it makes meanwhile wait in :attr:`RoomCore.outbox`,
which the shell takes (:meth:`RoomCore.take`) before it performs each effect and when
the step ends. So every record is committed before the frames that follow it are
sent. :meth:`RoomCore.tell_time` gives the step the time before it starts and after each
effect; :meth:`RoomCore.next_wakeup` says when :meth:`RoomCore.run_due` has work.

A move's path: the shell validates the client's frame and hands the core an ``Act``;
the core checks the seat and ``base_version``, the engine applies the action (RULES.md
§C refusals come back as an ``error``), the core yields ``AppendAction`` (the shell
commits it to the round's log; on failure the core undoes the move), then queues the
``ack`` for the mover and the event for every connection, each seen through its seat's
view (§D).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import asdict
from typing import Any

from server.errors import Code
from server.rooms.core import frames, presence
from server.rooms.core.audience import Audience, Change, Shown, Table, next_table
from server.rooms.core.bots import Bot, fallback_actions, make_seat_bot
from server.rooms.core.clock import Due, Now, Timers, due, next_wakeup
from server.rooms.core.config import Pacing, RoomConfig
from server.rooms.core.frames import Encode, dumps
from server.rooms.core.messages import (
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
    Closed,
    Command,
    Effect,
    FinishRound,
    Gone,
    Hello,
    Leave,
    MatchEnded,
    NewSeed,
    NextRound,
    Output,
    Played,
    React,
    ReadCredits,
    RecordMatch,
    Rejected,
    ReserveVersions,
    Restored,
    Revoked,
    SaveRack,
    Seat,
    SeatsChanged,
    Send,
    SetRack,
    Started,
    StoredRound,
)
from server.rooms.core.peers import Peer
from server.rooms.core.presence import SeatSlot
from server.rooms.core.rack import layout_error, normalize_rack
from server.rooms.core.reactions import BURST, BURST_SECONDS, Reactions
from server.rooms.core.replies import Replies
from server.rules import (
    Deal,
    Event,
    Match,
    RoundOptions,
    RoundState,
    RuleError,
    get_variant,
    new_round,
    replay,
    spectator_view,
    view_for,
)
from server.rules.queries import (
    arrange,
    evaluate_formation,
    opening_lock,
    reachable_row_indices,
    row_take_block,
    row_take_preview,
)
from server.rules.state import deal_tiles

log = logging.getLogger(__name__)

Step = Generator[Effect, Any, None]
"""One step of the core: yields effects, gets each one's answer."""

RESERVE_MARGIN = 16
"""Versions left in the reserved block when the next block is reserved."""

PLAYED_ELSEWHERE = 4409
"""Close code of a connection whose seat is now played from another device."""

SESSION_REVOKED = 4403
"""Close code of a connection whose token was revoked."""

ROOM_GONE = 4410
"""Close code of a connection to a waiting room the lobby closed."""


def joker_availability(
    player_ids: Iterable[str | None], accounts: Mapping[str, int]
) -> tuple[int, ...]:
    """Each seat's joker credit for a new round (B.9, once per round): 1 when the seat's
    player holds a credit in their account (``accounts``: the players' credits), else 0;
    a seat with no player (a bot filling it) has one, the room's gift (docs/rules.md).

    >>> joker_availability(["a", "b", None], {"a": 3, "b": 0})
    (1, 0, 1)
    """
    return tuple(1 if pid is None else min(1, max(0, accounts.get(pid, 0))) for pid in player_ids)


def restored_match(config: RoomConfig, history: list[list[int]]) -> Match:
    """The match after the finished rounds of ``history`` (each round's additions)."""
    players = config.seats
    totals = [sum(line[i] for line in history) for i in range(players)]
    match = Match(
        config.variant,
        players,
        seed="-",
        end=config.end,
        options=config.round_options(),
        history=history,
        totals=totals,
    )
    end = match.end
    if end.kind == "rounds":
        match.over = len(history) >= (end.value or 0)
    elif end.kind == "target":
        match.over = bool(history) and max(totals) >= (end.value or 0)
    return match


def restored_round(current: StoredRound, players: int) -> RoundState:
    """The round being played, rebuilt from its stored deal (or seed) and action log."""
    options = RoundOptions.from_dict(dict(current.options))
    deal_data = current.options.get("deal")
    if deal_data:
        deal = Deal.from_dict(deal_data)
    else:
        variant = get_variant(current.variant)
        deal = deal_tiles(variant, players, current.seed, current.first, options)
    actions = [(seat, dict(action)) for seat, action in current.actions]
    return replay(current.variant, players, deal, options, actions)


def _slot(seat: Seat) -> SeatSlot:
    layout, rack_round = seat.rack
    return SeatSlot(
        seat=seat.seat,
        player_id=seat.player_id,
        name=seat.name,
        bot_level=seat.bot_level if seat.player_id is None else None,
        rack=None if layout is None else list(layout),
        rack_round=rack_round,
    )


class RoomCore:
    """One room's game flow; see the module docstring."""

    def __init__(
        self,
        config: RoomConfig,
        pacing: Pacing,
        *,
        encode: Encode = dumps,
        bot_key: str | None = None,
        bot_clock: Callable[[], float] | None = None,
    ) -> None:
        self.config = config
        self.bot_clock = bot_clock
        """The shell's clock (seconds) bounding a hard bot's decision; None: counts only."""
        self.pacing = pacing
        self.encode = encode
        self.bot_key = bot_key or config.room_id
        """Seeds each seat's bot (``<bot_key>:<seat>``)."""
        self.status = "waiting"
        self.seats: list[SeatSlot] = [SeatSlot(s, None, None, None) for s in range(config.seats)]
        self.match: Match | None = None
        self.round: RoundState | None = None
        self.round_key: object = None
        """The shell's key of the round in play (its ``BeginRound`` answer)."""
        self.round_number = 0
        self.round_seed: str | None = None
        """The current round's deal seed: shown with its round_over, never before (§D)."""
        self.version = 0
        self.reserved = 0
        self.peers: dict[int, Peer] = {}
        self.outbox: list[Output] = []
        self.audience = Audience(
            pacing.replay_events, pacing.recent_events, send=self._send, encode=encode
        )
        self._last_table: Table | None = None
        self.replies = Replies(encode)
        self.bots: dict[int, Bot] = {}
        self.bot_asked: int | None = None
        """The version at which a bot's decision was last asked for (a ``BotRequest``):
        while the room is still at it, the decision is awaited, not asked again."""
        self.timers = Timers()
        self.summary_read: set[int] = set()
        self.reactions = Reactions(pacing.reactions_per_minute)
        self.at = Now(0.0, 0.0)
        self.did = False
        """The last :meth:`run_due` did something."""

    # ------------------------------------------------------------------ the shell's API

    def tell_time(self, at: Now) -> None:
        """The time now (before a step, and after each of its effects)."""
        self.at = at

    def take(self) -> list[Output]:
        """The frames and notes made since the last call, in order."""
        out, self.outbox = self.outbox, []
        return out

    def handle(self, command: Command) -> Step:
        """One command: a connection's message, a connection arriving or gone, the
        lobby's news."""
        yield from self._reserve_ahead()
        match command:
            case Attach():
                self.peers[command.conn] = Peer(command.conn, command.player_id, command.session_id)
            case Hello():
                self._on_hello(command)
            case Act():
                yield from self._on_action(command)
            case SetRack():
                yield from self._on_rack(command)
            case Ask():
                peer = self.peers.get(command.conn)
                if peer is not None:
                    self._send(peer, self._answer(peer.seat, command))
            case Leave():
                self._on_leave(command.conn)
            case NextRound():
                self._on_next_round(command.conn)
            case React():
                self._on_react(command)
            case Gone():
                self._on_gone(command.conn)
            case SeatsChanged():
                self._seats_changed(command.seats)
            case Started():
                yield from self._started(command)
            case Revoked():
                frame = frames.error(
                    None,
                    Code.SESSION_REVOKED,
                    "this device was signed out: its token is revoked",
                    self.encode,
                )
                for peer in list(self.peers.values()):
                    if not peer.closed and peer.session_id in command.sessions:
                        self._close(peer, frame, SESSION_REVOKED)
            case Closed():
                frame = frames.error(None, command.code, command.message, self.encode)
                for peer in list(self.peers.values()):
                    if not peer.closed:
                        self._close(peer, frame, ROOM_GONE)
            case BotDecision():
                yield from self._bot_decided(command)

    def run_due(self) -> Step:
        """Do what is due now (at most one timer's work); :attr:`did` says whether
        something was done (then the shell looks again at once)."""
        self.did = False
        yield from self._reserve_ahead()
        now = self.at.now
        pacing = self.pacing
        playing = self.status == "playing"
        for slot in presence.overdue(self.seats, now, pacing.reconnect_grace, playing):
            self.timers.bot_at = now + pacing.bot_delay
            self.emit(Change(presence.presence_event(slot)))
        state = self.round
        in_round = state is not None and not state.over
        todo = due(
            self.timers,
            now,
            playing=playing,
            in_round=in_round,
            bot_turn=self._bot_turn(),
            empty_grace=pacing.empty_grace,
            bot_asked=self.bot_asked == self.version,
        )
        if todo is None:
            return
        self.did = True
        if todo is Due.ABANDON:
            yield from self._end_match("abandoned")
        elif todo is Due.DEAL:
            yield from self._deal()
        elif state is not None and todo is Due.BOT:
            self._ask_bot(state.turn)
        elif state is not None:
            self._timeout(state.turn)

    def next_wakeup(self) -> float | None:
        """When :meth:`run_due` has something to do (None: only a command can change it)."""
        pacing = self.pacing
        state = self.round
        times = [
            presence.next_overdue(self.seats, pacing.reconnect_grace),
            next_wakeup(
                self.timers,
                self.at.now,
                playing=self.status == "playing",
                in_round=state is not None and not state.over,
                bot_turn=self._bot_turn(),
                empty_grace=pacing.empty_grace,
                connected=bool(self.peers),
                idle_grace=pacing.idle_grace,
                bot_asked=self.bot_asked == self.version,
            ),
        ]
        times_due = [t for t in times if t is not None]
        return min(times_due) if times_due else None

    def should_stop(self) -> bool:
        """Nothing is played and no connection is left, for the idle grace period."""
        t = self.timers
        if self.status == "playing" or self.peers:
            t.idle_since = None
            return False
        now = self.at.now
        if t.idle_since is None:
            t.idle_since = now
        return now >= t.idle_since + self.pacing.idle_grace

    def shift(self, seconds: float) -> None:
        """Every clock later by ``seconds``: the room did nothing that long (the shell
        could not tell whether it was still its own), and charges nobody for it."""
        self.timers.shift(seconds)
        for slot in self.seats:
            if slot.gone_at is not None:
                slot.gone_at += seconds

    def turn_clock(self, now: float) -> tuple[float, float] | None:
        """The running turn's time left at ``now`` (monotonic) and when its clock was
        started (unix seconds): what a heartbeat records, so that a restart gives the turn
        that time."""
        left = self.timers.turn_left(now)
        if left is None or self.timers.started_wall is None:
            return None
        return left, self.timers.started_wall

    def seat_of(self, player_id: str) -> int | None:
        return next((s.seat for s in self.seats if s.player_id == player_id), None)

    def seat_connected(self, seat: int) -> bool:
        return any(p.seat == seat and p.ready and not p.left for p in self.peers.values())

    # ------------------------------------------------------------------ restore

    def restore(self, restored: Restored) -> None:
        """Take up the room as its records hold it: its seats and rack layouts, version,
        status and, once the match has started, the match so far and the round in play
        (its turn clock running with the time it had left), every player away until they
        say ``hello`` again (after ``late`` more at a tournament's table)."""
        self.seats = [_slot(s) for s in restored.seats]
        self.version = restored.version
        self.status = restored.status
        for stored in restored.recent:
            self.audience.buffer.append(stored)
        if self.status == "waiting":
            return
        self.match = restored_match(self.config, [list(line) for line in restored.history])
        self.round_number = len(restored.history)
        self.replies.load(restored.logged)
        if self.status != "playing":
            return
        now = self.at.now
        for slot in self.seats:
            if slot.player_id is not None and not self.seat_connected(slot.seat):
                slot.gone_at = now + restored.late
        self.update_empty()
        current = restored.current
        if current is not None:
            self.round = restored_round(current, len(self.seats))
            self.round_key = current.key if current.key is not None else current.number
            self.round_number = current.number
            self.round_seed = current.seed
            self.timers.start_turn(self.at, current.turn_left)
        elif not self.match.over:
            self.timers.next_round_at = now

    def resume(self) -> Step:
        """After :meth:`restore`: finish what the last owner left undone (a round played
        out, a match over whose result was not yet written)."""
        yield from self._reserve_ahead()
        if self.status != "playing":
            return
        if self.round is not None and self.round.over:
            yield from self._finish_round()
        elif self.round is None and self.match is not None and self.match.over:
            yield from self._end_match("end_condition")

    # ------------------------------------------------------------------ connections

    def _send(self, peer: Peer, frame: str) -> None:
        self.outbox.append(Send(peer.id, frame))

    def _close(self, peer: Peer, frame: str, code: int) -> None:
        self.outbox.append(Send(peer.id, frame))
        self.outbox.append(Close(peer.id, code))
        peer.closed = True

    def _error(self, seq: int | None, code: Code, message: str) -> str:
        return frames.error(seq, code, message, self.encode)

    def update_empty(self) -> None:
        t = self.timers
        if (
            self.status != "playing"
            or self.config.plays_to_the_end
            or any(p.ready and not p.left and p.seat is not None for p in self.peers.values())
        ):
            t.empty_since = None
        elif t.empty_since is None:
            t.empty_since = self.at.now

    def _on_hello(self, msg: Hello) -> None:
        peer = self.peers.get(msg.conn)
        if peer is None or peer.closed:
            return
        peer.seat = self.seat_of(peer.player_id)
        peer.ready = True
        peer.left = False
        if msg.device is not None:
            peer.device = msg.device
        if peer.seat is not None and peer.device is not None:
            frame = self._error(
                None, Code.PLAYED_ELSEWHERE, "this seat is now played from another device or tab"
            )
            for other in list(self.peers.values()):
                if (
                    other is not peer
                    and not other.closed
                    and other.seat == peer.seat
                    and other.player_id == peer.player_id
                    and other.device is not None
                    and other.device != peer.device
                ):
                    self._close(other, frame, PLAYED_ELSEWHERE)
        self.audience.hello(peer, msg.patches)
        shown = self._shown()
        if not self.audience.replay(peer, msg.last_version, shown):
            self.audience.snapshot(
                peer,
                shown,
                self._room_info(),
                self._rack(peer.seat),
                self.replies.last_seq(peer.player_id, peer.seat),
            )
        if peer.seat is not None:
            self._take_back(peer.seat)
        self.update_empty()

    def _take_back(self, seat: int) -> None:
        """The seat's player is here again: the bot stops (mid-turn included)."""
        slot = self.seats[seat]
        if presence.returned(slot):
            if self._is_turn(seat) and not slot.unresponsive:
                self._restart_turn()
            self.emit(Change(presence.presence_event(slot)))

    def _on_leave(self, conn: int) -> None:
        peer = self.peers.get(conn)
        if peer is None:
            return
        peer.left = True
        seat = peer.seat
        if seat is not None and not self.seat_connected(seat):
            slot = self.seats[seat]
            if presence.left(slot, self.status == "playing"):
                self.timers.bot_at = self.at.now + self.pacing.bot_delay
                self.emit(Change(presence.presence_event(slot)))
        self.update_empty()

    def _on_gone(self, conn: int) -> None:
        peer = self.peers.pop(conn, None)
        if peer is None:
            return
        self.audience.forget(peer)
        seat = peer.seat
        if seat is not None and peer.ready and not peer.left and not self.seat_connected(seat):
            presence.disconnected(self.seats[seat], self.at.now, self.status == "playing")
        self.update_empty()

    def _on_next_round(self, conn: int) -> None:
        """The seat read the round summary: deal now once every connected human has."""
        peer = self.peers.get(conn)
        if self.timers.next_round_at is None or peer is None or peer.seat is None or peer.closed:
            return
        self.summary_read.add(peer.seat)
        if presence.summary_read_by_all(self.seats, self.seat_connected, self.summary_read):
            self.timers.next_round_at = self.at.now

    def _on_react(self, msg: React) -> None:
        """Show the seat's reaction to every ready connection, or refuse it."""
        peer = self.peers.get(msg.conn)
        if peer is None or peer.closed:
            return
        if peer.seat is None:
            self._send(peer, self._error(None, Code.NOT_SEATED, "only a seated player may react"))
            return
        if not self.reactions.allowed(peer.seat, self.at.now):
            self._send(
                peer,
                self._error(
                    None,
                    Code.REACTIONS_LIMITED,
                    f"at most {BURST} reactions in {BURST_SECONDS:.0f} s and "
                    f"{self.reactions.per_minute} a minute",
                ),
            )
            return
        frame = frames.reaction(peer.seat, msg.reaction, self.encode)
        for other in self.peers.values():
            if other.ready and not other.closed:
                self._send(other, frame)

    # ------------------------------------------------------------------ moves

    def _on_action(self, msg: Act) -> Step:
        peer = self.peers.get(msg.conn)
        if peer is None:
            return
        again = yield from self.replies.resend(peer.player_id, peer.seat, msg, self.version)
        if again is not None:
            self._send(peer, again)
            return
        reply = yield from self._player_move(peer, msg)
        self.replies.put(peer.player_id, msg, reply)

    def _refuse(self, peer: Peer, seq: int, code: Code, message: str) -> str:
        reply = self._error(seq, code, message)
        self._send(peer, reply)
        return reply

    def _player_move(self, peer: Peer, msg: Act) -> Generator[Effect, Any, str]:
        seat = peer.seat
        if seat is None:
            return self._refuse(peer, msg.seq, Code.NOT_SEATED, "only a seated player can play")
        state = self.round
        if self.status != "playing" or state is None:
            return self._refuse(peer, msg.seq, Code.ROOM_CLOSED, f"the room is {self.status}")
        if msg.base_version != self.version:
            self.outbox.append(Rejected(Code.STALE_VERSION.value))
            self._player_acted(seat, accepted=False)
            return self._refuse(
                peer,
                msg.seq,
                Code.STALE_VERSION,
                f"the room is at version {self.version}, not {msg.base_version}",
            )
        prev_turn = state.turn
        try:
            event = state.apply(seat, msg.action)
        except RuleError as err:
            self.outbox.append(Rejected(err.code.value))
            self._player_acted(seat, accepted=False)
            reply = frames.error(msg.seq, err.code, err.message, self.encode)
            self._send(peer, reply)
            return reply
        stored = yield from self._commit(seat, msg.seq, "player")
        if stored == "no_joker_credit":
            self._player_acted(seat, accepted=False)
            return self._refuse(
                peer, msg.seq, Code.NO_JOKER_CREDIT, "your account holds no joker credit (B.9)"
            )
        if stored != "ok":
            return self._refuse(peer, msg.seq, Code.INTERNAL_ERROR, "the move could not be stored")
        self.replies.logged(seat, msg.seq)
        reply = frames.ack(msg.seq, self.version + 1, self.encode)
        self._send(peer, reply)  # before the event: the client knows its move is in
        self.outbox.append(Acked())
        changed = self._clock_after_move(seat, prev_turn, player=True)
        self.emit(Change.of_move(event, "player"))
        self.outbox.append(Played("player"))
        if changed:
            self.emit(Change(presence.presence_event(self.seats[seat])))
        if state.over:
            yield from self._finish_round()
        return reply

    def _clock_after_move(self, seat: int, prev_turn: int, player: bool) -> bool:
        """The clocks after a move by ``seat``, set before its event is built so that the
        event carries the deadline of the turn it starts. A player's move also brings
        them back (:func:`~server.rooms.core.presence.acted`): True when their flags
        changed."""
        state = self.round
        assert state is not None
        t = self.timers
        t.bot_at = self.at.now + self.pacing.bot_delay
        changed = presence.acted(self.seats[seat], accepted=True) if player else False
        if state.over:
            t.stop_turn()
        elif state.turn != prev_turn:
            t.start_turn(self.at, self.config.turn_seconds)
        elif player and (t.timed_out or changed):
            self._restart_turn()
        return changed

    def _player_acted(self, seat: int, accepted: bool) -> None:
        """The player sent a move that was refused: they are back all the same."""
        slot = self.seats[seat]
        changed = presence.acted(slot, accepted)
        if self._is_turn(seat) and (self.timers.timed_out or changed):
            self._restart_turn()
        if changed:
            self.emit(Change(presence.presence_event(slot)))

    def _restart_turn(self) -> None:
        """The turn's clock starts again with its whole time, within the turn (its player
        is back): no logged move says so, so the shell records the clock
        (``ClockRestarted``) for a restart to give the turn that time."""
        self.timers.start_turn(self.at, self.config.turn_seconds)
        self.outbox.append(ClockRestarted())

    def _is_turn(self, seat: int) -> bool:
        state = self.round
        return state is not None and not state.over and state.turn == seat

    def _commit(
        self, seat: int, client_seq: int | None, source: str
    ) -> Generator[Effect, Any, str]:
        """Persist the move just applied, with the version its event gets (its ack's, what
        a resend is answered with); on failure undo it. The joker button of a seat with a
        player spends the player's credit in the same record (B.9).

        Returns ``ok``, ``no_joker_credit`` (the account had none: spent in another room
        meanwhile) or ``failed``."""
        state = self.round
        assert state is not None
        action = state.log[-1][1]
        player_id = self.seats[seat].player_id
        spend = player_id if action.get("do") == "joker_button" else None
        outcome = yield AppendAction(
            self.round_key,
            len(state.log),
            seat,
            action,
            client_seq,
            source,
            self.version + 1,
            spend,
            self.round_number,
        )
        if outcome != "ok":
            undone = replay(state.variant, state.players, state.deal, state.options, state.log[:-1])
            if outcome == "no_joker_credit":
                undone.joker_credits[seat] = 0  # the round's button is gone for the seat
            self.round = undone
        return str(outcome)

    def _bot_turn(self) -> bool:
        state = self.round
        return (
            state is not None
            and not state.over
            and (self.seats[state.turn].bot_plays or self.timers.timed_out)
        )

    def _bot_for(self, seat: int, level: str) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = make_seat_bot(level, f"{self.bot_key}:{seat}", self.bot_clock)
        return bot

    def _ask_bot(self, seat: int) -> None:
        """Ask the shell for the seat's bot's decision (a ``BotRequest``): it comes back
        later as a ``BotDecision``, and the room answers everything else meanwhile. A bot
        plays a seat with no player, or whose player is away or unresponsive (``by:
        bot``), or finishes a turn whose time ran out (``timeout``)."""
        state = self.round
        assert state is not None
        slot = self.seats[seat]
        bot = self._bot_for(seat, slot.bot_level or self.config.bot_level)
        self.bot_asked = self.version
        self.outbox.append(BotRequest(seat, self.version, bot, view_for(state, seat)))

    def _bot_decided(self, decision: BotDecision) -> Step:
        """The bot's decision: played when the room is still as it was asked (same
        version, the seat's bot to move), its choice first, then the moves legal in every
        position (the engine judges); otherwise dropped (the turn moved on: a new
        decision is asked for when one is due)."""
        state = self.round
        seat = decision.seat
        if (
            decision.version != self.version
            or state is None
            or state.over
            or state.turn != seat
            or not self._bot_turn()
        ):
            log.debug(
                "bot_decision_dropped",
                extra={"room_id": self.config.room_id, "seat": seat, "at": decision.version},
            )
            return
        self.bot_asked = None
        if self.bots.get(seat) is decision.bot:
            self.bots[seat] = decision.searched
        source = "bot" if self.seats[seat].bot_plays else "timeout"
        prev_turn = state.turn
        view = view_for(state, seat)
        choice = None if decision.choice is None else dict(decision.choice)
        event: Event | None = None
        for action in [*([] if choice is None else [choice]), *fallback_actions(view)]:
            try:
                event = state.apply(seat, action)
                break
            except RuleError:
                continue
        if event is None:
            log.error("bot_found_no_move", extra={"room_id": self.config.room_id, "seat": seat})
            self.timers.bot_at = self.at.now + 1.0
            return
        if (yield from self._commit(seat, None, source)) != "ok":
            self.timers.bot_at = self.at.now + 1.0
            return
        self._clock_after_move(seat, prev_turn, player=False)
        self.emit(Change.of_move(event, source))
        self.outbox.append(Played(source))
        if state.over:
            yield from self._finish_round()

    def _timeout(self, seat: int) -> None:
        slot = self.seats[seat]
        unresponsive = presence.timed_out(slot, self.pacing.unresponsive_after)
        self.timers.timed_out = True
        self.timers.bot_at = self.at.now
        self.emit(Change({"do": "timeout", "seat": seat, "timeouts": slot.timeouts}))
        if unresponsive:
            self.emit(Change(presence.presence_event(slot)))

    # ------------------------------------------------------------------ rack and queries

    def _on_rack(self, msg: SetRack) -> Step:
        peer = self.peers.get(msg.conn)
        if peer is None:
            return
        again = yield from self.replies.resend(peer.player_id, peer.seat, msg, self.version)
        if again is not None:
            self._send(peer, again)
            return
        reply = yield from self._set_rack(peer, msg)
        self._send(peer, reply)
        self.replies.put(peer.player_id, msg, reply)

    def _set_rack(self, peer: Peer, msg: SetRack) -> Generator[Effect, Any, str]:
        """Save the seat's rack layout. Not a move: the turn clock, a timeout and the
        seat's presence stay as they are."""
        seat = peer.seat
        if seat is None:
            return self._error(msg.seq, Code.NOT_SEATED, "only a seated player has a rack")
        state = self.round
        layout = list(msg.layout)
        problem = layout_error(layout, state.hands[seat] if state is not None else [])
        if problem is not None:
            return self._error(msg.seq, Code.BAD_MESSAGE, problem)
        yield SaveRack(seat, self.round_number, msg.layout)
        slot = self.seats[seat]
        slot.rack = layout
        slot.rack_round = self.round_number
        return frames.ack(msg.seq, self.version, self.encode)

    def _answer(self, seat: int | None, msg: Ask) -> str:
        """A query's answer: the engine's helpers on the asking seat's view (§D: a
        spectator's query knows no hand). A query changes nothing."""
        state = self.round
        if state is None:
            return self._error(msg.seq, Code.ROOM_CLOSED, "no round is being played")
        view = view_for(state, seat) if seat is not None else spectator_view(state)
        result: dict[str, Any]
        if msg.query == "formations":
            formations = [list(f) for f in msg.formations]
            result = {
                "formations": [evaluate_formation(view, f) for f in formations],
                "lock": opening_lock(view, formations, msg.taken),
            }
        elif msg.query == "arrange":
            result = arrange(view)
        else:
            if msg.index is None:
                return self._error(msg.seq, Code.BAD_MESSAGE, "index: required for row_preview")
            result = {
                "index": msg.index,
                "tiles": row_take_preview(view, msg.index),
                "reachable": reachable_row_indices(view),
                "block": row_take_block(view, msg.index),
            }
        return frames.query_result(msg.seq, result, self.encode)

    # ------------------------------------------------------------------ rounds

    def _deal(self) -> Step:
        """Deal the next round: its deal and options recorded (the joker button's credit
        read from each player's account), every rack layout cleared, the first turn's
        clock on."""
        match = self.match
        assert match is not None
        config = self.config
        number = len(match.history) + 1
        players = len(self.seats)
        seed = str((yield NewSeed(number)))
        first = (number - 1) % players
        credits = None
        if config.joker_button:
            ids = [slot.player_id for slot in self.seats]
            accounts = yield ReadCredits(tuple(i for i in ids if i))
            credits = joker_availability(ids, accounts)
        options = config.round_options(credits)
        state = new_round(config.variant, players, seed, first, options)
        stored = {**options.to_dict(), "deal": state.deal.to_dict()}
        self.round_key = yield BeginRound(number, config.variant, seed, first, stored)
        self.round = state
        self.round_number = number
        self.round_seed = seed
        self.timers.next_round_at = None
        for slot in self.seats:
            slot.rack = None
            slot.rack_round = number
        self.timers.start_turn(self.at, config.turn_seconds)
        self.timers.bot_at = self.at.now + self.pacing.bot_delay
        self.emit(
            Change(
                {
                    "do": "round_start",
                    "round": number,
                    "first": first,
                    "commitment": state.deal.commitment,
                }
            )
        )

    def _finish_round(self) -> Step:
        """The round just played out: its scores recorded, ``round_over`` shown (with the
        deal's seed), then the pause before the next round, or the end of the match."""
        state, match = self.round, self.match
        assert state is not None and match is not None
        result = state.result
        assert result is not None
        scores = match.finish_round(state)
        yield FinishRound(self.round_key, asdict(result), tuple(scores))
        self.timers.stop_turn()
        pause = self.pacing.round_pause
        self.emit(
            Change(
                {
                    "do": "round_over",
                    "round": self.round_number,
                    "result": asdict(result),
                    "scores": list(scores),
                    "totals": list(match.totals),
                    "next_round_in": None if match.over else pause,
                    # The deal can be checked now (docs/fairness.md): the seed of the commitment.
                    "seed": self.round_seed,
                    "commitment": state.deal.commitment,
                }
            )
        )
        if match.over:
            yield from self._end_match("end_condition")
        else:
            self.timers.next_round_at = self.at.now + pause
            self.summary_read.clear()

    def _end_match(self, reason: str) -> Step:
        """End the match (``end_condition``, or ``abandoned``: no human came back in
        time): its result recorded, the room finished, ``match_over`` shown."""
        match = self.match
        assert match is not None
        winners = match.winners
        yield RecordMatch(tuple(match.totals), tuple(winners), len(match.history))
        self.status = "finished"
        match.over = True
        if self.round is not None and not self.round.over:
            self.round = None  # an abandoned round is not revealed
        self.timers.stop_turn()
        self.timers.next_round_at = None
        self.timers.empty_since = None
        self.emit(
            Change(
                {
                    "do": "match_over",
                    "reason": reason,
                    "totals": list(match.totals),
                    "winners": winners,
                    "rounds": len(match.history),
                }
            )
        )
        log.info("match_over", extra={"room_id": self.config.room_id, "reason": reason})
        self.outbox.append(MatchEnded(reason))

    # ------------------------------------------------------------------ the lobby

    def _seats_changed(self, seats: tuple[Seat, ...]) -> None:
        """The lobby changed the waiting room's seats: each seat keeps its rack layout and
        each connection finds its player's seat again."""
        if self.status != "waiting":
            return
        old = {s.seat: s for s in self.seats}
        self.seats = []
        for seat in seats:
            slot = _slot(seat)
            prev = old.get(seat.seat)
            slot.rack = prev.rack if prev else None
            self.seats.append(slot)
        for peer in self.peers.values():
            peer.seat = self.seat_of(peer.player_id)
        self.emit(Change({"do": "room_changed"}))

    def _started(self, msg: Started) -> Step:
        """The lobby started the waiting room: each player not connected now counts as
        gone (away after the reconnect grace), the first round is dealt."""
        if self.status != "waiting":
            return
        if msg.config is not None:
            self.config = msg.config
        self.seats = [_slot(s) for s in msg.seats]
        for peer in self.peers.values():
            peer.seat = self.seat_of(peer.player_id)
        self.status = "playing"
        self.match = restored_match(self.config, [])
        self.round_number = 0
        self.replies.load(msg.logged)
        now = self.at.now
        for slot in self.seats:
            if slot.player_id is not None and not self.seat_connected(slot.seat):
                slot.gone_at = now
        self.update_empty()
        yield from self._deal()

    # ------------------------------------------------------------------ what is shown

    def _reserve_ahead(self) -> Step:
        if self.reserved - self.version < RESERVE_MARGIN:
            self.reserved = self.version + self.pacing.version_block
            yield ReserveVersions(self.reserved)

    def emit(self, change: Change) -> None:
        """Give the change the next version, keep it for replays, send it to everyone."""
        if self.version >= self.reserved:  # pragma: no cover - _reserve_ahead keeps a margin
            log.warning("version_block_exceeded", extra={"room_id": self.config.room_id})
        self.version += 1
        self.audience.record(self.version, change)
        if self.peers:
            self.audience.publish(change, self.peers.values(), self._shown())

    def _shown(self) -> Shown:
        """The room at this version, as its connections see it."""
        return Shown(
            self.version,
            self.round,
            self.round_key,
            self._table(),
            round(self.at.wall, 3),
            self.encode,
        )

    def _table(self) -> Table:
        match = self.match
        self._last_table = next_table(
            self._last_table,
            self.seats,
            match.totals if match is not None else [0] * len(self.seats),
            self.config.bot_level,
            match.history if match is not None else [],
            match is not None and (match.over or self.status == "finished"),
            match.winners if match is not None else [],
            self._deadline(),
            self.encode,
        )
        return self._last_table

    def _deadline(self) -> float | None:
        state = self.round
        if self.status != "playing" or state is None or state.over:
            return None
        return self.timers.deadline_wall

    def _room_info(self) -> dict[str, Any]:
        config = self.config
        return frames.room_info(
            config.room_id,
            self.status,
            dict(config.shown),
            self.round_number,
            config.turn_seconds or 0.0,
            config.kind,
        )

    def _rack(self, seat: int | None) -> list[int | None] | None:
        """The seat's saved layout fitted to its hand (None: a spectator)."""
        if seat is None:
            return None
        slot, state = self.seats[seat], self.round
        layout = slot.rack if slot.rack_round == self.round_number else None
        return normalize_rack(layout, state.hands[seat] if state is not None else [])


Drive = Callable[[Effect], Any]
"""Answers one effect at once (the offline practice's shell)."""


def run_now(step: Step, answer: Drive) -> None:
    """Run ``step`` to its end, answering each effect with ``answer`` (synchronously)."""
    result: Any = None
    while True:
        try:
            effect = step.send(result)
        except StopIteration:
            return
        result = answer(effect)
