"""Invite codes and tokens never appear in the logs (issue 23, item 10): uvicorn logs each
request's path with its query string, and ``?code=<invite code>`` used to be written out
as is. The server is started the way operators start it, ``python -m server.cli serve``,
so the logging is the CLI's own."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_invite_codes_and_tokens_in_query_strings_never_reach_the_log(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("REMI_")},
        "REMI_DATA_DIR": str(tmp_path),
        "REMI_LOG_FORMAT": "json",
        "REMI_LOG_LEVEL": "INFO",
        "REMI_BOT_SEARCHES": "loop",
        "REMI_ALLOWED_ORIGINS": f"http://127.0.0.1:{port}",
        "PYTHONPATH": str(ROOT),
    }
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(port)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            end = time.monotonic() + 60
            while True:
                assert server.poll() is None, log_path.read_text()
                try:
                    httpx.get(f"{base}/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < end, "the server did not start"
                    time.sleep(0.1)
            with httpx.Client(base_url=base, timeout=10) as http:
                token = http.post("/api/players", json={"display_name": "Ana"}).json()["token"]
                http.cookies.clear()
                auth = {"Authorization": f"Bearer {token}"}
                room = http.post(
                    "/api/rooms", json={"seats": 2, "public": False}, headers=auth
                ).json()
                code = room["invite_code"]
                assert code
                got = http.get(f"/api/rooms/{room['id']}?code={code}", headers=auth)
                assert got.status_code == 200, got.text
                http.get(f"/api/rooms/{room['id']}?x=1&token={token}&CODE={code}")
            ws_url = f"ws://127.0.0.1:{port}/ws/rooms/{room['id']}?code={code}&token={token}"
            with connect(ws_url, additional_headers={**auth, "Origin": base}) as ws:
                ws.ping().wait(5)  # accepted: uvicorn has logged the handshake
        finally:
            with contextlib.suppress(ProcessLookupError):
                server.send_signal(signal.SIGTERM)
            server.wait(20)
    text = log_path.read_text()
    assert f"/api/rooms/{room['id']}?code=[redacted]" in text  # the access log did log it
    assert "WebSocket" in text and "/ws/rooms/" in text
    assert code not in text
    assert token not in text
