"""The room actors' durable writes, group-committed: moves, rack layouts, rounds.

A room actor awaits :meth:`Journal.append_action` before it acknowledges or
broadcasts a move, so every move is committed first. The writes go through
SQLAlchemy, the same statements on PostgreSQL (asyncpg, through the async engine)
and on SQLite (WAL, ``synchronous=NORMAL``, see :mod:`server.storage.database`;
each transaction in one call to the standard library's driver on the writer's own
thread, see :class:`_Connection`).

Group commit: a writer task takes every write queued so far (at most
``max_batch``) and makes them one transaction: one ``executemany`` for the
actions, one for the rack layouts, then the round writes in the order they came.
The writes that arrive while that commit is in flight wait in the queue and
share the next one, so the fixed cost of a commit (the round trips, SQLite's
write to its WAL, PostgreSQL's flush of its log) is shared by all of them, and
the busier the server, the more writes each commit carries. Each write's future
is resolved only once its transaction is committed. The writer keeps its
connection from one transaction to the next.

Taking the actions before the rack layouts changes nothing: an actor awaits each
of its writes, so no write of a batch depends on another one of it.

A batch that fails is written again one write per transaction, so that only the
faulty write fails (say an ``IntegrityError`` for a ``seq`` already taken) and
the others are committed. A write whose outcome is unknown (the connection was lost
with the commit's answer: the commit may have reached the database) is never
answered as failed: it is written again until the database answers, and a copy
found committed with the same values counts as the write (``Journal._write_one``).
So the room waits for the truth, its state stays the log's, and a move is in the
log once.

A round's finish is a unit of work (:data:`~server.storage.gamelog.Work`) that the domain
composes (:class:`server.economy.settlement.RoundFinish`: the scores stored, then settled
into the balances of the seats' players) and the journal runs in its transaction, in
order with the batch's other round writes; a joker button's action carries the unit
that spends its credit (:class:`~server.economy.settlement.JokerSpend`), run in the
transaction that logs the action. The finish of a round finished already does nothing
(and each settlement has a unique ledger key besides), so a retried or uncertain write
settles and spends exactly once, and a crash before the commit settles nothing: the
restarted room finishes the round again. The journal imports no domain module.

Fencing (several nodes on one database, :mod:`server.storage.leases`): a write may carry
the :class:`~server.storage.leases.Fence` of its room's owner. :func:`_write` reads the
lease rows of the batch's rooms share-locked, first thing in the transaction, and leaves
out the writes whose room's lease is no longer theirs: those fail with
:class:`~server.storage.leases.Fenced` once the rest is committed. A stale owner's write
is thus refused by the database, and a claim of the room waits for the writes already
checked, so the new owner reads them.

The round writes have :class:`~server.storage.gamelog.GameLog`'s meaning:
:meth:`Journal.begin_round` returns the new round's id; a round finish
(:func:`~server.storage.gamelog.store_round_finish`) raises ``KeyError`` for a round that
does not exist and does nothing for one that is finished already.

:meth:`Journal.stop` commits every write queued before it; a write submitted
after it raises :class:`JournalStopped`. So that a database that does not answer
cannot hang the shutdown, it waits at most ``stop_timeout`` seconds, then fails
the writes left with :class:`JournalStopped`. A journal that was never started
writes each call in a transaction of its own (an actor tested alone).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, insert, select, update
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    NotSupportedError,
    ProgrammingError,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from server.backoff import Backoff
from server.metrics import LATENCY_BUCKETS, LatencyHistogram
from server.storage.database import Database
from server.storage.gamelog import Work
from server.storage.leases import Fence, Fenced, stale_rooms
from server.storage.models import Action, Round, Seat, utcnow

log = logging.getLogger(__name__)

_ACTIONS = cast(Table, Action.__table__)
_SEATS = cast(Table, Seat.__table__)
_ROUNDS = cast(Table, Round.__table__)

_INSERT_ACTION = insert(_ACTIONS)
_SET_RACK = (
    update(_SEATS)
    .where(_SEATS.c.room_id == bindparam("b_room_id"), _SEATS.c.seat == bindparam("b_seat"))
    .values(rack=bindparam("rack"))
)
_INSERT_ROUND = insert(_ROUNDS).returning(_ROUNDS.c.id)


_RETRY = Backoff(base=0.05, cap=2.0)
"""Seconds between the attempts at a write whose outcome is unknown."""


class JournalStopped(RuntimeError):
    """The journal is stopped (or stopped during the write, see the message)."""


@dataclass(slots=True)
class _Write:
    kind: str  # "action" | "rack" | "begin_round" | "finish_round"
    values: dict[str, Any]
    done: asyncio.Future[Any] = field(repr=False)
    result: Any = None  # begin_round: the new round's id, once written
    work: Work | None = None  # finish_round: the unit; action: a joker spend after it
    fence: Fence | None = None  # the room's owner the write is conditional on
    fenced: bool = False  # refused by the fence in the last attempt


class Journal:
    """Group-committed durable writes; :meth:`start` it, :meth:`stop` it.

    ``writers``: how many transactions may be in flight at once (each takes the
    writes queued when it starts); ``max_batch``: the most writes in one.
    """

    def __init__(
        self,
        db: Database,
        *,
        writers: int = 1,
        max_batch: int = 500,
        stop_timeout: float = 30.0,
    ) -> None:
        self._db = db
        self._writers = max(1, writers)
        self._max_batch = max(1, max_batch)
        self._stop_timeout = stop_timeout
        self._queue: list[_Write] = []
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._in_flight: list[list[_Write]] = []  # the batches being written
        self._state = "new"  # "new" (writes directly) | "running" | "stopped"
        self.commits = 0
        """Transactions committed by the writer tasks."""
        self.writes = 0
        """Writes committed by the writer tasks."""
        self.uncertain = 0
        """Attempts whose outcome was unknown (the connection lost during the write), each
        written again until the database answered."""
        self.fenced = 0
        """Writes refused because their room's lease was no longer theirs."""
        self.failed = 0
        """Writes answered with an error (fenced ones not counted)."""
        self.stalled_since: float | None = None
        """Since when (monotonic) a write has been waiting for an unreachable database."""
        self.commit_seconds = LatencyHistogram(LATENCY_BUCKETS)
        """How long each transaction of the writers took, from its start to its commit."""

    def start(self) -> None:
        """Start the writer task(s) on the running event loop (again after a stop)."""
        if self._state == "running":
            return
        self._state = "running"
        self._wake = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._run(), name=f"journal-{i}") for i in range(self._writers)
        ]

    async def stop(self) -> None:
        """Commit every write queued so far, then stop: later writes raise JournalStopped."""
        if self._state != "running":
            return
        self._state = "stopped"
        self._wake.set()
        tasks, self._tasks = self._tasks, []
        _, late = await asyncio.wait(tasks, timeout=self._stop_timeout)
        if not late:
            return
        log.error("journal_stop_timeout", extra={"timeout": self._stop_timeout})
        # Answered here: a cancelled writer may wait in the driver a while yet.
        unknown = JournalStopped("the journal stopped during the write: it may be made")
        for batch in self._in_flight:
            for w in batch:
                _fail(w.done, unknown)
        left, self._queue = self._queue, []
        for w in left:
            _fail(w.done, JournalStopped("the journal stopped before the write was made"))
        for task in late:
            task.cancel()
        await asyncio.wait(late, timeout=1)

    async def append_action(
        self,
        round_id: int,
        seq: int,
        seat: int,
        action: Mapping[str, Any],
        client_seq: int | None,
        source: str,
        version: int | None = None,
        spend: Work | None = None,
        fence: Fence | None = None,
    ) -> None:
        """Append one action to its round's log (``version``: the room's after it, the
        one its ack carries); returns once committed.

        ``spend``: the action is the 101 joker button of a seat with a player, whose
        joker credit this unit spends in the same transaction, after the action's insert
        (:class:`~server.economy.settlement.JokerSpend`); what it raises (no credit:
        :class:`~server.economy.ledger.NoJokerCredit`) fails the write, and the action
        is not logged."""
        values = {
            "round_id": round_id,
            "seq": seq,
            "seat": seat,
            "action": action,
            "client_seq": client_seq,
            "source": source,
            "version": version,
            "created_at": utcnow(),
            "epoch": fence.epoch if fence is not None else None,
        }
        await self._submit("action", values, spend, fence)

    async def set_rack(
        self, room_id: str, seat: int, rack: dict[str, Any] | None, fence: Fence | None = None
    ) -> None:
        """Store a seat's rack layout; returns once committed."""
        values = {"b_room_id": room_id, "b_seat": seat, "rack": rack}
        await self._submit("rack", values, fence=fence)

    async def begin_round(
        self,
        room_id: str,
        number: int,
        variant: str,
        seed: str,
        first_seat: int,
        options: dict[str, Any],
        fence: Fence | None = None,
    ) -> int:
        """Store a new round; returns its id once committed."""
        values = {
            "room_id": room_id,
            "number": number,
            "variant": variant,
            "seed": seed,
            "first_seat": first_seat,
            "options": options,
            "finished": False,
            "created_at": utcnow(),
            "epoch": fence.epoch if fence is not None else None,
        }
        return cast(int, await self._submit("begin_round", values, fence=fence))

    async def finish_round(self, work: Work, fence: Fence | None = None) -> None:
        """Run a round's finish, composed by the domain
        (:class:`~server.economy.settlement.RoundFinish`), in order with the batch's other
        round writes; returns once committed. It may run again after an unknown
        outcome: a finished round's finish does nothing (``KeyError`` if there is no
        such round)."""
        await self._submit("finish_round", {}, work, fence)

    # ------------------------------------------------------------------ the writers

    async def _submit(
        self,
        kind: str,
        values: dict[str, Any],
        work: Work | None = None,
        fence: Fence | None = None,
    ) -> Any:
        if self._state == "stopped":
            raise JournalStopped("the journal is stopped: the write was not made")
        write = _Write(
            kind, values, asyncio.get_running_loop().create_future(), work=work, fence=fence
        )
        if self._state == "new":
            async with self._db.engine.begin() as conn:
                await conn.run_sync(_write, [write])
            if write.fenced:
                self.fenced += 1
                raise _fenced(write)
            return write.result
        self._queue.append(write)
        self._wake.set()
        return await write.done

    async def _run(self) -> None:
        """One writer: commit what is queued, batch after batch; end once stopped and empty."""
        conn = _Connection(self._db)
        try:
            while True:
                if not self._queue:
                    if self._state != "running":
                        return
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                batch = self._queue[: self._max_batch]
                del self._queue[: len(batch)]
                self._in_flight.append(batch)
                try:
                    await self._commit(conn, batch)
                except Exception as exc:  # a writer never dies: its batch is answered
                    log.exception("journal_writer_error")
                    for w in batch:
                        _fail(w.done, exc)
                finally:
                    self._in_flight.remove(batch)
        finally:
            await conn.close()

    async def _commit(self, conn: _Connection, batch: list[_Write]) -> None:
        """Write the batch in one transaction, else each write in its own; resolve them."""
        try:
            await self._timed(conn, batch)
        except Exception as exc:
            if len(batch) == 1 and not _uncertain(exc):
                self.failed += 1
                _fail(batch[0].done, exc)
                return
            log.warning("journal_batch_failed", extra={"size": len(batch), "error": repr(exc)})
            for w in batch:
                await self._write_one(conn, w)
            return
        self._committed(batch)

    async def _write_one(self, conn: _Connection, w: _Write) -> None:
        """The write in a transaction of its own, its outcome certain before it is answered.

        A write whose transaction's fate is unknown (the connection was lost with the
        commit's answer) is written again until the database answers: a copy already
        committed then refuses it (a duplicate key) and is found with the same values
        (:func:`_made_already`), so the write is answered as made, and never twice."""
        attempt = 0
        try:
            while True:
                try:
                    await self._timed(conn, [w])
                    self._committed([w])
                    return
                except Exception as exc:
                    if not _uncertain(exc):
                        try:
                            made = await conn.made_already(w)
                        except Exception as found_exc:
                            if not _uncertain(found_exc):
                                raise
                            exc = found_exc  # the database went away again: try again
                        else:
                            if made:
                                w.fenced = False  # a copy committed earlier: it counts
                                self._committed([w])
                            else:
                                self.failed += 1
                                _fail(w.done, exc)
                            return
                    if self._state != "running":
                        self.failed += 1
                        _fail(
                            w.done,
                            JournalStopped("the journal stopped during the write: it may be made"),
                        )
                        return
                    self.uncertain += 1
                    if self.stalled_since is None:
                        self.stalled_since = time.monotonic()
                    log.warning("journal_write_uncertain", extra={"error": repr(exc)})
                    await asyncio.sleep(_RETRY.delay(attempt))
                    attempt += 1
        finally:
            self.stalled_since = None

    async def _timed(self, conn: _Connection, batch: list[_Write]) -> None:
        t0 = time.perf_counter()
        await conn.write(batch)
        self.commit_seconds.observe(time.perf_counter() - t0)

    def _committed(self, batch: list[_Write]) -> None:
        self.commits += 1
        self.writes += len(batch)
        for w in batch:
            if w.fenced:
                self.fenced += 1
                _fail(w.done, _fenced(w))
            elif not w.done.done():
                w.done.set_result(w.result)


