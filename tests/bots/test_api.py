"""The public bot API: levels, view-only input, determinism."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from server.bots import BOT_LEVELS, fallback_action, make_bot
from server.bots.facts import facts_of
from server.bots.legal import check
from server.rules.catalogue import variant_facts
from server.rules.state import new_round
from server.rules.variants import VARIANTS
from server.rules.views import SeatView, view_for

from .helpers import play_round

BOTS_DIR = Path(__file__).resolve().parents[2] / "server" / "bots"


def test_levels() -> None:
    assert BOT_LEVELS == ("easy", "normal", "hard")
    for level in BOT_LEVELS:
        assert make_bot(level, seed=1).level == level
    with pytest.raises(ValueError):
        make_bot("expert")


@pytest.mark.volume
@pytest.mark.parametrize("variant", ["remi45", "etalat", "remi101"])
def test_act_on_a_view_rebuilt_from_json(variant: str) -> None:
    """A bot needs nothing but the JSON view: it plays whole rounds from it."""
    state = new_round(variant, players=3, seed="json")
    bots = [make_bot(level, seed=i) for i, level in enumerate(BOT_LEVELS)]
    while not state.over:
        seat = state.turn
        view = view_for(state, seat)
        rebuilt = SeatView.from_dict(json.loads(json.dumps(view.to_dict())))
        assert rebuilt == view
        state.apply(seat, bots[seat].act(rebuilt))
    assert all(b.errors == [] for b in bots)


def test_bot_code_never_touches_the_round_state() -> None:
    """Structural: no bot module imports the state or names RoundState, but the arena and
    the coach, which replay rounds through the engine and give the bots only views."""
    for path in sorted(BOTS_DIR.glob("*.py")):
        if path.name in ("arena.py", "coach.py"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "server.rules.state", path.name
                assert "RoundState" not in [a.name for a in node.names], path.name
            if isinstance(node, ast.Name):
                assert node.id != "RoundState", path.name


def test_act_takes_only_the_view() -> None:
    import inspect

    for level in BOT_LEVELS:
        params = list(inspect.signature(make_bot(level).act).parameters)
        assert params == ["view"]


def test_act_refuses_when_not_its_turn() -> None:
    state = new_round("remi45", players=2, seed=3)
    with pytest.raises(ValueError):
        make_bot("easy").act(view_for(state, 1))


@pytest.mark.volume
@pytest.mark.parametrize("level", BOT_LEVELS)
def test_deterministic_given_the_seed(level: str) -> None:
    for variant in ("remi51", "remi101-rising"):
        logs = []
        for _ in range(2):
            state, _ = play_round(variant, [level, level, level], seed=f"det/{level}")
            logs.append(json.dumps(state.log))
        assert logs[0] == logs[1]


@pytest.mark.parametrize("variant", ["remi", "etalat51", "remi101"])
def test_fallback_is_always_legal(variant: str) -> None:
    state = new_round(variant, players=2, seed="fb")
    bots = [make_bot("normal", seed=0), make_bot("normal", seed=1)]
    while not state.over:
        seat = state.turn
        view = view_for(state, seat)
        assert check(view, fallback_action(view)) is None
        state.apply(seat, bots[seat].act(view))


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_facts_are_the_catalogue_s(variant_id: str) -> None:
    variant = VARIANTS[variant_id]
    facts, cat = facts_of(variant), variant_facts(variant)
    assert facts.atu == cat["atu"] and facts.row_break == cat["row_break"]
    assert facts.ace_high == cat["ace_high"] and facts.joker_layoff == cat["joker_layoff"]
    assert facts.doubles == ("double" in cat["meld_kinds"])
    assert facts.take_layoff == ("take_discard" in cat["take_actions"])
    assert facts.top_rank == (14 if cat["ace_high"] else 13)
    assert facts.first_turn_restricted == cat["first_turn_restricted"]
    assert facts.laid_credits == (cat["family"] == "A")
    assert facts.unopened_score == (-100 if cat["family"] == "A" else -202)


def test_bot_code_asks_facts_not_families() -> None:
    """Variant facts come from server.bots.facts, not from branches on the family."""
    root = Path(__file__).resolve().parents[2] / "server" / "bots"
    for path in root.glob("*.py"):
        text = path.read_text()
        assert "family_a" not in text, path.name
        assert "family.name" not in text, path.name
