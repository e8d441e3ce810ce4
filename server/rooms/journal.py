"""Group commit of the room actors' hot-path writes (actions, rack layouts, rounds).

Every room actor awaits :meth:`Journal.append_action` before it acknowledges or
broadcasts a move, so the move is committed first. Writes that arrive while a
commit is in flight are gathered into the next transaction: one commit serves
many rooms, which keeps SQLite (one writer) and PostgreSQL fast under load.
A batch that fails is rolled back and retried one write per transaction so
that only the faulty write fails; the others are committed.

:meth:`Journal.begin_round` and :meth:`Journal.finish_round` are
:meth:`GameLog.begin_round <server.storage.gamelog.GameLog.begin_round>` and
:meth:`~server.storage.gamelog.GameLog.finish_round` with the same rows and
results (the new round's id; ``KeyError`` for a round that does not exist;
finishing a finished round again does nothing). On the writer thread they are
writes of the batch like the others; without the thread they call ``GameLog``.

Two ways to the database:

* **SQLite file: one writer thread** (``_SqliteWriter``). Through SQLAlchemy
  async and aiosqlite every statement of a batch (``BEGIN IMMEDIATE``, the
  insert, ``COMMIT``...) is a round trip to aiosqlite's thread, each with a
  queue handoff, a GIL handover and a self-pipe wakeup of the event loop, plus
  SQLAlchemy's compile and bind work per row. Instead the journal owns one
  thread with its own stdlib :mod:`sqlite3` connection to the same file (the
  engine's pragmas: WAL, ``synchronous=NORMAL``, foreign keys on; the same
  busy timeout, since the SQLAlchemy engine writes to the file too;
  ``isolation_level=None`` with explicit ``BEGIN IMMEDIATE``/``COMMIT``). The
  event loop serializes each row when it is submitted (with the dialect's own
  bind processors, so the stored JSON and timestamp text are exactly what
  SQLAlchemy writes and reads back), appends it to a pending list and wakes the
  thread only if it is idle. The thread takes everything pending (up to
  ``max_batch``), runs one transaction (one ``executemany`` per table) and
  resolves the whole batch with one ``call_soon_threadsafe``: one handoff each
  way per batch instead of several per statement. Errors come back as
  SQLAlchemy's exception classes (``sqlalchemy.exc.IntegrityError``...) like
  on the other path.

  The round writes are row kinds whose work is a small function (``_calls``)
  run in the batch's transaction on the thread's connection, in submission
  order with the other writes (the actions and rack layouts between two such
  calls are still one ``executemany`` per table: they touch other tables and
  commute), each returning the value that resolves its future once the
  transaction is committed (the new round's ``lastrowid``). ``finish_round``
  reads the round in the transaction, so a second finish (even in the same
  batch) sees it finished and adds no scores. A function may raise
  (``KeyError``, an SQLite error): the batch is then rolled back and retried
  one write at a time like any failing batch, so the functions only write
  through the transaction and are safe to run again. Their values (timestamps,
  JSON) are bound on the loop like the others; ``result`` is left out of the
  round's insert (SQL NULL), as the ORM does, while a JSON ``None`` would be
  stored as ``'null'``.
* **SQLAlchemy** (PostgreSQL, an in-memory SQLite database, which a second
  connection cannot share, or ``sqlite_thread=False``): ``writers`` tasks each
  take a batch from an asyncio queue and write it in one transaction. The
  round writes go straight to :class:`~server.storage.gamelog.GameLog` (rare,
  and each a read then writes: nothing to gain from the queue).

:meth:`Journal.stop` finishes every write submitted before it (none is cut
off mid-transaction), then stops the thread or tasks and closes the thread's
connection. So that a database that does not answer cannot hang the shutdown,
it waits at most ``stop_timeout`` seconds: then the SQLAlchemy tasks are
cancelled and their writes fail with :class:`JournalStopped`, while the thread
(a daemon, which cannot be interrupted in a blocking SQLite call) is left to
finish its writes and resolve them if the event loop still runs. A write
submitted after :meth:`~Journal.stop` raises :class:`JournalStopped` (round
writes too, on both paths). A journal that was never started writes each call
directly in its own transaction (a unit test using an actor alone).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
    sqlite_path,
)
from server.storage.gamelog import GameLog
from server.storage.models import Action, Round, RoundScore, Seat, utcnow

log = logging.getLogger(__name__)

_ACTIONS = cast(Table, Action.__table__)
_SEATS = cast(Table, Seat.__table__)
_ROUNDS = cast(Table, Round.__table__)
_SCORES = cast(Table, RoundScore.__table__)

# The inserts' column orders; the writer thread's rows are tuples in these orders.
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

# Row kinds of the writer thread: _ACTION and _RACK are batched statements; from
# _BEGIN_ROUND on, each row is a function call (_SqliteWriter._calls).
_ACTION = 0
_RACK = 1
_BEGIN_ROUND = 2
_FINISH_ROUND = 3


class JournalStopped(RuntimeError):
    """The journal was stopped: the write was not made."""


@dataclass(slots=True)
class _Write:
    kind: str  # "action" | "rack"
    values: dict[str, Any]
    done: asyncio.Future[None] = field(repr=False)


@dataclass(slots=True)
class _Row:
    """A write for the SQLite thread: its statement's (or call's) parameters, already bound."""

    kind: int  # _ACTION | _RACK | _BEGIN_ROUND | _FINISH_ROUND
    params: tuple[Any, ...]
    done: asyncio.Future[Any] = field(repr=False)
    result: Any = None  # a call's value, set once its transaction is committed


class Journal:
    """Batched durable writes; start with :meth:`start`, stop with :meth:`stop`.

    ``sqlite_thread``: None (the default) uses the writer thread when the
    database is a SQLite file; False forces the SQLAlchemy path (to compare);
    True requires a SQLite file.
    """

    def __init__(
        self,
        db: Database,
        writers: int | None = None,
        max_batch: int = 500,
        *,
        sqlite_thread: bool | None = None,
        stop_timeout: float = 30.0,
    ) -> None:
        self._db = db
        self._stop_timeout = stop_timeout
        path = sqlite_path(db.settings.database_url) if db.settings.is_sqlite else None
        if sqlite_thread and path is None:
            raise ValueError("the journal's SQLite writer thread needs a SQLite database file")
        self._path = path if sqlite_thread is not False else None
        self._queue: asyncio.Queue[_Write | None] = asyncio.Queue()
        self._writers = writers if writers is not None else (1 if db.settings.is_sqlite else 4)
        self._max_batch = max_batch
        self._tasks: list[asyncio.Task[None]] = []
        self._busy: dict[asyncio.Task[Any], list[_Write]] = {}  # each task's batch in flight
        self._thread: _SqliteWriter | None = None
        self._state = "new"  # "new" (writes go directly) | "running" | "stopped"
        self._gamelog = GameLog(db)  # the round writes without the thread
        if path is not None:
            dialect = db.engine.dialect
            self._bind_action = _processor(_ACTIONS, "action", dialect)
            self._bind_created_at = _processor(_ACTIONS, "created_at", dialect)
            self._bind_rack = _processor(_SEATS, "rack", dialect)
            self._bind_options = _processor(_ROUNDS, "options", dialect)
            self._bind_finished = _processor(_ROUNDS, "finished", dialect)
            self._bind_round_created_at = _processor(_ROUNDS, "created_at", dialect)
            self._bind_finished_at = _processor(_ROUNDS, "finished_at", dialect)
            self._bind_result = _processor(_ROUNDS, "result", dialect)
        self.batches = 0
        self.writes = 0

    @property
    def uses_thread(self) -> bool:
        """Whether the writes go through the SQLite writer thread."""
        return self._path is not None

    def start(self) -> None:
        """Start the writer thread or task(s)."""
        if self._state == "running":
            return
        self._state = "running"
        if self._path is not None:
            self._thread = _SqliteWriter(
                self._path,
                asyncio.get_running_loop(),
                self._max_batch,
                self._db.engine.dialect,
                self._count,
            )
            self._thread.start()
        else:
            self._tasks = [
                asyncio.create_task(self._run(), name=f"journal-{i}") for i in range(self._writers)
            ]

    async def stop(self) -> None:
        """Finish every write submitted so far, then stop; later writes fail."""
        if self._state != "running":
            return
        self._state = "stopped"
        thread, self._thread = self._thread, None
        if thread is not None and not await thread.stop(self._stop_timeout):
            log.error("journal_stop_timeout", extra={"timeout": self._stop_timeout})
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
        created_at = utcnow()
        thread = self._thread
        if thread is not None:
            params = (
                round_id,
                seq,
                seat,
                self._bind_action(action),
                client_seq,
                source,
                self._bind_created_at(created_at),
            )
            await thread.submit(_ACTION, params)
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
                "created_at": created_at,
            },
        )

    async def set_rack(self, room_id: str, seat: int, rack: dict[str, Any] | None) -> None:
        """Store a seat's rack layout; returns once committed."""
        thread = self._thread
        if thread is not None:
            await thread.submit(_RACK, (self._bind_rack(rack), room_id, seat))
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
        thread = self._thread
        if thread is None:
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
        return cast(int, await thread.submit(_BEGIN_ROUND, params))

    async def finish_round(
        self, round_id: int, result: dict[str, Any], scores: Sequence[int]
    ) -> None:
        """Finish the round with its result and scores (:meth:`GameLog.finish_round`).

        Nothing if it is finished already; ``KeyError`` if there is no such round.
        """
        thread = self._thread
        if thread is None:
            await self._direct().finish_round(round_id, result, scores)
            return
        params = (
            round_id,
            self._bind_finished(True),
            self._bind_result(result),
            self._bind_finished_at(utcnow()),
            tuple(scores),
        )
        await thread.submit(_FINISH_ROUND, params)

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


