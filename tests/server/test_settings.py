"""Settings from the environment (REMI_ prefix)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from server.app import create_app
from server.settings import Settings


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("REMI_DATABASE_URL", "REMI_REDIS_URL", "REMI_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    s = Settings()
    assert s.database_url == f"sqlite+aiosqlite:///{tmp_path.resolve() / 'data' / 'remi.sqlite3'}"
    assert s.redis_url is None
    assert s.rate_limit_messages == 100
    assert s.rate_limit_window_seconds == 20
    assert s.max_frame_bytes == 16 * 1024
    assert s.cookie_samesite == "lax"
    assert s.default_turn_seconds == 60
    assert s.is_sqlite and not s.is_postgres


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMI_DATABASE_URL", "postgresql+asyncpg://u:p@db/remi")
    monkeypatch.setenv("REMI_REDIS_URL", "redis://cache:6379/0")
    monkeypatch.setenv("REMI_ALLOWED_ORIGINS", '["https://remi.example"]')
    monkeypatch.setenv("REMI_PORT", "9000")
    monkeypatch.setenv("REMI_COOKIE_SECURE", "true")
    monkeypatch.setenv("REMI_DEFAULT_TURN_SECONDS", "30")
    monkeypatch.setenv("REMI_LOG_LEVEL", "debug")
    s = Settings()
    assert s.is_postgres
    assert s.redis_url == "redis://cache:6379/0"
    assert s.allowed_origins == ["https://remi.example"]
    assert s.port == 9000
    assert s.cookie_secure is True
    assert s.default_turn_seconds == 30
    assert s.log_level == "DEBUG"


def test_live_room_pacing_is_in_the_one_settings_object(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("REMI_BOT_DELAY_SECONDS", "0.25")
    monkeypatch.setenv("REMI_ROUND_PAUSE_SECONDS", "2")
    monkeypatch.setenv("REMI_SEND_QUEUE_LIMIT", "64")
    s = Settings(data_dir=tmp_path)
    assert (s.bot_delay_seconds, s.round_pause_seconds) == (0.25, 2.0)
    assert s.send_queue_limit == 64
    # The live rooms read the settings the app was given; nothing else reads the environment.
    app = create_app(s)
    assert app.state.live.settings is s
    assert app.state.live.ctx.settings.bot_delay_seconds == 0.25


def test_no_setting_of_the_removed_speed_layer() -> None:
    """One garbage-collector policy (server/gcpolicy.py), on or off, is all the tuning
    there is: no other collector, socket-writer or native-build setting is read."""
    names = set(Settings.model_fields)
    assert {n for n in names if n.startswith("gc_")} == {"gc_policy"}
    assert Settings().gc_policy is True
    assert not names & {"socket_writes", "send_buffer_bytes", "native"}


def test_comma_separated_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMI_ALLOWED_ORIGINS", "https://a.example, https://b.example")
    assert Settings().allowed_origins == ["https://a.example", "https://b.example"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REMI_DEFAULT_TURN_SECONDS", "45"),
        ("REMI_PORT", "0"),
        ("REMI_DATABASE_SCHEMA", "bad schema"),
        ("REMI_COOKIE_SAMESITE", "none"),
        ("REMI_TURN_TIME_SCALE", "0"),
        ("REMI_VERSION_BLOCK", "8"),
        ("REMI_SEND_QUEUE_LIMIT", "4"),
    ],
)
def test_invalid_environment(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()
