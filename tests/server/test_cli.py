"""The command line: migrate, and serve (uvicorn replaced by a recorder)."""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server import cli
from server.app import create_app
from server.fairness import verifier
from server.settings import Settings
from server.wsprotocol import RoomSocketProtocol


@pytest.fixture
def data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("REMI_DATABASE_URL", "REMI_REDIS_URL", "REMI_HOST", "REMI_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REMI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REMI_LOG_FORMAT", "text")
    return tmp_path / "data"


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_migrate_command(data_dir: Path) -> None:
    assert cli.main(["migrate"]) == 0
    assert {"players", "rooms", "actions", "alembic_version"} <= _tables(data_dir / "remi.sqlite3")
    assert cli.main(["migrate"]) == 0  # idempotent


def test_serve_migrates_then_runs_uvicorn(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, dict[str, Any], int, int]] = []

    def run(app: Any, **kw: Any) -> None:
        before = gc.get_freeze_count()
        with TestClient(app):  # uvicorn would run the lifespan: start-up, then serving
            during = gc.get_freeze_count()
        gc.unfreeze()  # the test process goes on: leave its collector as it was
        calls.append((app, kw, before, during))

    monkeypatch.setattr(cli, "run_server", run)
    assert gc.get_freeze_count() == 0
    assert cli.main(["serve", "--host", "127.0.0.2", "--port", "8123"]) == 0
    assert "players" in _tables(data_dir / "remi.sqlite3")
    [(app, kwargs, before, during)] = calls
    assert isinstance(app, FastAPI)
    # One gc.freeze(), once start-up is over: what it made is out of the generations.
    assert before == 0 and during > 0
    assert kwargs["host"] == "127.0.0.2"
    assert kwargs["port"] == 8123
    # uvloop, httptools, uvicorn's sans-io websockets protocol with the server's changes.
    assert (kwargs["loop"], kwargs["http"], kwargs["ws"]) == (
        "uvloop",
        "httptools",
        RoomSocketProtocol,
    )
    assert kwargs["ws_max_size"] == 16 * 1024
    assert kwargs["ws_per_message_deflate"] is False
    assert app.state.services.settings.migrate_on_startup is False


def test_an_app_built_for_tests_freezes_nothing(data_dir: Path) -> None:
    with TestClient(create_app(Settings())):
        assert gc.get_freeze_count() == 0


def test_unknown_command() -> None:
    with pytest.raises(SystemExit):
        cli.main(["dance"])


@pytest.mark.parametrize("room", ["-AbC1xYz2_q", "--bC1xYz2_q", "-"])
def test_verify_takes_a_room_id_that_begins_with_a_dash(
    room: str, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """About one room id in 64 begins with ``-``: ``verify --room ID`` still reads it."""
    seen: list[tuple[object, ...]] = []
    monkeypatch.setenv("REMI_DATA_DIR", str(data_dir))
    monkeypatch.setattr(
        verifier,
        "run",
        lambda *args: seen.append(args) or 0,  # type: ignore[func-returns-value]
    )
    assert cli.main(["verify", "--room", room, "--round", "3"]) == 0
    assert seen[0][:3] == (None, room, 3)
