"""The room actor: one asyncio task per live room, the only thing that changes its game.

Connections and the lobby post commands (:meth:`RoomActor.post`); the actor
handles them one at a time, together with its timers (turn deadlines, bot
moves, the pause between rounds, the away and empty-room grace periods).

* Every change is an event with the next room ``version``; the last events
  are kept in a ring buffer so that a reconnecting client gets what it missed.
* Every frame is built for one connection's seat from the engine's
  ``view_for``/``spectator_view`` and ``Event.for_seat`` (RULES.md §D).
* A move is appended to the round's action log and committed (through the
  :class:`~server.rooms.journal.Journal`) before it is acknowledged or
  broadcast.
* Versions are reserved in blocks in ``rooms.version`` so that a restarted
  server never reuses a version a client may hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol

from server.protocol import (
    ActionMessage,
    Hello,
    QueryMessage,
    RackMessage,
    action_dict,
)
from server.rooms.botplay import Bot, fallback_actions, make_seat_bot
from server.rooms.conn import Conn
from server.rooms.options import RoomSettings
from server.rooms.store import player_names, round_lines
from server.rooms.viewjson import ViewJSON, dumps, view_dict  # noqa: F401 - view_dict re-exported
from server.rules import (
    Deal,
    EndCondition,
    Event,
    Match,
    RoundOptions,
    RoundState,
    RuleError,
    new_round,
    replay,
    spectator_view,
    view_for,
)
from server.rules.queries import (
    evaluate_formation,
    opening_lock,
    reachable_row_indices,
    row_take_preview,
)
from server.rules.state import deal_tiles
from server.rules.views import changed_keys, own_part, public_part, public_values

if TYPE_CHECKING:
    from server.rooms.live import LiveContext
    from server.rooms.service import RoomView
    from server.storage.gamelog import RoundRecord

log = logging.getLogger(__name__)

RESULT_CACHE = 64
"""Replies remembered per player for resends."""

RESERVE_MARGIN = 16
"""Versions left in the reserved block when the next block is reserved."""


_dumps = dumps
_SHARED = object()  # the key of the frame shared by the seats that only get public changes
# How the round's views changed at a version (RoomActor._track_round).
_UNCHANGED = 0  # the round did not change: an empty patch
_MOVED = 1  # one move: the public values it may change, the acting seat's own part
_WHOLE = 2  # a new round, none, or a change that is not one move: whole views
# What of a seat shows in the ``seats`` member of a frame (its JSON is made again when it changes).
_SEAT_SHOWN = attrgetter("player_id", "name", "bot_level", "away", "unresponsive")


def error_frame(seq: int | None, code: str, message: str) -> str:
    """An ``error`` message."""
    return _dumps({"type": "error", "seq": seq, "code": code, "message": message})


def ack_frame(seq: int, version: int) -> str:
    """An ``ack`` message."""
    return f'{{"type":"ack","seq":{seq},"version":{version}}}'


PONG = '{"type":"pong"}'


@dataclass(slots=True)
class SeatSlot:
    """A seat of the live room."""

    seat: int
    player_id: str | None
    name: str | None
    bot_level: str | None
    away: bool = False
    unresponsive: bool = False
    timeouts: int = 0
    gone_at: float | None = None
    rack: list[int | None] | None = None
    rack_round: int = 0

    @property
    def is_bot(self) -> bool:
        return self.player_id is None


class _Entry(Protocol):
    def for_seat(self, seat: int | None) -> dict[str, Any]: ...


@dataclass(slots=True)
class _Public:
    """A room event everybody sees alike."""

    payload: dict[str, Any]

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        return self.payload


@dataclass(slots=True)
class _Move:
    """An engine event, filtered per seat by the engine."""

    event: Event
    by: str

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        out = self.event.for_seat(seat)
        out["by"] = self.by
        return out


_Stored = tuple[int, int | None, str, str | None]


def _pack(version: int, entry: _Entry) -> _Stored:
    """An event as JSON: the public copy and, if it differs, the acting seat's copy."""
    if isinstance(entry, _Move):
        event = entry.event
        public = entry.for_seat(None)
        private = entry.for_seat(event.seat) if event.private else None
        return (version, event.seat, _dumps(public), _dumps(private) if private else None)
    return (version, None, _dumps(entry.for_seat(None)), None)


def _event_json(stored: _Stored, seat: int | None) -> str:
    _, actor, public, private = stored
    return private if private is not None and seat is not None and seat == actor else public


@dataclass(slots=True)
class _Cached:
    message: Any
    reply: str


@dataclass
class _Results:
    """A player's recent replies by seq."""

    replies: OrderedDict[int, _Cached] = field(default_factory=OrderedDict)
    last_seq: int | None = None

    def get(self, seq: int) -> _Cached | None:
        return self.replies.get(seq)

    def put(self, seq: int, message: Any, reply: str) -> None:
        self.replies[seq] = _Cached(message, reply)
        while len(self.replies) > RESULT_CACHE:
            self.replies.popitem(last=False)
        if self.last_seq is None or seq > self.last_seq:
            self.last_seq = seq


def normalize_rack(layout: list[int | None] | None, hand: list[int]) -> list[int | None]:
    """A saved layout made to fit the hand, every remaining tile kept in its slot.

    A tile that left the hand (a discard, a meld laid, possibly by the bot playing
    for an away seat) leaves an empty slot (``None``), so that no later tile
    shifts; a tile the layout does not know (a draw) takes the first empty slot,
    or is appended when there is none. A tile listed twice keeps its first slot.

    >>> normalize_rack([5, None, 9, 7], [7, 5, 11])
    [5, 11, None, 7]
    >>> normalize_rack([1, 2, 3, None, 4], [1, 3, 4])
    [1, None, 3, None, 4]
    >>> normalize_rack([1, 2], [1, 2, 8, 9])
    [1, 2, 8, 9]
    >>> normalize_rack(None, [3, 1])
    [3, 1]
    """
    have = set(hand)
    out: list[int | None] = []
    seen: set[int] = set()
    for slot in layout or []:
        if slot is not None and slot in have and slot not in seen:
            out.append(slot)
            seen.add(slot)
        else:
            out.append(None)
    free = (i for i, slot in enumerate(out) if slot is None)
    for tile in hand:
        if tile in seen:
            continue
        seen.add(tile)
        i = next(free, None)
        if i is None:
            out.append(tile)
        else:
            out[i] = tile
    return out