class _Connection:
    """A writer's connection, kept from one transaction to the next (no pool checkout,
    no ping); one whose transaction failed is closed and a new one taken for the next.

    PostgreSQL (and any async driver): an ``AsyncConnection``, the batch's statements
    run by :func:`_write` through ``run_sync``. SQLite: the standard library's driver
    on a thread of this writer's own, the whole transaction in one call to it
    (:func:`~server.storage.database.build_sqlite_sync_engine` says why); the
    statements are the same :func:`_write`.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._conn: AsyncConnection | None = None
        self._sync_engine = db.sqlite_sync_engine()
        self._sync_conn: Connection | None = None
        self._thread = (
            ThreadPoolExecutor(1, thread_name_prefix="journal")
            if self._sync_engine is not None
            else None
        )

    async def write(self, batch: list[_Write]) -> None:
        """The batch in one transaction, committed when this returns."""
        if self._thread is not None:
            abandoned = threading.Event()
            done = asyncio.get_running_loop().run_in_executor(
                self._thread, self._sync_write, batch, abandoned
            )
            try:
                await done
            except asyncio.CancelledError:
                abandoned.set()  # the thread rolls back unless it is committing already
                raise
            return
        conn = self._conn
        if conn is None:
            conn = self._conn = await self._db.engine.connect()
        try:
            async with conn.begin():
                await conn.run_sync(_write, batch)
        except BaseException:
            self._conn = None
            with contextlib.suppress(Exception):  # the transaction's error is the one to tell
                await conn.close()
            raise

    async def made_already(self, w: _Write) -> bool:
        """Whether the write is in the database already (see :func:`_made_already`)."""
        if self._thread is not None:
            return await asyncio.get_running_loop().run_in_executor(
                self._thread, self._sync_made_already, w
            )
        async with self._db.engine.connect() as conn:
            return await conn.run_sync(_made_already, w)

    def _sync_made_already(self, w: _Write) -> bool:
        assert self._sync_engine is not None
        with self._sync_engine.connect() as conn:
            return _made_already(conn, w)

    def _sync_write(self, batch: list[_Write], abandoned: threading.Event) -> None:
        """SQLite, on the writer's thread: the batch in one transaction, rolled back
        if the writer stopped waiting for it (a stop that timed out, say while another
        writer held the database's lock)."""
        assert self._sync_engine is not None
        conn = self._sync_conn
        if conn is None:
            conn = self._sync_conn = self._sync_engine.connect()
        try:
            with conn.begin():
                _write(conn, batch)
                if abandoned.is_set():
                    raise JournalStopped("the writer stopped waiting: rolled back")
        except BaseException:
            self._sync_conn = None
            with contextlib.suppress(Exception):
                conn.close()
            raise

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()
        thread, self._thread = self._thread, None
        if thread is not None:
            sync_conn, self._sync_conn = self._sync_conn, None
            if sync_conn is not None:
                await asyncio.get_running_loop().run_in_executor(thread, sync_conn.close)
            thread.shutdown(wait=False)


def _write(conn: Connection, batch: list[_Write]) -> None:
    """The batch's statements, by kind (no write of a batch depends on another: module doc);
    the writes whose room's lease is no longer theirs are left out (``fenced``)."""
    fences = [w.fence for w in batch if w.fence is not None]
    stale = stale_rooms(conn, fences) if fences else set()
    for w in batch:
        w.fenced = w.fence is not None and w.fence.room_id in stale
    if stale:
        batch = [w for w in batch if not w.fenced]
    actions = [w.values for w in batch if w.kind == "action"]
    if actions:
        conn.execute(_INSERT_ACTION, actions)
    for w in batch:
        if w.kind == "action" and w.work is not None:
            w.work(conn)
    racks = [w.values for w in batch if w.kind == "rack"]
    if racks:
        conn.execute(_SET_RACK, racks)
    for w in batch:
        if w.kind == "begin_round":
            w.result = conn.execute(_INSERT_ROUND, w.values).scalar_one()
        elif w.kind == "finish_round" and w.work is not None:
            w.work(conn)


def _made_already(conn: Connection, w: _Write) -> bool:
    """Whether an action or a round is in the database with the write's values (a
    transaction committed although its answer was lost); ``begin_round`` then gets the
    round's id. Rack layouts and round finishes are the same written twice."""
    v = w.values
    if w.kind == "action":
        row = conn.execute(
            select(
                _ACTIONS.c.seat, _ACTIONS.c.action, _ACTIONS.c.client_seq, _ACTIONS.c.source
            ).where(_ACTIONS.c.round_id == v["round_id"], _ACTIONS.c.seq == v["seq"])
        ).first()
        return row is not None and tuple(row) == (
            v["seat"],
            v["action"],
            v["client_seq"],
            v["source"],
        )
    if w.kind == "begin_round":
        found = conn.execute(
            select(_ROUNDS.c.id, _ROUNDS.c.seed).where(
                _ROUNDS.c.room_id == v["room_id"], _ROUNDS.c.number == v["number"]
            )
        ).first()
        if found is None or found.seed != v["seed"]:
            return False
        w.result = found.id
        return True
    return False


_REFUSALS = (IntegrityError, DataError, ProgrammingError, NotSupportedError)
"""The database's own answers that it ran the statement and refused it."""


def _uncertain(exc: BaseException) -> bool:
    """Whether the write may or may not be committed, so that only the database can tell:
    any failure to reach it or to hear its answer (a lost connection, perhaps with the
    commit's answer; a connection refused, reset or not accepted yet while the server
    starts; a timeout), as opposed to a statement it ran and refused, or an error of
    the write's own (a missing round, no joker credit)."""
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or not isinstance(exc, _REFUSALS)
    return isinstance(exc, (OSError, TimeoutError))


def _fenced(w: _Write) -> Fenced:
    fence = w.fence
    assert fence is not None
    return Fenced(f"room {fence.room_id}: epoch {fence.epoch} is no longer this node's")


def _fail(done: asyncio.Future[Any], exc: BaseException) -> None:
    if not done.done():
        done.set_exception(exc)
