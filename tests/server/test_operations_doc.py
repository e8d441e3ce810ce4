"""docs/operations.md documents every REMI_ setting."""

from __future__ import annotations

from pathlib import Path

from server.settings import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_every_setting_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [
        f"REMI_{name.upper()}"
        for name in Settings.model_fields
        if f"| `REMI_{name.upper()}` |" not in text
    ]
    assert missing == [], f"add these to docs/operations.md: {missing}"
