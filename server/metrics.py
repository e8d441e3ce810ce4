"""Prometheus metrics, on a registry owned by each app (never the global default one).

>>> m = Metrics()
>>> m.moves.labels(variant="remi", source="player").inc()
>>> b"remi_moves_total" in m.render()[0]
True
"""

from __future__ import annotations

from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

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


class Metrics:
    """The server's metrics.

    * ``rooms{status}``: rooms per status (refreshed from the database on scrape);
    * ``live_rooms``: room actors running in this process;
    * ``connections``: open WebSocket connections;
    * ``moves_total{variant,source}``: accepted actions (source: player, bot, timeout);
    * ``rejected_total{code}``: refused actions by error code;
    * ``action_latency_seconds{stage}``: from an action's arrival to ``ack``
      (committed) and to ``broadcast`` (last frame sent).
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rooms = Gauge("remi_rooms", "Rooms by status", ["status"], registry=r)
        self.live_rooms = Gauge("remi_live_rooms", "Room actors running here", registry=r)
        self.connections = Gauge("remi_connections", "Open WebSocket connections", registry=r)
        self.moves = Counter(
            "remi_moves", "Accepted game actions", ["variant", "source"], registry=r
        )
        self.rejected = Counter("remi_rejected", "Refused game actions", ["code"], registry=r)
        self.action_latency = Histogram(
            "remi_action_latency_seconds",
            "Action arrival to ack / last broadcast",
            ["stage"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.http_requests = Counter(
            "remi_http_requests", "HTTP requests", ["method", "status"], registry=r
        )
        # The hot path's children, looked up once (``labels()`` costs a lock and a dict).
        self.ack_latency = self.action_latency.labels(stage="ack")
        self.broadcast_latency = self.action_latency.labels(stage="broadcast")
        self._moves: dict[tuple[str, str], Any] = {}

    def move(self, variant: str, source: str) -> None:
        """Count one accepted action (``moves_total{variant,source}``)."""
        child = self._moves.get((variant, source))
        if child is None:
            child = self._moves[variant, source] = self.moves.labels(
                variant=variant, source=source
            )
        child.inc()

    def set_room_counts(self, counts: dict[str, int]) -> None:
        """Set the ``remi_rooms`` gauge from a status → count mapping."""
        for status, n in counts.items():
            self.rooms.labels(status=status).set(n)

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
