"""A TCP proxy between a test's server and PostgreSQL that can lose a COMMIT's answer.

:meth:`PgProxy.cut_at_next_commit` arms it: the next simple-protocol ``COMMIT`` a client
sends is forwarded to PostgreSQL (``after=True``, the transaction is then committed) or
not (``after=False``, it is then rolled back), and the connection is cut without a byte
of PostgreSQL's answer reaching the client, as when a network drops at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib


class PgProxy:
    """Listens on 127.0.0.1 (:attr:`port`) and forwards to ``upstream``."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self.cuts = 0
        self._armed: bool | None = None  # None: pass everything through
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut_at_next_commit(self, after: bool) -> None:
        """Cut the next connection that sends ``COMMIT``, after forwarding it or before."""
        self._armed = after

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        holding = asyncio.Event()  # set: nothing more goes back to the client

        async def to_server() -> None:
            while data := await reader.read(65536):
                armed = self._armed
                if armed is not None and b"COMMIT" in data.upper():
                    self._armed = None
                    self.cuts += 1
                    holding.set()
                    if armed:
                        up_writer.write(data)
                        await up_writer.drain()
                        await asyncio.sleep(0.3)  # PostgreSQL commits (its answer is dropped)
                    return
                up_writer.write(data)
                await up_writer.drain()

        async def to_client() -> None:
            while data := await up_reader.read(65536):
                if holding.is_set():
                    return
                writer.write(data)
                await writer.drain()

        tasks = [asyncio.create_task(to_server()), asyncio.create_task(to_client())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for w in (writer, up_writer):
                w.transport.abort()
            with contextlib.suppress(Exception):
                await asyncio.gather(*tasks, return_exceptions=True)
