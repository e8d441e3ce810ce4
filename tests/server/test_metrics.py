"""server/metrics.py: the per-move metrics kept as plain numbers expose exactly what
``prometheus_client``'s own Counter and Histogram would for the same observations; the
cycle collector's pauses are counted while watched, and only then."""

from __future__ import annotations

import gc
import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.metrics import LATENCY_BUCKETS, Metrics


def _samples(text: str, prefix: str) -> list[str]:
    """The sample lines of the metrics named ``prefix*`` (no HELP/TYPE, no ``_created``)."""
    return sorted(
        line
        for line in text.splitlines()
        if line.startswith(prefix) and "_created" not in line.split(" ")[0]
    )


def test_latency_histogram_matches_prometheus_client() -> None:
    rng = random.Random(7)
    values = [rng.expovariate(300) for _ in range(2000)]
    values += list(LATENCY_BUCKETS)  # a value on a bound counts in that bound's bucket
    values += [0.0, 10.0]
    ours = Metrics()
    registry = CollectorRegistry(auto_describe=True)
    theirs = Histogram(
        "remi_action_latency_seconds",
        "Action arrival to ack / last broadcast",
        ["stage"],
        buckets=LATENCY_BUCKETS,
        registry=registry,
    )
    for v in values:
        ours.action_done(v, 2 * v)
        theirs.labels(stage="ack").observe(v)
        theirs.labels(stage="broadcast").observe(2 * v)
    mine = _samples(ours.render()[0].decode(), "remi_action_latency_seconds")
    reference = _samples(generate_latest(registry).decode(), "remi_action_latency_seconds")
    # Sums are added in the same order, so they are equal to the last bit too.
    assert mine == reference
    assert len(mine) == 2 * (len(LATENCY_BUCKETS) + 1 + 2)


def test_counters_match_prometheus_client() -> None:
    ours = Metrics()
    registry = CollectorRegistry(auto_describe=True)
    moves = Counter("remi_moves", "Accepted game actions", ["variant", "source"], registry=registry)
    rejected = Counter("remi_rejected", "Refused game actions", ["code"], registry=registry)
    for variant, source, n in (
        ("remi", "player", 3),
        ("remi101", "bot", 2),
        ("remi", "timeout", 1),
    ):
        for _ in range(n):
            ours.move(variant, source)
            moves.labels(variant=variant, source=source).inc()
    for code in ("not_your_turn", "stale_version", "not_your_turn"):
        ours.reject(code)
        rejected.labels(code=code).inc()
    text, reference = ours.render()[0].decode(), generate_latest(registry).decode()
    for prefix in ("remi_moves", "remi_rejected"):
        assert _samples(text, prefix) == _samples(reference, prefix)
    assert 'remi_moves_total{source="player",variant="remi"} 3.0' in text


def test_gc_pauses_are_measured_while_watched() -> None:
    metrics = Metrics()
    metrics.gc.watch()
    try:
        gc.collect(2)
    finally:
        metrics.gc.unwatch()
    full = metrics.gc.pauses[2].counts[:]
    assert sum(full) >= 1  # the collection above (the allocator may have run others)
    assert metrics.gc.longest[2] > 0
    gc.collect(2)  # not watched any more: not counted
    assert metrics.gc.pauses[2].counts == full
    text = metrics.render()[0].decode()
    assert f'remi_gc_pause_seconds_count{{generation="2"}} {float(sum(full))}' in text
    assert 'remi_gc_pause_longest_seconds{generation="2"}' in text
