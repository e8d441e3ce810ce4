"""Security headers: the page, its static files and the API are served
with a Content-Security-Policy without inline script (no clickjacking: ``frame-ancestors
'none'``), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and a referrer
policy; the client's page itself has no inline script the policy would block."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from conftest import base_settings

import server.app as app_module
from server.api.headers import DOCS_POLICY, page_policy
from server.app import create_app

ROOT = Path(__file__).resolve().parents[3]


def _directives(policy: str) -> dict[str, list[str]]:
    """A policy as ``{directive: [sources]}``."""
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.fixture
async def client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """An app serving a stand-in built client (an index page and one asset)."""
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(
        '<!doctype html><script type="module" src="/assets/app.js"></script>', encoding="utf-8"
    )
    (dist / "assets" / "app.js").write_text("export {};\n", encoding="utf-8")
    monkeypatch.setattr(app_module, "WEB_DIST", dist)
    app = create_app(base_settings(data_dir=tmp_path, database_url=""))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://remi.example:8000") as c:
            yield c


def _assert_hardened(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"
    policy = _directives(response.headers["content-security-policy"])
    assert policy["default-src"] == ["'self'"]
    # no 'unsafe-inline', no 'unsafe-eval': only WebAssembly from the origin's own files
    # (the offline practice's Pyodide), and workers only from the origin
    assert policy["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    assert policy["worker-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"] == ["'self'", "ws://remi.example:8000", "wss://remi.example:8000"]


async def test_the_page_its_static_files_and_the_api_carry_the_headers(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and "<script" in page.text
    _assert_hardened(page)
    asset = await client.get("/assets/app.js")
    assert asset.status_code == 200 and "javascript" in asset.headers["content-type"]
    _assert_hardened(asset)
    api = await client.get("/api/variants")
    assert api.status_code == 200
    _assert_hardened(api)
    missing = await client.get("/api/rooms/nosuchroom")
    assert missing.status_code == 404
    _assert_hardened(missing)
    too_large = await client.post("/api/players", content=b"x" * 100_000)
    assert too_large.status_code == 413
    _assert_hardened(too_large)


async def test_the_api_pages_get_their_own_policy_still_unframeable(
    client: httpx.AsyncClient,
) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    assert docs.headers["content-security-policy"] == DOCS_POLICY
    assert _directives(DOCS_POLICY)["frame-ancestors"] == ["'none'"]
    assert docs.headers["x-frame-options"] == "DENY"


def test_a_host_header_unfit_for_the_policy_is_left_out() -> None:
    assert _directives(page_policy(b"a.example; script-src *"))["connect-src"] == ["'self'"]
    assert _directives(page_policy(None))["connect-src"] == ["'self'"]
    assert _directives(page_policy(b"[::1]:8000"))["connect-src"][1] == "ws://[::1]:8000"


def test_the_client_page_has_no_inline_script_or_style() -> None:
    """The page's source (the suite runs before the client is built: the built page is
    held to the policy by web/e2e/hostile.test.mjs, where any CSP violation fails)."""
    html = (ROOT / "web/index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I)
    assert scripts, "the page loads its script"
    for attrs, body in scripts:
        assert "src=" in attrs and not body.strip(), "an inline script: the policy blocks it"
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html, re.I)
