"""Who is at the table: each seat's away and unresponsive flags, and when they change.

A player who leaves (the back arrow) is away at once; one whose last connection
drops is away after the reconnect grace period (``gone_at``); a player who times
out ``unresponsive_after`` turns in a row is unresponsive. While a seat is away or
unresponsive a bot plays it (:mod:`server.rooms.core.room`). The player is back when
they say ``hello`` again (away cleared) or send a move (both cleared). Saving the
rack layout is not a move: it changes nothing here.

These functions change a :class:`SeatSlot` and say whether its flags changed; the
room actor then emits a ``presence`` event (:func:`presence_event`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class SeatSlot:
    """A seat of the live room: who sits there, whether they are here, their rack layout."""

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

    @property
    def bot_plays(self) -> bool:
        """A bot plays this seat: it has no player, or the player is away or unresponsive."""
        return self.player_id is None or self.away or self.unresponsive


def presence_event(slot: SeatSlot) -> dict[str, Any]:
    """The ``presence`` event of the seat's flags now."""
    return {
        "do": "presence",
        "seat": slot.seat,
        "away": slot.away,
        "unresponsive": slot.unresponsive,
    }


def disconnected(slot: SeatSlot, now: float, playing: bool) -> None:
    """The seat's last connection dropped: away once the grace period is over."""
    if playing and not slot.away:
        slot.gone_at = now


def left(slot: SeatSlot, playing: bool) -> bool:
    """The player left the table: away now. True when that changed the flags."""
    slot.gone_at = None
    if slot.away or not playing:
        return False
    slot.away = True
    return True


def overdue(seats: Iterable[SeatSlot], now: float, grace: float, playing: bool) -> list[SeatSlot]:
    """The seats whose player stayed disconnected past ``grace``: now away."""
    out = []
    for slot in seats:
        if slot.gone_at is not None and now >= slot.gone_at + grace:
            slot.gone_at = None
            if playing and not slot.away:
                slot.away = True
                out.append(slot)
    return out


def next_overdue(seats: Iterable[SeatSlot], grace: float) -> float | None:
    """When the next disconnected seat becomes away (None: none is disconnected)."""
    times = [s.gone_at + grace for s in seats if s.gone_at is not None]
    return min(times) if times else None


def returned(slot: SeatSlot) -> bool:
    """The player connected again (``hello``): no longer away. True when that changed."""
    slot.gone_at = None
    if not slot.away:
        return False
    slot.away = False
    return True


def acted(slot: SeatSlot, accepted: bool) -> bool:
    """The player sent a move (``accepted`` or not): they are back, away and
    unresponsive cleared; an accepted move also resets the timeouts. True when the
    flags changed."""
    if accepted:
        slot.timeouts = 0
    if not (slot.away or slot.unresponsive):
        return False
    slot.away = False
    slot.unresponsive = False
    slot.timeouts = 0
    slot.gone_at = None
    return True


def timed_out(slot: SeatSlot, unresponsive_after: int) -> bool:
    """The seat's turn timed out once more. True when it made the seat unresponsive."""
    slot.timeouts += 1
    if slot.timeouts >= unresponsive_after and not slot.unresponsive:
        slot.unresponsive = True
        return True
    return False


def summary_read_by_all(
    seats: Iterable[SeatSlot], connected: Callable[[int], bool], read: set[int]
) -> bool:
    """Whether every human seat that is connected has read the round summary
    (``next_round``): the next deal need not wait for the rest of the pause. Seats
    played by bots and players away never hold it back; with no human connected the
    pause runs its whole length."""
    humans = [s.seat for s in seats if s.player_id is not None and connected(s.seat)]
    return bool(humans) and all(seat in read for seat in humans)
