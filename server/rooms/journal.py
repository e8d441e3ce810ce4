"""Group commit of the room actors' hot-path writes (actions, rack layouts, rounds).

Every room actor awaits :meth:`Journal.append_action` before it acknowledges or
broadcasts a move, so the move is committed first. The writes submitted in one
iteration of the event loop are committed together: one commit serves many rooms,
which keeps SQLite (one writer) and PostgreSQL fast under load. A batch that fails
is rolled back and written again one write at a time so that only the faulty write
fails; the others are committed.

:meth:`Journal.begin_round` and :meth:`Journal.finish_round` are
:meth:`GameLog.begin_round <server.storage.gamelog.GameLog.begin_round>` and
:meth:`~server.storage.gamelog.GameLog.finish_round` with the same rows and
results (the new round's id; ``KeyError`` for a round that does not exist;
finishing a finished round again does nothing). On a SQLite file they are
writes of the batch like the others; otherwise they call ``GameLog``.

Two ways to the database:

* **SQLite file: on the event loop** (``_LoopWriter``). Through SQLAlchemy async
  and aiosqlite every statement (``BEGIN IMMEDIATE``, the insert, ``COMMIT``...)
  is a round trip to aiosqlite's thread, and a writer thread of our own still
  costs a handoff each way per batch and, with the loop busy, a forced GIL switch
  (the thread only runs once the loop thread gives the GIL up). Yet a commit in
  WAL mode with ``synchronous=NORMAL`` is a few ``write`` calls into the WAL file,
  no ``fsync`` (only checkpoints sync): tens of microseconds. So the journal owns
  a stdlib :mod:`sqlite3` connection to the same file (the engine's pragmas: WAL,
  ``synchronous=NORMAL``, foreign keys on; ``isolation_level=None`` with explicit
  ``BEGIN IMMEDIATE``/``COMMIT``) and writes on the loop. The first write
  submitted schedules one flush (``loop.call_soon``); the writes submitted until
  it runs (the rest of that loop iteration) join it. The flush writes up to
  ``max_batch`` of them in one transaction (one ``executemany`` per table), commits,
  then resolves their futures: a write is acknowledged only once committed.

  Each row is bound when it is submitted, to exactly the text SQLAlchemy stores
  and reads back: JSON by the engine's own serializer
  (:func:`~server.storage.database.json_dumps`, compact ``orjson``), an action's
  ``created_at`` formatted straight from the clock in the SQLite dialect's
  ``DATETIME`` format (its seconds part once per second); both checked against
  the dialect's bind processors when the journal is built, which are used
  instead if they ever differ. Errors come back as SQLAlchemy's exception
  classes (``sqlalchemy.exc.IntegrityError``...) like on the other path.

  A lock held by another connection (the engine's, whose transactions last
  several awaits, or another process) must never block the loop: the
  connection's busy timeout is 0, and a flush that finds the lock taken leaves
  its writes pending and tries again after 1 ms, 2 ms, 4 ms, then every 5 ms
  (``loop.call_later``), the writes submitted meanwhile joining it. Writes that
  have waited ``busy_timeout`` seconds for the lock fail with SQLAlchemy's
  ``OperationalError`` (database is locked); the actor then undoes the move.

  Checkpoints (copying the WAL back into the database file, with ``fsync``) are
  not made on the loop: the connection has ``wal_autocheckpoint=0`` and a
  checkpoint thread (``_Checkpointer``, its own connection) is woken every
  ``checkpoint_rows`` rows written. It runs a ``PASSIVE`` checkpoint, which does
  not block writers; when the WAL holds ``checkpoint_frames`` frames or more it
  then runs a ``RESTART`` checkpoint, which holds off writers (the loop's flushes
  find the lock taken and try again) while it copies what the passive one left
  and waits for readers, so that the next write starts the WAL file over: under
  a steady stream of commits a passive checkpoint never catches up and the WAL
  would grow without end. It waits at most 10 ms for the lock and for readers;
  after a restart that gave up (a reader keeping an old snapshot) the next is
  only tried 0.1 s later, then 0.2 s... up to 5 s, so that such a reader does not
  stall the moves at every wake. So that the WAL cannot grow without bound
  whatever holds the restarts off (that reader, a disk slower than the writes),
  once ``wal_limit_rows`` rows have been written since the last restart the
  flushes wait for the next one (tried at once) as for the lock, and fail alike
  after ``busy_timeout``.

  The round writes are row kinds whose work is a small function (``_calls``)
  run in the batch's transaction, in submission order with the other writes (the
  actions and rack layouts between two such calls are still one ``executemany``
  per table: they touch other tables and commute), each returning the value that
  resolves its future once the transaction is committed (the new round's
  ``lastrowid``). ``finish_round`` reads the round in the transaction, so a
  second finish (even in the same batch) sees it finished and adds no scores. A
  function may raise (``KeyError``, an SQLite error): the batch is then rolled
  back and written again one write per savepoint like any failing batch, so the
  functions only write through the transaction and are safe to run again. Their
  values (timestamps, JSON) are bound with the dialect's bind processors;
  ``result`` is left out of the round's insert (SQL NULL), as the ORM does, while
  a JSON ``None`` would be stored as ``'null'``.
* **SQLAlchemy** (PostgreSQL, an in-memory SQLite database, which a second
  connection cannot share, or ``sqlite_inline=False``): ``writers`` tasks each
  take a batch from an asyncio queue and write it in one transaction. The round
  writes go straight to :class:`~server.storage.gamelog.GameLog` (rare, and each
  a read then writes: nothing to gain from the queue).

:meth:`Journal.stop` finishes every write submitted before it (none is cut off
mid-transaction). So that a database that does not answer cannot hang the
shutdown, it waits at most ``stop_timeout`` seconds: then the writes still waiting
fail with :class:`JournalStopped` (on SQLite they were not made: a flush never
spans an await; the SQLAlchemy tasks are cancelled, theirs may have been). On
SQLite it then closes the loop's connection, and the checkpoint thread makes a
last ``TRUNCATE`` checkpoint (the WAL file emptied) and closes its own. A write
submitted after :meth:`~Journal.stop` raises :class:`JournalStopped` (round writes
too, on both paths). A journal that was never started writes each call directly in
its own transaction (a unit test using an actor alone).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, insert, update
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from server.storage.database import (
    SQLITE_BUSY_TIMEOUT,
    SQLITE_PRAGMAS,
    Database,
    json_dumps,
    sqlite_path,
)
from server.storage.gamelog import GameLog
from server.storage.models import Action, Round, RoundScore, Seat, utcnow

log = logging.getLogger(__name__)

_ACTIONS = cast(Table, Action.__table__)
_SEATS = cast(Table, Seat.__table__)
_ROUNDS = cast(Table, Round.__table__)
_SCORES = cast(Table, RoundScore.__table__)

# The inserts' column orders; the loop writer's rows are tuples in these orders.
_ACTION_COLUMNS = ("round_id", "seq", "seat", "action", "client_seq", "source", "created_at")
# What the ORM inserts for GameLog.begin_round (``result`` is left out: SQL NULL).
_ROUND_COLUMNS = (
    "room_id",
    "number",
    "variant",
    "seed",
    "first_seat",
    "options",
    "finished",
    "created_at",
    "finished_at",
)
_SCORE_COLUMNS = ("room_id", "round_number", "seat", "score")

# Row kinds of the loop writer: _ACTION and _RACK are batched statements; from
# _BEGIN_ROUND on, each row is a function call (_LoopWriter._calls).
_ACTION = 0
_RACK = 1
_BEGIN_ROUND = 2
_FINISH_ROUND = 3

# Waits before trying again a flush that found the write lock taken: doubling from
# the first, then every _RETRY_MAX seconds.
_RETRY_FIRST = 0.001
_RETRY_MAX = 0.005

# The checkpoint thread's busy timeout: how long a RESTART checkpoint waits for the
# write lock and then for readers (meanwhile it holds the loop's writes off). After
# one that gave up, the next waits _RESTART_BACKOFF seconds, doubling up to
# _RESTART_BACKOFF_MAX (a reader keeping an old snapshot would otherwise stall the
# writes at every wake), unless the WAL is full. The last checkpoint, at stop, may
# wait _LAST_CHECKPOINT_BUSY_TIMEOUT.
_CHECKPOINT_BUSY_TIMEOUT = 0.01
_RESTART_BACKOFF = 0.1
_RESTART_BACKOFF_MAX = 5.0
_LAST_CHECKPOINT_BUSY_TIMEOUT = 1.0


class JournalStopped(RuntimeError):
    """The journal was stopped: the write was not made."""


@dataclass(slots=True)
class _Write:
    kind: str  # "action" | "rack"
    values: dict[str, Any]
    done: asyncio.Future[None] = field(repr=False)


@dataclass(slots=True)
class _Row:
    """A write for the SQLite connection: its statement's (or call's) parameters, bound."""

    kind: int  # _ACTION | _RACK | _BEGIN_ROUND | _FINISH_ROUND
    params: tuple[Any, ...]
    done: asyncio.Future[Any] = field(repr=False)
    result: Any = None  # a call's value, set once its transaction is committed


class Journal:
    """Batched durable writes; start with :meth:`start`, stop with :meth:`stop`.

    ``sqlite_inline``: None (the default) writes a SQLite file through the
    journal's own connection on the event loop; False forces the SQLAlchemy path
    (to compare); True requires a SQLite file. ``busy_timeout``: how long a write
    on that connection waits for another connection's write lock before it fails.
    ``checkpoint_rows``, ``checkpoint_frames``: how often the checkpoint thread is
    woken (rows written) and from how many WAL frames it restarts the WAL;
    ``wal_limit_rows``: how many rows may be written since the WAL last restarted
    before the writes wait for a restart. ``commit_interval``: on that connection, a
    commit starts at least this many seconds after the previous one ended, so that
    under load more writes share each commit (a write submitted later than that after
    the last commit is flushed at once, as with 0).
    """

    def __init__(
        self,
        db: Database,
        writers: int | None = None,
        max_batch: int = 500,
        *,
        sqlite_inline: bool | None = None,
        stop_timeout: float = 30.0,
        busy_timeout: float = SQLITE_BUSY_TIMEOUT,
        checkpoint_rows: int = 500,
        checkpoint_frames: int = 1000,
        wal_limit_rows: int = 50_000,
        commit_interval: float = 0.0,
    ) -> None:
        self._db = db
        self._commit_interval = max(0.0, commit_interval)
        self._stop_timeout = stop_timeout
        path = sqlite_path(db.settings.database_url) if db.settings.is_sqlite else None
        if sqlite_inline and path is None:
            raise ValueError("the journal's own SQLite connection needs a SQLite database file")
        self._path = path if sqlite_inline is not False else None
        self._queue: asyncio.Queue[_Write | None] = asyncio.Queue()
        self._writers = writers if writers is not None else (1 if db.settings.is_sqlite else 4)
        self._max_batch = max_batch
        self._busy_timeout = busy_timeout
        self._checkpoint_rows = checkpoint_rows
        self._checkpoint_frames = checkpoint_frames
        self._wal_limit_rows = wal_limit_rows
        self._tasks: list[asyncio.Task[None]] = []
        self._busy: dict[asyncio.Task[Any], list[_Write]] = {}  # each task's batch in flight
        self._writer: _LoopWriter | None = None
        self._state = "new"  # "new" (writes go directly) | "running" | "stopped"
        self._gamelog = GameLog(db)  # the round writes without the loop writer
        if path is not None:
            dialect = db.engine.dialect
            bindings = _Bindings(dialect)
            self._bind_action = bindings.action
            self._bind_rack = bindings.rack
            self._stamp = bindings.created_at
            self._bind_options = _processor(_ROUNDS, "options", dialect)
            self._bind_finished = _processor(_ROUNDS, "finished", dialect)
            self._bind_round_created_at = _processor(_ROUNDS, "created_at", dialect)
            self._bind_finished_at = _processor(_ROUNDS, "finished_at", dialect)
            self._bind_result = _processor(_ROUNDS, "result", dialect)
        self.batches = 0
        self.writes = 0

    @property
    def uses_inline(self) -> bool:
        """Whether the writes go through the journal's own SQLite connection, on the loop."""
        return self._path is not None

    @property
    def checkpoints(self) -> tuple[int, int]:
        """Checkpoints made so far by the checkpoint thread: (passive, restart)."""
        writer = self._writer
        return writer.checkpoints if writer is not None else (0, 0)

    def start(self) -> None:
        """Start the loop writer (and its checkpoint thread) or the writer task(s)."""
        if self._state == "running":
            return
        self._state = "running"
        if self._path is not None:
            self._writer = _LoopWriter(
                self._path,
                asyncio.get_running_loop(),
                self._max_batch,
                self._db.engine.dialect,
                self._count,
                busy_timeout=self._busy_timeout,
                checkpoint_rows=self._checkpoint_rows,
                checkpoint_frames=self._checkpoint_frames,
                wal_limit_rows=self._wal_limit_rows,
                commit_interval=self._commit_interval,
            )
            self._writer.start()
        else:
            self._tasks = [
                asyncio.create_task(self._run(), name=f"journal-{i}") for i in range(self._writers)
            ]

    async def stop(self) -> None:
        """Finish every write submitted so far, then stop; later writes fail."""
        if self._state != "running":
            return
        self._state = "stopped"
        writer = self._writer
        if writer is not None:
            # Kept (closing) so that later writes raise JournalStopped.
            if not await writer.stop(self._stop_timeout):
                log.error("journal_stop_timeout", extra={"timeout": self._stop_timeout})
            return
        tasks, self._tasks = self._tasks, []
        for _ in tasks:
            self._queue.put_nowait(None)  # one end marker per writer, after every write
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=self._stop_timeout)
        if not late:
            return
        log.error("journal_stop_timeout", extra={"timeout": self._stop_timeout})
        unknown = JournalStopped("the journal stopped during the write: it may have been made")
        for task in late:
            task.cancel()
            for w in self._busy.pop(task, ()):
                _fail(w.done, unknown)
        while not self._queue.empty():
            queued = self._queue.get_nowait()
            if queued is not None:
                _fail(queued.done, JournalStopped("the journal stopped before the write was made"))
        # A driver stuck in a call (a lock, a dead server) can delay even the
        # cancellation: its writers are answered already, do not wait for it.
        await asyncio.wait(late, timeout=1)

    async def append_action(
        self,
        round_id: int,
        seq: int,
        seat: int,
        action: dict[str, Any],
        client_seq: int | None,
        source: str,
    ) -> None:
        """Append one action to its round's log; returns once committed."""
        writer = self._writer
        if writer is not None:
            params = (
                round_id,
                seq,
                seat,
                self._bind_action(action),
                client_seq,
                source,
                self._stamp(),
            )
            await writer.submit(_ACTION, params)
            return
        await self._submit(
            "action",
            {
                "round_id": round_id,
                "seq": seq,
                "seat": seat,
                "action": action,
                "client_seq": client_seq,
                "source": source,
                "created_at": utcnow(),
            },
        )

    async def set_rack(self, room_id: str, seat: int, rack: dict[str, Any] | None) -> None:
        """Store a seat's rack layout; returns once committed."""
        writer = self._writer
        if writer is not None:
            await writer.submit(_RACK, (self._bind_rack(rack), room_id, seat))
            return
        await self._submit("rack", {"room_id": room_id, "seat": seat, "rack": rack})

    async def begin_round(
        self,
        room_id: str,
        number: int,
        variant: str,
        seed: str,
        first_seat: int,
        options: dict[str, Any],
    ) -> int:
        """Store a new round (:meth:`GameLog.begin_round`); returns its id once committed."""
        writer = self._writer
        if writer is None:
            return await self._direct().begin_round(
                room_id, number, variant, seed, first_seat, options
            )
        params = (
            room_id,
            number,
            variant,
            seed,
            first_seat,
            self._bind_options(options),
            self._bind_finished(False),
            self._bind_round_created_at(utcnow()),
            self._bind_finished_at(None),
        )
        return cast(int, await writer.submit(_BEGIN_ROUND, params))

    async def finish_round(
        self, round_id: int, result: dict[str, Any], scores: Sequence[int]
    ) -> None:
        """Finish the round with its result and scores (:meth:`GameLog.finish_round`).

        Nothing if it is finished already; ``KeyError`` if there is no such round.
        """
        writer = self._writer
        if writer is None:
            await self._direct().finish_round(round_id, result, scores)
            return
        params = (
            round_id,
            self._bind_finished(True),
            self._bind_result(result),
            self._bind_finished_at(utcnow()),
            tuple(scores),
        )
        await writer.submit(_FINISH_ROUND, params)

    def _direct(self) -> GameLog:
        if self._state == "stopped":
            raise JournalStopped("the journal is stopped: the write was not made")
        return self._gamelog

    def _count(self, writes: int) -> None:
        self.batches += 1
        self.writes += writes

    # ------------------------------------------------------------------ SQLAlchemy path

    async def _submit(self, kind: str, values: dict[str, Any]) -> None:
        if self._state == "stopped":
            raise JournalStopped("the journal is stopped: the write was not made")
        if self._state == "new":
            # Not started (a unit test using the actor alone): write directly.
            async with self._db.engine.begin() as conn:
                await self._write(conn, [_Write(kind, values, asyncio.Future())])
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Write(kind, values, done))
        await done

    async def _run(self) -> None:
        while True:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            last = False
            while len(batch) < self._max_batch:
                try:
                    w = self._queue.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if w is None:
                    last = True
                    break
                batch.append(w)
            task = asyncio.current_task()
            assert task is not None
            self._busy[task] = batch
            try:
                await self._write_batch(batch)
            finally:
                self._busy.pop(task, None)
            if last:
                return

    async def _write_batch(self, batch: list[_Write]) -> None:
        try:
            async with self._db.engine.begin() as conn:
                await self._write(conn, batch)
        except asyncio.CancelledError:
            for w in batch:
                _fail(w.done, JournalStopped("the journal was cancelled during the write"))
            raise
        except Exception as exc:
            if len(batch) == 1:
                _fail(batch[0].done, exc)
                return
            log.warning("journal_batch_failed", extra={"size": len(batch), "error": repr(exc)})
            for w in batch:
                try:
                    async with self._db.engine.begin() as conn:
                        await self._write(conn, [w])
                except Exception as one:
                    _fail(w.done, one)
                else:
                    _ok(w.done)
            return
        self._count(len(batch))
        for w in batch:
            _ok(w.done)

    @staticmethod
    async def _write(conn: AsyncConnection, batch: list[_Write]) -> None:
        actions = [w.values for w in batch if w.kind == "action"]
        if actions:
            await conn.execute(insert(_ACTIONS), actions)
        for w in batch:
            if w.kind == "rack":
                v = w.values
                await conn.execute(
                    update(_SEATS)
                    .where(Seat.room_id == v["room_id"], Seat.seat == v["seat"])
                    .values(rack=v["rack"])
                )


