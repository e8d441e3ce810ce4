"""One WebSocket connection as the room actor sees it: a player and a way to its socket.

The actor calls :meth:`Conn.send` and :meth:`Conn.close` without waiting. The frames
go to the socket's ``send`` coroutine (``WebSocket.send_text``) in the order of the
calls, from a sender task that exists only while frames wait: an idle connection has
no task, only this object. A client that reads too slowly makes the socket's sends
wait (uvicorn waits while the transport's buffer is above its high-water mark); past
``limit`` frames waiting, it is closed with 1008 and the frames still waiting are
dropped, so a slow reader never stalls the room nor grows the server's memory.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)

SendText = Callable[[str], Coroutine[Any, Any, None]]
"""Sends one text frame (e.g. ``WebSocket.send_text``)."""

CloseSocket = Callable[[int], Coroutine[Any, Any, None]]
"""Closes the socket with a close code."""

SLOW_READER = 1008
"""The close code of a client with more than ``limit`` frames waiting."""

_ids = itertools.count(1)


class Conn:
    """A connection of a room: its player, session, device, seat flags and outgoing
    frames."""

    __slots__ = (
        "_close",
        "_send",
        "close_code",
        "closed",
        "device",
        "id",
        "left",
        "limit",
        "player_id",
        "ready",
        "seat",
        "sender",
        "session_id",
        "waiting",
    )

    def __init__(
        self,
        player_id: str,
        send: SendText,
        close: CloseSocket,
        limit: int = 256,
        session_id: str | None = None,
    ) -> None:
        self.id = next(_ids)
        """The connection's number in this process (logs, the bridge's envelopes)."""
        self.player_id = player_id
        self.session_id = session_id
        """The session (device token) the connection was opened with."""
        self.device: str | None = None
        """The device (browser tab) its ``hello`` named, if any."""
        self.seat: int | None = None
        self.ready = False
        self.left = False
        self.closed = False
        """No frame is taken any more (closing, or the client went away)."""
        self.close_code: int | None = None
        self.limit = limit
        self._send = send
        self._close = close
        self.waiting: deque[str] | None = None
        """Frames not yet handed to the socket, oldest first (None: the sender is idle)."""
        self.sender: asyncio.Task[None] | None = None
        """The task sending ``waiting`` (and then the close), while there is work."""

    def send(self, frame: str) -> None:
        """Send a frame after the ones already waiting; a client too slow to read is
        closed with 1008."""
        if self.closed:
            return
        waiting = self.waiting
        if waiting is None:
            waiting = self.waiting = deque()
        elif len(waiting) >= self.limit:
            waiting.clear()
            self.close(SLOW_READER)
            return
        waiting.append(frame)
        self._wake()

    def send_frames(self, *frames: str) -> None:
        """Send several frames, in this order."""
        for frame in frames:
            self.send(frame)

    def close(self, code: int = 1000) -> None:
        """Close with ``code`` once the frames waiting are sent."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self._wake()

    async def drained(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until the sender is done, else stop it."""
        sender = self.sender
        if sender is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(sender), timeout)
        except (TimeoutError, Exception):
            sender.cancel()

    def _wake(self) -> None:
        if self.sender is None:
            self.sender = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """Send the waiting frames in order, then the close if one was asked for."""
        try:
            waiting = self.waiting
            while waiting:
                await self._send(waiting.popleft())
            if self.closed:
                await self._close(self.close_code or 1000)
        except Exception as exc:  # the client went away
            log.debug("ws_send_failed", extra={"error": repr(exc)})
            self.closed = True
            if self.close_code is None:
                self.close_code = 1006
        finally:
            self.waiting = None
            self.sender = None
