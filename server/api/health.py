"""Operations routes: liveness (/livez), readiness (/readyz), the full check (/healthz)
and the Prometheus /metrics endpoint.

* ``/livez``: the process serves (its event loop answers): 200, whatever its database
  or Redis do. Restart a node only when this fails.
* ``/readyz``: the node can play: its database answers, its leases are trusted, no
  write waits for the database, and it is not stopping: 200,
  even with Redis down (its own rooms go on; bridged sockets wait for Redis), else 503.
  Send it traffic only while this is 200.
* ``/healthz``: the database and Redis (if configured) both answer: 200, else 503.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Response
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


async def _database_answers(services: Services, checks: dict[str, Any], route: str) -> bool:
    """Whether the database answers a ping (``checks["database"]``: ``ok`` or ``error``;
    a failure is logged as ``<route>_database_failed``)."""
    try:
        await services.db.ping()
    except Exception as exc:
        checks["database"] = "error"
        log.warning(f"{route}_database_failed", extra={"error": repr(exc)})
        return False
    checks["database"] = "ok"
    return True


@router.get("/readyz", response_model=None)
async def readyz(services: ServicesDep, live: LiveDep) -> JSONResponse:
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
    ok = await _database_answers(services, checks, "readyz") and ok
    if services.redis is None:
        checks["redis"] = "disabled"
    else:
        bridges = live.bridges
        checks["redis"] = "ok" if bridges is not None and bridges.links.up else "error"
    checks["rooms_owned"] = sum(1 for a in live.actors.values() if not a.stopped)
    body = {"status": "ok" if ok else "error", **checks}
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/healthz", response_model=None)
async def healthz(services: ServicesDep) -> JSONResponse:
    """200 when the database (and Redis, if configured) answer; 503 otherwise."""
    checks: dict[str, Any] = {}
    ok = await _database_answers(services, checks, "healthz")
    if services.redis is None:
        checks["redis"] = "disabled"
    else:
        try:
            await services.redis.ping()
            checks["redis"] = "ok"
        except Exception as exc:
            ok = False
            checks["redis"] = "error"
            log.warning("healthz_redis_failed", extra={"error": repr(exc)})
    body = {"status": "ok" if ok else "error", **checks}
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/metrics", include_in_schema=False)
async def metrics(services: ServicesDep) -> Response:
    """Prometheus exposition of this app's registry."""
    try:
        services.metrics.set_room_counts(await services.rooms.count_by_status())
    except Exception as exc:  # a scrape still reports the in-process metrics
        log.warning("metrics_room_count_failed", extra={"error": repr(exc)})
    body, content_type = services.metrics.render()
    return Response(body, media_type=content_type)
