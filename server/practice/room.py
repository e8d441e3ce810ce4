"""The practice room: a match on the player's device, seat 0 the player, bots on the rest.

The offline practice's shell around the room core (:class:`~server.rooms.core.room.RoomCore`,
the server's rooms' own game flow): it runs in the browser's worker under Pyodide
(web/src/practice/worker.ts), so the table gets the very frames a server room sends
(docs/protocol.md). The shell parses the page's messages into the core's commands
(checked here, without pydantic), answers the core's effects at once (each round's seed
comes from the match seed, the records are kept in memory), runs a bot's search in
process as soon as the core asks for it and hands its decision straight back, and
gives the frames for the player's one connection back as dicts.

Pure like the core: no clock (every call gets ``now``, unix seconds), no global random,
no I/O. :meth:`PracticeRoom.to_dict` is the whole state (the match so far, the round's
log, the events kept for the snapshot), kept by the caller after every change
(IndexedDB); :meth:`PracticeRoom.from_dict` resumes it (the bots start afresh, as after a
server restart). The match's finished rounds are kept in that state too (deal, options,
log): :meth:`PracticeRoom.finished_round` gives any of them to the coach, after a reload
as before it. :meth:`PracticeRoom.due` says when :meth:`PracticeRoom.tick` has something to
do: a bot's move (paced by ``bot_delay``), a turn's time running out (a bot then finishes
the turn, ``by: "timeout"``), the next deal.

>>> room = PracticeRoom({"variant": "remi45", "seats": 2, "bot_levels": ["easy"],
...                      "end": {"kind": "rounds", "rounds": 1}}, "s1", now=0.0)
>>> [f["type"] for f in room.message({"type": "hello"}, now=0.0)]
['snapshot']
>>> room.version, room.status
(1, 'playing')
"""

from __future__ import annotations

import json
from typing import Any

from server.errors import Code
from server.practice.settings import PracticeSettings, SettingsError, parse_settings
from server.rooms.core import frames
from server.rooms.core.bots import search
from server.rooms.core.clock import Now
from server.rooms.core.config import Pacing, RoomConfig
from server.rooms.core.messages import (
    Act,
    AppendAction,
    Ask,
    Attach,
    BeginRound,
    BotDecision,
    BotRequest,
    Command,
    Effect,
    FindLogged,
    FinishRound,
    Hello,
    Leave,
    LoggedMove,
    NewSeed,
    NextRound,
    React,
    ReadCredits,
    RecordMatch,
    Restored,
    SaveRack,
    Seat,
    Send,
    SetRack,
    StoredRound,
)
from server.rooms.core.room import RoomCore, Step, run_now
from server.rules import RoundState, RuleError, parse_action

PLAYER = 0
"""The player's seat; every other seat is a bot's."""

PLAYER_ID = "local"
CONN = 1
"""The player's one connection."""

RECENT_EVENTS = 50
"""The round's last events a snapshot carries."""

ROUND_PAUSE = 120.0
"""Seconds before the next deal when the player does not press Continue."""

TIMEOUT_LEVEL = "normal"
"""The bot that finishes a turn whose time ran out."""

MAX_FORMATIONS = 30

__all__ = ["PracticeRoom", "SettingsError", "round_seed"]


def round_seed(seed: str, number: int) -> str:
    """Round ``number``'s deal seed in a match seeded ``seed`` (as the engine's
    :meth:`~server.rules.match.Match.round_seed`)."""
    return f"{seed}/{number - 1}"


def _config(s: PracticeSettings) -> RoomConfig:
    return RoomConfig(
        room_id="practice",
        variant=s.variant,
        seats=s.seats,
        end=s.end_condition(),
        short_game=s.short_game,
        joker_button=s.joker_button,
        bot_level=TIMEOUT_LEVEL,
        kind="practice",
        turn_seconds=None if s.turn_seconds is None else float(s.turn_seconds),
        plays_to_the_end=True,
        shown=s.to_dict(),
    )


def _pacing(bot_delay: float, round_pause: float) -> Pacing:
    return Pacing(
        bot_delay=bot_delay,
        round_pause=round_pause,
        recent_events=RECENT_EVENTS,
        replay_events=512,
        version_block=1_000_000,
    )


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Bad(Exception):
    """A message the protocol refuses (``bad_message``)."""

    def __init__(self, seq: int | None, message: str) -> None:
        super().__init__(message)
        self.seq = seq
        self.message = message


