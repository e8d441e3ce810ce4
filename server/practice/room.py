"""The practice room: a match on the player's device, seat 0 the player, bots on the rest.

It runs in the browser's worker under Pyodide (web/src/practice/worker.ts) and speaks
the server socket's message shapes (docs/protocol.md, :mod:`server.rooms.frames`):
``hello`` gets a ``snapshot``; an ``action`` an ``ack`` or an ``error`` with the
engine's code, then an ``event`` with the seat's whole view (the engine's
:func:`~server.rules.views.view_for`), ``seats``, ``deadline`` and ``scores``; a
``query`` a ``query_result`` made by the same helpers as the server's
(:mod:`server.rules.queries`); a ``rack`` an ``ack``. So the table's code is the
same online and offline; only the transport differs.

Pure like the engine: no clock (every call gets ``now``, unix seconds), no global
random (the deals come from the match seed the caller gives, the bots from seeds
derived from it), no I/O. :meth:`PracticeRoom.to_dict` is the whole state, kept by
the caller after every change (IndexedDB); :meth:`PracticeRoom.from_dict` resumes it
(the bots start afresh, as after a server restart). :meth:`PracticeRoom.due` says when
:meth:`PracticeRoom.tick` has something to do: a bot's move (paced by ``bot_delay``),
a turn's time running out (a bot then finishes the turn, ``by: "timeout"``), the next
deal.

>>> room = PracticeRoom({"variant": "remi45", "seats": 2, "bot_levels": ["easy"],
...                      "end": {"kind": "rounds", "rounds": 1}}, "s1", now=0.0)
>>> [f["type"] for f in room.message({"type": "hello"}, now=0.0)]
['snapshot']
>>> room.version, room.status
(1, 'playing')
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from server.bots import make_bot
from server.bots.bot import Bot
from server.bots.legal import fallback_action
from server.practice.settings import PracticeSettings, SettingsError, parse_settings
from server.rooms.rack import layout_error, normalize_rack
from server.rules import Deal, Event, Match, RoundState, RuleError, replay, view_for
from server.rules.queries import (
    arrange,
    evaluate_formation,
    opening_lock,
    reachable_row_indices,
    row_take_block,
    row_take_preview,
)

PLAYER = 0
"""The player's seat; every other seat is a bot's."""

PLAYER_ID = "local"
RECENT_EVENTS = 50
"""The round's last events a snapshot carries (the server's default)."""

ROUND_PAUSE = 120.0
"""Seconds before the next deal when the player does not press Continue."""

TIMEOUT_LEVEL = "normal"
"""The bot that finishes a turn whose time ran out."""

__all__ = ["PracticeRoom", "SettingsError"]


def _frame_error(seq: int | None, code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "seq": seq, "code": code, "message": message}


class PracticeRoom:
    """One practice match; see the module docstring."""

    def __init__(self, settings: dict[str, Any], seed: str, now: float, *,
                 name: str | None = None, bot_delay: float = 0.8,
                 round_pause: float = ROUND_PAUSE) -> None:
        self.settings: PracticeSettings = parse_settings(settings)
        self.seed = seed
        self.name = name
        self.bot_delay = bot_delay
        self.round_pause = round_pause
        s = self.settings
        self.match = Match(s.variant, s.seats, seed, end=s.end_condition(),
                           options=s.round_options())
        self.round: RoundState | None = None
        self.round_number = 0
        self.status = "playing"
        self.version = 0
        self.recent: list[tuple[int, dict[str, Any]]] = []
        self.rack: list[int | None] | None = None
        self.last_seq: int | None = None
        self.deadline: float | None = None
        self.timed_out = False
        self.bot_at: float | None = None
        self.next_round_at: float | None = None
        self.started_at = now
        self._bots: dict[int, Bot] = {}
        self._out: list[dict[str, Any]] = []
        self._deal(now)
        self._out = []  # the first deal's event is in ``recent``: a hello gets a snapshot

    # ------------------------------------------------------------------ the caller's API

    def message(self, msg: dict[str, Any], now: float) -> list[dict[str, Any]]:
        """Handle one client message; the frames to deliver, in order."""
        kind = msg.get("type")
        seq = msg.get("seq")
        if isinstance(seq, int) and kind in ("action", "rack", "query"):
            self.last_seq = seq if self.last_seq is None else max(self.last_seq, seq)
        if kind == "hello":
            self._out.append(self._snapshot(now))
        elif kind == "action" and isinstance(seq, int):
            self._action(seq, msg, now)
        elif kind == "rack" and isinstance(seq, int):
            self._set_rack(seq, msg.get("layout"))
        elif kind == "query" and isinstance(seq, int):
            self._out.append(self._query(seq, msg))
        elif kind == "next_round":
            if self.next_round_at is not None:
                self.next_round_at = now
        elif kind == "ping":
            self._out.append({"type": "pong"})
        elif kind != "leave":
            self._out.append(_frame_error(seq if isinstance(seq, int) else None,
                                          "bad_message", f"unknown message type {kind!r}"))
        return self._flush()

    def due(self) -> float | None:
        """When :meth:`tick` has something to do (None: nothing, ever, until a message)."""
        if self.status != "playing":
            return None
        state = self.round
        if state is None or state.over:
            return self.next_round_at
        if self._bot_turn():
            return self.bot_at
        return self.deadline if not self.timed_out else None

    def tick(self, now: float) -> list[dict[str, Any]]:
        """Do what is due at ``now`` (one step); the frames it sends."""
        due = self.due()
        if due is None or due > now:
            return []
        state = self.round
        if state is None or state.over:
            self._deal(now)
        elif self._bot_turn():
            self._bot_step(state, now)
        else:
            self.timed_out = True
            self.bot_at = now
            self._emit({"do": "timeout", "seat": state.turn, "timeouts": 1}, now)
        return self._flush()

    @property
    def over(self) -> bool:
        """The match is over (its end condition was reached)."""
        return self.status == "finished"

    def summary(self) -> dict[str, Any]:
        """What the local history keeps of the match: settings, score sheet, winners."""
        return {"settings": self.settings.to_dict(), "scores": self.match.score_sheet(),
                "seats": self._seats(), "started_at": self.started_at}

    # ------------------------------------------------------------------ moves

    def _bot_turn(self) -> bool:
        state = self.round
        return state is not None and not state.over and (
            state.turn != PLAYER or self.timed_out)

    def _action(self, seq: int, msg: dict[str, Any], now: float) -> None:
        state = self.round
        if self.status != "playing" or state is None or state.over:
            self._out.append(_frame_error(seq, "room_closed", f"the room is {self.status}"))
            return
        if msg.get("base_version") != self.version:
            self._out.append(_frame_error(
                seq, "stale_version",
                f"the room is at version {self.version}, not {msg.get('base_version')}"))
            return
        action = msg.get("action")
        prev = state.turn
        try:
            event = state.apply(PLAYER, action if isinstance(action, dict) else {})
        except RuleError as err:
            self._out.append(_frame_error(seq, err.code.value, err.message))
            return
        self._out.append({"type": "ack", "seq": seq, "version": self.version + 1})
        self.timed_out = False
        self._after_move(state, event, prev, "player", now)

    def _bot_step(self, state: RoundState, now: float) -> None:
        seat = state.turn
        by = "timeout" if seat == PLAYER else "bot"
        view = view_for(state, seat)
        choices: list[dict[str, Any]] = []
        try:
            choices.append(self._bot(seat).act(view))
        except Exception:  # a bot's failure costs a move, never the room (as on the server)
            self._bots.pop(seat, None)
        choices.append(fallback_action(view))
        prev = state.turn
        for action in choices:
            try:
                event = state.apply(seat, action)
            except RuleError:
                continue
            self._after_move(state, event, prev, by, now)
            return
        self.bot_at = now + 1.0  # pragma: no cover - the fallback is always legal

    def _bot(self, seat: int) -> Bot:
        bot = self._bots.get(seat)
        if bot is None:
            level = TIMEOUT_LEVEL if seat == PLAYER else self.settings.bot_levels[seat - 1]
            bot = self._bots[seat] = make_bot(level, f"{self.seed}:{self.round_number}:{seat}")
        return bot

    def _after_move(self, state: RoundState, event: Event, prev: int, by: str,
                    now: float) -> None:
        self.bot_at = now + self.bot_delay
        if state.turn != prev:
            self.timed_out = False
            self._start_turn(now)
        if state.over:
            self.deadline = None
        self._emit({**event.for_seat(PLAYER), "by": by}, now)
        if state.over:
            self._finish_round(state, now)

    def _start_turn(self, now: float) -> None:
        seconds = self.settings.turn_seconds
        self.deadline = None if seconds is None else now + seconds

    # ------------------------------------------------------------------ rounds

    def _deal(self, now: float) -> None:
        match = self.match
        self.round = match.start_round()
        self.round_number = len(match.history) + 1
        self.next_round_at = None
        self.rack = None
        self.recent = []
        self._bots = {}
        self.timed_out = False
        self._start_turn(now)
        self.bot_at = now + self.bot_delay
        first = self.round.first
        self._emit({"do": "round_start", "round": self.round_number, "first": first,
                    "commitment": self.round.deal.commitment}, now)

    def _finish_round(self, state: RoundState, now: float) -> None:
        match = self.match
        result = state.result
        assert result is not None
        scores = match.finish_round(state)
        self._emit({"do": "round_over", "round": self.round_number, "result": asdict(result),
                    "scores": list(scores), "totals": list(match.totals),
                    "next_round_in": None if match.over else self.round_pause,
                    "seed": match.round_seed(self.round_number - 1),
                    "commitment": state.deal.commitment}, now)
        if match.over:
            self.status = "finished"
            self._emit({"do": "match_over", "reason": "end_condition",
                        "totals": list(match.totals), "winners": match.winners,
                        "rounds": len(match.history)}, now)
        else:
            self.next_round_at = now + self.round_pause

    # ------------------------------------------------------------------ rack and queries

    def _set_rack(self, seq: int, layout: Any) -> None:
        state = self.round
        ok = isinstance(layout, list) and all(
            t is None or (isinstance(t, int) and not isinstance(t, bool)) for t in layout)
        if not ok:
            self._out.append(_frame_error(seq, "bad_message", "layout: a list of tiles"))
            return
        problem = layout_error(list(layout), state.hands[PLAYER] if state is not None else [])
        if problem is not None:
            self._out.append(_frame_error(seq, "bad_message", problem))
            return
        self.rack = list(layout)
        self._out.append({"type": "ack", "seq": seq, "version": self.version})

    def _query(self, seq: int, msg: dict[str, Any]) -> dict[str, Any]:
        """As :func:`server.rooms.query.answer` (the server's), on the player's view."""
        state = self.round
        if state is None:
            return _frame_error(seq, "room_closed", "no round is being played")
        view = view_for(state, PLAYER)
        result: dict[str, Any]
        if msg.get("query") == "formations":
            formations = [list(f) for f in (msg.get("formations") or [])][:30]
            taken = msg.get("taken")
            if taken is not None and (type(taken) is not int or taken < 0):
                return _frame_error(seq, "bad_message", "taken: a tile id")
            result = {"formations": [evaluate_formation(view, f) for f in formations],
                      "lock": opening_lock(view, formations, taken)}
        elif msg.get("query") == "row_preview":
            index = msg.get("index")
            if not isinstance(index, int):
                return _frame_error(seq, "bad_message", "index: required for row_preview")
            result = {"index": index, "tiles": row_take_preview(view, index),
                      "reachable": reachable_row_indices(view),
                      "block": row_take_block(view, index)}
        elif msg.get("query") == "arrange":
            result = arrange(view)
        else:
            return _frame_error(seq, "bad_message", "query: formations, row_preview or arrange")
        return {"type": "query_result", "seq": seq, "result": result}

    # ------------------------------------------------------------------ what is shown

    def _emit(self, change: dict[str, Any], now: float) -> None:
        self.version += 1
        if change.get("do") == "round_start":
            self.recent = []
        self.recent = [*self.recent, (self.version, change)][-RECENT_EVENTS:]
        self._out.append({"type": "event", "version": self.version, "event": change,
                          "view": self._view(), "seats": self._seats(),
                          "deadline": self._deadline(), "server_time": now,
                          "scores": self.match.score_sheet(), "replay": False})

    def _flush(self) -> list[dict[str, Any]]:
        out, self._out = self._out, []
        return out

    def _view(self) -> dict[str, Any] | None:
        return None if self.round is None else view_for(self.round, PLAYER).to_dict()

    def _deadline(self) -> float | None:
        state = self.round
        if self.status != "playing" or state is None or state.over:
            return None
        return self.deadline

    def _seats(self) -> list[dict[str, Any]]:
        totals = self.match.totals
        out = []
        for seat in range(self.settings.seats):
            player = seat == PLAYER
            out.append({"seat": seat, "player_id": PLAYER_ID if player else None,
                        "name": self.name if player else None,
                        "bot_level": TIMEOUT_LEVEL if player
                        else self.settings.bot_levels[seat - 1],
                        "is_bot": not player, "away": False, "unresponsive": False,
                        "bot_playing": not player, "total": totals[seat]})
        return out

    def _snapshot(self, now: float) -> dict[str, Any]:
        state = self.round
        return {
            "type": "snapshot", "version": self.version,
            "room": {"id": "practice", "status": self.status, "kind": "practice",
                     "settings": self.settings.to_dict(), "round": self.round_number,
                     "turn_seconds": float(self.settings.turn_seconds or 0)},
            "you": {"player_id": PLAYER_ID, "seat": PLAYER},
            "seats": self._seats(), "view": self._view(),
            "rack": normalize_rack(self.rack, state.hands[PLAYER] if state else []),
            "deadline": self._deadline(), "server_time": now,
            "scores": self.match.score_sheet(), "last_seq": self.last_seq,
            "recent": [{"version": v, "event": e} for v, e in self.recent],
        }

    # ------------------------------------------------------------------ keeping it

    def to_dict(self, now: float) -> dict[str, Any]:
        """The whole state as JSON values (turn time left, not a wall time: the time
        the device was off is not charged)."""
        state = self.round
        return {
            "format": 1, "settings": self.settings.to_dict(), "seed": self.seed,
            "name": self.name, "bot_delay": self.bot_delay, "round_pause": self.round_pause,
            "status": self.status, "version": self.version, "history": self.match.history,
            "round": None if state is None else {
                "number": self.round_number, "deal": state.deal.to_dict(),
                "options": state.options.to_dict(),
                "log": [[seat, action] for seat, action in state.log]},
            "recent": [[v, e] for v, e in self.recent], "rack": self.rack,
            "last_seq": self.last_seq, "started_at": self.started_at,
            "timed_out": self.timed_out,
            "turn_left": None if self.deadline is None else max(0.0, self.deadline - now),
            "next_round_in": None if self.next_round_at is None
            else max(0.0, self.next_round_at - now),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], now: float) -> PracticeRoom:
        """Resume a match kept by :meth:`to_dict`."""
        room = cls.__new__(cls)
        room.settings = parse_settings(data["settings"])
        s = room.settings
        room.seed = str(data["seed"])
        room.name = data.get("name")
        room.bot_delay = float(data.get("bot_delay", 0.8))
        room.round_pause = float(data.get("round_pause", ROUND_PAUSE))
        history = [list(line) for line in data.get("history", [])]
        room.match = Match(s.variant, s.seats, room.seed, end=s.end_condition(),
                           options=s.round_options(), history=history,
                           totals=[sum(col) for col in zip(*history, strict=True)]
                           if history else [])
        room.status = str(data.get("status", "playing"))
        room.match.over = room.status == "finished"
        room.version = int(data["version"])
        stored = data.get("round")
        room.round = None
        room.round_number = 0
        if stored is not None:
            room.round = replay(s.variant, s.seats, Deal.from_dict(stored["deal"]),
                                room.match.options, [tuple(a) for a in stored["log"]])
            room.round_number = int(stored["number"])
        room.recent = [(int(v), e) for v, e in data.get("recent", [])]
        room.rack = data.get("rack")
        room.last_seq = data.get("last_seq")
        room.started_at = float(data.get("started_at", now))
        room.timed_out = bool(data.get("timed_out", False))
        left = data.get("turn_left")
        room.deadline = None if left is None else now + max(float(left), 5.0)
        pause = data.get("next_round_in")
        room.next_round_at = None if pause is None else now + float(pause)
        room.bot_at = now + room.bot_delay
        room._bots = {}
        room._out = []
        return room
