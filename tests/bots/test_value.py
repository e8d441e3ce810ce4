"""The learned evaluation: its inputs come from the view, its weights fit its features."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from server.bots import make_bot
from server.bots.value import FEATURES, features, has_model, value
from server.bots.value_weights import DATA_VERSION, WEIGHTS
from server.rules.state import new_round
from server.rules.views import SeatView, view_for

ROOT = Path(__file__).resolve().parents[2]


def _train_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_train", ROOT / "bench" / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_train", module)
    spec.loader.exec_module(module)
    return module


def test_every_weight_vector_fits_the_features() -> None:
    assert DATA_VERSION >= 1 and WEIGHTS
    for variant, w in WEIGHTS.items():
        assert len(w) == len(FEATURES), variant
        assert has_model(variant)


@pytest.mark.parametrize("variant", ["remi", "remi101"])
def test_value_reads_the_view_only(variant: str) -> None:
    """The same value from a view rebuilt from JSON, at every turn of a seeded round."""
    state = new_round(variant, players=4, seed=f"value/{variant}")
    bots = [make_bot("normal", seed=i) for i in range(4)]
    seen = 0
    while not state.over:
        seat = state.turn
        view = view_for(state, seat)
        if state.phase == "take":
            rebuilt = SeatView.from_dict(json.loads(json.dumps(view.to_dict())))
            x = features(view)
            assert features(rebuilt) == x and len(x) == len(FEATURES)
            assert value(rebuilt) == value(view)
            seen += 1
        state.apply(seat, bots[seat].act(view))
    assert seen > 10


def test_the_ridge_fit_recovers_known_weights() -> None:
    ridge = _train_module().ridge
    rng = random.Random(5)
    true = [3.0, -2.0, 0.5]
    xs = [[1.0, rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(400)]
    ys = [sum(a * b for a, b in zip(true, x, strict=True)) for x in xs]
    w = ridge(xs, ys, 1e-6)
    assert all(abs(a - b) < 1e-4 for a, b in zip(w, true, strict=True))
