"""The benchmark's tables: four seated clients of one room, and the move in flight.

Each player keeps its seat's view from the frames it gets (``patch`` applied, or the
whole ``view``). A table's move is a real action of the player whose turn it is,
chosen from that player's view (``draw`` in the take phase, else a discard from the
hand), sent with the version all four players hold. It is complete when the mover
has its ``ack`` and all four players have reached the ack's version; the move's two
latencies run from sending the action to the ack, and to the event's arrival at the
last of the four seats. Every ack is recorded as (room, seat, seq), for the check
that every acked move is in the database.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any, Protocol

from orjson import loads

from .stats import Sample
from .wsclient import LightClient


class Driver(Protocol):
    """What paces a table: told when its move is over (see :mod:`bench.load.pacing`)."""

    sample: Sample

    def completed(self, table: Table, ok: bool) -> None: ...


def action_text(seq: int, base_version: int, view: dict[str, Any]) -> str:
    """The ``action`` message of the next move of the seat whose ``view`` this is.

    >>> action_text(3, 17, {"phase": "take", "hand": [5]})
    '{"type":"action","seq":3,"base_version":17,"action":{"do":"draw"}}'
    >>> action_text(4, 18, {"phase": "discard", "hand": [104, 7, 9]})
    '{"type":"action","seq":4,"base_version":18,"action":{"do":"discard","tile":9}}'
    """
    if view["phase"] == "take":
        body = '{"do":"draw"}'
    else:
        plain = [t for t in view["hand"] if t < 104] or view["hand"]  # keep the jokers
        body = f'{{"do":"discard","tile":{plain[-1]}}}'
    return f'{{"type":"action","seq":{seq},"base_version":{base_version},"action":{body}}}'


class Player:
    """One WebSocket client seated at a table."""

    __slots__ = (
        "arrived",
        "bridged",
        "client",
        "seat",
        "seq",
        "table",
        "token",
        "version",
        "view",
    )

    def __init__(self, table: Table, token: str) -> None:
        self.table = table
        self.token = token
        self.bridged = False  # several nodes: its socket is on a node the room is not on
        self.client: LightClient | None = None
        self.seat: int | None = None
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.arrived: dict[int, float] = {}  # during a move: version -> when it came

    def on_text(self, text: str) -> None:
        now = perf_counter()
        m = loads(text)
        kind = m["type"]
        table = self.table
        if kind == "event":
            self.version = m["version"]
            view, patch = m["view"], m.get("patch")
            if view is not None:
                self.view = view
            elif patch is not None and self.view is not None:
                self.view.update(patch)
            if table.busy:
                self.arrived[self.version] = now
            table.progress(now)
        elif kind == "ack":
            table.acked(self, m["seq"], m["version"], now)
        elif kind == "error":
            table.refused(self, m.get("seq"), m["code"])
        elif kind == "snapshot":
            self.version, self.view, self.seat = m["version"], m["view"], m["you"]["seat"]
            table.progress(now)

    def send(self, text: str) -> None:
        assert self.client is not None
        self.client.send_text(text)


class Table:
    """Four players of one room, and its move in flight."""

    __slots__ = (
        "acks",
        "busy",
        "driver",
        "mover",
        "pending",
        "players",
        "room",
        "seq",
        "t0",
        "t_ack",
        "target",
    )

    def __init__(self, room: str, tokens: list[str]) -> None:
        self.room = room
        self.players = [Player(self, token) for token in tokens]
        self.acks: list[tuple[str, int, int]] = []  # (room, seat, seq) of every ack received
        self.driver: Driver | None = None
        self.busy = False
        self.pending = False  # the driver wants a move that could not start yet
        self.mover: Player | None = None
        self.seq = 0
        self.target = 0  # the version the ack gave; 0 until it came
        self.t0 = 0.0
        self.t_ack = 0.0

    def ready(self) -> bool:
        """Every player has its seat's view of a round (set-up)."""
        return all(p.view is not None and p.seat is not None for p in self.players)

    def try_move(self) -> bool:
        """Send the next move now if one can start; else remember that one is wanted
        (the next frame tries again: between rounds, or a player still behind)."""
        if self.driver is None:
            return False
        if self.busy:
            self.pending = True
            return False
        view = self.players[0].view
        if view is None or view["over"]:
            self.pending = True
            return False
        turn = view["turn"]
        version = self.players[0].version
        mover = None
        for p in self.players:
            if p.version != version:
                self.pending = True
                return False
            if p.seat == turn:
                mover = p
        if mover is None or mover.view is None or mover.view["turn"] != mover.seat:
            self.pending = True
            return False
        self.pending = False
        for p in self.players:
            p.arrived.clear()
        mover.seq += 1
        self.mover, self.seq, self.target, self.busy = mover, mover.seq, 0, True
        text = action_text(mover.seq, version, mover.view)
        self.t0 = perf_counter()
        try:
            mover.send(text)
        except ConnectionError:
            self.fail("connection_lost")
            return False
        return True

    def acked(self, p: Player, seq: int, version: int, now: float) -> None:
        if p.seat is not None:
            self.acks.append((self.room, p.seat, seq))
        if not self.busy or p is not self.mover or seq != self.seq:
            return  # not the move in flight (one given up on)
        self.t_ack, self.target = now, version
        self.progress(now)

    def refused(self, p: Player, seq: int | None, code: str) -> None:
        if self.busy and p is self.mover and seq == self.seq:
            self.fail(code)

    def progress(self, now: float) -> None:
        """After each frame: complete the move once all four have its version; a
        table that waits for a move tries again."""
        if self.busy:
            target = self.target
            if not target:
                return
            last = 0.0
            for q in self.players:
                if q.version < target:
                    return
                t = q.arrived.get(target, now)
                if t > last:
                    last = t
            self.busy = False
            driver = self.driver
            if driver is not None:
                sample = driver.sample
                sample.ack.append(self.t_ack - self.t0)
                if self.mover is not None and self.mover.bridged:
                    sample.ack_bridged.append(self.t_ack - self.t0)
                else:
                    sample.ack_direct.append(self.t_ack - self.t0)
                sample.last.append(last - self.t0)
                sample.moves += 1
                driver.completed(self, True)
        elif self.pending and self.driver is not None:
            self.try_move()

    def fail(self, code: str) -> None:
        """The move in flight failed (refused, timed out): counted, given up."""
        self.busy, self.target = False, 0
        driver = self.driver
        if driver is not None:
            driver.sample.error(code)
            driver.completed(self, False)
