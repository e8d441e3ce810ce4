"""Operations routes: liveness (/livez), readiness (/readyz), the full check (/healthz)
and the Prometheus /metrics endpoint.

* ``/livez``: the process serves (its event loop answers): 200, whatever its database
  or Redis do. Restart a node only when this fails.
* ``/readyz``: the node can play: its database answers, its leases are trusted, no
  write waits for the database, and it is not stopping: 200,
  even with Redis down (its own rooms go on; bridged sockets wait for Redis), else 503.
  Send it traffic only while this is 200.
* ``/healthz``: the database and Redis (if configured) both answer: 200, else 503.

Every check of the database or Redis waits at most ``REMI_PROBE_SECONDS`` (0.5 s), the
checks of one request side by side: a database or Redis that does not answer at all (a
network that drops its packets) counts as down, so each route answers within a second
whatever they do. A check given up on is cancelled and left to end in the background (a
driver may take seconds to close a connection that does not answer); the answer does not
wait for it. ``/metrics`` then reports the room counts of its last scrape that reached
the database.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from server.api.deps import LiveDep, ServicesDep
from server.services import Services

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)


@router.get("/livez", response_model=None)
async def livez(services: ServicesDep, live: LiveDep) -> JSONResponse:
    """200 while the process serves: the node's id and the event loop's last lag."""
    body = {
        "status": "ok",
        "node": live.cluster.node,
        "name": live.cluster.name,
        "loop_lag_s": round(services.metrics.loop_lag.last, 4),
    }
    return JSONResponse(body)


def _left(request: Request) -> set[asyncio.Task[Any]]:
    """The app's checks given up on and still ending (kept referenced until they end)."""
    state = request.app.state
    if not hasattr(state, "probes_left"):
        state.probes_left = set()
    left: set[asyncio.Task[Any]] = state.probes_left
    return left


async def _within(check: Awaitable[Any], seconds: float, left: set[asyncio.Task[Any]]) -> Any:
    """``check``'s result if it comes within ``seconds``, else ``TimeoutError`` at once:
    the check is cancelled and ends in the background (in ``left`` until then)."""
    task = asyncio.ensure_future(check)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if done:
        return task.result()
    task.cancel()
    left.add(task)
    task.add_done_callback(_forget(left))
    raise TimeoutError(f"no answer within {seconds} s")


def _forget(left: set[asyncio.Task[Any]]) -> Any:
    def done(task: asyncio.Task[Any]) -> None:
        left.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: it was logged as the check's failure already

    return done


async def _database_answers(
    services: Services, checks: dict[str, Any], route: str, left: set[asyncio.Task[Any]]
) -> bool:
    """Whether the database answers a ping in time (``checks["database"]``: ``ok`` or
    ``error``; a failure is logged as ``<route>_database_failed``)."""
    try:
        await _within(services.db.ping(), services.settings.probe_seconds, left)
    except Exception as exc:  # a timeout too: the database did not answer in time
        checks["database"] = "error"
        log.warning(f"{route}_database_failed", extra={"error": repr(exc)})
        return False
    checks["database"] = "ok"
    return True


async def _redis_answers(
    services: Services, checks: dict[str, Any], left: set[asyncio.Task[Any]]
) -> bool:
    """Whether Redis (if configured) answers a ping in time (``checks["redis"]``)."""
    if services.redis is None:
        checks["redis"] = "disabled"
        return True
    try:
        await _within(services.redis.ping(), services.settings.probe_seconds, left)
    except Exception as exc:
        checks["redis"] = "error"
        log.warning("healthz_redis_failed", extra={"error": repr(exc)})
        return False
    checks["redis"] = "ok"
    return True


@router.get("/readyz", response_model=None)
async def readyz(request: Request, services: ServicesDep, live: LiveDep) -> JSONResponse:
    """200 when the node can play: its database answers, its leases are trusted (a
    heartbeat since the database returned: until then every move is refused with
    ``database_unavailable``), no write waits for the database, and it is not stopping.
    Redis is reported but never makes it 503."""
    checks: dict[str, Any] = {"node": live.cluster.node}
    ok = not live.cluster.draining
    checks["stopping"] = live.cluster.draining
    checks["leases"] = "trusted" if live.cluster.valid() else "lapsed"
    checks["writes"] = "stalled" if live.ctx.db_stalled() else "ok"
    ok = ok and checks["leases"] == "trusted" and checks["writes"] == "ok"
    ok = await _database_answers(services, checks, "readyz", _left(request)) and ok
    if services.redis is None:
        checks["redis"] = "disabled"
    else:
        bridges = live.bridges
        checks["redis"] = "ok" if bridges is not None and bridges.links.up else "error"
    checks["rooms_owned"] = live.rooms_owned()
    body = {"status": "ok" if ok else "error", **checks}
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/healthz", response_model=None)
async def healthz(request: Request, services: ServicesDep) -> JSONResponse:
    """200 when the database (and Redis, if configured) answer; 503 otherwise."""
    checks: dict[str, Any] = {}
    left = _left(request)
    answers = await asyncio.gather(
        _database_answers(services, checks, "healthz", left),
        _redis_answers(services, checks, left),
    )
    ok = all(answers)
    body = {
        "status": "ok" if ok else "error",
        "database": checks["database"],
        "redis": checks["redis"],
    }
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request, services: ServicesDep) -> Response:
    """Prometheus exposition of this app's registry (the room counts of the last scrape
    that reached the database in time)."""
    try:
        counts = await _within(
            services.rooms.count_by_status(), services.settings.probe_seconds, _left(request)
        )
        services.metrics.set_room_counts(counts)
    except Exception as exc:  # a scrape still reports the in-process metrics
        log.warning("metrics_room_count_failed", extra={"error": repr(exc)})
    body, content_type = services.metrics.render()
    return Response(body, media_type=content_type)
