"""The soak benchmark's command line and its tables (see :mod:`bench.soak`).

``python -m bench.soak [--minutes 30] [--tables 60] [--store sqlite|postgres]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import uvloop
from orjson import loads

from bench.load.__main__ import machine, raise_file_limit
from bench.load.server import POSTGRES_URL, Server, Store
from bench.load.table import action_text
from bench.load.wsclient import LightClient, connect

HEAPWATCH = Path(__file__).resolve().parent / "heapwatch"

SOAK_SETTINGS = {
    # A player whose socket closed is away after this; a room with no human ends after
    # that; its actor stops after the last: an abandoned table is gone within seconds.
    "REMI_RECONNECT_GRACE_SECONDS": "4",
    "REMI_EMPTY_ROOM_GRACE_SECONDS": "4",
    "REMI_IDLE_ACTOR_SECONDS": "4",
    "REMI_BOT_DELAY_SECONDS": "0.3",
}

HELLO = json.dumps({"type": "hello", "last_version": None, "patches": True})


class Seat:
    """One player of a soak table: its socket (when connected) and what it last saw."""

    def __init__(self, token: str, changed: asyncio.Event) -> None:
        self.token = token
        self.changed = changed
        self.client: LightClient | None = None
        self.seat: int | None = None
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.match_over = False
        self.acked: dict[int, int] = {}  # seq -> version
        self.refused: dict[int, str] = {}  # seq -> code
        self.seq = 0

    def on_text(self, text: str) -> None:
        m = loads(text)
        kind = m["type"]
        if kind == "event":
            self.version = m["version"]
            if m["view"] is not None:
                self.view = m["view"]
            elif m.get("patch") is not None and self.view is not None:
                self.view.update(m["patch"])
            scores = m.get("scores")
            if scores is not None and scores["over"]:
                self.match_over = True
        elif kind == "snapshot":
            self.version, self.view, self.seat = m["version"], m["view"], m["you"]["seat"]
            self.match_over = bool(m["scores"]["over"])
        elif kind == "ack":
            self.acked[m["seq"]] = m["version"]
        elif kind == "error" and m.get("seq") is not None:
            self.refused[m["seq"]] = m["code"]
        self.changed.set()

    async def open(self, host: str, port: int, room: str) -> None:
        self.view, self.seat = None, None
        self.client = await connect(
            host, port, f"/ws/rooms/{room}", {"Authorization": f"Bearer {self.token}"}, self.on_text
        )
        self.client.send_text(HELLO)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


class Soak:
    """Keeps ``tables`` tables going until ``end``; counts what they did."""

    def __init__(self, opts: argparse.Namespace, port: int) -> None:
        self.opts = opts
        self.host, self.port = "127.0.0.1", port
        self.base = f"http://{self.host}:{port}"
        self.rng = random.Random(opts.seed)
        self.end = 0.0
        self.counts = {
            "tables_started": 0,
            "tables_played_out": 0,
            "tables_abandoned": 0,
            "moves": 0,
            "reconnects": 0,
        }
        self.errors: dict[str, int] = {}
        self.open_tables = 0
        self.serial = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    async def post(self, http: httpx.AsyncClient, path: str, token: str | None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = await http.post(self.base + path, headers=headers, **kw)
        r.raise_for_status()
        http.cookies.clear()
        return r.json()

    async def wait(self, changed: asyncio.Event, check: Any, what: str, timeout: float) -> None:
        """Until ``check()``, woken by each frame; raises ``TimeoutError(what)``."""
        deadline = time.monotonic() + timeout
        while not check():
            changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(what)
            try:
                await asyncio.wait_for(changed.wait(), left)
            except TimeoutError:
                raise TimeoutError(what) from None

    async def table(self, http: httpx.AsyncClient) -> None:
        """One table, from its players' creation to its end."""
        self.serial += 1
        n = self.serial
        changed = asyncio.Event()
        tokens = [
            (await self.post(http, "/api/players", None, json={"display_name": f"soak{n}s{s}"}))[
                "token"
            ]
            for s in range(4)
        ]
        seats = [Seat(t, changed) for t in tokens]
        settings = {
            "variant": "remi",
            "seats": 4,
            "turn_seconds": 60,
            "end": {"kind": "rounds", "rounds": 1},
        }
        room = (await self.post(http, "/api/rooms", tokens[0], json=settings))["id"]
        for s in range(1, 4):
            await self.post(http, f"/api/rooms/{room}/seats/{s}", tokens[s])
        self.counts["tables_started"] += 1
        try:
            for p in seats:
                await p.open(self.host, self.port, room)
            await self.wait(changed, lambda: all(p.seat is not None for p in seats), "snapshot", 30)
            await self.post(http, f"/api/rooms/{room}/start", tokens[0])
            abandon_after = self.rng.randint(5, 60) if self.rng.random() < 0.5 else None
            await self.play(seats, changed, room, abandon_after)
        finally:
            for p in seats:
                p.close()

    async def play(
        self, seats: list[Seat], changed: asyncio.Event, room: str, abandon_after: int | None
    ) -> None:
        moves = 0
        while True:
            connected = [p for p in seats if p.client is not None]
            await self.wait(
                changed,
                lambda c=connected: (
                    all(p.view is not None for p in c)  # type: ignore[misc]
                    and len({p.version for p in c}) == 1
                ),
                "views",
                30,
            )
            first = connected[0]
            assert first.view is not None
            if first.match_over:
                self.counts["tables_played_out"] += 1
                return
            if abandon_after is not None and moves >= abandon_after:
                self.counts["tables_abandoned"] += 1
                return
            if first.view["over"]:  # between rounds: the match-over event follows
                await self.wait(changed, lambda f=first: f.match_over, "match over", 30)
                continue
            mover = next((p for p in seats if p.seat == first.view["turn"]), None)
            if mover is None or mover.client is None or mover.view is None:
                await asyncio.sleep(0.2)
                continue
            mover.seq += 1
            seq = mover.seq
            mover.client.send_text(action_text(seq, mover.version, mover.view))
            await self.wait(
                changed,
                lambda m=mover, q=seq: q in m.acked or q in m.refused,
                "ack",
                30,
            )
            if seq in mover.refused:
                self.error(mover.refused.pop(seq))
            else:
                moves += 1
                self.counts["moves"] += 1
            mover.acked.pop(seq, None)
            if self.rng.random() < self.opts.drop:
                await self.reconnect(self.rng.choice(seats), room)
            await asyncio.sleep(self.opts.pause)

    async def reconnect(self, p: Seat, room: str) -> None:
        """A dropped connection: closed, and a new one after a moment."""
        p.close()
        await asyncio.sleep(self.rng.uniform(0.1, 1.5))
        await p.open(self.host, self.port, room)
        self.counts["reconnects"] += 1

    async def keep_one(self, http: httpx.AsyncClient) -> None:
        """One of the ``tables`` slots: a table after another until the end."""
        while time.monotonic() < self.end:
            self.open_tables += 1
            try:
                await self.table(http)
            except (TimeoutError, ConnectionError, httpx.HTTPError) as exc:
                self.error(f"{type(exc).__name__} {exc}"[:80])
                await asyncio.sleep(1)
            finally:
                self.open_tables -= 1

    async def run(self, minutes: float, report: Any) -> None:
        """Tables start for ``minutes``; returns once every one has ended."""
        self.end = time.monotonic() + minutes * 60
        limits = httpx.Limits(max_connections=self.opts.tables)
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            slots = []
            for _ in range(self.opts.tables):  # the tables' starts spread over 10 s
                slots.append(asyncio.create_task(self.keep_one(http)))
                await asyncio.sleep(10 / self.opts.tables)
            reporter = asyncio.create_task(report())
            await asyncio.gather(*slots)
            reporter.cancel()


