"""Quick reactions: a seat's fixed phrase or emoji shown to everyone in the room.

A reaction is not a move: it is not stored, has no version and is not replayed. A
seat may show ``per_minute`` of them in any 60 s, and at most :data:`BURST` within
:data:`BURST_SECONDS`; past that the one sent is refused with ``reactions_limited``
(the connection stays open; :mod:`server.rooms.core.room` sends both). The limit is
per seat, so a reconnect does not reset it.
Muting a player is the client's choice: the server sends every reaction.

>>> r = Reactions(per_minute=6)
>>> [r.allowed(0, t) for t in (0.0, 1.0, 2.0, 3.0)]
[True, True, True, False]
>>> r.allowed(0, 12.5), r.allowed(1, 3.0)
(True, True)
"""

from __future__ import annotations

from collections import deque

BURST = 3
BURST_SECONDS = 10.0
WINDOW_SECONDS = 60.0


class Reactions:
    """The reaction limits of one room's seats."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._sent: dict[int, deque[float]] = {}

    def allowed(self, seat: int, now: float) -> bool:
        """Whether ``seat`` may show a reaction at ``now``; counts it when it may."""
        sent = self._sent.setdefault(seat, deque())
        while sent and now - sent[0] >= WINDOW_SECONDS:
            sent.popleft()
        recent = sum(1 for t in sent if now - t < BURST_SECONDS)
        if len(sent) >= self.per_minute or recent >= BURST:
            return False
        sent.append(now)
        return True
