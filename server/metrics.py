"""Prometheus metrics, on a registry owned by each app (never the global default one).

>>> m = Metrics()
>>> m.move("remi", "player")
>>> m.action_done(0.0007, 0.003)
>>> text = m.render()[0].decode()
>>> 'remi_moves_total{source="player",variant="remi"} 1.0' in text
True
>>> 'remi_action_latency_seconds_bucket{le="0.001",stage="ack"} 1.0' in text
True
>>> 'remi_action_latency_seconds_bucket{le="0.001",stage="broadcast"} 0.0' in text
True
"""

from __future__ import annotations

import gc
import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Gauge,
    generate_latest,
)
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.0075,
    0.01,
    0.015,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
)


class LatencyHistogram:
    """One histogram series kept as plain numbers: an observation is a ``bisect`` and two
    additions (``prometheus_client``'s ``Histogram.observe`` takes a lock per bucket
    update; this one is only touched from the event loop's thread).

    >>> h = LatencyHistogram((0.001, 0.01))
    >>> for v in (0.0005, 0.001, 0.002, 3.0):
    ...     h.observe(v)
    >>> h.cumulative()
    [('0.001', 2.0), ('0.01', 3.0), ('+Inf', 4.0)]
    """

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last one: above every bound
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        # A value equal to a bound counts in that bound's bucket (Prometheus' ``le``).
        self.counts[bisect_left(self.bounds, seconds)] += 1
        self.total += seconds

    def cumulative(self) -> list[tuple[str, float]]:
        """The ``le`` buckets, cumulative, as Prometheus exposes them."""
        out: list[tuple[str, float]] = []
        running = 0
        for bound, n in zip((*map(_float_label, self.bounds), "+Inf"), self.counts, strict=True):
            running += n
            out.append((bound, float(running)))
        return out


def _float_label(value: float) -> str:
    return repr(float(value))


class _HotPath(Collector):
    """The per-move metrics (moves, refusals, action latency) as plain counters, read
    into metric families when ``/metrics`` is scraped."""

    def __init__(self) -> None:
        self.moves: dict[tuple[str, str], int] = {}
        self.rejected: dict[str, int] = {}
        self.latency = {
            "ack": LatencyHistogram(LATENCY_BUCKETS),
            "broadcast": LatencyHistogram(LATENCY_BUCKETS),
        }

    def collect(self) -> Iterator[Metric]:
        moves = CounterMetricFamily(
            "remi_moves", "Accepted game actions", labels=["variant", "source"]
        )
        for (variant, source), n in sorted(self.moves.items()):
            moves.add_metric([variant, source], float(n))
        yield moves
        rejected = CounterMetricFamily("remi_rejected", "Refused game actions", labels=["code"])
        for code, n in sorted(self.rejected.items()):
            rejected.add_metric([code], float(n))
        yield rejected
        latency = HistogramMetricFamily(
            "remi_action_latency_seconds",
            "Action arrival to ack / last broadcast",
            labels=["stage"],
        )
        for stage, histogram in self.latency.items():
            latency.add_metric([stage], histogram.cumulative(), histogram.total)
        yield latency


GC_PAUSE_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class GcPauses(Collector):
    """How long CPython's cycle collector stops the process, by generation: a full
    collection (generation 2) walks every object the collector tracks, so its pause
    grows with the heap (the rooms and connections of the process); the event loop
    answers nothing meanwhile. Measured by a ``gc.callbacks`` hook while watching."""

    def __init__(self) -> None:
        self.pauses = [LatencyHistogram(GC_PAUSE_BUCKETS) for _ in range(3)]
        self.longest = [0.0, 0.0, 0.0]
        self._started = 0.0

    def watch(self) -> None:
        if self._hook not in gc.callbacks:
            gc.callbacks.append(self._hook)

    def unwatch(self) -> None:
        if self._hook in gc.callbacks:
            gc.callbacks.remove(self._hook)

    def _hook(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = info["generation"]
        pause = time.perf_counter() - self._started
        self.pauses[generation].observe(pause)
        self.longest[generation] = max(self.longest[generation], pause)

    def collect(self) -> Iterator[Metric]:
        pauses = HistogramMetricFamily(
            "remi_gc_pause_seconds",
            "Pauses of the cycle collector by generation (2: full collections)",
            labels=["generation"],
        )
        for generation, histogram in enumerate(self.pauses):
            pauses.add_metric([str(generation)], histogram.cumulative(), histogram.total)
        yield pauses
        longest = GaugeMetricFamily(
            "remi_gc_pause_longest_seconds",
            "The longest pause of the cycle collector so far, by generation",
            labels=["generation"],
        )
        for generation, seconds in enumerate(self.longest):
            longest.add_metric([str(generation)], seconds)
        yield longest


class Metrics:
    """The server's metrics.

    * ``rooms{status}``: rooms per status (refreshed from the database on scrape);
    * ``live_rooms``: room actors running in this process;
    * ``connections``: open WebSocket connections;
    * ``moves_total{variant,source}``: accepted actions (source: player, bot, timeout);
    * ``rejected_total{code}``: refused actions by error code;
    * ``action_latency_seconds{stage}``: from an action's arrival to ``ack``
      (committed) and to ``broadcast`` (last frame sent);
    * ``gc_pause_seconds{generation}``, ``gc_pause_longest_seconds{generation}``: the
      cycle collector's pauses (:class:`GcPauses`), while :meth:`watch_gc` is on.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rooms = Gauge("remi_rooms", "Rooms by status", ["status"], registry=r)
        self.live_rooms = Gauge("remi_live_rooms", "Room actors running here", registry=r)
        self.connections = Gauge("remi_connections", "Open WebSocket connections", registry=r)
        # Counted on every move: plain numbers, read when scraped (see _HotPath).
        self._hot = _HotPath()
        r.register(self._hot)
        self._ack = self._hot.latency["ack"]
        self._broadcast = self._hot.latency["broadcast"]
        self.gc = GcPauses()
        r.register(self.gc)

    def move(self, variant: str, source: str) -> None:
        """Count one accepted action (``moves_total{variant,source}``)."""
        moves = self._hot.moves
        key = (variant, source)
        moves[key] = moves.get(key, 0) + 1

    def reject(self, code: str) -> None:
        """Count one refused action (``rejected_total{code}``)."""
        rejected = self._hot.rejected
        rejected[code] = rejected.get(code, 0) + 1

    def action_done(self, ack_seconds: float, broadcast_seconds: float) -> None:
        """One action's latency from its arrival to its ``ack`` and to its last frame."""
        self._ack.observe(ack_seconds)
        self._broadcast.observe(broadcast_seconds)

    def set_room_counts(self, counts: dict[str, int]) -> None:
        """Set the ``remi_rooms`` gauge from a status → count mapping."""
        for status, n in counts.items():
            self.rooms.labels(status=status).set(n)

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