class _Bindings:
    """The hot rows' values as SQLAlchemy binds them, without its per-value wrappers.

    ``action`` and ``rack``: the engine's JSON serializer itself when the dialect
    uses :func:`~server.storage.database.json_dumps` (its JSON bind processor then
    returns exactly that for any value but SQLAlchemy's ``JSON.NULL`` marker, which
    the journal is never given), else the processor. ``created_at``: the current
    time as the column's processor formats it, from :func:`timestamp_text` if that
    gives the processor's text for sample instants, else through the processor.
    """

    def __init__(self, dialect: Dialect) -> None:
        process_action = _processor(_ACTIONS, "action", dialect)
        process_rack = _processor(_SEATS, "rack", dialect)
        fast = getattr(dialect, "_json_serializer", None) is json_dumps
        self.action: Callable[[Any], Any] = json_dumps if fast else process_action
        self.rack: Callable[[Any], Any] = json_dumps if fast else process_rack
        process_time = _processor(_ACTIONS, "created_at", dialect)
        samples = (0, 951_782_400_000_000_000, 1_700_000_000_123_456_789, time.time_ns())
        if all(timestamp_text(ns) == process_time(_instant(ns)) for ns in samples):
            self.created_at: Callable[[], Any] = _now_text
        else:
            self.created_at = lambda: process_time(utcnow())