class _SqliteWriter:
    """The journal's writer thread and its own sqlite3 connection (see the module doc).

    The event loop calls :meth:`submit` and :meth:`stop`; everything else runs
    in the thread. ``_pending``, ``_idle`` and ``_closing`` are shared, under
    ``_cond``'s lock.
    """

    def __init__(
        self,
        path: Path,
        loop: asyncio.AbstractEventLoop,
        max_batch: int,
        dialect: Dialect,
        on_batch: Callable[[int], None],
    ) -> None:
        self._path = path
        self._loop = loop
        self._max_batch = max(1, max_batch)
        self._on_batch = on_batch
        self._cond = threading.Condition(threading.Lock())
        self._pending: list[_Row] = []
        self._idle = False
        self._closing = False
        self._conn: sqlite3.Connection | None = None
        self._exited: asyncio.Future[None] = loop.create_future()
        self._thread = threading.Thread(target=self._main, name="journal-sqlite", daemon=True)
        self._sql = ""  # the statement being run (in the thread), for the error
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

    def start(self) -> None:
        self._thread.start()

    def submit(self, kind: int, params: tuple[Any, ...]) -> asyncio.Future[Any]:
        """Queue one write; the future is resolved once it is committed (or failed).

        Its value: None, or what the call of a call kind returned.
        """
        done = self._loop.create_future()
        with self._cond:
            if self._closing:
                raise JournalStopped("the journal is stopped: the write was not made")
            self._pending.append(_Row(kind, params, done))
            if self._idle:
                self._idle = False
                self._cond.notify()
        return done

    async def stop(self, timeout: float) -> bool:
        """Let the thread write what is pending, then end it and close its connection.

        False if it has not ended after ``timeout`` seconds (it goes on alone).
        """
        with self._cond:
            self._closing = True
            self._cond.notify()
        try:
            await asyncio.wait_for(asyncio.shield(self._exited), timeout)
        except TimeoutError:
            return False
        self._thread.join()  # it has posted its last callback: it is returning
        return True

    # ------------------------------------------------------------------ in the thread

    def _main(self) -> None:
        try:
            while True:
                with self._cond:
                    while not self._pending and not self._closing:
                        self._idle = True
                        self._cond.wait()
                    self._idle = False
                    if not self._pending:
                        break  # closing, and everything is written
                    if len(self._pending) <= self._max_batch:
                        batch, self._pending = self._pending, []
                    else:
                        batch = self._pending[: self._max_batch]
                        del self._pending[: self._max_batch]
                errors = self._commit(batch)
                if not self._post(self._resolve, batch, errors):
                    break
        except BaseException:
            log.exception("journal_thread_failed")
        finally:
            with self._cond:
                self._closing = True
                left, self._pending = self._pending, []
            if left:  # only when the thread failed: never leave a writer waiting
                stopped = JournalStopped("the journal's writer thread ended")
                self._post(self._resolve, left, [stopped] * len(left))
            self._close()
            self._post(_ok, self._exited)

    def _post(self, callback: Callable[..., None], *args: Any) -> bool:
        try:
            self._loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the event loop is closed: nobody is waiting any more
            return False
        return True

    def _commit(self, batch: list[_Row]) -> list[BaseException | None] | None:
        """Write the batch; None if it was committed whole, else each write's error or None."""
        try:
            self._transaction(batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
            log.warning("journal_batch_failed", extra={"size": len(batch), "error": repr(exc)})
            errors: list[BaseException | None] = []
            for row in batch:
                try:
                    self._transaction([row])
                except Exception as one:
                    errors.append(one)
                else:
                    errors.append(None)
            return errors
        return None

    def _transaction(self, rows: Sequence[_Row]) -> None:
        """Write the rows in one transaction, in order; then set the calls' results."""
        conn = self._connect()
        calls: list[tuple[_Row, Any]] = []
        self._sql = "BEGIN IMMEDIATE"
        try:
            conn.execute(self._sql)
            start = 0
            for i, row in enumerate(rows):
                if row.kind >= _BEGIN_ROUND:  # the statements submitted before it first
                    self._statements(conn, rows[start:i])
                    calls.append((row, self._calls[row.kind](conn, row.params)))
                    start = i + 1
            self._statements(conn, rows[start:] if start else rows)
            self._sql = "COMMIT"
            conn.execute(self._sql)
        except sqlite3.Error as exc:
            self._rollback(conn)
            raise DBAPIError.instance(self._sql, None, exc, sqlite3.Error) from exc
        except BaseException:
            self._rollback(conn)
            raise
        for row, value in calls:  # only now: a rolled back call's value is void
            row.result = value

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

    def _rollback(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("journal_rollback_failed")
            self._close()  # a fresh connection for the next transaction

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = sqlite3.connect(
                    self._path, timeout=SQLITE_BUSY_TIMEOUT, isolation_level=None
                )
            except sqlite3.Error as exc:
                raise DBAPIError.instance("connect", None, exc, sqlite3.Error) from exc
            try:
                for pragma in SQLITE_PRAGMAS:
                    conn.execute(pragma)
            except sqlite3.Error as exc:
                conn.close()
                raise DBAPIError.instance(pragma, None, exc, sqlite3.Error) from exc
            self._conn = conn
        return self._conn

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                log.exception("journal_close_failed")

    # ------------------------------------------------------------------ back on the loop

    def _resolve(self, batch: list[_Row], errors: list[BaseException | None] | None) -> None:
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