def parse(msg: Any) -> Command | str:
    """The page's message as the core's command (``ping``: the text ``ping``; ``leave``
    and the rest as the server reads them); :class:`_Bad` when it is malformed."""
    if not isinstance(msg, dict):
        raise _Bad(None, "a message is a JSON object")
    kind = msg.get("type")
    seq = msg.get("seq")
    if kind == "ping":
        return "ping"
    if kind == "hello":
        last = msg.get("last_version")
        return Hello(
            CONN,
            last if _int(last) else None,
            bool(msg.get("patches")),
            msg.get("device") if isinstance(msg.get("device"), str) else None,
        )
    if kind == "leave":
        return Leave(CONN)
    if kind == "next_round":
        return NextRound(CONN)
    if kind == "react":
        reaction = msg.get("reaction")
        if not isinstance(reaction, str):
            raise _Bad(None, "reaction: one of the fixed reactions")
        return React(CONN, reaction)
    if kind not in ("action", "rack", "query"):
        raise _Bad(seq if _int(seq) else None, f"unknown message type {kind!r}")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise _Bad(None, "seq: a whole number")
    if kind == "action":
        base = msg.get("base_version")
        if not isinstance(base, int) or isinstance(base, bool) or base < 0:
            raise _Bad(seq, "base_version: a room version (a whole number from 0)")
        # The rules read the action, as the server's protocol has them do (bad_action).
        return Act(CONN, seq, base, parse_action(msg.get("action")))
    if kind == "rack":
        layout = msg.get("layout")
        if not isinstance(layout, list) or not all(t is None or _int(t) for t in layout):
            raise _Bad(seq, "layout: a list of tiles")
        return SetRack(CONN, seq, tuple(layout))
    query = msg.get("query")
    if query == "formations":
        given = msg.get("formations") or []
        if not isinstance(given, list) or not all(
            isinstance(f, list) and all(_int(t) for t in f) for f in given
        ):
            raise _Bad(seq, "formations: lists of tiles")
        taken = msg.get("taken")
        if taken is not None and (not _int(taken) or taken < 0):
            raise _Bad(seq, "taken: a tile id")
        return Ask(CONN, seq, query, tuple(tuple(f) for f in given[:MAX_FORMATIONS]), taken)
    if query == "row_preview":
        index = msg.get("index")
        return Ask(CONN, seq, query, index=index if _int(index) else None)
    if query == "arrange":
        return Ask(CONN, seq, query)
    raise _Bad(seq, "query: formations, row_preview or arrange")