_stamp: tuple[int, str] = (-1, "")  # the last second formatted (one assignment: atomic)


def timestamp_text(ns: int) -> str:
    """The UTC instant ``ns`` (nanoseconds since the epoch) as SQLite's ``DATETIME`` text.

    SQLAlchemy's format, ``YYYY-MM-DD HH:MM:SS.ffffff``, with the microseconds
    truncated like ``datetime.now`` does. The part up to the seconds is formatted once
    per second (the last one is kept).

    >>> timestamp_text(1_700_000_000_123_456_789)
    '2023-11-14 22:13:20.123456'
    >>> timestamp_text(0)
    '1970-01-01 00:00:00.000000'
    """
    global _stamp
    us = ns // 1000
    second = us // 1_000_000
    cached = _stamp
    if cached[0] != second:
        d = datetime.fromtimestamp(second, UTC)
        prefix = "%04d-%02d-%02d %02d:%02d:%02d." % (  # noqa: UP031 - SQLAlchemy's format
            d.year,
            d.month,
            d.day,
            d.hour,
            d.minute,
            d.second,
        )
        cached = _stamp = (second, prefix)
    return cached[1] + str(us - second * 1_000_000).zfill(6)  # faster than a format spec


def _now_text() -> str:
    return timestamp_text(time.time_ns())


