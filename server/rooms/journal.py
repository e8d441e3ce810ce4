"""Group commit of the room actors' hot-path writes (actions and rack layouts).

Every room actor awaits :meth:`Journal.append_action` before it acknowledges or
broadcasts a move, so the move is committed first. Writes that arrive while a
commit is in flight are gathered into the next transaction: one commit serves
many rooms, which keeps SQLite (one writer) and PostgreSQL fast under load.
A batch that fails is retried one write per transaction so that only the
faulty write fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Table, insert, update
from sqlalchemy.ext.asyncio import AsyncConnection

from server.storage.database import Database
from server.storage.models import Action, Seat, utcnow

log = logging.getLogger(__name__)

_ACTIONS = cast(Table, Action.__table__)
_SEATS = cast(Table, Seat.__table__)


@dataclass(slots=True)
class _Write:
    kind: str  # "action" | "rack"
    values: dict[str, Any]
    done: asyncio.Future[None] = field(repr=False)


class Journal:
    """Batched durable writes; start with :meth:`start`, stop with :meth:`stop`."""

    def __init__(self, db: Database, writers: int | None = None, max_batch: int = 500) -> None:
        self._db = db
        self._queue: asyncio.Queue[_Write] = asyncio.Queue()
        self._writers = writers if writers is not None else (1 if db.settings.is_sqlite else 4)
        self._max_batch = max_batch
        self._tasks: list[asyncio.Task[None]] = []
        self.batches = 0
        self.writes = 0

    def start(self) -> None:
        """Start the writer task(s)."""
        if not self._tasks:
            self._tasks = [
                asyncio.create_task(self._run(), name=f"journal-{i}") for i in range(self._writers)
            ]

    async def stop(self) -> None:
        """Finish what is queued, then stop."""
        while not self._queue.empty() and self._tasks:
            await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

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
        await self._submit("rack", {"room_id": room_id, "seat": seat, "rack": rack})

    async def _submit(self, kind: str, values: dict[str, Any]) -> None:
        if not self._tasks:
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
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    batch.append(self._queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            try:
                async with self._db.engine.begin() as conn:
                    await self._write(conn, batch)
            except asyncio.CancelledError:
                for w in batch:
                    if not w.done.done():
                        w.done.set_exception(RuntimeError("journal stopped"))
                raise
            except Exception as exc:
                if len(batch) == 1:
                    _fail(batch[0], exc)
                    continue
                log.warning("journal_batch_failed", extra={"size": len(batch), "error": repr(exc)})
                for w in batch:
                    try:
                        async with self._db.engine.begin() as conn:
                            await self._write(conn, [w])
                    except Exception as one:
                        _fail(w, one)
                    else:
                        _ok(w)
                continue
            self.batches += 1
            self.writes += len(batch)
            for w in batch:
                _ok(w)

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


def _ok(w: _Write) -> None:
    if not w.done.done():
        w.done.set_result(None)


def _fail(w: _Write, exc: BaseException) -> None:
    if not w.done.done():
        w.done.set_exception(exc)
