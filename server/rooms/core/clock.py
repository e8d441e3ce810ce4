"""A room's clocks: the turn deadline, the bot's next move, the pause between rounds,
the empty-room and idle grace periods.

:class:`Timers` holds the times; :func:`due` says what is due now and
:func:`next_wakeup` when the next thing will be, from the same facts, so the two
never disagree. Nothing here reads a clock: each call is given :class:`Now`, the
shell's monotonic time (``now``: what the timers are kept in) and its wall time
(``wall``, unix seconds: what a deadline shown to the clients is kept in).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class Now:
    """The current time as the shell reads it: monotonic seconds and unix seconds."""

    now: float
    wall: float


class Due(Enum):
    """What a room's timers say to do now."""

    ABANDON = "abandon"  # no human for the empty-room grace period: the match ends
    DEAL = "deal"  # the pause after a round is over: the next round
    BOT = "bot"  # a bot plays the seat whose turn it is
    TIMEOUT = "timeout"  # the turn's time ran out


@dataclass(slots=True)
class Timers:
    """A room's clocks, in the shell's monotonic seconds (``deadline_wall``: unix
    seconds, shown)."""

    deadline: float | None = None
    deadline_wall: float | None = None
    started_wall: float | None = None
    """When the turn's clock was last (re)started, unix seconds."""
    timed_out: bool = False
    bot_at: float = 0.0
    next_round_at: float | None = None
    empty_since: float | None = None
    idle_since: float | None = None

    def start_turn(self, at: Now, seconds: float | None) -> None:
        """A turn starts now (or restarts with its whole time): its deadline (none when
        turns are not timed), not timed out."""
        self.timed_out = False
        if seconds is None:
            self.stop_turn()
            return
        self.deadline = at.now + seconds
        self.started_wall = at.wall
        self.deadline_wall = round(at.wall + seconds, 3)

    def stop_turn(self) -> None:
        """No turn is running (the round is over)."""
        self.deadline = None
        self.deadline_wall = None
        self.started_wall = None

    def shift(self, seconds: float) -> None:
        """Every running clock later by ``seconds`` (the room was paused that long)."""
        if self.deadline is not None:
            self.deadline += seconds
        if self.deadline_wall is not None:
            self.deadline_wall = round(self.deadline_wall + seconds, 3)
        if self.started_wall is not None:
            self.started_wall += seconds
        self.bot_at += seconds
        if self.next_round_at is not None:
            self.next_round_at += seconds
        if self.empty_since is not None:
            self.empty_since += seconds

    def turn_left(self, now: float) -> float | None:
        """Seconds the running turn has left at ``now`` (None: no turn running)."""
        if self.deadline is None or self.started_wall is None:
            return None
        return max(0.0, self.deadline - now)


def due(
    t: Timers,
    now: float,
    *,
    playing: bool,
    in_round: bool,
    bot_turn: bool,
    empty_grace: float,
    bot_asked: bool = False,
) -> Due | None:
    """What is due at ``now``. ``in_round``: a round is being played; ``bot_turn``: a
    bot plays the seat whose turn it is (or the turn timed out); ``bot_asked``: that
    bot's decision for the room as it is has been asked for and is awaited."""
    if not playing:
        return None
    if t.empty_since is not None and now >= t.empty_since + empty_grace:
        return Due.ABANDON
    if not in_round:
        return Due.DEAL if t.next_round_at is not None and now >= t.next_round_at else None
    if bot_turn:
        return Due.BOT if now >= t.bot_at and not bot_asked else None
    if t.deadline is not None and now >= t.deadline:
        return Due.TIMEOUT
    return None


def next_wakeup(
    t: Timers,
    now: float,
    *,
    playing: bool,
    in_round: bool,
    bot_turn: bool,
    empty_grace: float,
    connected: bool,
    idle_grace: float,
    bot_asked: bool = False,
) -> float | None:
    """When :func:`due` will next say something (None: only a command can change it);
    a room that is not being played and has no connection wakes to stop when idle."""
    times: list[float] = []
    if playing:
        if t.empty_since is not None:
            times.append(t.empty_since + empty_grace)
        if not in_round:
            if t.next_round_at is not None:
                times.append(t.next_round_at)
        elif bot_turn:
            if not bot_asked:
                times.append(t.bot_at)
        elif t.deadline is not None:
            times.append(t.deadline)
    elif not connected:
        times.append(now + idle_grace)
    return min(times) if times else None
