"""Invite codes and tokens never appear in the logs: uvicorn logs each
request's path with its query string, and ``?code=<invite code>`` used to be written out
as is. The server is started the way operators start it, ``python -m server.cli serve``,
so the logging is the CLI's own."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import httpx
from serverproc import start_server
from websockets.sync.client import connect

from server.accounts.identity import hash_token

PASSWORD = "correct-horse-battery-24"
WRONG = "wrong-horse-battery-24"
NEW_PASSWORD = "new-horse-battery-24"


def test_invite_codes_and_tokens_in_query_strings_never_reach_the_log(tmp_path: Path) -> None:
    settings = {
        "REMI_LOG_FORMAT": "json",
        "REMI_LOG_LEVEL": "INFO",
        "REMI_BOT_SEARCHES": "loop",
    }
    server, base = start_server(tmp_path, settings)
    log_path = tmp_path / "server.log"
    port = base.rsplit(":", 1)[1]
    try:
        with httpx.Client(base_url=base, timeout=10) as http:
            token = http.post("/api/players", json={"display_name": "Ana"}).json()["token"]
            http.cookies.clear()
            auth = {"Authorization": f"Bearer {token}"}
            room = http.post("/api/rooms", json={"seats": 2, "public": False}, headers=auth).json()
            code = room["invite_code"]
            assert code
            got = http.get(f"/api/rooms/{room['id']}?code={code}", headers=auth)
            assert got.status_code == 200, got.text
            http.get(f"/api/rooms/{room['id']}?x=1&token={token}&CODE={code}")
            # The sessions' routes: sign in elsewhere, rotate, sign out (bodies, not queries).
            other = http.post("/api/sessions", json={"token": token}).json()["token"]
            http.cookies.clear()
            rotated = http.post(
                "/api/session/rotate", headers={"Authorization": f"Bearer {other}"}
            ).json()["token"]
            http.cookies.clear()
            gone = http.post("/api/session/revoke", headers={"Authorization": f"Bearer {rotated}"})
            assert gone.status_code == 204
            # Accounts: a claim, a wrong and a right sign-in, a password change.
            claimed = http.post(
                "/api/account", json={"username": "ana.m", "password": PASSWORD}, headers=auth
            )
            assert claimed.status_code == 201, claimed.text
            bad = http.post("/api/account/login", json={"username": "ana.m", "password": WRONG})
            assert bad.status_code == 401
            signed = http.post(
                "/api/account/login", json={"username": "ana.m", "password": PASSWORD}
            ).json()["token"]
            http.cookies.clear()
            changed = http.post(
                "/api/account/password",
                json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
                headers={"Authorization": f"Bearer {signed}"},
            )
            assert changed.status_code == 204
            short = http.post("/api/account", json={"username": "x", "password": "tiny"})
            assert short.status_code in (401, 422)
        ws_url = f"ws://127.0.0.1:{port}/ws/rooms/{room['id']}?code={code}&token={token}"
        live = {"Authorization": f"Bearer {signed}"}  # the password change revoked the rest
        with connect(ws_url, additional_headers={**live, "Origin": base}) as ws:
            ws.ping().wait(5)  # accepted: uvicorn has logged the handshake
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(signal.SIGTERM)
        server.wait(20)
    text = log_path.read_text()
    assert f"/api/rooms/{room['id']}?code=[redacted]" in text  # the access log did log it
    assert "WebSocket" in text and "/ws/rooms/" in text
    assert "session_revoked" in text and "token_rotated" in text  # the server logged those
    assert code not in text
    assert "account_claimed" in text and "password_changed" in text
    for secret in (token, other, rotated, signed):
        assert secret not in text
        assert hash_token(secret) not in text
    for password in (PASSWORD, WRONG, NEW_PASSWORD, "tiny", "$argon2"):
        assert password not in text
