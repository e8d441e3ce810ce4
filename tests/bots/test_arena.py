"""The arena CLI plays rounds and reports 0 illegal actions."""

from __future__ import annotations

import json

import pytest

from server.bots.arena import main


def test_arena_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--variant", "remi45", "--players", "3", "--bots", "hard,normal,easy",
                 "--rounds", "3", "--seed", "7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["rounds"] == 3 and out["illegal"] == 0 and out["fallbacks"] == 0
    assert [s["bot"] for s in out["seats"]] == ["hard", "normal", "easy"]
    assert {(m["a"], m["b"]) for m in out["margins"]} == {
        ("normal", "easy"), ("hard", "easy"), ("hard", "normal")}


def test_arena_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--variant", "remi101", "--players", "2", "--bots", "normal,easy",
                 "--rounds", "2", "--joker-button", "1"]) == 0
    text = capsys.readouterr().out
    assert "illegal actions: 0" in text and "rounds/s" in text
