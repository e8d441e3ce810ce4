"""Room leases: which server node plays each room, with a fencing epoch per owner.

Several server processes (nodes) may share one database. A node plays a room only
while it holds the room's lease, a row of ``room_leases``: the owning ``node`` and the
room's ``epoch``, which grows by one with every new owner. A lease is alive while its
node is: each node has a row in ``cluster_nodes`` whose ``expires_at`` its heartbeat
(:meth:`Leases.beat`) pushes ``ttl`` seconds ahead; once that time has passed, any
other node may claim the node's rooms (:meth:`Leases.claim`).

The lease is only the liveness. The safety is the fence: every write of a room
carries the writer's :class:`Fence` and is made only if the room's lease row still
holds that epoch and node, checked in the write's own transaction with the row
share-locked (:func:`stale_rooms`), so that a claim waits for the writes already
checked and a write checked after a claim sees the new epoch. A stale owner's write
(a node that was paused past its lease, or lost its network) is refused by the
database itself with :class:`Fenced`; the new owner read the log after its claim,
so it has every write the old owner committed.

Times are the database's on PostgreSQL (``clock_timestamp()``: the nodes' clocks need
not agree) and this process's on SQLite (one machine). A node that cannot tell
whether its heartbeat still holds stops acting before the database would let another
node take its rooms: it counts its lease from the moment it *sent* the heartbeat
(:class:`server.rooms.cluster.Cluster`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import (
    Connection,
    DateTime,
    Interval,
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from server.storage.database import Database
from server.storage.models import ClusterNode, Room, RoomLease, UTCDateTime, utcnow

log = logging.getLogger(__name__)

_LEASES = cast(Table, RoomLease.__table__)
_NODES = cast(Table, ClusterNode.__table__)
_ROOMS = cast(Table, Room.__table__)

FORGET_NODES_AFTER = timedelta(hours=1)
"""Rows of nodes dead for longer than this are deleted when a node starts."""


class Fenced(Exception):
    """The room's lease is no longer the writer's: another node took the room (or the
    lease was released). The write was refused; the writer must drop the room."""


@dataclass(frozen=True, slots=True)
class Fence:
    """What a room's writes are conditional on: its lease holds this epoch and node."""

    room_id: str
    epoch: int
    node: str


@dataclass(frozen=True, slots=True)
class Owner:
    """A room's lease as read: its node (None: released), epoch, and whether the node
    is alive (its heartbeat has not expired)."""

    node: str | None
    epoch: int
    alive: bool


# --------------------------------------------------------------------------- time


def _now(dialect: str) -> ColumnElement[Any]:
    """The time leases are measured in: the database's on PostgreSQL, ours on SQLite."""
    if dialect == "postgresql":
        return func.clock_timestamp(type_=DateTime(timezone=True))
    return literal(utcnow(), UTCDateTime())


def _later(dialect: str, seconds: float) -> ColumnElement[Any]:
    """``seconds`` after :func:`_now`."""
    if dialect == "postgresql":
        return _now(dialect) + bindparam("ttl", timedelta(seconds=seconds), type_=Interval())
    return literal(utcnow() + timedelta(seconds=seconds), UTCDateTime())


# --------------------------------------------------------------------------- the fence


def _fence_query(fences: Iterable[Fence]) -> Any:
    rooms = sorted({f.room_id for f in fences})
    return (
        select(_LEASES.c.room_id, _LEASES.c.epoch, _LEASES.c.node)
        .where(_LEASES.c.room_id.in_(rooms))
        .order_by(_LEASES.c.room_id)  # share locks taken in one order: no deadlock
        .with_for_update(read=True)
    )


def _stale(rows: Iterable[Any], fences: Iterable[Fence]) -> set[str]:
    current = {row.room_id: (row.epoch, row.node) for row in rows}
    return {f.room_id for f in fences if current.get(f.room_id) != (f.epoch, f.node)}


