"""A room's connections as the room core knows them: a number, a player, a seat.

The shell keeps the sockets (the server's :class:`~server.rooms.conn.Conn`, the
offline practice's one page) and tells the core of each one (an ``Attach``); the core
answers with frames addressed to a connection's :attr:`Peer.id`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(eq=False, slots=True)
class Peer:
    """One connection of the room: who it is, which seat it plays, where it stands."""

    id: int
    player_id: str
    session_id: str | None = None
    """The session (device token) the connection was opened with."""
    device: str | None = None
    """The device (browser tab) its ``hello`` named, if any."""
    seat: int | None = None
    ready: bool = False
    """It said ``hello``: it gets the room's frames."""
    left: bool = False
    """It left the table (the back arrow): its seat is away."""
    closed: bool = False
    """The core closed it (another device took the seat, its session was revoked)."""
