"""A SIGTERM hands the rooms over at once, whatever HTTP streams are open.

A browser on the lobby holds ``GET /api/lobby/events`` open for as long as the page is
shown. uvicorn's shutdown waits for every open HTTP response to end; the server must end
these streams itself, so that the stop goes on (rooms handed over, the process gone)
while the client still holds its end.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from pathlib import Path

import httpx
from serverproc import start_server


def _records(log: Path) -> list[dict[str, object]]:
    out = []
    for line in log.read_text().splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


def test_sigterm_closes_the_lobby_streams_and_hands_the_rooms_over(tmp_path: Path) -> None:
    settings = {
        "REMI_LOG_FORMAT": "json",
        "REMI_BOT_SEARCHES": "loop",
        "REMI_BOT_DELAY_SECONDS": "0.5",
        "REMI_RECONNECT_GRACE_SECONDS": "0",
    }
    server, base = start_server(tmp_path, settings)
    ended = threading.Event()
    lines: list[str] = []
    try:
        with httpx.Client(base_url=base, timeout=10) as http:
            token = http.post("/api/players", json={"display_name": "Ana"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            room = http.post(
                "/api/rooms", json={"seats": 2, "fill_with_bots": True}, headers=auth
            ).json()["id"]
            assert http.post(f"/api/rooms/{room}/start", headers=auth).status_code == 200

        def hold_stream() -> None:
            """A lobby page: the stream held open until the server ends it."""
            with (
                httpx.Client(base_url=base, timeout=httpx.Timeout(10, read=None)) as sse,
                sse.stream("GET", "/api/lobby/events") as stream,
            ):
                with contextlib.suppress(httpx.HTTPError):
                    for line in stream.iter_lines():
                        lines.append(line)
                ended.set()

        reader = threading.Thread(target=hold_stream, daemon=True)
        reader.start()
        end = time.monotonic() + 30
        while not lines and time.monotonic() < end:
            time.sleep(0.05)
        assert lines, "the lobby stream did not open"

        t0 = time.monotonic()
        server.send_signal(signal.SIGTERM)
        # The process ends with the stream still held by the client: only the server
        # could have ended it. (The limit only keeps a hang from blocking the suite:
        # without the fix the server waits as long as the client holds the stream.)
        server.wait(25)
        took = time.monotonic() - t0
        assert ended.wait(5), "the server exited but the stream did not end"
        print(f"\nSIGTERM to exit with a lobby stream open: {took:.2f} s")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
    records = _records(tmp_path / "server.log")
    released = [r for r in records if r.get("event") == "room_released"]
    assert [r["room_id"] for r in released] == [room], released
