"""Replays and scenario export: for random rounds of every variant, the
replay ends where the round ended, and the round written as a scenario file passes the
scenario runner (../shared/SCENARIOS.md) with the same result; a tampered file fails."""

from __future__ import annotations

import json
import random

import pytest

from server.rules import VARIANTS, RoundOptions, new_round
from server.rules.playout import play_round
from server.rules.replays import replay_steps, to_scenario
from server.rules.scenario import run_scenario

CASES = [
    (vid, players, seed, bool(v.family.name == "B" and seed % 2))
    for vid, v in sorted(VARIANTS.items())
    for players in (2, 4)
    for seed in range(6)
]


def _played(vid: str, players: int, seed: int, button: bool):  # type: ignore[no-untyped-def]
    options = RoundOptions(joker_button=True, joker_credits=(1,) * players) if button else None
    state = new_round(vid, players, seed=f"replay-{seed}", first=seed % players, options=options)
    play_round(state, random.Random(seed))
    assert state.over
    return state


@pytest.mark.parametrize(("vid", "players", "seed", "button"), CASES)
def test_a_round_replays_to_its_result_and_runs_as_a_scenario(
    vid: str, players: int, seed: int, button: bool
) -> None:
    state = _played(vid, players, seed, button)
    replay = replay_steps(vid, players, state.deal, state.options, state.log)
    steps = replay["steps"]
    assert len(steps) == len(state.log) + 1
    assert steps[-1]["phase"] == "over"
    assert steps[-1]["hands"] == [list(h) for h in state.hands]
    assert replay["result"]["scores"] == state.result.scores
    assert [s["event"]["do"] for s in steps[1:]] == [a["do"] for _, a in state.log]
    # The deal shows every tile of the set: the hands, the whole stock in order, the atu.
    first = steps[0]
    placed = [t for h in first["hands"] for t in h] + first["stock"]
    placed += [first["atu"]] if first["atu"] is not None else []
    assert sorted(placed) == sorted(state.variant.family.tile_ids(state.options.short_game))
    assert first["stock"] == list(state.deal.stock)
    scenario = json.loads(
        json.dumps(
            to_scenario(
                vid, players, state.deal, state.options, state.log, f"{vid}-{players}-{seed}"
            )
        )
    )
    assert scenario["result"]["scores"] == state.result.scores
    ok, message = run_scenario(scenario)
    assert ok, message


def test_a_tampered_scenario_fails() -> None:
    state = _played("remi45", 3, 1, False)
    scenario = to_scenario("remi45", 3, state.deal, state.options, state.log, "tampered")
    scenario["result"]["scores"] = [s + 1 for s in scenario["result"]["scores"]]
    ok, message = run_scenario(scenario)
    assert not ok and "scores" in message