class Heap:
    """The server's heap as bench/soak/heapwatch reports it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        for _ in range(100):
            try:
                value: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
                return value
            except (FileNotFoundError, json.JSONDecodeError):
                time.sleep(0.1)
        raise RuntimeError(f"no heap report in {self.path}")

    def after_full_collection(self) -> dict[str, Any]:
        request = self.path.with_name(self.path.name + ".collect")
        request.touch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            report = self.read()
            if report["after_full_collection"] and not request.exists():
                return report
            time.sleep(0.2)
        raise RuntimeError("the server did not collect")


def line(t0: float, server: Server, heap: dict[str, Any], soak: Soak | None) -> dict[str, Any]:
    tracked = heap["tracked"]
    row = {
        "minute": round((time.monotonic() - t0) / 60, 1),
        "rss_mb": round(server.rss_kb() / 1024, 1),
        "tracked": sum(tracked),
        "tracked_by_generation": tracked,
        "frozen": heap["frozen"],
        "full_collections": heap["collections"][2],
        "full_pause_s": round(server.gc_full()[1], 2),
        "longest_full_s": round(server.gc_full()[2], 3),
        "server_cpu_s": round(server.cpu_s(), 1),
    }
    if soak is not None:
        row |= {"open_tables": soak.open_tables, **soak.counts, "errors": sum(soak.errors.values())}
    return row


def show(row: dict[str, Any]) -> None:
    print("  ".join(f"{k}={v}" for k, v in row.items() if k != "tracked_by_generation"), flush=True)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--minutes", type=float, default=30.0, help="how long tables start (30)")
    p.add_argument("--tables", type=int, default=60, help="tables playing at once (60)")
    p.add_argument("--pause", type=float, default=0.5, help="s between a table's moves (0.5)")
    p.add_argument("--drop", type=float, default=0.03, help="chance a move drops a socket")
    p.add_argument("--every", type=float, default=60.0, help="s between reports (60)")
    p.add_argument(
        "--settle-every",
        type=float,
        default=10.0,
        help="minutes of tables between two pauses in which every table ends and the "
        "server's live heap is measured after a full collection (10; 0: only at the end)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--postgres-url", default=POSTGRES_URL)
    p.add_argument("--json", type=Path, help="also write every report to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    raise_file_limit(4 * opts.tables)
    store = Store.fresh(opts.store, opts.postgres_url)
    heap_path = store.data_dir / "heap.json"
    extra = {**SOAK_SETTINGS, "PYTHONPATH": str(HEAPWATCH), "REMI_BENCH_HEAP": str(heap_path)}
    server = Server(store, extra=extra, name="soak")
    heap = Heap(heap_path)
    rows: list[dict[str, Any]] = []
    out: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "options": {k: str(v) for k, v in vars(opts).items()},
        "server_log": str(server.log_path),
    }
    try:
        server.wait_ready()
        t0 = time.monotonic()
        out["start"] = line(t0, server, heap.after_full_collection(), None)
        print("idle, after a full collection:", flush=True)
        show(out["start"])
        soak = Soak(opts, server.port)

        async def report() -> None:
            while True:
                await asyncio.sleep(opts.every)
                row = await asyncio.to_thread(line, t0, server, heap.read(), soak)
                rows.append(row)
                show(row)
                if opts.json:
                    opts.json.write_text(json.dumps(out | {"rows": rows}, indent=1))

        out["settled"] = []
        left = opts.minutes
        while left > 0:
            part = min(left, opts.settle_every or left)
            left -= part
            uvloop.run(soak.run(part, report))
            print("every table ended; waiting for the rooms to close", flush=True)
            time.sleep(15)
            settled = line(t0, server, heap.after_full_collection(), soak)
            out["settled"].append(settled)
            print("idle, after a full collection:", flush=True)
            show(settled)
        out["errors"] = soak.errors
        print("errors:", json.dumps(soak.errors), flush=True)
        out["rows"] = rows
        if opts.json:
            opts.json.write_text(json.dumps(out, indent=1))
    finally:
        server.kill()
        store.drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
