"""bench/regret.py: the split-half estimate and one short run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def _regret() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "regret.py"
    spec = importlib.util.spec_from_file_location("bench_regret", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_regret"] = module
    spec.loader.exec_module(module)
    return module


def test_split_half_gain_is_the_other_halfs_value_of_each_halfs_choice() -> None:
    gain = _regret().split_half_gain
    # Candidate 1 is better by 10 on both halves: the gain is 10.
    assert gain([[0.0, 0.0, 0.0, 0.0], [10.0, 10.0, 10.0, 10.0]]) == 10.0
    # Candidate 1 looks better on the first half only, candidate 0 on the second: the
    # first half's choice loses 20 on the second half, the second half keeps candidate 0.
    assert gain([[0.0, 0.0, 20.0, 20.0], [10.0, 10.0, 0.0, 0.0]]) == -10.0
    # The normal choice best everywhere: no gain.
    assert gain([[5.0, 5.0], [1.0, 1.0], [2.0, 2.0]]) == 0.0


def test_a_short_run_values_every_candidate_on_the_same_deals() -> None:
    regret = _regret()
    rows = regret.run("remi", deals=1, playouts=2, start=0)
    assert rows, "seat 0 had no decision with an alternative in deal 0"
    kinds = {r["kind"] for r in rows}
    assert kinds <= {"take", "open", "discard"}
    for r in rows:
        assert len(r["values"]) >= 2
        assert all(len(v) == 2 for v in r["values"])
    assert any(line.startswith(("take", "open", "discard")) for line in regret.summary(rows))


def test_a_smaller_search_is_valued_on_the_play_outs_it_did_not_use() -> None:
    held_out = _regret().held_out_gain
    values = [[0.0, 0.0, 0.0, 0.0], [30.0, -10.0, -10.0, -10.0]]
    # One play-out per candidate: the first block picks candidate 1 (valued -10 on the
    # other three), the others keep candidate 0 (0): mean -10/4.
    assert held_out(values, 1) == -2.5
    # With the gate nothing is sure on two play-outs of +30 and -10: candidate 0 kept.
    assert held_out(values, 2, gate=1.0) == 0.0
    # Only the first candidate considered: no gain possible.
    assert held_out(values, 1, candidates=1) == 0.0


def test_two_searches_are_compared_on_the_same_decisions() -> None:
    regret = _regret()
    # Deal 0: candidate 1 is better by 10 on every play-out; deal 1: no difference.
    rows = [
        {"deal": 0, "kind": "discard", "values": [[0.0] * 4, [10.0] * 4]},
        {"deal": 1, "kind": "discard", "values": [[0.0] * 4, [0.0] * 4]},
    ]
    # Best mean on one play-out a candidate finds the +10 of deal 0; with only candidate 0
    # there is nothing to find: +5 a deal between them.
    line = regret.compare(rows, (1, 0.0, 2), (1, 0.0, 1))
    assert line.startswith("(1, 0.0, 2) - (1, 0.0, 1):  +5.00")
    # Against itself: nothing.
    assert "+0.00 ±  0.00" in regret.compare(rows, (2, 1.0, 2), (2, 1.0, 2))
