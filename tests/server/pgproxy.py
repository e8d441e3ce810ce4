"""A TCP proxy between a test's server and PostgreSQL that can lose a COMMIT's answer.

:meth:`PgProxy.cut_at_next_commit` arms it: the next simple-protocol ``COMMIT`` a client
sends is forwarded to PostgreSQL (``after=True``, the transaction is then committed) or
not (``after=False``, it is then rolled back), and the connection is cut without a byte
of PostgreSQL's answer reaching the client, as when a network drops at that moment.

:meth:`PgProxy.refuse_connections` makes it answer the next new connections as a
PostgreSQL that is starting up does (SQLSTATE 57P03, "the database system is starting
up"), as after a crash and restart, while the connections already open go on.

:meth:`PgProxy.blackhole` makes it a network that drops every packet: nothing goes
either way on the connections open, and new ones get no answer, until
:meth:`PgProxy.restore` (what was held then goes through, as TCP would resend it).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct

_SSL_REQUEST = struct.pack("!ii", 8, 80877103)
_STARTING_UP = b"".join(
    [b"SFATAL\0", b"VFATAL\0", b"C57P03\0", b"Mthe database system is starting up\0", b"\0"]
)


class PgProxy:
    """Listens on 127.0.0.1 (:attr:`port`) and forwards to ``upstream``."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self.cuts = 0
        self._armed: bool | None = None  # None: pass everything through
        self._refuse = 0  # how many new connections to answer "starting up"
        self.refused = 0
        self._server: asyncio.Server | None = None
        self._open = asyncio.Event()  # clear: a blackhole
        self._open.set()

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

    def blackhole(self) -> None:
        """Hold every byte, both ways, on every connection, and answer no new one."""
        self._open.clear()

    def restore(self) -> None:
        """End the blackhole: what was held goes through."""
        self._open.set()

    def refuse_connections(self, count: int) -> None:
        """Answer the next ``count`` new connections "the database system is starting up"."""
        self._refuse = count

    async def _refused(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """PostgreSQL's answer to a connection while it starts: no SSL, then a FATAL 57P03."""
        with contextlib.suppress(Exception):
            head = await reader.readexactly(8)
            if head == _SSL_REQUEST:
                writer.write(b"N")
                await writer.drain()
                head = await reader.readexactly(4)
            (length,) = struct.unpack("!i", head[:4])
            await reader.readexactly(length - len(head))  # the rest of the start-up message
            writer.write(b"E" + struct.pack("!i", 4 + len(_STARTING_UP)) + _STARTING_UP)
            await writer.drain()
        writer.transport.abort()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._refuse > 0:
            self._refuse -= 1
            self.refused += 1
            await self._refused(reader, writer)
            return
        await self._open.wait()
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        holding = asyncio.Event()  # set: nothing more goes back to the client

        async def to_server() -> None:
            while data := await reader.read(65536):
                await self._open.wait()
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
                await self._open.wait()
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
