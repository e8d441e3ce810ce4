"""Where the server runs the room bots' searches (the bots themselves, and the moves
legal in every position, are the room core's: :mod:`server.rooms.core.bots`).

:class:`BotRunner` runs the bots' searches away from the event loop: a search
takes a millisecond on average but up to tens of milliseconds (the hard bot in
Remi 101), and on the loop it would hold every room of the server for that long.
By default they run in one worker process: the loop pickles the bot and the
seat's view (a bot gets nothing else, there or here) and goes on with the other
rooms; the search runs on another core. The room does not wait for it: its actor
runs the search in a task and posts the decision to its inbox (the room core keeps
the bot that comes back, or drops a decision made for a turn that has moved on). One
worker runs the searches one after another, so a bot object is in one search at a
time.

>>> from server.rules import new_round, view_for
>>> s = new_round("remi", players=2, seed=1)
>>> FallbackBot().act(view_for(s, 0))["do"]
'discard'
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from server.rooms.core.bots import (
    Bot,
    FallbackBot,
    bot_actions,
    bot_choice,
    fallback_actions,
    make_seat_bot,
    search,
)
from server.rules.views import SeatView

__all__ = [
    "BOT_SEARCHES",
    "Bot",
    "BotRunner",
    "FallbackBot",
    "bot_actions",
    "bot_choice",
    "fallback_actions",
    "make_seat_bot",
    "search",
]

log = logging.getLogger(__name__)

BOT_SEARCHES: tuple[str, ...] = ("process", "thread", "loop")
"""Where the bots search: in a worker process, in a thread, on the event loop."""


PARENT_CHECK_SECONDS = 0.2
"""How often the worker process checks that the server that started it still runs."""


def exit_with_parent(parent: int) -> None:
    """In the worker process: exit as soon as ``parent`` (the server) is gone.

    A server killed with SIGKILL cannot stop its worker, and the worker would otherwise
    wait on its queue for ever (with multiprocessing's resource tracker, which runs as
    long as a process holds its pipe). A daemon thread checks the worker's parent every
    :data:`PARENT_CHECK_SECONDS`: once it changes (the orphan was adopted), the worker
    exits at once, and the tracker, its last user gone, after it.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="remi-parent-watch", daemon=True).start()


class BotRunner:
    """Where the room actors' bots search (see the module doc).

    ``where``: ``process`` (default), one worker process started at the first search:
    the bot and the seat's view go to it pickled, the bot comes back with its choice;
    the loop only pays the pickling, and the search runs on another core. ``thread``:
    one worker thread (no copies, but it shares the interpreter lock with the loop);
    ``loop``: on the caller's thread. The worker process exits when the server does,
    even on SIGKILL (:func:`exit_with_parent`). A worker process that dies is replaced; the
    search it was making, or one that cannot go to it (a bot that cannot be pickled),
    is done on the loop.

    >>> from server.rules import new_round, view_for
    >>> view = view_for(new_round("remi", players=2, seed=1), 0)
    >>> for where in BOT_SEARCHES:
    ...     bots = BotRunner(where)
    ...     choice, bot = asyncio.run(bots.choose(FallbackBot(), view))
    ...     bots.close()
    ...     print(where, choice["do"], type(bot).__name__)
    process discard FallbackBot
    thread discard FallbackBot
    loop discard FallbackBot
    """

    def __init__(self, where: str = "process") -> None:
        if where not in BOT_SEARCHES:
            raise ValueError(f"bots search in one of {', '.join(BOT_SEARCHES)}, not {where!r}")
        self.where = where
        self._executor: Executor | None = None
        self.ready: asyncio.Future[Any] | None = None
        """Answered once the worker has started (:meth:`start`)."""

    def start(self) -> None:
        """Start the worker now, without waiting for it: the server calls this before it
        restores its rooms, so the worker's start-up (an interpreter, its imports:
        seconds on a loaded machine) runs beside the restores instead of after the
        first bot's turn. ``ready`` is answered once the worker runs."""
        if self.where == "loop" or self._executor is not None:
            return
        executor = self._executor = self._start()
        self.ready = asyncio.get_running_loop().run_in_executor(executor, os.getpid)
        self.ready.add_done_callback(_started)

    async def choose(self, bot: Bot, view: SeatView) -> tuple[dict[str, Any] | None, Bot]:
        """:func:`search` where this runner says: the choice and the bot to keep."""
        if self.where == "loop":
            return search(bot, view)
        executor = self._executor
        if executor is None:
            executor = self._executor = self._start()
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, search, bot, view)
        except BrokenExecutor as exc:  # the worker process died: a new one next time
            log.warning("bot_worker_lost", extra={"error": repr(exc)})
            if self._executor is executor:
                self._executor = None
            return search(bot, view)
        except Exception as exc:  # e.g. a bot that cannot be pickled: searched here
            log.warning("bot_search_moved_to_loop", extra={"error": repr(exc)})
            return search(bot, view)

    def _start(self) -> Executor:
        if self.where == "thread":
            return ThreadPoolExecutor(1, thread_name_prefix="remi-bots")
        # spawn: a fresh interpreter (the server has threads; forking it is unsafe).
        return ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=exit_with_parent,
            initargs=(os.getpid(),),
        )

    def close(self) -> None:
        """Stop the worker after the search under way (the ones queued are dropped)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def _started(ready: asyncio.Future[Any]) -> None:
    """Log the worker's start (or why it did not start: the first search tries again)."""
    if ready.cancelled():
        return
    exc = ready.exception()
    if exc is None:
        log.info("bot_worker_started", extra={"pid": ready.result()})
    else:
        log.warning("bot_worker_start_failed", extra={"error": repr(exc)})
