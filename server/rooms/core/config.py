"""What a room plays and how it is paced: the room core's settings, plain values.

The server makes them from a room's settings and its own (:mod:`server.rooms.actor`),
the offline practice from the practice's (:mod:`server.practice.room`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.rules import EndCondition, RoundOptions


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """What a room plays: its variant, seats, end, options, bots and turn time."""

    room_id: str
    variant: str
    seats: int
    end: EndCondition = field(default_factory=EndCondition)
    row_depth: int | None = None
    short_game: bool = False
    joker_button: bool = False
    bot_level: str = "normal"
    turn_seconds: float | None = 60.0
    """Seconds each turn lasts (scaled as the shell wants); None: turns are not timed."""
    kind: str = "normal"
    """The room's kind (normal, practice, arena, quick, tournament), shown in ``room``."""
    plays_to_the_end: bool = False
    """Nobody abandons this match (a tournament's table, the offline practice)."""
    shown: Mapping[str, Any] = field(default_factory=dict)
    """The settings as the snapshot's ``room.settings`` shows them."""

    def round_options(self, credits: tuple[int, ...] | None = None) -> RoundOptions:
        """A round's options; with the joker button each seat's credit for the round (B.9:
        at most one; one a seat when not given)."""
        if not self.joker_button:
            credits = None
        elif credits is None:
            credits = tuple([1] * self.seats)
        return RoundOptions(
            row_depth=self.row_depth,
            short_game=self.short_game,
            joker_button=self.joker_button,
            joker_credits=credits,
        )


@dataclass(frozen=True, slots=True)
class Pacing:
    """The room's timings and limits (the server's settings; the practice's own)."""

    bot_delay: float = 0.8
    round_pause: float = 10.0
    reconnect_grace: float = 20.0
    unresponsive_after: int = 2
    empty_grace: float = 120.0
    idle_grace: float = 60.0
    replay_events: int = 200
    recent_events: int = 50
    reactions_per_minute: int = 12
    version_block: int = 100
