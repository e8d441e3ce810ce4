"""The envelopes the nodes send each other over their links, as small frozen dataclasses.

On the wire (:mod:`server.rooms.cluster.links`) an envelope is a JSON object whose ``t`` names
its kind; :func:`to_wire` writes one and :func:`from_wire` reads one back (None: not an
envelope this node knows, or a field of the wrong type: dropped). The bridge
(:mod:`server.rooms.cluster.bridge`) dispatches them with ``match``.

>>> env = ConnFrame(conn=7, n=1, frame='{"type":"pong"}')
>>> to_wire(env)
{'t': 'f', 'c': 7, 'i': 1, 'f': '{"type":"pong"}'}
>>> from_wire(to_wire(env)) == env
True
>>> from_wire({"t": "f", "c": "7", "i": 1, "f": "x"}) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard


@dataclass(frozen=True, slots=True)
class ConnMessage:
    """Client's node → owner: a message of connection ``conn`` (``kind``: hello, action,
    rack, query, react, leave, next_round, gone; ``message``: its JSON or the reaction)
    of ``room``, for ``player`` and ``session``; ``n`` numbers them per connection."""

    room: str
    node: str
    conn: int
    n: int
    player: str
    session: str | None
    kind: str
    message: str | None


@dataclass(frozen=True, slots=True)
class ConnFrame:
    """Owner → client's node: a frame for connection ``conn`` (``n`` numbers them)."""

    conn: int
    n: int
    frame: str


@dataclass(frozen=True, slots=True)
class ConnClose:
    """Owner → client's node: close connection ``conn`` with ``code``."""

    conn: int
    code: int


@dataclass(frozen=True, slots=True)
class Call:
    """A room command (``op``, ``args``) for the owner to run, from ``node``."""

    id: str
    node: str
    op: str
    room: str
    args: dict[str, Any]
    player: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Return:
    """A room command's answer: ``ok`` (a room view), ``err`` (code, message) or ``moved``."""

    id: str
    ok: dict[str, Any] | None = None
    err: tuple[str, str] | None = None
    moved: bool = False


@dataclass(frozen=True, slots=True)
class Notice:
    """A lobby change made elsewhere (``started``, ``room_changed``) for the room's owner."""

    kind: str
    room: str
    view: dict[str, Any]


Envelope = ConnMessage | ConnFrame | ConnClose | Call | Return | Notice


def to_wire(env: Envelope) -> dict[str, Any]:
    """The envelope as the link carries it."""
    match env:
        case ConnMessage():
            return {
                "t": "m",
                "r": env.room,
                "n": env.node,
                "c": env.conn,
                "i": env.n,
                "p": env.player,
                "s": env.session,
                "k": env.kind,
                "m": env.message,
            }
        case ConnFrame():
            return {"t": "f", "c": env.conn, "i": env.n, "f": env.frame}
        case ConnClose():
            return {"t": "x", "c": env.conn, "code": env.code}
        case Call():
            return {
                "t": "call",
                "id": env.id,
                "n": env.node,
                "op": env.op,
                "r": env.room,
                "a": env.args,
                "p": env.player,
            }
        case Return():
            out: dict[str, Any] = {"t": "ret", "id": env.id}
            if env.moved:
                out["moved"] = True
            elif env.err is not None:
                out["err"] = list(env.err)
            else:
                out["ok"] = env.ok
            return out
        case Notice():
            return {"t": "notice", "k": env.kind, "r": env.room, "v": env.view}


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def from_wire(data: Any) -> Envelope | None:
    """An envelope read from the link (None: unknown or malformed)."""
    if not isinstance(data, dict):
        return None
    t = data.get("t")
    if t == "m":
        room, node, conn, n = data.get("r"), data.get("n"), data.get("c"), data.get("i")
        player, session, kind = data.get("p"), data.get("s"), data.get("k")
        message = data.get("m")
        if (
            isinstance(room, str)
            and isinstance(node, str)
            and _int(conn)
            and _int(n)
            and isinstance(player, str)
            and isinstance(kind, str)
            and (session is None or isinstance(session, str))
            and (message is None or isinstance(message, str))
        ):
            return ConnMessage(room, node, conn, n, player, session, kind, message)
        return None
    if t == "f":
        conn, n, frame = data.get("c"), data.get("i"), data.get("f")
        if _int(conn) and _int(n) and isinstance(frame, str):
            return ConnFrame(conn, n, frame)
        return None
    if t == "x":
        conn, code = data.get("c"), data.get("code")
        if _int(conn):
            return ConnClose(conn, code if _int(code) and code else 1000)
        return None
    if t == "call":
        rid, node, op, room = data.get("id"), data.get("n"), data.get("op"), data.get("r")
        args, player = data.get("a") or {}, data.get("p")
        if (
            isinstance(rid, str)
            and isinstance(node, str)
            and isinstance(op, str)
            and isinstance(room, str)
            and isinstance(args, dict)
            and isinstance(player, dict)
        ):
            return Call(rid, node, op, room, args, player)
        return None
    if t == "ret":
        rid = data.get("id")
        if not isinstance(rid, str):
            return None
        err = data.get("err")
        if data.get("moved"):
            return Return(rid, moved=True)
        if isinstance(err, list) and len(err) == 2 and all(isinstance(e, str) for e in err):
            return Return(rid, err=(err[0], err[1]))
        ok = data.get("ok")
        return Return(rid, ok=ok if isinstance(ok, dict) else None)
    if t == "notice":
        kind, room, view = data.get("k"), data.get("r"), data.get("v")
        if isinstance(kind, str) and isinstance(room, str) and isinstance(view, dict):
            return Notice(kind, room, view)
        return None
    return None
