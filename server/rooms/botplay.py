"""Bots as the room actor uses them: the real ones when present, else a minimal fallback.

A bot only ever receives one seat's :class:`~server.rules.views.SeatView`.
:func:`bot_actions` yields the bot's choice and then safe fallbacks, so the
actor always finds a legal move for the seat (the engine is the judge).

:class:`BotThread` runs the bots' searches in one thread of their own: a search
takes a millisecond on average but up to tens of milliseconds (the hard bot in
Remi 101), and on the event loop it would hold every room of the server for that
long. In its thread, the loop gets the interpreter back at least every switch
interval (5 ms) and goes on with the other rooms meanwhile. The view a bot gets
is built fresh for it (no container shared with the round's state), and a bot
object is used by one search at a time: its room's actor waits for the answer.

>>> from server.rules import new_round, view_for
>>> s = new_round("remi", players=2, seed=1)
>>> FallbackBot().act(view_for(s, 0))["do"]
'discard'
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
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


class BotThread:
    """Where the room actors' bots search (see the module doc): one worker thread,
    started at the first search; ``inline`` searches on the caller's thread instead.

    >>> from server.rules import new_round, view_for
    >>> bots = BotThread()
    >>> view = view_for(new_round("remi", players=2, seed=1), 0)
    >>> asyncio.run(bots.choose(FallbackBot(), view))["do"]
    'discard'
    >>> bots.close()
    """

    def __init__(self, inline: bool = False) -> None:
        self.inline = inline
        self._executor: ThreadPoolExecutor | None = None

    async def choose(self, bot: Bot, view: SeatView) -> dict[str, Any] | None:
        """:func:`bot_choice`, in the bots' thread."""
        if self.inline:
            return bot_choice(bot, view)
        executor = self._executor
        if executor is None:
            executor = self._executor = ThreadPoolExecutor(1, thread_name_prefix="remi-bots")
        return await asyncio.get_running_loop().run_in_executor(executor, bot_choice, bot, view)

    def close(self) -> None:
        """Stop the thread after the search under way (the ones queued are dropped)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
