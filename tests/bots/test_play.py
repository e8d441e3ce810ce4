"""Bots never attempt an illegal action, in every variant, at every level.

A small seeded sample (each line-up once per variant): the volume, thousands of rounds
that also count illegal actions and fallbacks, is the arena's (docs/bots.md)."""

from __future__ import annotations

import pytest

from server.rules.state import RoundOptions
from server.rules.variants import VARIANTS

from .helpers import play_round

LINEUPS = [
    ["normal", "easy", "hard", "normal"],
    ["easy", "normal", "hard"],
    ["hard", "normal"],
]


@pytest.mark.volume
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_illegal_action(variant: str) -> None:
    for r, levels in enumerate(LINEUPS):
        state, bots = play_round(
            variant, levels, seed=f"legal/{variant}/{r}", first=r % len(levels)
        )
        assert state.result is not None
        for bot in bots:
            assert bot.errors == [], bot.errors[:3]
            assert bot.fallbacks == 0


@pytest.mark.volume
@pytest.mark.parametrize(
    "options",
    [
        RoundOptions(row_depth=3),
        RoundOptions(short_game=True),
    ],
)
def test_family_a_room_options(options: RoundOptions) -> None:
    for variant in ("remi45", "etalat"):
        for r in range(2):
            _, bots = play_round(
                variant, ["normal", "hard"], seed=f"opt/{variant}/{r}", first=r % 2, options=options
            )
            assert all(b.errors == [] and b.fallbacks == 0 for b in bots)


def test_joker_button_101() -> None:
    options = RoundOptions(joker_button=True, joker_credits=(2, 2, 2))
    pressed = 0
    for r in range(10):
        state, bots = play_round(
            "remi101", ["normal", "hard", "easy"], seed=f"button/{r}", first=r % 3, options=options
        )
        pressed += sum(1 for _, a in state.log if a["do"] == "joker_button")
        assert all(b.errors == [] and b.fallbacks == 0 for b in bots)
    assert pressed >= 1
