"""Reports, from inside the server under test, the collector's view of its heap
(``python -m bench.soak``; never loaded by the product).

Imported at start-up as ``sitecustomize`` (this folder on ``PYTHONPATH``) when
``REMI_BENCH_HEAP`` names a file: a daemon thread writes there, as JSON, every
``REMI_BENCH_HEAP_SECONDS`` (5) seconds, the objects each generation tracks, the frozen
ones, the thresholds, and the collections run and objects they freed per generation.
When a file named like it plus ``.collect`` appears, the thread removes it and runs one
full collection first (its report then says ``after_full_collection``): the heap that
is still alive, garbage left out. Listing a generation holds the interpreter for a few
milliseconds per 100,000 objects: a soak's figures, not a latency benchmark's. Only the
process that imports it first reports (not the processes it starts).
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from pathlib import Path

OUT = os.environ.get("REMI_BENCH_HEAP")


def report(collected: bool) -> dict[str, object]:
    stats = gc.get_stats()
    return {
        "time": time.time(),
        "tracked": [len(gc.get_objects(generation)) for generation in range(3)],
        "frozen": gc.get_freeze_count(),
        "thresholds": list(gc.get_threshold()),
        "collections": [s["collections"] for s in stats],
        "freed": [s["collected"] for s in stats],
        "uncollectable": sum(s["uncollectable"] for s in stats),
        "after_full_collection": collected,
    }


def watch(path: Path, every: float) -> None:
    request = path.with_name(path.name + ".collect")
    while True:
        collected = request.exists()
        if collected:
            request.unlink()
            gc.collect()
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(report(collected)), encoding="utf-8")
        os.replace(tmp, path)
        deadline = time.monotonic() + every
        while time.monotonic() < deadline and not request.exists():
            time.sleep(0.2)


if OUT and not os.environ.get("REMI_BENCH_HEAP_OWNER"):
    # The server's own process only: its worker processes inherit the environment.
    os.environ["REMI_BENCH_HEAP_OWNER"] = str(os.getpid())
    seconds = float(os.environ.get("REMI_BENCH_HEAP_SECONDS", "5"))
    threading.Thread(target=watch, args=(Path(OUT), seconds), daemon=True).start()
