"""The client's files gzipped where the build left a ``.gz`` copy (server/webfiles.py)."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from server.webfiles import CompressedStaticFiles

WASM = bytes(range(256)) * 64  # 16 KB that gzip shrinks


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
    (tmp_path / "engine.wasm").write_bytes(WASM)
    (tmp_path / "engine.wasm.gz").write_bytes(gzip.compress(WASM))
    (tmp_path / "plain.js").write_text("export {};\n", encoding="utf-8")
    app = Starlette(routes=[Mount("/", CompressedStaticFiles(directory=tmp_path, html=True))])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client


async def test_a_client_that_accepts_gzip_gets_the_compressed_copy(
    http: httpx.AsyncClient,
) -> None:
    r = await http.get("/engine.wasm", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.headers["content-type"] == "application/wasm"  # the original's, not gzip's
    assert r.headers["vary"] == "Accept-Encoding"
    assert int(r.headers["content-length"]) == len(gzip.compress(WASM))
    assert r.content == WASM  # httpx decodes the gzip body


async def test_any_other_client_gets_the_file_itself(http: httpx.AsyncClient) -> None:
    for accept in ("identity", "br", "gzip;q=0"):
        r = await http.get("/engine.wasm", headers={"Accept-Encoding": accept})
        assert r.status_code == 200
        assert "content-encoding" not in r.headers
        assert r.headers["vary"] == "Accept-Encoding"
        assert r.headers["content-type"] == "application/wasm"
        assert r.content == WASM and int(r.headers["content-length"]) == len(WASM)


async def test_each_representation_revalidates_with_its_own_etag(
    http: httpx.AsyncClient,
) -> None:
    zipped = await http.get("/engine.wasm", headers={"Accept-Encoding": "gzip"})
    plain = await http.get("/engine.wasm", headers={"Accept-Encoding": "identity"})
    assert zipped.headers["etag"] != plain.headers["etag"]
    again = await http.get(
        "/engine.wasm",
        headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["etag"]},
    )
    assert again.status_code == 304
    # The plain file's validator does not stand for the compressed copy.
    other = await http.get(
        "/engine.wasm", headers={"Accept-Encoding": "gzip", "If-None-Match": plain.headers["etag"]}
    )
    assert other.status_code == 200 and other.headers["content-encoding"] == "gzip"


async def test_a_file_without_a_copy_is_served_as_before(http: httpx.AsyncClient) -> None:
    r = await http.get("/plain.js", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.text == "export {};\n"
    assert "content-encoding" not in r.headers and "vary" not in r.headers
    page = await http.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and "<title>t</title>" in page.text
    assert (await http.get("/missing.wasm")).status_code == 404