def stale_rooms(conn: Connection, fences: Iterable[Fence]) -> set[str]:
    """The rooms of ``fences`` whose lease is no longer the fence's, in ``conn``'s
    transaction; the others' lease rows stay share-locked until it ends (a claim of
    them waits for it). SQLite's writers are serialized already (``BEGIN IMMEDIATE``)."""
    fences = list(fences)
    if not fences:
        return set()
    return _stale(conn.execute(_fence_query(fences)), fences)


async def check_fence(session: AsyncSession, fence: Fence | None) -> None:
    """Raise :class:`Fenced` unless the room's lease is still ``fence``'s (None: an
    unfenced write, e.g. a tool or a test), in ``session``'s transaction."""
    if fence is None:
        return
    rows = await session.execute(_fence_query([fence]))
    if _stale(rows, [fence]):
        raise Fenced(f"room {fence.room_id}: epoch {fence.epoch} is no longer this node's")


# --------------------------------------------------------------------------- leases


class Leases:
    """One node's view of the leases: its heartbeat, its claims and releases."""

    def __init__(self, db: Database, node: str, name: str, ttl: float) -> None:
        self._db = db
        self.node = node
        self.name = name
        self.ttl = ttl
        self._dialect = db.engine.dialect.name
        self._own: AsyncConnection | None = None

    def fence(self, room_id: str, epoch: int) -> Fence:
        return Fence(room_id, epoch, self.node)

    async def register(self) -> None:
        """Add this node's row (alive for ``ttl``); forget nodes dead for an hour."""
        d = self._dialect
        async with self._db.engine.begin() as conn:
            old = literal(utcnow() - FORGET_NODES_AFTER, UTCDateTime())
            await conn.execute(delete(_NODES).where(_NODES.c.expires_at < old))
            await self._insert_node(conn, d)

    async def _insert_node(self, conn: AsyncConnection, dialect: str) -> None:
        await conn.execute(
            insert(_NODES).values(
                id=self.node,
                name=self.name[:128],
                started_at=_now(dialect),
                expires_at=_later(dialect, self.ttl),
            )
        )

    async def beat(self) -> bool:
        """The heartbeat: this node is alive for another ``ttl`` seconds. On a connection
        of its own, kept from one beat to the next: a pool busy with requests never delays
        it. True when the node's row had not expired yet (by the database's clock): the
        node was alive all along, so no other node could have claimed its rooms."""
        d = self._dialect
        conn = self._own
        if conn is None:
            conn = self._own = await self._db.engine.connect()
        try:
            async with conn.begin():
                later = _later(d, self.ttl)
                done = await conn.execute(
                    update(_NODES)
                    .where(_NODES.c.id == self.node, _NODES.c.expires_at > _now(d))
                    .values(expires_at=later)
                )
                if done.rowcount:
                    return True
                done = await conn.execute(  # expired: the others may have taken rooms
                    update(_NODES).where(_NODES.c.id == self.node).values(expires_at=later)
                )
                if done.rowcount == 0:  # deleted (long dead to the others): alive again
                    await self._insert_node(conn, d)
                return False
        except BaseException:
            self._own = None
            with contextlib.suppress(Exception):
                await conn.close()
            raise

    async def close(self) -> None:
        """Give the heartbeat's connection back."""
        conn, self._own = self._own, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def leave(self) -> None:
        """This node stops: its row goes (its leases are dead at once)."""
        async with self._db.engine.begin() as conn:
            await conn.execute(delete(_NODES).where(_NODES.c.id == self.node))

    async def held(self) -> dict[str, int]:
        """The rooms whose lease this node holds, with their epochs (on the heartbeat's
        connection)."""
        conn = self._own
        if conn is None:
            conn = self._own = await self._db.engine.connect()
        try:
            async with conn.begin():
                rows = await conn.execute(
                    select(_LEASES.c.room_id, _LEASES.c.epoch).where(_LEASES.c.node == self.node)
                )
                return {row.room_id: row.epoch for row in rows}
        except BaseException:
            self._own = None
            with contextlib.suppress(Exception):
                await conn.close()
            raise

    async def claim(self, room_id: str, *, force: bool = False) -> int | Owner:
        """Take the room's lease: the new epoch, or the :class:`Owner` that holds it
        (another node, alive). ``force``: take it whatever holds it (a node that owns
        every room: no Redis). ``KeyError`` if there is no such room."""
        for _ in range(3):
            try:
                return await self._claim(room_id, force)
            except IntegrityError:  # another node inserted the first lease meanwhile
                continue
        raise RuntimeError(f"room {room_id}: the claim kept racing")

    async def _claim(self, room_id: str, force: bool) -> int | Owner:
        d = self._dialect
        async with self._db.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(_LEASES.c.epoch, _LEASES.c.node)
                    .where(_LEASES.c.room_id == room_id)
                    .with_for_update()
                )
            ).first()
            if row is None:
                found = await conn.scalar(select(_ROOMS.c.id).where(_ROOMS.c.id == room_id))
                if found is None:
                    raise KeyError(room_id)
                await conn.execute(
                    insert(_LEASES).values(
                        room_id=room_id, epoch=1, node=self.node, claimed_at=_now(d)
                    )
                )
                return 1
            epoch, node = row.epoch, row.node
            if node is not None and node != self.node and not force:
                alive = await conn.scalar(
                    select(_NODES.c.id).where(_NODES.c.id == node, _NODES.c.expires_at > _now(d))
                )
                if alive is not None:
                    return Owner(node, epoch, True)
            await conn.execute(
                update(_LEASES)
                .where(_LEASES.c.room_id == room_id)
                .values(epoch=epoch + 1, node=self.node, claimed_at=_now(d))
            )
            return int(epoch) + 1

    async def owner(self, room_id: str) -> Owner | None:
        """The room's lease (None: never claimed)."""
        d = self._dialect
        alive = and_(_NODES.c.id.is_not(None), _NODES.c.expires_at > _now(d))
        async with self._db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(_LEASES.c.node, _LEASES.c.epoch, alive.label("alive"))
                    .select_from(_LEASES.outerjoin(_NODES, _NODES.c.id == _LEASES.c.node))
                    .where(_LEASES.c.room_id == room_id)
                )
            ).first()
        if row is None:
            return None
        return Owner(row.node, int(row.epoch), bool(row.alive) and row.node is not None)

    async def release(self, fences: Iterable[Fence]) -> None:
        """Give up these leases (the node stops playing the rooms): another node may
        claim them at once. A lease claimed by another node meanwhile is left alone."""
        fences = [f for f in fences if f.node == self.node]
        if not fences:
            return
        async with self._db.engine.begin() as conn:
            await conn.execute(
                update(_LEASES)
                .where(
                    _LEASES.c.room_id == bindparam("b_room"),
                    _LEASES.c.epoch == bindparam("b_epoch"),
                    _LEASES.c.node == self.node,
                )
                .values(node=None),
                [{"b_room": f.room_id, "b_epoch": f.epoch} for f in fences],
            )

    async def orphans(self, limit: int = 100) -> list[str]:
        """Playing rooms that no live node holds (never claimed, released, or their
        node's heartbeat expired), oldest first."""
        d = self._dialect
        lease = _LEASES
        free = or_(
            lease.c.room_id.is_(None),
            lease.c.node.is_(None),
            _NODES.c.id.is_(None),
            _NODES.c.expires_at <= _now(d),
        )
        query = (
            select(_ROOMS.c.id)
            .select_from(
                _ROOMS.outerjoin(lease, lease.c.room_id == _ROOMS.c.id).outerjoin(
                    _NODES, _NODES.c.id == lease.c.node
                )
            )
            .where(_ROOMS.c.status == "playing", free)
            .order_by(_ROOMS.c.created_at, _ROOMS.c.id)
            .limit(limit)
        )
        async with self._db.engine.connect() as conn:
            return list((await conn.scalars(query)).all())

    async def alive(self, nodes: Iterable[str]) -> set[str]:
        """Which of ``nodes`` are alive (their heartbeat has not expired)."""
        wanted = sorted(set(nodes))
        if not wanted:
            return set()
        d = self._dialect
        async with self._db.engine.connect() as conn:
            rows = await conn.scalars(
                select(_NODES.c.id).where(_NODES.c.id.in_(wanted), _NODES.c.expires_at > _now(d))
            )
            return set(rows)
