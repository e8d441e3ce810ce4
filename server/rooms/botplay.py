"""Bots as the room actor uses them: the real ones when present, else a minimal fallback.

A bot only ever receives one seat's :class:`~server.rules.views.SeatView`.
:func:`bot_actions` yields the bot's choice and then safe fallbacks, so the
actor always finds a legal move for the seat (the engine is the judge).

>>> from server.rules import new_round, view_for
>>> s = new_round("remi", players=2, seed=1)
>>> FallbackBot().act(view_for(s, 0))["do"]
'discard'
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
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


def make_seat_bot(level: str, seed: str) -> Bot:
    """``server.bots.make_bot(level, seed)`` when it exists, else :class:`FallbackBot`."""
    try:
        module = importlib.import_module("server.bots")
    except ImportError:
        return FallbackBot()
    make_bot = getattr(module, "make_bot", None)
    if make_bot is None:
        return FallbackBot()
    try:
        bot: Bot = make_bot(level, seed)
    except Exception as exc:  # a broken bot must not stop a room
        log.warning("bot_create_failed", extra={"level": level, "error": repr(exc)})
        return FallbackBot()
    return bot


def bot_actions(bot: Bot, view: SeatView) -> Iterator[dict[str, Any]]:
    """The bot's action, then fallbacks that are legal in every position."""
    try:
        choice = bot.act(view)
    except Exception as exc:
        log.warning("bot_failed", extra={"error": repr(exc)})
    else:
        if isinstance(choice, dict):
            yield choice
    if view.phase == "take":
        yield {"do": "draw"}
        return
    plain = [t for t in reversed(view.hand) if t < FIRST_JOKER_ID]
    jokers = [t for t in view.hand if t >= FIRST_JOKER_ID]
    for tile in plain + jokers:
        yield {"do": "discard", "tile": tile}
