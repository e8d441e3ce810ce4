"""The arena CLI plays rounds and reports 0 illegal actions."""

from __future__ import annotations

import json

import pytest

from server.bots.arena import main


def test_arena_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    # Remi 101: its hard level searches only near the end of the stock, so the sample is
    # quick (family A's searches at every take and discard; the volume is docs/bots.md's).
    code = main(
        [
            "--variant",
            "remi101",
            "--players",
            "3",
            "--bots",
            "hard,normal,easy",
            "--rounds",
            "3",
            "--seed",
            "7",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["deals"] == 3 and out["rotations"] == 3 and out["rounds"] == 9
    assert out["illegal"] == 0 and out["fallbacks"] == 0
    assert [s["bot"] for s in out["seats"]] == ["hard", "normal", "easy"]
    assert {(m["a"], m["b"]) for m in out["margins"]} == {
        ("normal", "easy"),
        ("hard", "easy"),
        ("hard", "normal"),
    }


def test_arena_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "--variant",
                "remi101",
                "--players",
                "2",
                "--bots",
                "normal,easy",
                "--rounds",
                "2",
                "--joker-button",
                "1",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "illegal actions: 0" in text and "rounds/s" in text


def test_duplicate_rotations_cancel_the_seat() -> None:
    """Every rotation of the line-up is played on each deal; a level against itself is 0."""
    from server.bots.arena import margins, rotations, run_arena

    assert rotations(["hard", "normal", "easy", "easy"]) == [0, 1, 2, 3]
    assert rotations(["hard", "normal", "hard", "normal"]) == [0, 1]
    r = run_arena("remi", 2, ["normal", "normal"], rounds=3, seed=2)
    assert r.rounds == 3 and r.deals == 3  # one distinct seating
    r = run_arena("remi101", 2, ["normal", "easy"], rounds=3, seed=2)
    assert r.rounds == 6 and len(r.entry_scores) == 3
    (m,) = margins(r, ["easy", "normal"])
    per_deal = [s[0] - s[1] for s in r.entry_scores]
    assert abs(m["margin"] - sum(per_deal) / 3) < 1e-9 and (m["a"], m["b"]) == ("normal", "easy")
