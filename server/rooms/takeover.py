"""Bot takeover: a bot plays a seat that has no player, whose player is away or
unresponsive (:mod:`server.rooms.presence`), or whose turn's time ran out.

Each seat has its own bot (:func:`~server.rooms.botplay.make_seat_bot`, seeded by
room and seat); it sees only that seat's view (RULES.md §D). Its choice is tried
first, then moves legal in every position (:func:`~server.rooms.botplay.fallback_actions`):
the engine judges, and a bot never stalls a room.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from server.rooms.botplay import Bot, BotRunner, fallback_actions, make_seat_bot
from server.rooms.presence import SeatSlot
from server.rules import Event, RoundState, RuleError, view_for
from server.rules.views import SeatView

log = logging.getLogger(__name__)


def bot_controls(slot: SeatSlot, turn_timed_out: bool) -> bool:
    """A bot makes this seat's next move (``turn_timed_out``: its turn's time ran out)."""
    return slot.bot_plays or turn_timed_out


def move_source(slot: SeatSlot) -> str:
    """The ``by`` of a bot's move: ``bot`` for a seat it plays, ``timeout`` when it
    finishes a player's turn whose time ran out."""
    return "bot" if slot.bot_plays else "timeout"


class Takeover:
    """The bots of one room's seats."""

    def __init__(self, room_id: str, runner: BotRunner) -> None:
        self.room_id = room_id
        self.runner = runner
        self.bots: dict[int, Bot] = {}

    def bot_for(self, seat: int, level: str) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = make_seat_bot(level, f"{self.room_id}:{seat}")
        return bot

    async def move(self, state: RoundState, seat: int, level: str) -> Event | None:
        """Apply the seat's bot move to ``state``: its event (None: no legal move found)."""
        return self.play(state, seat, await self.search(state, seat, level))

    async def search(
        self, state: RoundState, seat: int, level: str
    ) -> tuple[SeatView, dict[str, Any] | None]:
        """The seat's bot's choice for its view of ``state`` (with that view).

        The search runs away from the loop (:class:`~server.rooms.botplay.BotRunner`);
        the room must not change meanwhile (its actor only answers what reads it). The
        bot comes back as a copy that saw this view: it is the seat's bot from now on.
        """
        view = view_for(state, seat)
        bot = self.bot_for(seat, level)
        choice, searched = await self.runner.choose(bot, view)
        if self.bots.get(seat) is bot:
            self.bots[seat] = searched
        return view, choice

    def play(
        self, state: RoundState, seat: int, found: tuple[SeatView, dict[str, Any] | None]
    ) -> Event | None:
        """Apply the searched choice (else a fallback legal in every position) to
        ``state``: its event (None: no legal move found)."""
        view, choice = found
        for action in itertools.chain([] if choice is None else [choice], fallback_actions(view)):
            try:
                return state.apply(seat, action)
            except RuleError:
                continue
        log.error("bot_found_no_move", extra={"room_id": self.room_id, "seat": seat})
        return None