def end_condition(settings: RoomSettings) -> EndCondition:
    """The engine's end condition for the room settings."""
    end = settings.end
    if end.kind == "rounds":
        return EndCondition("rounds", end.rounds)
    if end.kind == "target":
        return EndCondition("target", end.points)
    return EndCondition()


class RoomActor:
    """The live room; see the module docstring."""

    def __init__(self, room_id: str, ctx: LiveContext) -> None:
        self.room_id = room_id
        self.ctx = ctx
        self.loop = asyncio.get_running_loop()
        settings = ctx.settings
        self.status = "waiting"
        self.settings = RoomSettings()
        self.seats: list[SeatSlot] = []
        self.match: Match | None = None
        self.round: RoundState | None = None
        self.round_id: int | None = None
        self.round_number = 0
        self.version = 0
        self.reserved = 0
        # (version, acting seat or None, public JSON, the acting seat's JSON or None): plain
        # tuples of atoms, which the garbage collector stops tracking.
        self.buffer: deque[_Stored] = deque(maxlen=settings.replay_buffer_events)
        self.conns: list[Conn] = []
        self.results: dict[str, _Results] = {}
        self.bots: dict[int, Bot] = {}
        self.turn_deadline: float | None = None
        self.turn_deadline_wall: float | None = None
        self.turn_timed_out = False
        self.bot_at = 0.0
        self.next_round_at: float | None = None
        self.empty_since: float | None = None
        self.idle_since: float | None = None
        self.stopped = False
        self.booted = asyncio.Event()
        self.boot_error: BaseException | None = None
        self._inbox: deque[tuple[Any, ...]] = deque()
        # Set while the loop waits for a command or its timer (one future: cheaper than
        # an asyncio.Event, which makes a future per wait and keeps a set of waiters).
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._view_cache: dict[int | None, str] = {}
        self._view_version = -1
        self._view_encoder = ViewJSON()
        self._tail_key: tuple[Any, ...] | None = None
        self._deadline_shown: tuple[float | None, str] = (None, "null")
        self._tail_json = ("", "")
        self._tail_serial = 0
        self._held_ack: tuple[Conn, str] | None = None
        # Connections that asked for view patches, with the _tail_serial they last got.
        self._patching: dict[Conn, int] = {}
        # How the round's views changed from the previous version to this one (see
        # _track_round): the round and its log's length at the last version; the kind of
        # change; for a move, its event (the acting seat's) and the patch's JSON (made once).
        self._round_seen: RoundState | None = None
        self._round_seen_log = 0
        self._delta = _WHOLE
        self._delta_event: Event | None = None
        self._delta_pub: str | None = None
        self._delta_own: str | None = None
        # The public part of the views at _parts_version (whole views), of _parts_round,
        # and its JSON without the closing brace ("" before it is needed).
        self._parts_version = -1
        self._parts_round: RoundState | None = None
        self._parts_pub: dict[str, Any] | None = None
        self._parts_pub_json = ""
        self.task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ plumbing

    def start(self) -> None:
        """Start the actor's task."""
        self.task = asyncio.create_task(self._main(), name=f"room-{self.room_id}")

    def post(self, *command: Any) -> None:
        """Queue a command; the actor handles commands in arrival order."""
        self._inbox.append(command)
        self._wake()

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
            self._arm(None)
            self.ctx.forget(self)
            self.ctx.metrics.live_rooms.dec()
            for conn in self.conns:
                conn.close(1001)

    async def _loop(self) -> None:
        while True:
            while self._inbox:
                command = self._inbox.popleft()
                if command[0] == "stop":
                    return
                try:
                    if self.reserved - self.version < RESERVE_MARGIN:
                        await self._reserve_ahead()
                    await self._handle(command)
                except Exception:
                    log.exception("room_command_failed", extra={"room_id": self.room_id})
            try:
                if self.reserved - self.version < RESERVE_MARGIN:
                    await self._reserve_ahead()
                if await self._run_due():
                    continue
            except Exception:
                log.exception("room_timer_failed", extra={"room_id": self.room_id})
                await asyncio.sleep(0.5)
            if self._inbox:
                continue
            if self._should_stop():
                return
            self._arm(self._next_wakeup())
            waiter = self._waiter = self.loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _arm(self, when: float | None) -> None:
        """Have the loop woken at ``when`` at the latest (one timer).

        A timer already set to ring no later than ``when`` is kept: most moves push the
        turn deadline later, and the loop only looks again (and sets the timer for the
        time then due) if it rings early. An earlier time moves it.
        """
        timer = self._timer
        if timer is not None:
            if when is not None and timer.when() <= when:
                return
            timer.cancel()
            self._timer = None
        if when is not None:
            self._timer = self.loop.call_at(when, self._ring)

    def _ring(self) -> None:
        self._timer = None  # fired: the next _arm sets a new one even for the same time
        self._wake()

    def _should_stop(self) -> bool:
        if self.status == "playing" or any(True for _ in self.conns):
            self.idle_since = None
            return False
        now = self.loop.time()
        if self.idle_since is None:
            self.idle_since = now
        return now >= self.idle_since + self.ctx.settings.idle_actor_seconds

    async def _reserve_ahead(self) -> None:
        if self.reserved - self.version < RESERVE_MARGIN:
            self.reserved = self.version + self.ctx.settings.version_block
            await self.ctx.gamelog.set_version(self.room_id, self.reserved)

    # ------------------------------------------------------------------ boot / restore

    async def _boot(self) -> None:
        record = await self.ctx.gamelog.load(self.room_id)
        self.settings = RoomSettings.model_validate(record.settings)
        names = await player_names(self.ctx.db, [s.player_id for s in record.seats])
        self.seats = [
            SeatSlot(
                seat=s.seat,
                player_id=s.player_id,
                name=names.get(s.player_id) if s.player_id else None,
                bot_level=s.bot_level if s.player_id is None else None,
            )
            for s in record.seats
        ]
        self.version = record.version
        await self._reserve_ahead()
        self.status = record.status
        now = self.loop.time()
        for slot, stored in zip(self.seats, record.seats, strict=True):
            rack = stored.rack or {}
            if isinstance(rack.get("layout"), list):
                slot.rack = [t if isinstance(t, int) else None for t in rack["layout"]]
                slot.rack_round = int(rack.get("round", 0))
        if self.status == "waiting":
            return
        await self._load_match()
        if self.status != "playing":
            return
        # Restoring a playing room: every player starts disconnected.
        for slot in self.seats:
            if slot.player_id is not None:
                slot.gone_at = now
        self.empty_since = now
        current = record.current_round
        if current is not None:
            self._restore_round(current, record.last_alive)
            if self.round is not None and self.round.over:
                await self._finish_round()
        elif self.match is not None and self.match.over:
            await self._end_match("end_condition")
        else:
            self.next_round_at = now
        log.info(
            "room_restored",
            extra={"room_id": self.room_id, "round": self.round_number, "version": self.version},
        )

    async def _load_match(self) -> None:
        players = len(self.seats)
        history = await round_lines(self.ctx.db, self.room_id, players)
        totals = [sum(line[i] for line in history) for i in range(players)]
        match = Match(
            self.settings.variant,
            players,
            seed="-",
            end=end_condition(self.settings),
            options=self._round_options(),
            history=history,
            totals=totals,
        )
        end = match.end
        if end.kind == "rounds":
            match.over = len(history) >= (end.value or 0)
        elif end.kind == "target":
            match.over = bool(history) and max(totals) >= (end.value or 0)
        self.match = match
        self.round_number = len(history)

    def _restore_round(self, current: Any, last_alive: datetime | None = None) -> None:
        options = RoundOptions.from_dict(current.options)
        deal_data = current.options.get("deal") if isinstance(current.options, dict) else None
        players = len(self.seats)
        if deal_data:
            deal = Deal.from_dict(deal_data)
        else:
            deal = deal_tiles(
                _variant(current.variant), players, current.seed, current.first_seat, options
            )
        self.round = replay(
            current.variant, players, deal, options, [(a.seat, a.action) for a in current.actions]
        )
        self.round_id = current.id
        self.round_number = current.number
        self._set_deadline(self._restored_turn_left(current, last_alive))
        # Resends of the logged moves are answered as accepted.
        by_seat = {s.seat: s.player_id for s in self.seats if s.player_id}
        for a in current.actions:
            pid = by_seat.get(a.seat)
            if a.client_seq is not None and a.source == "player" and pid:
                self._results(pid).put(a.client_seq, None, ack_frame(a.client_seq, self.version))

    def _restored_turn_left(self, current: RoundRecord, last_alive: datetime | None) -> float:
        """Seconds left of the restored turn: its deadline extended by the downtime.

        The turn started with the round or its last discard; it ran until the server
        stopped (``rooms.last_alive``: written at shutdown and every heartbeat; after a
        crash the last logged action may be later); the time it had left then is what it
        has now. At least a few seconds, so that a returning player can still act.
        """
        turn_start = current.created_at
        for a in current.actions:
            if a.action.get("do") == "discard":
                turn_start = a.created_at
        stopped = current.actions[-1].created_at if current.actions else current.created_at
        if last_alive is not None and last_alive > stopped:
            stopped = last_alive
        used = max(0.0, (stopped - turn_start).total_seconds())
        downtime = max(0.0, (datetime.now(UTC) - stopped).total_seconds())
        left = max(self.turn_seconds - used, min(self.turn_seconds, 5.0))
        log.info(
            "turn_deadline_restored",
            extra={"room_id": self.room_id, "downtime_s": round(downtime, 3), "left_s": left},
        )
        return left

    # ------------------------------------------------------------------ commands

    async def _handle(self, command: tuple[Any, ...]) -> None:
        kind = command[0]
        if kind == "attach":
            self.conns.append(command[1])
        elif kind == "hello":
            await self._on_hello(command[1], command[2])
        elif kind == "action":
            await self._on_action(command[1], command[2], command[3])
        elif kind == "rack":
            await self._on_rack(command[1], command[2])
        elif kind == "query":
            self._on_query(command[1], command[2])
        elif kind == "leave":
            self._on_leave(command[1])
        elif kind == "gone":
            self._on_gone(command[1])
        elif kind == "room_changed":
            self._on_room_changed(command[1])
        elif kind == "started":
            await self._on_started()
        else:  # pragma: no cover - programming error
            raise ValueError(f"unknown command {kind!r}")

    def _seat_of(self, player_id: str) -> int | None:
        for slot in self.seats:
            if slot.player_id == player_id:
                return slot.seat
        return None

    def _results(self, player_id: str) -> _Results:
        results = self.results.get(player_id)
        if results is None:
            results = self.results[player_id] = _Results()
        return results

    def _seat_connected(self, seat: int) -> bool:
        return any(c.seat == seat and c.ready and not c.left for c in self.conns)

    def _update_empty(self) -> None:
        if self.status != "playing":
            self.empty_since = None
            return
        humans = any(c.ready and not c.left and c.seat is not None for c in self.conns)
        if humans:
            self.empty_since = None
        elif self.empty_since is None:
            self.empty_since = self.loop.time()

    async def _on_hello(self, conn: Conn, msg: Hello) -> None:
        if conn.closed:
            return
        if conn not in self.conns:
            self.conns.append(conn)
        conn.seat = self._seat_of(conn.player_id)
        conn.ready = True
        conn.left = False
        if msg.patches:
            self._patching[conn] = -1
        else:
            self._patching.pop(conn, None)
        self._catch_up(conn, msg.last_version)
        if conn in self._patching:
            self._patching[conn] = self._tail_serial  # the snapshot or replay carried them
        if conn.seat is not None:
            self._take_back(conn.seat)
        self._update_empty()

    def _take_back(self, seat: int) -> None:
        """The seat's player is here again: the bot stops (mid-turn included)."""
        slot = self.seats[seat]
        slot.gone_at = None
        if slot.away:
            slot.away = False
            if self._is_turn(seat) and not slot.unresponsive:
                self.turn_timed_out = False
                self._set_deadline(self.turn_seconds)
            self._emit(self._presence(slot))

    def _catch_up(self, conn: Conn, last_version: int | None) -> None:
        if (
            last_version is not None
            and last_version <= self.version
            and (
                last_version == self.version
                or (self.buffer and self.buffer[0][0] <= last_version + 1)
            )
        ):
            missed = [e for e in self.buffer if e[0] > last_version]
            now = round(time.time(), 3)
            for i, stored in enumerate(missed):
                if i == len(missed) - 1:
                    if conn in self._patching:
                        tail = self._seats_scores_json()
                        conn.send(self._patch_frame(stored, conn.seat, tail, whole=True))
                    else:
                        conn.send(self._event_frame(stored, conn.seat, self._tail(False), True))
                else:
                    conn.send(
                        f'{{"type":"event","version":{stored[0]},'
                        f'"event":{_event_json(stored, conn.seat)},"view":null,"seats":null,'
                        f'"deadline":null,"server_time":{now},"scores":null,"replay":true}}'
                    )
            return
        conn.send(self._snapshot(conn))

    def _on_leave(self, conn: Conn) -> None:
        conn.left = True
        seat = conn.seat
        if seat is not None and not self._seat_connected(seat):
            slot = self.seats[seat]
            slot.gone_at = None
            if not slot.away and self.status == "playing":
                slot.away = True
                self.bot_at = self.loop.time() + self.ctx.settings.bot_delay_seconds
                self._emit(self._presence(slot))
        self._update_empty()

    def _on_gone(self, conn: Conn) -> None:
        with contextlib.suppress(ValueError):
            self.conns.remove(conn)
        self._patching.pop(conn, None)
        seat = conn.seat
        if seat is not None and conn.ready and not conn.left and not self._seat_connected(seat):
            slot = self.seats[seat]
            if not slot.away and self.status == "playing":
                slot.gone_at = self.loop.time()
        self._update_empty()

    def _on_room_changed(self, view: RoomView) -> None:
        if self.status != "waiting":
            return
        old = {s.seat: s for s in self.seats}
        self.seats = []
        for sv in view.seats:
            prev = old.get(sv.seat)
            self.seats.append(
                SeatSlot(
                    seat=sv.seat,
                    player_id=sv.player.id if sv.player else None,
                    name=sv.player.display_name if sv.player else None,
                    bot_level=sv.bot_level if sv.player is None else None,
                    rack=prev.rack if prev else None,
                )
            )
        for conn in self.conns:
            conn.seat = self._seat_of(conn.player_id)
        self._emit(_Public({"do": "room_changed"}))

    async def _on_started(self) -> None:
        if self.status != "waiting":
            return
        record = await self.ctx.gamelog.load(self.room_id)
        if record.status != "playing":
            return
        names = await player_names(self.ctx.db, [s.player_id for s in record.seats])
        self.settings = RoomSettings.model_validate(record.settings)
        self.seats = [
            SeatSlot(
                seat=s.seat,
                player_id=s.player_id,
                name=names.get(s.player_id) if s.player_id else None,
                bot_level=s.bot_level if s.player_id is None else None,
            )
            for s in record.seats
        ]
        for conn in self.conns:
            conn.seat = self._seat_of(conn.player_id)
        self.status = "playing"
        await self._load_match()
        now = self.loop.time()
        for slot in self.seats:
            if slot.player_id is not None and not self._seat_connected(slot.seat):
                slot.gone_at = now
        self._update_empty()
        await self._start_round()

    # ------------------------------------------------------------------ moves

    def _answer_resend(self, conn: Conn, msg: ActionMessage | RackMessage) -> bool:
        """A seq already answered gets its original reply again, never a second apply;
        the same seq on another message is ``seq_reused``. True when answered."""
        cached = self._results(conn.player_id).get(msg.seq)
        if cached is None:
            return False
        if cached.message is None or cached.message == msg:
            conn.send(cached.reply)
        else:
            conn.send(
                error_frame(
                    msg.seq, "seq_reused", f"seq {msg.seq} was already used for another message"
                )
            )
        return True

    async def _on_action(self, conn: Conn, msg: ActionMessage, t0: float) -> None:
        if self._answer_resend(conn, msg):
            return
        results = self._results(conn.player_id)
        reply = await self._player_move(conn, msg, t0)
        results.put(msg.seq, msg, reply)

    async def _player_move(self, conn: Conn, msg: ActionMessage, t0: float) -> str:
        seat = conn.seat
        if seat is None:
            reply = error_frame(msg.seq, "not_seated", "only a seated player can play")
            conn.send(reply)
            return reply
        state = self.round
        if self.status != "playing" or state is None:
            reply = error_frame(msg.seq, "room_closed", f"the room is {self.status}")
            conn.send(reply)
            return reply
        if msg.base_version != self.version:
            reply = error_frame(
                msg.seq,
                "stale_version",
                f"the room is at version {self.version}, not {msg.base_version}",
            )
            conn.send(reply)
            self.ctx.metrics.reject("stale_version")
            self._player_acted(seat, accepted=False)
            return reply
        prev_turn = state.turn
        try:
            event = state.apply(seat, action_dict(msg.action))
        except RuleError as err:
            reply = error_frame(msg.seq, err.code.value, err.message)
            conn.send(reply)
            self.ctx.metrics.reject(err.code.value)
            self._player_acted(seat, accepted=False)
            return reply
        if not await self._commit(seat, msg.seq, "player"):
            reply = error_frame(msg.seq, "internal_error", "the move could not be stored")
            conn.send(reply)
            return reply
        reply = ack_frame(msg.seq, self.version + 1)
        self._held_ack = (conn, reply)  # sent by _emit with the event: one write
        t_ack = time.perf_counter()
        try:
            self._emit(_Move(event, "player"))
        finally:
            if self._take_held_ack() is not None:  # _emit had no connection to send to
                conn.send(reply)
        t_done = time.perf_counter()
        metrics = self.ctx.metrics
        metrics.action_done(t_ack - t0, t_done - t0)
        metrics.move(self.settings.variant, "player")
        self._player_acted(seat, accepted=True)
        await self._after_move(prev_turn)
        return reply

    def _take_held_ack(self) -> tuple[Conn, str] | None:
        """The ack held back to go out with the move's event (cleared).

        Read through a call, not as ``self._held_ack`` after ``_emit``: mypy keeps the
        attribute narrowed to the tuple assigned before the call, and mypyc would check
        that (server/native.py)."""
        held, self._held_ack = self._held_ack, None
        return held

    def _player_acted(self, seat: int, accepted: bool) -> None:
        """The player sent a move: they are back (away/unresponsive cleared)."""
        slot = self.seats[seat]
        if accepted:
            slot.timeouts = 0
        changed = slot.away or slot.unresponsive
        if self._is_turn(seat) and (self.turn_timed_out or changed):
            self.turn_timed_out = False
            self._set_deadline(self.turn_seconds)
        if changed:
            slot.away = False
            slot.unresponsive = False
            slot.timeouts = 0
            slot.gone_at = None
            self._emit(self._presence(slot))

    def _is_turn(self, seat: int) -> bool:
        state = self.round
        return state is not None and not state.over and state.turn == seat

    async def _commit(self, seat: int, client_seq: int | None, source: str) -> bool:
        """Write the move just applied; on failure undo it in memory."""
        state = self.round
        assert state is not None and self.round_id is not None
        action = state.log[-1][1]
        try:
            await self.ctx.journal.append_action(
                self.round_id, len(state.log), seat, action, client_seq, source
            )
        except Exception:
            log.exception("action_write_failed", extra={"room_id": self.room_id})
            self.round = replay(
                state.variant, state.players, state.deal, state.options, state.log[:-1]
            )
            return False
        return True

    async def _after_move(self, prev_turn: int) -> None:
        state = self.round
        assert state is not None
        now = self.loop.time()
        self.bot_at = now + self.ctx.settings.bot_delay_seconds
        if state.over:
            await self._finish_round()
        elif state.turn != prev_turn:
            self._begin_turn()

    def _begin_turn(self) -> None:
        self.turn_timed_out = False
        self._set_deadline(self.turn_seconds)
        self.bot_at = self.loop.time() + self.ctx.settings.bot_delay_seconds

    def _set_deadline(self, seconds: float) -> None:
        self.turn_deadline = self.loop.time() + seconds
        self.turn_deadline_wall = round(time.time() + seconds, 3)

    def _bot_controls(self, seat: int) -> bool:
        slot = self.seats[seat]
        return slot.is_bot or slot.away or slot.unresponsive or self.turn_timed_out

    def _bot_for(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            slot = self.seats[seat]
            level = slot.bot_level or self.settings.bot_level
            bot = self.bots[seat] = make_seat_bot(level, f"{self.room_id}:{seat}")
        return bot

    async def _bot_step(self, seat: int) -> None:
        state = self.round
        assert state is not None
        slot = self.seats[seat]
        source = "bot" if (slot.is_bot or slot.away or slot.unresponsive) else "timeout"
        view = view_for(state, seat)
        prev_turn = state.turn
        # Away from the loop (ctx.bots): nothing else changes this room meanwhile, its
        # actor handles one command at a time. The bot comes back from a worker process
        # as a copy that saw this view: it is the seat's bot from now on.
        bot = self._bot_for(seat)
        choice, searched = await self.ctx.bots.choose(bot, view)
        if self.bots.get(seat) is bot:
            self.bots[seat] = searched
        event: Event | None = None
        for action in itertools.chain([] if choice is None else [choice], fallback_actions(view)):
            try:
                event = state.apply(seat, action)
            except RuleError:
                continue
            break
        if event is None:  # pragma: no cover - the fallbacks are always legal
            log.error("bot_found_no_move", extra={"room_id": self.room_id, "seat": seat})
            self.bot_at = self.loop.time() + 1.0
            return
        if not await self._commit(seat, None, source):
            self.bot_at = self.loop.time() + 1.0
            return
        self._emit(_Move(event, source))
        self.ctx.metrics.move(self.settings.variant, source)
        await self._after_move(prev_turn)

    async def _timeout(self, seat: int) -> None:
        slot = self.seats[seat]
        slot.timeouts += 1
        self.turn_timed_out = True
        self.bot_at = self.loop.time()
        self._emit(_Public({"do": "timeout", "seat": seat, "timeouts": slot.timeouts}))
        if slot.timeouts >= self.ctx.settings.unresponsive_after_timeouts and not slot.unresponsive:
            slot.unresponsive = True
            self._emit(self._presence(slot))

    # ------------------------------------------------------------------ rounds

    def _round_options(self) -> RoundOptions:
        s = self.settings
        credits = tuple([1] * s.seats) if s.joker_button else None
        return RoundOptions(
            row_depth=s.row_depth,
            short_game=s.short_game,
            joker_button=s.joker_button,
            joker_credits=credits,
        )

    async def _start_round(self) -> None:
        match = self.match
        assert match is not None
        number = len(match.history) + 1
        players = len(self.seats)
        seed = self.ctx.new_seed()
        first = (number - 1) % players
        options = self._round_options()
        state = new_round(self.settings.variant, players, seed, first, options)
        stored = {**options.to_dict(), "deal": state.deal.to_dict()}
        self.round_id = await self.ctx.journal.begin_round(
            self.room_id, number, self.settings.variant, seed, first, stored
        )
        self.round = state
        self.round_number = number
        self.next_round_at = None
        for slot in self.seats:
            slot.rack = None
            slot.rack_round = number
        self._begin_turn()
        self._emit(_Public({"do": "round_start", "round": number, "first": first}))

    async def _finish_round(self) -> None:
        state, match = self.round, self.match
        assert state is not None and match is not None and self.round_id is not None
        result = state.result
        assert result is not None
        scores = match.finish_round(state)
        await self.ctx.journal.finish_round(self.round_id, asdict(result), scores)
        self.turn_deadline = None
        self.turn_deadline_wall = None
        pause = self.ctx.settings.round_pause_seconds
        self._emit(
            _Public(
                {
                    "do": "round_over",
                    "round": self.round_number,
                    "result": asdict(result),
                    "scores": list(scores),
                    "totals": list(match.totals),
                    "next_round_in": None if match.over else pause,
                }
            )
        )
        if match.over:
            await self._end_match("end_condition")
        else:
            self.next_round_at = self.loop.time() + pause

    async def _end_match(self, reason: str) -> None:
        match = self.match
        assert match is not None
        winners = match.winners
        await self.ctx.gamelog.record_match(self.room_id, match.totals, winners, len(match.history))
        self.status = "finished"
        match.over = True
        if self.round is not None and not self.round.over:
            self.round = None  # an abandoned round is not revealed
        self.turn_deadline = None
        self.turn_deadline_wall = None
        self.next_round_at = None
        self.empty_since = None
        self._emit(
            _Public(
                {
                    "do": "match_over",
                    "reason": reason,
                    "totals": list(match.totals),
                    "winners": winners,
                    "rounds": len(match.history),
                }
            )
        )
        log.info("match_over", extra={"room_id": self.room_id, "reason": reason})
        self.ctx.match_over(self.room_id)

    # ------------------------------------------------------------------ timers

    async def _run_due(self) -> bool:
        """Do what is due now; True when something was done (look again at once)."""
        now = self.loop.time()
        grace = self.ctx.settings.reconnect_grace_seconds
        for slot in self.seats:
            if slot.gone_at is not None and now >= slot.gone_at + grace:
                slot.gone_at = None
                if not slot.away and self.status == "playing":
                    slot.away = True
                    self.bot_at = now + self.ctx.settings.bot_delay_seconds
                    self._emit(self._presence(slot))
        if self.status != "playing":
            return False
        if (
            self.empty_since is not None
            and now >= self.empty_since + self.ctx.settings.empty_room_grace_seconds
        ):
            await self._end_match("abandoned")
            return True
        state = self.round
        if state is None or state.over:
            if self.next_round_at is not None and now >= self.next_round_at:
                await self._start_round()
                return True
            return False
        seat = state.turn
        if self._bot_controls(seat):
            if now >= self.bot_at:
                await self._bot_step(seat)
                return True
        elif self.turn_deadline is not None and now >= self.turn_deadline:
            await self._timeout(seat)
            return True
        return False

    def _next_wakeup(self) -> float | None:
        times: list[float] = []
        grace = self.ctx.settings.reconnect_grace_seconds
        times += [s.gone_at + grace for s in self.seats if s.gone_at is not None]
        if self.status == "playing":
            if self.empty_since is not None:
                times.append(self.empty_since + self.ctx.settings.empty_room_grace_seconds)
            state = self.round
            if state is None or state.over:
                if self.next_round_at is not None:
                    times.append(self.next_round_at)
            elif self._bot_controls(state.turn):
                times.append(self.bot_at)
            elif self.turn_deadline is not None:
                times.append(self.turn_deadline)
        elif not self.conns:
            times.append(self.loop.time() + self.ctx.settings.idle_actor_seconds)
        return min(times) if times else None

    # ------------------------------------------------------------------ rack and queries

    async def _on_rack(self, conn: Conn, msg: RackMessage) -> None:
        if self._answer_resend(conn, msg):
            return
        results = self._results(conn.player_id)
        reply = await self._set_rack(conn, msg)
        conn.send(reply)
        results.put(msg.seq, msg, reply)

    async def _set_rack(self, conn: Conn, msg: RackMessage) -> str:
        seat = conn.seat
        if seat is None:
            return error_frame(msg.seq, "not_seated", "only a seated player has a rack")
        state = self.round
        hand = state.hands[seat] if state is not None else []
        tiles = [t for t in msg.layout if t is not None]
        if len(set(tiles)) != len(tiles):
            return error_frame(msg.seq, "bad_message", "layout: a tile appears twice")
        mine = set(hand)
        stranger = [t for t in tiles if t not in mine]
        if stranger:
            return error_frame(
                msg.seq, "bad_message", f"layout: tile {stranger[0]} is not in your hand"
            )
        slot = self.seats[seat]
        layout = list(msg.layout)
        await self.ctx.journal.set_rack(
            self.room_id, seat, {"round": self.round_number, "layout": layout}
        )
        slot.rack = layout
        slot.rack_round = self.round_number
        self._player_acted(seat, accepted=False)
        return ack_frame(msg.seq, self.version)

    def _on_query(self, conn: Conn, msg: QueryMessage) -> None:
        state = self.round
        if state is None:
            conn.send(error_frame(msg.seq, "room_closed", "no round is being played"))
            return
        view = view_for(state, conn.seat) if conn.seat is not None else spectator_view(state)
        result: dict[str, Any]
        if msg.query == "formations":
            formations = msg.formations or []
            result = {
                "formations": [evaluate_formation(view, f) for f in formations],
                "lock": opening_lock(view, formations),
            }
        else:
            if msg.index is None:
                conn.send(error_frame(msg.seq, "bad_message", "index: required for row_preview"))
                return
            result = {
                "index": msg.index,
                "tiles": row_take_preview(view, msg.index),
                "reachable": reachable_row_indices(view),
            }
        conn.send(_dumps({"type": "query_result", "seq": msg.seq, "result": result}))

    # ------------------------------------------------------------------ frames

    def _presence(self, slot: SeatSlot) -> _Public:
        return _Public(
            {
                "do": "presence",
                "seat": slot.seat,
                "away": slot.away,
                "unresponsive": slot.unresponsive,
            }
        )

    def _emit(self, entry: _Entry) -> None:
        """Give the change the next version, keep it for replays, send it to everyone.

        A move (:class:`_Move`) changes the round alone: what the ``seats`` and ``scores``
        members show (seats' presence, the match's totals, the room's status) changes
        with an event of its own (presence, round_over, match_over...), so a move's
        frames carry them as they were made last, not compared again."""
        if self.version >= self.reserved:  # pragma: no cover - _reserve_ahead keeps a margin
            log.warning("version_block_exceeded", extra={"room_id": self.room_id})
        self.version += 1
        version = self.version
        stored = _pack(version, entry)
        self.buffer.append(stored)
        self._track_round(entry)
        if not self.conns:
            return
        patching = self._patching
        if isinstance(entry, _Move) and self._tail_serial:
            seats_scores = self._tail_json
        else:
            seats_scores = self._seats_scores_json()  # also brings _tail_serial up to date
        tail = self._tail(False, seats_scores) if len(patching) < len(self.conns) else ""
        serial = self._tail_serial
        # What every patch frame of this version shares: deadline and clock.
        times = f'"deadline":{self._deadline_json()},"server_time":{round(time.time(), 3)}'
        held = self._take_held_ack()
        frames: dict[Any, str] = {}
        for conn in self.conns:
            if not conn.ready:
                continue
            sent = patching.get(conn)
            if sent is None:
                frame = frames.get(conn.seat)
                if frame is None:
                    frame = frames[conn.seat] = self._event_frame(stored, conn.seat, tail, False)
            else:
                # Seats whose own part did not change get one and the same frame.
                seat = conn.seat
                key = (_SHARED if self._shared_patch(stored, seat) else seat, sent != serial)
                frame = frames.get(key)
                if frame is None:
                    frame = frames[key] = self._patch_frame(
                        stored, conn.seat, seats_scores if key[1] else None, times
                    )
                patching[conn] = serial
            if held is not None and conn is held[0]:
                conn.send_frames(held[1], frame)  # the ack, then the event: one write
                held = None
            else:
                conn.send(frame)
        if held is not None:
            held[0].send(held[1])

    def _event_frame(self, stored: _Stored, seat: int | None, tail: str, is_replay: bool) -> str:
        version = stored[0]
        event = _event_json(stored, seat)
        replay_flag = "true" if is_replay else "false"
        return (
            f'{{"type":"event","version":{version},"event":{event},'
            f'"view":{self._view_json(seat)},{tail},"replay":{replay_flag}}}'
        )

    def _patch_frame(
        self,
        stored: _Stored,
        seat: int | None,
        seats_scores: tuple[str, str] | None,
        times: str | None = None,
        whole: bool = False,
    ) -> str:
        """An event for a connection that asked for patches: the view as a patch (whole
        when ``whole`` or when no patch can be made), ``seats``/``scores`` when given;
        ``times`` is the ``deadline`` and ``server_time`` members when already made."""
        seats, scores = seats_scores if seats_scores is not None else ("null", "null")
        view = self._whole_view(seat) if whole else self._view_patch(seat)
        if times is None:
            times = f'"deadline":{self._deadline_json()},"server_time":{round(time.time(), 3)}'
        return (
            f'{{"type":"event","version":{stored[0]},"event":{_event_json(stored, seat)},'
            f'{view},"seats":{seats},{times},"scores":{scores},'
            f'"replay":{"true" if whole else "false"}}}'
        )

    def _track_round(self, entry: _Entry) -> None:
        """Note how the round's views changed from the previous version to this new one.

        One move applied to the same round since then (its log one longer, ``entry`` its
        event): the public values the engine says it may change (``changed_keys``,
        server/rules/views.py) and the acting seat's own part. The same round, its log as
        long: nothing. Anything else (a new round, none, a round rebuilt after a failed
        write): whole views. Nothing is computed here; :meth:`_view_patch` encodes the
        patch when a connection needs it, once a version.
        """
        state = self.round
        seen, seen_log = self._round_seen, self._round_seen_log
        log_length = len(state.log) if state is not None else 0
        self._round_seen, self._round_seen_log = state, log_length
        self._delta_event = None
        self._delta_pub = None
        self._delta_own = None
        if state is None or state is not seen:
            self._delta = _WHOLE
        elif log_length == seen_log:
            self._delta = _UNCHANGED
        elif log_length == seen_log + 1 and isinstance(entry, _Move):
            self._delta = _MOVED
            self._delta_event = entry.event
        else:
            self._delta = _WHOLE

    def _public(self) -> dict[str, Any] | None:
        """The engine's public part of the views at this version (``None``: no round)."""
        state = self.round
        if self._parts_version != self.version or self._parts_round is not state:
            self._parts_version = self.version
            self._parts_round = state
            self._parts_pub = public_part(state) if state is not None else None
            self._parts_pub_json = ""
        return self._parts_pub

    def _parts_json(self, seat: int | None) -> str:
        """The seat's whole view as JSON (``public_part`` and ``own_part`` of
        server/rules/views.py: together, ``view_for``), ``null`` with no round: the
        text of ``dumps({**public, **own})``, the public part encoded once a version."""
        pub = self._public()
        state = self.round
        if pub is None or state is None:
            return "null"
        head = self._parts_pub_json
        if not head:
            head = self._parts_pub_json = _dumps(pub)[:-1]
        return f"{head},{_dumps(own_part(state, seat))[1:]}"

    def _whole_view(self, seat: int | None) -> str:
        """``"view":{...},"patch":null``: the seat's whole view at this version."""
        return f'"view":{self._parts_json(seat)},"patch":null'

    def _shared_patch(self, stored: _Stored, seat: int | None) -> bool:
        """True when ``seat``'s patch frame of ``stored`` is the one every such seat gets:
        it sees the public event and the version changed no own part of its view."""
        if _event_json(stored, seat) is not stored[2]:  # the acting seat's own copy
            return False
        delta = self._delta
        event = self._delta_event
        return delta == _UNCHANGED or (delta == _MOVED and event is not None and seat != event.seat)

    def _view_patch(self, seat: int | None) -> str:
        """``"view":null,"patch":{...}``: the values of the seat's view that this version
        may have changed (:meth:`_track_round`); the whole view when that is not known."""
        delta = self._delta
        state = self.round
        event = self._delta_event
        if delta == _UNCHANGED:
            return '"view":null,"patch":{}'
        if delta != _MOVED or state is None or event is None:
            return self._whole_view(seat)
        body = self._delta_pub
        if body is None:
            body = self._delta_pub = _dumps(public_values(state, changed_keys(event, state)))[1:-1]
        if seat is not None and seat == event.seat:
            own = self._delta_own
            if own is None:
                own = self._delta_own = _dumps(own_part(state, seat))[1:-1]
            body = f"{body},{own}" if body else own
        return f'"view":null,"patch":{{{body}}}'

    def _tail(self, _: bool, seats_scores: tuple[str, str] | None = None) -> str:
        seats, scores = seats_scores if seats_scores is not None else self._seats_scores_json()
        return (
            f'"seats":{seats},"deadline":{self._deadline_json()},'
            f'"server_time":{round(time.time(), 3)},"scores":{scores}'
        )

    def _seats_scores_json(self) -> tuple[str, str]:
        """``seats`` and ``scores`` as JSON, encoded again only when what they show changed."""
        match = self.match
        key = (
            self.status,
            self.settings.bot_level,
            tuple(map(_SEAT_SHOWN, self.seats)),
            None if match is None else (len(match.history), tuple(match.totals), match.over),
        )
        if key != self._tail_key:
            self._tail_key = key
            self._tail_serial += 1
            self._tail_json = (_dumps(self._seats_json()), _dumps(self._scores()))
        return self._tail_json

    def _view_json(self, seat: int | None) -> str:
        """The seat's view (engine's ``view_for``/``spectator_view``) as JSON, once a version."""
        if self._view_version != self.version:
            self._view_cache = {}
            self._view_version = self.version
            self._view_encoder.reset()
        cached = self._view_cache.get(seat)
        if cached is None:
            state = self.round
            if state is None:
                cached = "null"
            else:
                view = view_for(state, seat) if seat is not None else spectator_view(state)
                cached = self._view_encoder.encode(view)
            self._view_cache[seat] = cached
        return cached

    def _deadline(self) -> float | None:
        state = self.round
        if self.status != "playing" or state is None or state.over:
            return None
        return self.turn_deadline_wall

    def _deadline_json(self) -> str:
        """:meth:`_deadline` as JSON, encoded again only when it changed (once a turn)."""
        deadline = self._deadline()
        if deadline != self._deadline_shown[0]:
            self._deadline_shown = (deadline, _dumps(deadline))
        return self._deadline_shown[1]

    def _seats_json(self) -> list[dict[str, Any]]:
        totals = self.match.totals if self.match is not None else [0] * len(self.seats)
        out = []
        for slot in self.seats:
            bot_playing = slot.is_bot or slot.away or slot.unresponsive
            out.append(
                {
                    "seat": slot.seat,
                    "player_id": slot.player_id,
                    "name": slot.name,
                    "bot_level": slot.bot_level or self.settings.bot_level,
                    "is_bot": slot.is_bot,
                    "away": slot.away,
                    "unresponsive": slot.unresponsive,
                    "bot_playing": bot_playing,
                    "total": totals[slot.seat],
                }
            )
        return out

    def _scores(self) -> dict[str, Any]:
        match = self.match
        if match is None:
            n = len(self.seats)
            return {"rounds": [], "totals": [0] * n, "over": False, "winners": []}
        over = match.over or self.status == "finished"
        return {
            "rounds": [list(r) for r in match.history],
            "totals": list(match.totals),
            "over": over,
            "winners": match.winners if over else [],
        }

    def _snapshot(self, conn: Conn) -> str:
        seat = conn.seat
        rack: list[int | None] | None = None
        if seat is not None:
            slot = self.seats[seat]
            state = self.round
            hand = state.hands[seat] if state is not None else []
            layout = slot.rack if slot.rack_round == self.round_number else None
            rack = normalize_rack(layout, hand)
        results = self.results.get(conn.player_id)
        room = {
            "id": self.room_id,
            "status": self.status,
            "settings": self.settings.model_dump(mode="json"),
            "round": self.round_number,
            "turn_seconds": self.turn_seconds,
        }
        head = _dumps(
            {
                "type": "snapshot",
                "version": self.version,
                "room": room,
                "you": {"player_id": conn.player_id, "seat": seat},
                "rack": rack,
                "last_seq": results.last_seq if results is not None else None,
            }
        )
        view = self._parts_json(seat) if conn in self._patching else self._view_json(seat)
        return f'{head[:-1]},"view":{view},{self._tail(False)}}}'


def _variant(variant_id: str) -> Any:
    from server.rules import get_variant

    return get_variant(variant_id)
