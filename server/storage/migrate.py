"""Apply the Alembic migrations from inside the server (start-up and ``cli migrate``)."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from server.settings import Settings
from server.storage.database import build_engine

log = logging.getLogger(__name__)

_REPO_MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def migrations_dir(settings: Settings) -> Path:
    """Where the Alembic scripts are: ``REMI_MIGRATIONS_DIR`` or the repository's."""
    path = settings.migrations_dir or _REPO_MIGRATIONS
    if not (path / "env.py").is_file():
        raise FileNotFoundError(f"no Alembic env.py in {path} (set REMI_MIGRATIONS_DIR)")
    return path


def alembic_config(settings: Settings) -> Config:
    """An Alembic config pointing at the scripts and carrying the settings."""
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir(settings)))
    cfg.attributes["settings"] = settings
    return cfg


def head_revision(settings: Settings) -> str | None:
    """The newest revision in the script directory."""
    return ScriptDirectory.from_config(alembic_config(settings)).get_current_head()


def _upgrade(connection: Connection, cfg: Config, revision: str) -> str | None:
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)
    return MigrationContext.configure(connection).get_current_revision()


async def migrate(
    settings: Settings, engine: AsyncEngine | None = None, revision: str = "head"
) -> str | None:
    """Upgrade the database to ``revision``; returns the revision it is now at.

    Uses ``engine`` when given (the app's own), else a temporary one.
    """
    own = engine is None
    eng = build_engine(settings) if engine is None else engine
    try:
        cfg = alembic_config(settings)
        async with eng.begin() as conn:
            current = await conn.run_sync(_upgrade, cfg, revision)
        log.info("migrations_applied", extra={"revision": current})
        return current
    finally:
        if own:
            await eng.dispose()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at (None before the first migration)."""
    async with engine.connect() as conn:
        return await conn.run_sync(lambda c: MigrationContext.configure(c).get_current_revision())
