"""Which connections a room closes for their session: a seat taken over by another
device, a token signed out.

* **Played elsewhere.** A client names its device (a random id per browser tab) in
  ``hello``. When a seat's player says ``hello`` from device B, the seat's older
  connections from another named device A are told ``played_elsewhere`` and closed
  with 4409: the page on A shows that the seat is played elsewhere (and offers to take
  it back, which is a new connection and a ``hello`` from A). Connections of the same
  device, and connections that name no device (tools, tests, older clients), are never
  displaced, and a ``hello`` naming no device displaces nobody.
* **Signed out.** A connection remembers the session (device token) it was opened
  with; when that session is revoked (sign out on that device, or everywhere), the
  connection is told ``session_revoked`` and closed with 4403.

These functions only choose; the room actor sends the frames and closes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from server.rooms.conn import Conn
from server.rooms.frames import error as error_frame

PLAYED_ELSEWHERE = 4409
"""Close code of a connection whose seat is now played from another device."""

SESSION_REVOKED = 4403
"""Close code of a connection whose token was revoked."""

PLAYED_ELSEWHERE_FRAME = error_frame(
    None, "played_elsewhere", "this seat is now played from another device or tab"
)
SESSION_REVOKED_FRAME = error_frame(
    None, "session_revoked", "this device was signed out: its token is revoked"
)


def displaced_by(conn: Conn, conns: Iterable[Conn]) -> list[Conn]:
    """The connections ``conn``'s ``hello`` takes the seat from: the same seat's, from
    another named device (``conn`` must name one and be seated)."""
    if conn.seat is None or conn.device is None:
        return []
    return [
        other
        for other in conns
        if other is not conn
        and not other.closed
        and other.seat == conn.seat
        and other.player_id == conn.player_id
        and other.device is not None
        and other.device != conn.device
    ]


def signed_out(conns: Iterable[Conn], sessions: Collection[str]) -> list[Conn]:
    """The connections opened with one of the revoked ``sessions``."""
    return [c for c in conns if not c.closed and c.session_id in sessions]


def close_all(conns: Iterable[Conn], frame: str, code: int) -> None:
    """Send each connection ``frame``, then close it with ``code``."""
    for conn in conns:
        conn.send(frame)
        conn.close(code)