def _instant(ns: int) -> datetime:
    second, rest = divmod(ns, 1_000_000_000)
    return datetime.fromtimestamp(second, UTC).replace(microsecond=rest // 1000)


class _Busy(Exception):
    """The write lock is held by another connection: the flush waits and tries again."""

    def __init__(self, error: sqlite3.Error) -> None:
        super().__init__(str(error))
        self.error = error


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class _LoopWriter:
    """The journal's own sqlite3 connection, written on the event loop (see the module doc).

    Everything runs on the loop but the :class:`_Checkpointer`.
    """

    def __init__(
        self,
        path: Path,
        loop: asyncio.AbstractEventLoop,
        max_batch: int,
        dialect: Dialect,
        on_batch: Callable[[int], None],
        *,
        busy_timeout: float,
        checkpoint_rows: int,
        checkpoint_frames: int,
        wal_limit_rows: int,
        commit_interval: float = 0.0,
    ) -> None:
        self._path = path
        self._loop = loop
        self._commit_interval = commit_interval
        self._next_commit = 0.0  # loop time before which no new flush starts
        self._max_batch = max(1, max_batch)
        self._on_batch = on_batch
        self._busy_timeout = busy_timeout
        self._pending: list[_Row] = []  # in submission order; a batch leaves once resolved
        self._scheduled = False  # a flush is due (call_soon, or call_later after a busy lock)
        self._busy_since: float | None = None  # when the flush first found the lock taken
        self._busy_rows = 0  # how many of the pending rows have waited since then
        self._delay = _RETRY_FIRST
        self._timer: asyncio.TimerHandle | None = None
        self._closing = False
        self._drained: asyncio.Future[None] | None = None  # stop() waits for it
        self._conn: sqlite3.Connection | None = None
        self._checkpoint_rows = max(1, checkpoint_rows)
        self._since_checkpoint = 0
        self._wal_limit_rows = max(1, wal_limit_rows)
        self._since_restart = 0  # rows written since the WAL restart last seen
        self._restarts_seen = 0
        self._checkpointer = _Checkpointer(path, loop, checkpoint_frames)
        self._sql = ""  # the statement being run, for the error
        quote = dialect.identifier_preparer.quote
        self._insert_sql = _insert_sql(_ACTIONS, _ACTION_COLUMNS, quote)
        seats, rack = quote(_SEATS.name), quote(_SEATS.c.rack.name)
        room_id, seat = quote(_SEATS.c.room_id.name), quote(_SEATS.c.seat.name)
        self._rack_sql = f"UPDATE {seats} SET {rack} = ? WHERE {room_id} = ? AND {seat} = ?"
        self._round_sql = _insert_sql(_ROUNDS, _ROUND_COLUMNS, quote)
        rounds, c = quote(_ROUNDS.name), {n: quote(col.name) for n, col in _ROUNDS.c.items()}
        self._round_get_sql = (
            f"SELECT {c['room_id']}, {c['number']}, {c['finished']} FROM {rounds}"
            f" WHERE {c['id']} = ?"
        )
        self._round_finish_sql = (
            f"UPDATE {rounds} SET {c['finished']} = ?, {c['result']} = ?,"
            f" {c['finished_at']} = ? WHERE {c['id']} = ?"
        )
        self._score_sql = _insert_sql(_SCORES, _SCORE_COLUMNS, quote)
        self._calls: dict[int, Callable[[sqlite3.Connection, tuple[Any, ...]], Any]] = {
            _BEGIN_ROUND: self._begin_round,
            _FINISH_ROUND: self._finish_round,
        }

    @property
    def checkpoints(self) -> tuple[int, int]:
        return self._checkpointer.passive, self._checkpointer.restarts

    def start(self) -> None:
        self._checkpointer.start()

    def submit(self, kind: int, params: tuple[Any, ...]) -> asyncio.Future[Any]:
        """Queue one write; the future is resolved once it is committed (or failed).

        Its value: None, or what the call of a call kind returned.
        """
        if self._closing:
            raise JournalStopped("the journal is stopped: the write was not made")
        loop = self._loop
        done = loop.create_future()
        self._pending.append(_Row(kind, params, done))
        if not self._scheduled:
            self._scheduled = True
            next_commit = self._next_commit
            if next_commit and loop.time() < next_commit:  # a commit just ended: join more
                self._timer = loop.call_at(next_commit, self._flush)
            else:
                loop.call_soon(self._flush)
        return done

    async def stop(self, timeout: float) -> bool:
        """Write what is pending, close the connection, end the checkpoint thread.

        After ``timeout`` seconds the writes still waiting (for the write lock) fail
        with :class:`JournalStopped`; False then, or if the checkpoint thread has not
        ended within ``timeout`` seconds more (it goes on alone: a daemon).
        """
        self._closing = True
        ended = True
        if self._pending:
            drained = self._drained = self._loop.create_future()
            try:
                await asyncio.wait_for(asyncio.shield(drained), timeout)
            except TimeoutError:
                ended = False
                self._abandon()
        self._close()
        return await self._checkpointer.stop(timeout) and ended

    def _abandon(self) -> None:
        """Fail every write still pending (none is in a transaction: flushes are synchronous)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._scheduled = False
        left, self._pending = self._pending, []
        stopped = JournalStopped("the journal stopped before the write was made")
        for row in left:
            _fail(row.done, stopped)
        self._busy_since = None

    # ------------------------------------------------------------------ the flush

    def _flush(self) -> None:
        self._scheduled = False
        self._timer = None
        pending = self._pending
        n = min(len(pending), self._max_batch)
        if n:
            if self._since_restart >= self._wal_limit_rows and not self._restarted():
                self._wait_for_checkpoint()
                return
            batch = pending[:n]
            try:
                errors = self._write(batch)
            except _Busy as busy:
                self._wait_for_lock(busy.error)
                return
            except sqlite3.Error as exc:  # no transaction: the file cannot be opened...
                errors = [self._error(exc)] * n
            except Exception as exc:  # a bug: never leave a writer waiting
                log.exception("journal_flush_failed")
                if self._conn is not None:
                    self._rollback(self._conn)
                errors = [exc] * n
            del pending[:n]
            self._busy_since = None
            self._delay = _RETRY_FIRST
            if self._commit_interval:
                self._next_commit = self._loop.time() + self._commit_interval
            self._resolve(batch, errors)
        if self._pending:
            if not self._scheduled:
                self._scheduled = True
                self._loop.call_soon(self._flush)
        elif self._drained is not None:
            _ok(self._drained)

    def _restarted(self) -> bool:
        """Whether the checkpoint thread has restarted the WAL since last seen."""
        restarts = self._checkpointer.restarts
        if restarts == self._restarts_seen:
            return False
        self._restarts_seen = restarts
        self._since_restart = 0
        return True

    def _wait_for_checkpoint(self) -> None:
        """The WAL is full (``wal_limit_rows``): wait for a restart as for the lock."""
        if self._busy_since is None:
            log.warning("journal_wal_full", extra={"rows": self._since_restart})
        self._checkpointer.wake(restart=True)
        self._sql = "PRAGMA wal_checkpoint(RESTART)"
        self._wait_for_lock(
            sqlite3.OperationalError("the WAL is full: no checkpoint could restart it")
        )

    def _wait_for_lock(self, error: sqlite3.Error) -> None:
        now = self._loop.time()
        if self._busy_since is None:
            self._busy_since, self._busy_rows = now, len(self._pending)
            self._delay = _RETRY_FIRST
        elif now - self._busy_since >= self._busy_timeout:
            n, waited = self._busy_rows, now - self._busy_since
            late = self._pending[:n]
            del self._pending[:n]
            log.error("journal_lock_timeout", extra={"size": n, "waited_s": round(waited, 3)})
            exc = DBAPIError.instance(self._sql, None, error, sqlite3.Error)
            for row in late:
                _fail(row.done, exc)
            # The writes submitted since wait their own busy_timeout from now on.
            self._busy_since, self._busy_rows = now, len(self._pending)
            if not self._pending:
                self._busy_since = None
                if self._drained is not None:
                    _ok(self._drained)
                return
        self._scheduled = True
        self._timer = self._loop.call_later(self._delay, self._flush)
        self._delay = min(self._delay * 2, _RETRY_MAX)

    def _write(self, batch: list[_Row]) -> list[BaseException | None] | None:
        """Write the batch; None if it was committed whole, else each write's error or None.

        Raises :class:`_Busy` when the lock is taken: nothing was written.
        """
        conn = self._begin()
        try:
            calls = self._rows(conn, batch)
            self._sql = "COMMIT"
            conn.execute(self._sql)
        except Exception as exc:
            error = self._error(exc)
            self._rollback(conn)
            if len(batch) == 1:
                return [error]
            log.warning("journal_batch_failed", extra={"size": len(batch), "error": repr(error)})
            return self._one_by_one(batch)
        except BaseException:
            self._rollback(conn)
            raise
        for row, value in calls:  # only now: a rolled back call's value is void
            row.result = value
        self._written(len(batch))
        return None

    def _one_by_one(self, batch: list[_Row]) -> list[BaseException | None]:
        """Write each row of a failed batch in its own savepoint of one transaction."""
        conn = self._begin()  # _Busy if another connection took the lock meanwhile
        errors: list[BaseException | None] = []
        calls: list[tuple[_Row, Any]] = []
        try:
            for row in batch:
                conn.execute("SAVEPOINT journal_row")
                try:
                    calls += self._rows(conn, [row])
                except Exception as exc:
                    errors.append(self._error(exc))
                    # Raises if SQLite rolled the whole transaction back (disk full...).
                    conn.execute("ROLLBACK TO journal_row")
                else:
                    errors.append(None)
                conn.execute("RELEASE journal_row")
            self._sql = "COMMIT"
            conn.execute(self._sql)
        except Exception as exc:
            error = self._error(exc)
            self._rollback(conn)
            return [error] * len(batch)
        except BaseException:
            self._rollback(conn)
            raise
        for row, value in calls:
            row.result = value
        self._written(sum(e is None for e in errors))
        return errors

    def _written(self, rows: int) -> None:
        self._restarted()
        self._since_restart += rows
        self._since_checkpoint += rows
        if self._since_checkpoint >= self._checkpoint_rows:
            self._since_checkpoint = 0
            self._checkpointer.wake()

    def _begin(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
            self._sql = "BEGIN IMMEDIATE"
            conn.execute(self._sql)
        except sqlite3.Error as exc:
            if _is_busy(exc):
                raise _Busy(exc) from exc
            raise
        return conn

    def _rows(self, conn: sqlite3.Connection, rows: Sequence[_Row]) -> list[tuple[_Row, Any]]:
        """Write the rows, in order; the calls among them with their values."""
        calls: list[tuple[_Row, Any]] = []
        start = 0
        for i, row in enumerate(rows):
            if row.kind >= _BEGIN_ROUND:  # the statements submitted before it first
                self._statements(conn, rows[start:i])
                calls.append((row, self._calls[row.kind](conn, row.params)))
                start = i + 1
        self._statements(conn, rows[start:] if start else rows)
        return calls

    def _statements(self, conn: sqlite3.Connection, rows: Sequence[_Row]) -> None:
        """The actions and rack layouts among ``rows``: one ``executemany`` per table.

        They touch different tables, so the actions may go first.
        """
        if not rows:
            return
        actions = [r.params for r in rows if r.kind == _ACTION]
        if actions:
            self._sql = self._insert_sql
            conn.executemany(self._sql, actions)
        if len(actions) < len(rows):
            self._sql = self._rack_sql
            conn.executemany(self._sql, [r.params for r in rows if r.kind == _RACK])

    def _begin_round(self, conn: sqlite3.Connection, params: tuple[Any, ...]) -> int:
        self._sql = self._round_sql
        round_id = conn.execute(self._sql, params).lastrowid
        assert round_id is not None
        return round_id

    def _finish_round(self, conn: sqlite3.Connection, params: tuple[Any, ...]) -> None:
        round_id, finished, result, finished_at, scores = params
        self._sql = self._round_get_sql
        found = conn.execute(self._sql, (round_id,)).fetchone()
        if found is None:
            raise KeyError(round_id)
        room_id, number, already = found
        if already:
            return
        self._sql = self._round_finish_sql
        conn.execute(self._sql, (finished, result, finished_at, round_id))
        if scores:
            self._sql = self._score_sql
            conn.executemany(
                self._sql, [(room_id, number, seat, score) for seat, score in enumerate(scores)]
            )

    def _error(self, exc: Exception) -> Exception:
        if isinstance(exc, sqlite3.Error):
            return DBAPIError.instance(self._sql, None, exc, sqlite3.Error)
        return exc

    def _rollback(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("journal_rollback_failed")
            self._close()  # a fresh connection for the next transaction

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            # Busy timeout 0: a lock taken is reported at once, never waited for here.
            conn = sqlite3.connect(self._path, timeout=0, isolation_level=None)
            try:
                for pragma in (*SQLITE_PRAGMAS, "PRAGMA wal_autocheckpoint=0"):
                    self._sql = pragma
                    conn.execute(pragma)
            except sqlite3.Error:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                log.exception("journal_close_failed")

    def _resolve(self, batch: list[_Row], errors: Sequence[BaseException | None] | None) -> None:
        if errors is None:
            self._on_batch(len(batch))
            for row in batch:
                if not row.done.done():
                    row.done.set_result(row.result)
            return
        for row, error in zip(batch, errors, strict=True):
            if error is None:
                _ok(row.done, row.result)
            else:
                _fail(row.done, error)


class _Checkpointer:
    """The checkpoint thread of the loop writer, with its own connection (see the module doc).

    :meth:`wake` and :meth:`stop` are called on the loop; ``passive`` and
    ``restarts`` count the checkpoints made.
    """

    def __init__(self, path: Path, loop: asyncio.AbstractEventLoop, frames: int) -> None:
        self._path = path
        self._loop = loop
        self._frames = max(1, frames)
        self._wake = threading.Event()
        self._restart = False  # the next checkpoint restarts the WAL: it is full
        self._backoff = 0.0
        self._restart_after = 0.0  # time.monotonic() before which no RESTART is tried
        self._stopping = False
        self._exited: asyncio.Future[None] = loop.create_future()
        self._thread = threading.Thread(target=self._main, name="journal-checkpoint", daemon=True)
        self.passive = 0
        self.restarts = 0

    def start(self) -> None:
        self._thread.start()

    def wake(self, *, restart: bool = False) -> None:
        if restart:
            self._restart = True
        self._wake.set()

    async def stop(self, timeout: float) -> bool:
        """Make the last checkpoint and end; False if not ended after ``timeout`` seconds."""
        if self._thread.ident is None:
            return True  # never started
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._exited), timeout)
        except TimeoutError:
            return False
        self._thread.join()  # it has posted its last callback: it is returning
        return True

    # ------------------------------------------------------------------ in the thread

    def _main(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(
                self._path, timeout=_CHECKPOINT_BUSY_TIMEOUT, isolation_level=None
            )
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    break
                restart, self._restart = self._restart, False
                self._checkpoint(conn, restart)
            conn.execute(f"PRAGMA busy_timeout={round(_LAST_CHECKPOINT_BUSY_TIMEOUT * 1000)}")
            busy, frames, _ = self._run(conn, "TRUNCATE")
            if busy:
                log.warning("journal_checkpoint_busy", extra={"mode": "TRUNCATE", "frames": frames})
        except BaseException:
            log.exception("journal_checkpoint_failed")
        finally:
            if conn is not None:
                try:
                    conn.close()
                except sqlite3.Error:
                    log.exception("journal_close_failed")
            # RuntimeError: the event loop is closed, nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(_ok, self._exited)

    def _checkpoint(self, conn: sqlite3.Connection, restart: bool) -> None:
        try:
            _, frames, _ = self._run(conn, "PASSIVE")
            self.passive += 1
            if not restart and (frames < self._frames or time.monotonic() < self._restart_after):
                return
            busy, frames, _ = self._run(conn, "RESTART")
            if busy:
                self._backoff = min(max(2 * self._backoff, _RESTART_BACKOFF), _RESTART_BACKOFF_MAX)
                self._restart_after = time.monotonic() + self._backoff
                # Expected now and then under heavy writes (tried again later); a WAL
                # kept from restarting for long ends in journal_wal_full (a warning).
                log.info(
                    "journal_checkpoint_busy",
                    extra={"mode": "RESTART", "frames": frames, "retry_s": self._backoff},
                )
            else:
                self.restarts += 1
                self._backoff = self._restart_after = 0.0
        except sqlite3.Error:
            log.exception("journal_checkpoint_failed")

    @staticmethod
    def _run(conn: sqlite3.Connection, mode: str) -> tuple[int, int, int]:
        """One checkpoint: (busy, frames in the WAL, frames checkpointed)."""
        started = time.perf_counter()
        row = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        busy, frames, done = int(row[0]), int(row[1]), int(row[2])
        log.debug(
            "journal_checkpoint",
            extra={
                "mode": mode,
                "busy": busy,
                "frames": frames,
                "checkpointed": done,
                "ms": round((time.perf_counter() - started) * 1e3, 3),
            },
        )
        return busy, frames, done


def _processor(table: Table, column: str, dialect: Dialect) -> Callable[[Any], Any]:
    """The dialect's bind processor of a column: the value exactly as SQLAlchemy stores it."""
    type_ = table.c[column].type
    process = type_.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return _same
    return cast(Callable[[Any], Any], process)


def _insert_sql(table: Table, columns: Sequence[str], quote: Callable[[str], str]) -> str:
    cols = ", ".join(quote(table.c[n].name) for n in columns)
    marks = ", ".join("?" for _ in columns)
    return f"INSERT INTO {quote(table.name)} ({cols}) VALUES ({marks})"


def _same(value: Any) -> Any:
    return value


def _ok(done: asyncio.Future[Any], value: Any = None) -> None:
    if not done.done():
        done.set_result(value)


def _fail(done: asyncio.Future[Any], exc: BaseException) -> None:
    if not done.done():
        done.set_exception(exc)
