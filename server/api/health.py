"""Operations routes: /healthz and the Prometheus /metrics endpoint."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from server.api.deps import ServicesDep

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)


@router.get("/healthz", response_model=None)
async def healthz(services: ServicesDep) -> JSONResponse:
    """200 when the database (and Redis, if configured) answer; 503 otherwise."""
    checks: dict[str, str] = {}
    ok = True
    try:
        await services.db.ping()
        checks["database"] = "ok"
    except Exception as exc:
        ok = False
        checks["database"] = "error"
        log.warning("healthz_database_failed", extra={"error": repr(exc)})
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
