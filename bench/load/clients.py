"""A client process: its share of the tables, from set-up to the last phase.

The run (:mod:`bench.load.run`) starts several of these so that the clients' work
spreads over the cores; each runs its own event loop (uvloop) and obeys the run's
commands, one at a time, over a pipe, answering each with a dict:

* ``("setup", n)``: ``n`` rooms of four guest players through the HTTP API
  (``POST /api/players``, ``/api/rooms``, ``/api/rooms/{id}/seats/{s}``);
* ``("connect",)``: every player's WebSocket, ``hello`` (asking for view patches,
  as the web client does), until each has its snapshot;
* ``("start",)``: ``POST /api/rooms/{id}/start``, until every seat has its view;
* ``("paced", duration, interval)`` / ``("saturated", duration)``: a phase
  (:mod:`bench.load.pacing`); answers its sample;
* ``("finish",)``: closes the sockets; answers every (room, seat, seq) acked.

With several nodes (``ports``), table *i*'s HTTP requests all go to node *i mod n*, which
thus plays the room (the first command that needs a room claims it). With the route
``spread`` the socket of its seat *s* goes to node *(i + s) mod n*: the rooms are spread
over the nodes and, with two, half of the sockets are bridged to their room's node
(``Player.bridged``); with ``owner`` every socket goes to node *i mod n*, none bridged.
"""

from __future__ import annotations

import asyncio
import json
from multiprocessing.connection import Connection
from typing import Any

import httpx

from .pacing import Paced, Saturated
from .table import Table
from .wsclient import connect

PARALLEL = 32  # requests or handshakes in flight per client process


async def _post(http: httpx.AsyncClient, url: str, token: str | None = None, **kw: Any) -> Any:
    """POST with a few retries (a pooled keep-alive connection the server closed as the
    request went out fails before the request was handled); the JSON answer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for attempt in range(5):
        try:
            r = await http.post(url, headers=headers, **kw)
            r.raise_for_status()
            http.cookies.clear()  # the bearer token says who is asking, not the cookie
            return r.json()
        except (httpx.RemoteProtocolError, httpx.ConnectError, httpx.ReadError):
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def _until(check: Any, what: str, timeout: float = 120) -> None:
    """Poll ``check()`` every 20 ms (set-up only)."""
    end = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > end:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)


class Clients:
    """One process's tables."""

    def __init__(self, host: str, ports: list[int], prefix: str, route: str = "spread") -> None:
        self.host, self.ports, self.prefix, self.route = host, ports, prefix, route
        self.tables: list[Table] = []
        self.sem = asyncio.Semaphore(PARALLEL)

    def base(self, i: int) -> str:
        """The node that table ``i``'s HTTP requests go to (its room's node)."""
        return f"http://{self.host}:{self.ports[i % len(self.ports)]}"

    async def setup(self, n: int) -> dict[str, Any]:
        limits = httpx.Limits(max_connections=PARALLEL)
        async with httpx.AsyncClient(timeout=120, limits=limits) as http:

            async def table(i: int) -> Table:
                base = self.base(i)
                async with self.sem:
                    tokens = []
                    for s in range(4):
                        name = {"display_name": f"{self.prefix}{i}s{s}"}
                        body = await _post(http, f"{base}/api/players", json=name)
                        tokens.append(body["token"])
                    room = await _post(
                        http,
                        f"{base}/api/rooms",
                        tokens[0],
                        json={"variant": "remi", "seats": 4, "turn_seconds": 120},
                    )
                    for s in range(1, 4):
                        await _post(http, f"{base}/api/rooms/{room['id']}/seats/{s}", tokens[s])
                    return Table(room["id"], tokens)

            self.tables = list(await asyncio.gather(*(table(i) for i in range(n))))
        return {"tables": len(self.tables)}

    async def connect(self) -> dict[str, Any]:
        hello = json.dumps({"type": "hello", "last_version": None, "patches": True})

        async def one(i: int, table: Table, s: int) -> None:
            p = table.players[s]
            n = len(self.ports)
            node = (i if self.route == "owner" else i + s) % n
            p.bridged = node != i % n
            async with self.sem:
                p.client = await connect(
                    self.host,
                    self.ports[node],
                    f"/ws/rooms/{table.room}",
                    {"Authorization": f"Bearer {p.token}"},
                    p.on_text,
                )
                p.send(hello)
                # As a browser does: connected once the snapshot is in. Waiting for it
                # here keeps the boots of rooms (their database reads) to the handshakes
                # in flight instead of queueing every room's at once.
                await _until(lambda: p.seat is not None, "snapshot")

        await asyncio.gather(*(one(i, t, s) for i, t in enumerate(self.tables) for s in range(4)))
        players = [p for t in self.tables for p in t.players]
        await _until(lambda: all(p.seat is not None for p in players), "snapshots")
        return {"connections": len(players)}

    async def start(self) -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=120) as http:

            async def one(i: int, table: Table) -> None:
                async with self.sem:
                    url = f"{self.base(i)}/api/rooms/{table.room}/start"
                    await _post(http, url, table.players[0].token)

            await asyncio.gather(*(one(i, t) for i, t in enumerate(self.tables)))
        await _until(lambda: all(t.ready() for t in self.tables), "first deals")
        return {"started": len(self.tables)}

    async def phase(self, kind: str, duration: float, interval: float = 0.0) -> dict[str, Any]:
        run = Paced(self.tables, duration, interval) if kind == "paced" else None
        sample = await (run or Saturated(self.tables, duration)).run()
        return sample.to_wire()

    def finish(self) -> dict[str, Any]:
        acks = [list(a) for t in self.tables for a in t.acks]
        for t in self.tables:
            for p in t.players:
                if p.client is not None:
                    p.client.close()
        return {"acks": acks}


async def _serve(pipe: Connection, host: str, ports: list[int], prefix: str, route: str) -> None:
    loop = asyncio.get_running_loop()
    clients = Clients(host, ports, prefix, route)
    while True:
        command = await loop.run_in_executor(None, pipe.recv)
        name = command[0]
        try:
            if name == "setup":
                answer = await clients.setup(command[1])
            elif name == "connect":
                answer = await clients.connect()
            elif name == "start":
                answer = await clients.start()
            elif name in ("paced", "saturated"):
                answer = await clients.phase(name, *command[1:])
            elif name == "finish":
                pipe.send(clients.finish())
                await asyncio.sleep(0.2)  # let the close frames go out
                return
            else:
                raise ValueError(f"unknown command {name!r}")
        except Exception as exc:  # reported to the run, which stops
            answer = {"failed": f"{type(exc).__name__}: {exc}"}
        pipe.send(answer)


def main(pipe: Connection, host: str, ports: list[int], prefix: str, route: str) -> None:
    """A client process's entry point (``multiprocessing``)."""
    import gc

    import uvloop

    gc.disable()  # no collector pauses of its own in what it measures
    uvloop.run(_serve(pipe, host, ports, prefix, route))
