"""docker-compose.yml and the Dockerfile, read as files (no Docker engine runs here:
docs/operations.md says how the stack is started and what was checked where).

What a typo would break without any test noticing: every ``REMI_`` variable the app
service sets is a real setting, the app waits for healthy PostgreSQL and Redis and
points at them, each service has a health check, and the image's own variables are
settings too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {f"REMI_{name.upper()}" for name in Settings.model_fields}


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_every_service_has_a_health_check_and_the_app_waits_for_healthy_stores() -> None:
    services = _compose()["services"]
    assert set(services) == {"app", "postgres", "redis"}
    for name, service in services.items():
        test = service.get("healthcheck", {}).get("test")
        assert test, f"{name} has no health check"
    app = services["app"]
    assert app["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert "/healthz" in " ".join(app["healthcheck"]["test"])
    assert app["build"] == "."


def test_the_app_service_sets_real_settings_pointing_at_the_other_services() -> None:
    services = _compose()["services"]
    env = services["app"]["environment"]
    unknown = sorted(set(env) - SETTINGS)
    assert unknown == [], f"not settings of server/settings.py: {unknown}"
    url = env["REMI_DATABASE_URL"]
    assert url.startswith("postgresql+asyncpg://") and "@postgres:5432/" in url
    pg = services["postgres"]["environment"]
    assert url.endswith(f"/{pg['POSTGRES_DB']}") and f"//{pg['POSTGRES_USER']}:" in url
    assert env["REMI_REDIS_URL"].startswith("redis://redis:6379")
    assert env["REMI_PORT"] == "8000"
    assert any(str(p).endswith(":8000") for p in services["app"]["ports"])


def test_the_image_sets_real_settings_and_runs_serve() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    names = set(re.findall(r"\b(REMI_[A-Z_]+)=", text))
    assert names, "the Dockerfile sets no REMI_ variable"
    assert names <= SETTINGS, f"not settings: {sorted(names - SETTINGS)}"
    assert re.search(r'^CMD \["python", "-m", "server\.cli", "serve"\]', text, re.M), text[-400:]
    # The stages copy what exists in the checkout (every COPY's sources, not --from).
    copies = re.findall(r"^COPY (?!--from)(.+)$", text, re.M)
    assert len(copies) >= 6
    for line in copies:
        *sources, _ = line.split()
        for source in sources:
            assert (ROOT / source).exists(), source
