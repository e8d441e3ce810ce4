"""bench.load --promotions: the counter the server under test loads as ``sitecustomize``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

GCWATCH = Path(__file__).resolve().parents[2] / "bench" / "load" / "gcwatch"

PROGRAM = """
import gc
gc.disable()  # only the collections below: none of the oldest generation
kept = []
for round_ in range(20):
    kept.append([[i] for i in range(2000)])  # lists that outlive the young collections
    gc.collect(1)
gc.collect(1)  # (the counter writes at most once a second; the last write is below)
import time; time.sleep(1.1); kept.append([[0]]); gc.collect(1)
"""


def _run(tmp_path: Path, counting: bool) -> dict[str, int] | None:
    out = tmp_path / "promotions.json"
    env = {**os.environ, "PYTHONPATH": str(GCWATCH)}
    env.pop("REMI_BENCH_PROMOTIONS", None)
    if counting:
        env["REMI_BENCH_PROMOTIONS"] = str(out)
    subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True, timeout=60)
    if not out.exists():
        return None
    counts: dict[str, int] = json.loads(out.read_text(encoding="utf-8"))
    return counts


def test_the_lists_a_program_keeps_are_counted_as_promoted(tmp_path: Path) -> None:
    counts = _run(tmp_path, counting=True)
    assert counts is not None
    # 20 × 2,001 lists survive a collection of the middle generation (the few the
    # interpreter itself makes come on top).
    assert 20 * 2001 <= counts["list"] < 20 * 2001 + 2000, counts


def test_nothing_is_counted_unless_asked(tmp_path: Path) -> None:
    assert _run(tmp_path, counting=False) is None
