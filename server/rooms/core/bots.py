"""The bots of a room's seats, as the room core uses them: pure, run by the shell.

A bot only ever receives one seat's :class:`~server.rules.views.SeatView` (RULES.md
§D). The core asks its shell to run a bot (a
:class:`~server.rooms.core.messages.BotRequest`: the server runs it in a worker, the
offline practice in its own thread), gets its decision back as an input (a
:class:`~server.rooms.core.messages.BotDecision`) and tries the bot's choice first,
then moves legal in every position (:func:`fallback_actions`): the engine judges, and
a bot never stalls a room.

>>> from server.rules import new_round, view_for
>>> s = new_round("remi", players=2, seed=1)
>>> FallbackBot().act(view_for(s, 0))["do"]
'discard'
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from server.rules.views import SeatView

log = logging.getLogger(__name__)

FIRST_JOKER_ID = 104


class Bot(Protocol):
    """What a bot offers: one action for a seat's view."""

    def act(self, view: SeatView) -> dict[str, Any]: ...


class FallbackBot:
    """Take phase: draw. Build phase: discard the newest non-joker tile (any tile if none)."""

    def act(self, view: SeatView) -> dict[str, Any]:
        if view.phase == "take":
            return {"do": "draw"}
        plain = [t for t in view.hand if t < FIRST_JOKER_ID]
        tiles = plain or view.hand
        return {"do": "discard", "tile": tiles[-1]}


def make_seat_bot(level: str, seed: str, clock: Callable[[], float] | None = None) -> Bot:
    """``server.bots.make_bot(level, seed, clock=clock)``; :class:`FallbackBot` if that
    fails. ``clock`` (the shell's) bounds a hard decision's wall-clock time."""
    try:
        from server.bots import make_bot

        bot: Bot = make_bot(level, seed, clock=clock)
    except Exception as exc:  # a broken bot must not stop a room
        log.warning("bot_create_failed", extra={"level": level, "error": repr(exc)})
        return FallbackBot()
    return bot


def bot_choice(bot: Bot, view: SeatView) -> dict[str, Any] | None:
    """The bot's action for ``view``; None when it failed or gave no action."""
    try:
        choice = bot.act(view)
    except Exception as exc:
        log.warning("bot_failed", extra={"error": repr(exc)})
        return None
    return choice if isinstance(choice, dict) else None


def bot_actions(bot: Bot, view: SeatView) -> Iterator[dict[str, Any]]:
    """The bot's action, then fallbacks that are legal in every position."""
    choice = bot_choice(bot, view)
    if choice is not None:
        yield choice
    yield from fallback_actions(view)


def fallback_actions(view: SeatView) -> Iterator[dict[str, Any]]:
    """Actions legal in every position of the seat: draw, else each discard in turn."""
    if view.phase == "take":
        yield {"do": "draw"}
        return
    plain = [t for t in reversed(view.hand) if t < FIRST_JOKER_ID]
    jokers = [t for t in view.hand if t >= FIRST_JOKER_ID]
    for tile in plain + jokers:
        yield {"do": "discard", "tile": tile}


def search(bot: Bot, view: SeatView) -> tuple[dict[str, Any] | None, Bot]:
    """:func:`bot_choice` and the bot after it (a worker process sends its copy back:
    a bot remembers what it saw and draws from its own random generator)."""
    return bot_choice(bot, view), bot
