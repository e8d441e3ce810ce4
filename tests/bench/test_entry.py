"""The load balancer's routing (deploy/nginx.conf, run by bench/load/entry.py as
docker-compose.yml runs it): every request and socket of one room reaches one node,
different rooms spread over the nodes, and requests that name no room are spread too."""

from __future__ import annotations

import os
import shutil
import threading
import urllib.request
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bench.load.entry import Entry


class _Named(BaseHTTPRequestHandler):
    """An upstream that answers every GET with its own name."""

    def do_GET(self) -> None:
        body = self.server.name.encode()  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def upstreams() -> Iterator[list[int]]:
    servers = []
    for name in ("a", "b", "c"):
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Named)
        server.name = name  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield [s.server_address[1] for s in servers]
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def entry(upstreams: list[int], tmp_path: Path) -> Iterator[Entry]:
    if shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin") is None:
        message = "nginx is not installed (Debian: apt-get install nginx-light)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{message} (CI=true: this test is required)")
        pytest.skip(message)
    e = Entry(upstreams, tmp_path)
    yield e
    e.stop()


def _node(entry: Entry, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{entry.port}{path}", timeout=10) as r:
        return str(r.read().decode())


def test_a_rooms_requests_and_sockets_reach_one_node_and_rooms_spread(entry: Entry) -> None:
    homes = {}
    for k in range(60):
        room = f"Room{k:03d}_x-Y"
        paths = [
            f"/api/rooms/{room}",
            f"/api/rooms/{room}/seats/2",
            f"/api/rooms/{room}/rounds/1/replay",
            f"/ws/rooms/{room}",
            f"/ws/rooms/{room}?code=abc",
        ]
        seen = {_node(entry, p) for p in paths for _ in range(2)}
        assert len(seen) == 1, (room, seen)
        homes[room] = seen.pop()
    counts = Counter(homes.values())
    assert set(counts) == {"a", "b", "c"}, counts
    assert min(counts.values()) >= 8, counts  # 60 rooms: about 20 each


def test_requests_that_name_no_room_are_spread(entry: Entry) -> None:
    counts = Counter(_node(entry, "/api/variants") for _ in range(60))
    assert set(counts) == {"a", "b", "c"}, counts
