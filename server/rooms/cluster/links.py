"""The Redis links between server nodes: what one node sends another, in order.

Each node subscribes to its own channel, ``remi:node:<node id>``, and sends to another
node by publishing on that node's channel. What a node sends are *envelopes* (small
JSON objects, :mod:`server.rooms.cluster.bridge` says which); the envelopes for one node wait
in that node's :class:`_Outbox` and one task publishes them, every envelope queued
meanwhile in the same message (a JSON list): they arrive in the order they were sent,
and a busy link costs one Redis round trip per batch, not per frame.

Redis pub/sub keeps nothing: a message published while the receiver's subscription is
down is lost. The links therefore say when they are lost and back
(:class:`LinkEvents`), a publish that no subscriber heard counts as a failed send
(``on_send_failed``), and the bridge numbers what it sends on each connection, so
that a gap is seen and mended (the connection is closed and its client resumes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import orjson
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from server.backoff import Backoff

log = logging.getLogger(__name__)

CHANNEL = "remi:node:"
"""The prefix of each node's channel."""

MAX_BATCH = 256
"""Most envelopes in one published message."""


class LinkEvents(Protocol):
    """What the links tell the node (:class:`server.rooms.cluster.bridge.Bridges`)."""

    async def on_envelope(self, envelope: dict[str, Any]) -> None:
        """An envelope another node sent this one."""

    def on_lost(self) -> None:
        """This node's subscription is down: what others send it is lost meanwhile."""

    def on_back(self) -> None:
        """Subscribed again: what was sent meanwhile is lost."""

    def on_send_failed(self, node: str) -> None:
        """Envelopes for ``node`` could not be published: they are lost."""


class _Outbox:
    """The envelopes waiting for one node, and the task that publishes them."""

    def __init__(self, links: Links, node: str) -> None:
        self.links = links
        self.node = node
        self.queue: deque[dict[str, Any]] = deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, envelope: dict[str, Any]) -> None:
        self.queue.append(envelope)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        queue = self.queue
        channel = CHANNEL + self.node
        try:
            while queue:
                n = min(len(queue), MAX_BATCH)
                batch = [queue.popleft() for _ in range(n)]
                try:
                    heard = await self.links.redis.publish(channel, orjson.dumps(batch))
                except (RedisError, OSError) as exc:
                    heard, error = 0, repr(exc)
                else:
                    error = "no subscriber: the node is not listening"
                if not heard:
                    # Lost: Redis is away, or the node's subscription is down (it dies, or
                    # it resubscribes after a Redis restart): nothing published now reaches
                    # it, and a lost hello would leave its client waiting for ever.
                    log.warning("link_send_failed", extra={"to_node": self.node, "error": error})
                    queue.clear()
                    self.links.events.on_send_failed(self.node)
                    return
                self.links.sent += n
        finally:
            self.task = None


class Links:
    """This node's subscription and one outbox per node it sends to."""

    def __init__(self, redis: Redis, node: str, events: LinkEvents) -> None:
        self.redis = redis
        self.node = node
        self.events = events
        self.up = False
        """Whether this node's subscription is connected."""
        self.sent = 0
        self.received = 0
        self._outboxes: dict[str, _Outbox] = {}
        self._task: asyncio.Task[None] | None = None
        self._backoff = Backoff(base=0.1, cap=2.0)
        self.subscribed = asyncio.Event()

    def send(self, node: str, envelope: dict[str, Any]) -> None:
        """Queue an envelope for ``node`` (published in order, batched)."""
        box = self._outboxes.get(node)
        if box is None:
            box = self._outboxes[node] = _Outbox(self, node)
        box.put(envelope)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._pump(), name=f"links-{self.node}")
        with contextlib.suppress(TimeoutError):  # Redis away: the pump keeps trying
            await asyncio.wait_for(self.subscribed.wait(), 5)

    async def stop(self) -> None:
        """Publish what waits (for a second at most), then stop listening."""
        tasks = [b.task for b in self._outboxes.values() if b.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=1)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _pump(self) -> None:
        attempt = 0
        channel = CHANNEL + self.node
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel)
            except (RedisError, OSError) as exc:
                await _close(pubsub)
                if attempt == 0:
                    log.warning(
                        "link_subscribe_failed", extra={"node": self.node, "error": repr(exc)}
                    )
                await asyncio.sleep(self._backoff.delay(attempt))
                attempt += 1
                continue
            self.up = True
            self.subscribed.set()
            if not first:
                log.info("link_back", extra={"node": self.node, "attempts": attempt})
                self.events.on_back()
            first, attempt = False, 0
            try:
                await self._listen(pubsub)
            except (RedisError, OSError) as exc:
                log.warning("link_lost", extra={"node": self.node, "error": repr(exc)})
            finally:
                self.up = False
                self.subscribed.clear()
                await _close(pubsub)
            self.events.on_lost()

    async def _listen(self, pubsub: PubSub) -> None:
        async for raw in pubsub.listen():
            try:
                batch = orjson.loads(raw["data"])
            except (orjson.JSONDecodeError, TypeError, KeyError):
                log.warning("link_bad_message", extra={"node": self.node})
                continue
            if not isinstance(batch, list):
                continue
            self.received += len(batch)
            for envelope in batch:
                if isinstance(envelope, dict):
                    try:
                        await self.events.on_envelope(envelope)
                    except Exception:  # one bad envelope never stops the link
                        log.exception("link_envelope_failed", extra={"node": self.node})


async def _close(pubsub: PubSub) -> None:
    with contextlib.suppress(RedisError, OSError):
        await pubsub.aclose()


Sender = Callable[[str, dict[str, Any]], None]
"""How the bridge sends an envelope to a node (:meth:`Links.send`)."""
