"""docker-compose.yml and the Dockerfile, read as files (no Docker engine runs here:
docs/operations.md says how the stack is started and what was checked where).

What a typo would break without any test noticing: every ``REMI_`` variable the app
nodes set is a real setting, the nodes wait for healthy PostgreSQL and Redis and point
at them, the load balancer waits for healthy nodes and sends HTTP and the room sockets
to every one of them, each service has a health check, and the image's own variables
are settings too.
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


APPS = ("app1", "app2")


def test_every_service_has_a_health_check_and_the_nodes_wait_for_healthy_stores() -> None:
    services = _compose()["services"]
    assert set(services) == {*APPS, "lb", "postgres", "redis"}
    for name, service in services.items():
        test = service.get("healthcheck", {}).get("test")
        assert test, f"{name} has no health check"
    for name in APPS:
        app = services[name]
        assert app["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        # Ready: the node can play (a node whose Redis is away still can).
        assert "/readyz" in " ".join(app["healthcheck"]["test"])
        assert app["build"] == "."
        assert "ports" not in app  # reached through the load balancer only
    assert services["lb"]["depends_on"] == {name: {"condition": "service_healthy"} for name in APPS}


def test_the_nodes_set_real_settings_pointing_at_the_other_services() -> None:
    services = _compose()["services"]
    names = set()
    for node in APPS:
        env = services[node]["environment"]
        remi = {k for k in env if k.startswith("REMI_")}
        unknown = sorted(remi - SETTINGS)
        assert unknown == [], f"not settings of server/settings.py: {unknown}"
        url = env["REMI_DATABASE_URL"]
        assert url.startswith("postgresql+asyncpg://") and "@postgres:5432/" in url
        pg = services["postgres"]["environment"]
        assert url.endswith(f"/{pg['POSTGRES_DB']}") and f"//{pg['POSTGRES_USER']}:" in url
        assert env["REMI_REDIS_URL"].startswith("redis://redis:6379")
        assert env["REMI_PORT"] == "8000"
        names.add(env["REMI_NODE_NAME"])
    assert len(names) == len(APPS)
    assert any(str(p).endswith(":8000") for p in services["lb"]["ports"])


def test_the_load_balancer_sends_each_room_to_one_node_and_uses_every_node() -> None:
    lb = _compose()["services"]["lb"]
    [mount] = [v for v in lb["volumes"] if v.endswith(":/etc/nginx/nginx.conf:ro")]
    conf = (ROOT / mount.split(":")[0]).read_text(encoding="utf-8")
    upstream = re.search(r"upstream remi \{(.*?)\}", conf, re.S)
    assert upstream is not None
    assert sorted(re.findall(r"server (\w+):8000", upstream.group(1))) == sorted(APPS)
    # Routed by the room's id (a consistent hash), not stuck to a client's address.
    assert "ip_hash" not in conf
    assert "hash $route_key consistent;" in upstream.group(1)
    assert re.search(r"map \$uri \$route_key \{[^}]*rooms/[^}]*default \$request_id;", conf)
    assert "proxy_pass http://remi;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf  # the room sockets
    assert "proxy_set_header Connection $connection_upgrade;" in conf
    assert "proxy_set_header Host $http_host;" in conf  # the origin check compares it


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
