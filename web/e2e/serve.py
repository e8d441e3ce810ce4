"""Start the real server for the browser tests (``python web/e2e/serve.py``).

Exactly ``python -m server.cli serve`` (settings from the ``REMI_*`` environment the
test sets: a temporary SQLite database, a free loopback port), with one test hook:
``REMI_E2E_SEEDS`` (comma-separated) gives the deal seeds of the first rounds, in
order, so a test knows what kind of hand it is dealt; later rounds are random.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from server import cli  # noqa: E402
from server.rooms import live  # noqa: E402


class _Seeds:
    """Stands in for the ``secrets`` module of server/rooms/live.py, where the room actors
    get their deal seeds (``LiveContext.new_seed``): scripted seeds first."""

    def __init__(self, seeds: list[str]) -> None:
        self.seeds = seeds

    def token_hex(self, nbytes: int | None = None) -> str:
        if self.seeds:
            return self.seeds.pop(0)
        return secrets.token_hex(nbytes)

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)


scripted = [s for s in os.environ.get("REMI_E2E_SEEDS", "").split(",") if s]
if scripted:
    live.secrets = _Seeds(scripted)  # type: ignore[assignment]

if __name__ == "__main__":
    raise SystemExit(cli.main(["serve"]))
