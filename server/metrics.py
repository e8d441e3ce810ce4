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

import asyncio
import contextlib
import gc
import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any, Protocol

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
        self.extra: list[tuple[str, str, LatencyHistogram]] = []
        """Histograms without labels: (name, help, histogram)."""

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
        for name, text, histogram in self.extra:
            family = HistogramMetricFamily(name, text)
            family.add_metric([], histogram.cumulative(), histogram.total)
            yield family


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


LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class LoopLag(Collector):
    """How late the event loop wakes a task that sleeps ``interval`` seconds: what
    every room of the process waits for beyond its own work (:meth:`run` is a task of
    the app's lifespan)."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.lag = LatencyHistogram(LAG_BUCKETS)
        self.last = 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t0 = loop.time()
            await asyncio.sleep(self.interval)
            self.last = max(0.0, loop.time() - t0 - self.interval)
            self.lag.observe(self.last)

    def collect(self) -> Iterator[Metric]:
        lag = HistogramMetricFamily(
            "remi_event_loop_lag_seconds", "How late the event loop wakes a sleeping task"
        )
        lag.add_metric([], self.lag.cumulative(), self.lag.total)
        yield lag


class NodeSource(Protocol):
    """What :class:`NodeCollector` reads at each scrape (server/rooms/live.py)."""

    def node_figures(self) -> dict[str, Any]: ...


class NodeCollector(Collector):
    """This node's share of the cluster, read from the live rooms at each scrape: every
    figure is this node's own, so summing a series over the nodes gives the cluster's."""

    def __init__(self) -> None:
        self.source: NodeSource | None = None

    def collect(self) -> Iterator[Metric]:
        if self.source is None:
            return
        f = self.source.node_figures()
        owned = GaugeMetricFamily("remi_rooms_owned", "Rooms this node plays (holds the lease of)")
        owned.add_metric([], f["rooms_owned"])
        yield owned
        beats = CounterMetricFamily(
            "remi_lease_renewals", "Heartbeats renewing this node's leases", labels=["outcome"]
        )
        beats.add_metric(["ok"], f["beats"])
        beats.add_metric(["failed"], f["beat_failures"])
        yield beats
        claims = CounterMetricFamily(
            "remi_room_claims", "Claims of a room's lease by this node", labels=["outcome"]
        )
        claims.add_metric(["won"], f["claims_won"])
        claims.add_metric(["held_elsewhere"], f["claims_lost"])
        yield claims
        lost = CounterMetricFamily(
            "remi_rooms_lost",
            "Rooms this node stopped playing because another node took them",
            labels=["how"],
        )
        lost.add_metric(["lease_lost"], f["dropped"])
        lost.add_metric(["fenced"], f["fenced_rooms"])
        yield lost
        fenced = CounterMetricFamily(
            "remi_fencing_refusals", "Writes the database refused: the room's lease had moved on"
        )
        fenced.add_metric([], f["fenced_writes"])
        yield fenced
        bridged = GaugeMetricFamily(
            "remi_bridged_connections",
            "Connections bridged between nodes: sockets of this node whose room another node "
            "plays (client), connections of other nodes' clients to this node's rooms (owner)",
            labels=["side"],
        )
        bridged.add_metric(["client"], f["bridged_client"])
        bridged.add_metric(["owner"], f["bridged_owner"])
        yield bridged
        failures = CounterMetricFamily(
            "remi_write_failures", "Writes of the journal answered with an error (not fenced)"
        )
        failures.add_metric([], f["write_failures"])
        yield failures
        commit = HistogramMetricFamily(
            "remi_commit_seconds", "How long each transaction of the journal took"
        )
        histogram: LatencyHistogram = f["commit_seconds"]
        commit.add_metric([], histogram.cumulative(), histogram.total)
        yield commit


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
      cycle collector's pauses (:class:`GcPauses`), once :meth:`GcPauses.watch` is on
      (the app turns it on at start-up);
    * ``event_loop_lag_seconds`` (:class:`LoopLag`), ``bot_search_seconds``;
    * the node's share of the cluster (:class:`NodeCollector`): rooms owned, lease
      renewals, claims, rooms lost, fencing refusals, bridged connections, write
      failures, commit time.
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
        self.loop_lag = LoopLag()
        r.register(self.loop_lag)
        self.node = NodeCollector()
        r.register(self.node)
        self._bot_search = LatencyHistogram(LATENCY_BUCKETS)
        self._hot.extra.append(
            (
                "remi_bot_search_seconds",
                "How long a room waited for its bot's move",
                self._bot_search,
            )
        )
        self._lag_task: asyncio.Task[None] | None = None

    def bot_searched(self, seconds: float) -> None:
        """One bot move's search (what the room waited for it)."""
        self._bot_search.observe(seconds)

    def watch_loop(self) -> None:
        """Start measuring the event loop's lag (in the app's lifespan)."""
        if self._lag_task is None:
            self._lag_task = asyncio.get_running_loop().create_task(self.loop_lag.run())

    async def unwatch_loop(self) -> None:
        task, self._lag_task = self._lag_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

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