class PracticeRoom:
    """One practice match; see the module docstring."""

    def __init__(
        self,
        settings: dict[str, Any],
        seed: str,
        now: float,
        *,
        name: str | None = None,
        bot_delay: float = 0.8,
        round_pause: float = ROUND_PAUSE,
        bot_key: str | None = None,
    ) -> None:
        self._setup(parse_settings(settings), seed, name, bot_delay, round_pause, now, bot_key)
        self.core.tell_time(Now(now, now))
        self.core.restore(Restored(status="playing", version=0, seats=self._seats()))
        self._connect()
        self._run(self.core.run_due(), now)  # the first deal
        self._take()

    def _setup(
        self,
        settings: PracticeSettings,
        seed: str,
        name: str | None,
        bot_delay: float,
        round_pause: float,
        now: float,
        bot_key: str | None,
    ) -> None:
        self.settings = settings
        self.seed = seed
        self.name = name
        self.bot_delay = bot_delay
        self.round_pause = round_pause
        self.started_at = now
        self.bot_key = bot_key or f"practice:{seed}"
        self.core = RoomCore(
            _config(settings), _pacing(bot_delay, round_pause), bot_key=self.bot_key
        )
        self.log: list[list[Any]] = []
        """The round's moves: seat, action, the player's seq (None: a bot's), version."""
        self.round_start: dict[str, Any] | None = None
        self.racks: dict[int, list[Any]] = {}
        self.finished: list[dict[str, Any]] = []
        """Each finished round of the match: number, seed, first, options (with the deal),
        log (seat, action)."""

    def _seats(self) -> tuple[Seat, ...]:
        s = self.settings
        out = [Seat(PLAYER, PLAYER_ID, self.name)]
        out += [Seat(i, None, None, s.bot_levels[i - 1]) for i in range(1, s.seats)]
        return tuple(out)

    def _connect(self) -> None:
        """The player's one connection, there from the start (never counted gone)."""
        run_now(self.core.handle(Attach(CONN, PLAYER_ID)), self._answer)
        run_now(self.core.handle(Hello(CONN)), self._answer)
        self.core.take()

    # ------------------------------------------------------------------ the caller's API

    def message(self, msg: dict[str, Any], now: float) -> list[dict[str, Any]]:
        """Handle one client message; the frames to deliver, in order."""
        try:
            command = parse(msg)
        except _Bad as bad:
            return [json.loads(frames.error(bad.seq, Code.BAD_MESSAGE, bad.message))]
        except RuleError as err:  # a malformed action (bad_action, §C)
            return [json.loads(frames.error(msg.get("seq"), err.code, err.message))]
        if command == "ping":
            return [json.loads(frames.PONG)]
        assert not isinstance(command, str)
        self._run(self.core.handle(command), now)
        return self._take()

    def due(self) -> float | None:
        """When :meth:`tick` has something to do (None: nothing, until a message)."""
        if self.over:
            return None
        return self.core.next_wakeup()

    def tick(self, now: float) -> list[dict[str, Any]]:
        """Do what is due at ``now`` (one step); the frames it sends."""
        self._run(self.core.run_due(), now)
        return self._take()

    @property
    def over(self) -> bool:
        """The match is over (its end condition was reached)."""
        return self.core.status == "finished"

    @property
    def status(self) -> str:
        return self.core.status

    @property
    def version(self) -> int:
        return self.core.version

    @property
    def round(self) -> RoundState | None:
        return self.core.round

    @property
    def timed_out(self) -> bool:
        return self.core.timers.timed_out

    def summary(self) -> dict[str, Any]:
        """What the local history keeps of the match: settings, score sheet, winners, and
        each finished round as the coach reads it (:meth:`finished_round`), so that a
        round of a finished match is reviewed from the history."""
        match = self.core.match
        assert match is not None
        core = self.core
        return {
            "settings": self.settings.to_dict(),
            "scores": match.score_sheet(),
            "seats": frames.seat_states(core.seats, match.totals, core.config.bot_level),
            "started_at": self.started_at,
            "rounds": [self.finished_round(r["number"]) for r in self.finished],
        }

    def finished_round(self, number: int | None = None) -> dict[str, Any] | None:
        """Finished round ``number`` of the match (None: the last one) as the coach reads
        it (:func:`server.bots.coach.review_json`: variant, players, deal, options, log),
        or None when the match has no such finished round (a round in play is never
        given: it is not finished)."""
        kept = [r for r in self.finished if number is None or r["number"] == number]
        if not kept:
            return None
        record = kept[-1]
        options = dict(record["options"])
        deal = options.pop("deal")
        return {
            "number": record["number"],
            "variant": self.settings.variant,
            "players": self.settings.seats,
            "deal": deal,
            "options": options,
            "log": [list(entry) for entry in record["log"]],
        }

    # ------------------------------------------------------------------ the shell

    def _run(self, step: Step, now: float) -> None:
        """Run the step; a bot's decision it asks for is searched here at once and
        handed back before anything else happens (the server's worker answers later,
        with the room's other inputs in between: the frames are the same)."""
        core = self.core
        core.tell_time(Now(now, now))
        run_now(step, self._answer)
        while asks := [out for out in core.outbox if isinstance(out, BotRequest)]:
            core.outbox = [out for out in core.outbox if not isinstance(out, BotRequest)]
            for ask in asks:
                choice, searched = search(ask.bot, ask.view)
                decision = BotDecision(ask.seat, ask.version, ask.bot, choice, searched)
                run_now(core.handle(decision), self._answer)

    def _take(self) -> list[dict[str, Any]]:
        return [
            json.loads(out.frame)
            for out in self.core.take()
            if isinstance(out, Send) and out.conn == CONN
        ]

    def _answer(self, effect: Effect) -> Any:
        """Each effect at once: the records kept in memory, the bots run here."""
        match effect:
            case NewSeed(number=number):
                return round_seed(self.seed, number)
            case ReadCredits(player_ids=ids):
                return {pid: 1 for pid in ids}
            case BeginRound():
                self.round_start = {
                    "number": effect.number,
                    "seed": effect.seed,
                    "first": effect.first,
                    "options": dict(effect.stored),
                }
                self.log = []
                return effect.number
            case AppendAction():
                self.log.append(
                    [effect.seat, dict(effect.action), effect.client_seq, effect.version]
                )
                return "ok"
            case FinishRound():
                if self.round_start is not None:
                    log = [[seat, action] for seat, action, _, _ in self.log]
                    self.finished.append({**self.round_start, "log": log})
                return None
            case RecordMatch():
                return None
            case SaveRack():
                self.racks[effect.seat] = [list(effect.layout), effect.round]
                return None
            case FindLogged(seat=seat, seq=seq):
                for logged_seat, action, client_seq, version in self.log:
                    if logged_seat == seat and client_seq == seq:
                        return LoggedMove(action, version)
                return None
        return None

    # ------------------------------------------------------------------ keeping it

    def to_dict(self, now: float) -> dict[str, Any]:
        """The whole state as JSON values (turn time left, not a wall time: the time
        the device was off is not charged)."""
        core = self.core
        match = core.match
        state = core.round
        t = core.timers
        current = None
        if state is not None and not state.over and self.round_start is not None:
            current = {
                **self.round_start,
                "log": self.log,
                "turn_left": None if t.deadline is None else max(0.0, t.deadline - now),
            }
        return {
            "format": 2,
            "settings": self.settings.to_dict(),
            "seed": self.seed,
            "name": self.name,
            "bot_delay": self.bot_delay,
            "round_pause": self.round_pause,
            "bot_key": self.bot_key,
            "status": core.status,
            "version": core.version,
            "history": [] if match is None else [list(line) for line in match.history],
            "round": current,
            "finished": self.finished,
            "racks": {str(seat): rack for seat, rack in self.racks.items()},
            "recent": [
                [v, seat, public.decode(), None if own is None else own.decode()]
                for v, seat, public, own in core.audience.buffer
            ],
            "started_at": self.started_at,
            "next_round_in": None if t.next_round_at is None else max(0.0, t.next_round_at - now),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], now: float) -> PracticeRoom:
        """Resume a match kept by :meth:`to_dict` (or by the practice's first format,
        which kept the round's deal beside its options and its log without seqs)."""
        if data.get("format", 1) == 1:
            data = _from_format_1(data)
        room = cls.__new__(cls)
        room._setup(
            parse_settings(data["settings"]),
            str(data["seed"]),
            data.get("name"),
            float(data.get("bot_delay", 0.8)),
            float(data.get("round_pause", ROUND_PAUSE)),
            float(data.get("started_at", now)),
            data.get("bot_key"),
        )
        racks = {int(seat): rack for seat, rack in (data.get("racks") or {}).items()}
        room.racks = racks
        room.finished = [dict(r) for r in data.get("finished", [])]
        seats = tuple(
            Seat(
                s.seat,
                s.player_id,
                s.name,
                s.bot_level,
                (tuple(racks[s.seat][0]), int(racks[s.seat][1])) if s.seat in racks else (None, 0),
            )
            for s in room._seats()
        )
        stored = data.get("round")
        current = None
        logged: dict[int, set[int]] = {}
        if stored is not None:
            room.round_start = {k: stored[k] for k in ("number", "seed", "first", "options")}
            room.log = [list(entry) for entry in stored["log"]]
            for seat, _, seq, _ in room.log:
                if seq is not None:
                    logged.setdefault(seat, set()).add(seq)
            left = stored.get("turn_left")
            current = StoredRound(
                number=int(stored["number"]),
                variant=room.settings.variant,
                seed=str(stored["seed"]),
                first=int(stored["first"]),
                options=stored["options"],
                actions=tuple((int(seat), action) for seat, action, _, _ in room.log),
                turn_left=None if left is None else max(float(left), 5.0),
            )
        recent = tuple(
            (int(v), seat, public.encode(), None if own is None else own.encode())
            for v, seat, public, own in data.get("recent", [])
        )
        core = room.core
        core.tell_time(Now(now, now))
        core.restore(
            Restored(
                status=str(data.get("status", "playing")),
                version=int(data["version"]),
                seats=seats,
                history=tuple(tuple(line) for line in data.get("history", [])),
                current=current,
                logged={s: frozenset(q) for s, q in logged.items()},
                recent=recent,
            )
        )
        pause = data.get("next_round_in")
        if current is None and pause is not None and core.timers.next_round_at is not None:
            core.timers.next_round_at = now + float(pause)
        core.timers.bot_at = now + room.bot_delay
        room._connect()
        return room


def _from_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """A match kept in the first format, as :meth:`PracticeRoom.to_dict` keeps it now."""
    out = {**data, "format": 2}
    stored = data.get("round")
    if data.get("next_round_in") is not None:  # between two rounds: the last one is scored
        stored = out["round"] = None
    if stored is not None:
        deal = stored["deal"]
        number = int(stored["number"])
        out["round"] = {
            "number": number,
            "seed": round_seed(str(data["seed"]), number),
            "first": int(deal.get("first", 0)) if isinstance(deal, dict) else 0,
            "options": {**stored["options"], "deal": deal},
            "log": [[seat, action, None, None] for seat, action in stored["log"]],
            "turn_left": data.get("turn_left"),
        }
    rack = data.get("rack")
    out["racks"] = (
        {} if not isinstance(rack, list) or stored is None else {"0": [rack, int(stored["number"])]}
    )
    out["recent"] = []
    return out
