"""The time a restored turn has left (server/rooms/match.py ``restored_turn_left``): the
time it had when the server was last seen alive, whatever the number of restarts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from server.rooms.core.clock import Now
from server.rooms.core.config import Pacing, RoomConfig
from server.rooms.core.messages import Attach, ClockRestarted, Hello, NewSeed, Restored, Seat
from server.rooms.core.room import RoomCore, run_now
from server.rooms.match import restored_turn_left
from server.storage.gamelog import LoggedAction, RoundRecord, TurnClock

T0 = datetime(2026, 12, 5, 12, 0, 0, tzinfo=UTC)
TURN = 30.0


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _round(*actions: tuple[float, str]) -> RoundRecord:
    """A round dealt at T0 with these logged actions (seconds after T0, ``do``)."""
    logged = [
        LoggedAction(
            seq=i,
            seat=0,
            action={"do": do, "tile": 1} if do == "discard" else {"do": do},
            client_seq=i,
            source="player",
            created_at=_at(t),
        )
        for i, (t, do) in enumerate(actions, start=1)
    ]
    return RoundRecord(1, 1, "remi", "s", 0, {}, False, None, T0, logged)


def test_three_crashes_within_one_turn_charge_no_downtime() -> None:
    """Issue 23 item 4: 29.4 s left, then 21.7 s, then 15.9 s before the fix. Each run's
    heartbeat records the clock it restored; every restart gives that time back."""
    current = _round((0.0, "draw"), (0.0, "discard"))  # seat 1's turn starts at T0
    # Run 1: alive 0.6 s into the turn (last heartbeat), crash, down 7.7 s.
    clock = TurnClock(TURN - 0.6, T0)
    left = restored_turn_left(current, _at(0.6), TURN, clock=clock)
    assert abs(left - 29.4) < 1e-6
    # Run 2 restores at 8.3 s with 29.4 s; its last heartbeat 0.6 s later, crash, down 5.2 s.
    clock = TurnClock(left - 0.6, _at(8.3))
    left = restored_turn_left(current, _at(8.9), TURN, clock=clock)
    assert abs(left - 28.8) < 1e-6  # 21.7 s before the fix: run 1's downtime charged
    # Run 3 restores at 14.1 s; last heartbeat 0.6 s later.
    clock = TurnClock(left - 0.6, _at(14.1))
    left = restored_turn_left(current, _at(14.7), TURN, clock=clock)
    assert abs(left - 28.2) < 1e-6  # 15.9 s before the fix


def test_a_move_after_the_last_heartbeat_uses_time_until_that_move() -> None:
    """The turn's draw is logged 2 s after the last heartbeat: seen alive then."""
    current = _round((0.0, "discard"), (7.0, "draw"))
    left = restored_turn_left(current, _at(5.0), TURN, clock=TurnClock(20.0, _at(3.0)))
    assert abs(left - 18.0) < 1e-6


def test_a_heartbeat_of_the_turn_before_is_not_this_turns_clock() -> None:
    """A heartbeat read while the discard that began this turn was being committed
    (the clock it saw started before that discard): the turn has its whole time, less
    the time until the server was last seen alive."""
    current = _round((10.0, "discard"))
    stale = TurnClock(3.0, _at(-17.0))  # the earlier turn's clock, 3 s left
    left = restored_turn_left(current, _at(10.05), TURN, clock=stale)
    assert abs(left - (TURN - 0.05)) < 1e-6


def test_a_heartbeat_with_no_clock_measures_from_the_turn_start() -> None:
    """A room last marked alive before migration 0004 (no clock): as before, the turn
    used the time from its start until then."""
    current = _round((0.0, "discard"))
    left = restored_turn_left(current, _at(4.0), TURN)
    assert abs(left - 26.0) < 1e-6


def test_a_turn_whose_time_ran_out_keeps_a_few_seconds() -> None:
    current = _round((0.0, "discard"))
    left = restored_turn_left(current, _at(40.0), TURN, clock=TurnClock(0.0, _at(0.0)))
    assert left == 5.0


def test_a_clock_restarted_within_a_turn_is_handed_to_the_shell_to_record() -> None:
    """A player back from away gets the turn's whole time again: no logged move says so,
    so the core tells its shell (``ClockRestarted``), which records the clock; a restart
    then gives the turn that time, not what the last heartbeat saw."""
    core = RoomCore(
        RoomConfig("r", "remi", 2, turn_seconds=TURN, plays_to_the_end=True),
        Pacing(bot_delay=100.0, round_pause=0.0, reconnect_grace=1.0),
    )
    core.tell_time(Now(0.0, 0.0))
    seats = (Seat(0, "p", "Ana"), Seat(1, None, None, "easy"))
    core.restore(Restored("playing", 0, seats))
    run_now(core.run_due(), lambda e: "s" if isinstance(e, NewSeed) else None)  # the deal
    assert core.round is not None and core.round.turn == 0
    core.tell_time(Now(10.0, 10.0))  # Ana never came: away after the grace
    run_now(core.run_due(), lambda e: None)
    assert core.seats[0].away
    core.take()
    run_now(core.handle(Attach(1, "p")), lambda e: None)
    run_now(core.handle(Hello(1)), lambda e: None)
    assert any(isinstance(out, ClockRestarted) for out in core.take())
    assert core.turn_clock(10.0) == (TURN, 10.0)
