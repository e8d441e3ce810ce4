"""docs/operations.md documents every REMI_ setting, and only settings that exist."""

from __future__ import annotations

import re
from pathlib import Path

from server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"


def _table_names(text: str) -> set[str]:
    """The variables of the configuration table: rows that start with `REMI_...`."""
    return set(re.findall(r"^\| `(REMI_[A-Z0-9_]+)` \|", text, re.M))


def test_every_setting_is_documented_and_nothing_else() -> None:
    documented = _table_names(DOC.read_text(encoding="utf-8"))
    settings = {f"REMI_{name.upper()}" for name in Settings.model_fields}
    assert sorted(settings - documented) == [], "add these to docs/operations.md"
    assert sorted(documented - settings) == [], "not settings: remove from docs/operations.md"


def test_the_docs_name_no_setting_that_is_gone() -> None:
    """A ``REMI_`` name in the operations doc or the README is a setting, a variable of
    docker-compose.yml, or one the tests read."""
    allowed = {f"REMI_{name.upper()}" for name in Settings.model_fields}
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    allowed |= set(re.findall(r"\$\{(REMI_[A-Z0-9_]+)", compose))
    allowed |= {"REMI_TEST_POSTGRES_URL", "REMI_TEST_REDIS_URL"}  # tests/server/conftest.py
    for doc in (DOC, ROOT / "README.md"):
        named = set(re.findall(r"REMI_[A-Z0-9_]*[A-Z0-9]", doc.read_text(encoding="utf-8")))
        assert sorted(named - allowed) == [], f"{doc.name} names what is no setting"
