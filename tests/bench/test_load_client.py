"""The load benchmark's own parts (bench/load/): its WebSocket client against the
websockets library's server, a table's move from its frames, the centiles."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from bench.load.run import shares
from bench.load.stats import Sample, centiles
from bench.load.table import Table, action_text
from bench.load.wsclient import connect, mask


def test_mask_is_its_own_inverse_and_matches_rfc6455() -> None:
    key = bytes([0x37, 0xFA, 0x21, 0x3D])
    # RFC 6455 §5.7: "Hello" masked with this key.
    assert mask(b"Hello", key) == bytes([0x7F, 0x9F, 0x4D, 0x51, 0x58])
    payload = bytes(range(256)) * 3
    assert mask(mask(payload, key), key) == payload


async def test_light_client_round_trips_every_frame_length_and_answers_pings() -> None:
    closed: list[int | None] = []
    pinged: list[float] = []

    async def echo(ws: ServerConnection) -> None:
        async for message in ws:
            pong = await ws.ping()
            pinged.append(await pong)
            await ws.send(message)
        closed.append(ws.close_code)

    async with serve(echo, "127.0.0.1", 0, compression=None, max_size=2**20) as server:
        port = server.sockets[0].getsockname()[1]
        got: list[str] = []
        arrived = asyncio.Event()

        def on_text(text: str) -> None:
            got.append(text)
            arrived.set()

        client = await connect("127.0.0.1", port, "/", {"X-Test": "1"}, on_text)
        texts = ["a", "é" * 100, "x" * 125, "y" * 126, "z" * 70_000]
        for text in texts:
            arrived.clear()
            client.send_text(text)
            await asyncio.wait_for(arrived.wait(), 5)
        assert got == texts
        assert len(pinged) == len(texts)
        client.close()
        await asyncio.wait_for(client.closed, 5)
        for _ in range(100):
            if closed:
                break
            await asyncio.sleep(0.01)
    assert closed == [1000]


class FakeClient:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def send_text(self, text: str) -> None:
        self.sent.append(text)


class Recorder:
    def __init__(self) -> None:
        self.sample = Sample()
        self.done: list[bool] = []

    def completed(self, table: Table, ok: bool) -> None:
        self.done.append(ok)


def _event(version: int, patch: dict[str, Any] | None = None) -> str:
    return json.dumps({"type": "event", "version": version, "view": None, "patch": patch})


def _seated_table(turn: int) -> tuple[Table, list[FakeClient], Recorder]:
    table = Table("room1", ["t0", "t1", "t2", "t3"])
    fakes = []
    for seat, p in enumerate(table.players):
        fake = FakeClient()
        p.client = fake  # type: ignore[assignment]
        fakes.append(fake)
        view = {"phase": "take", "turn": turn, "over": False, "hand": [seat, 104]}
        p.on_text(
            json.dumps({"type": "snapshot", "version": 7, "view": view, "you": {"seat": seat}})
        )
    recorder = Recorder()
    table.driver = recorder
    return table, fakes, recorder


def test_a_move_completes_when_the_ack_came_and_all_four_seats_have_its_version() -> None:
    table, fakes, recorder = _seated_table(turn=2)
    assert table.try_move()
    assert json.loads(fakes[2].sent[0]) == {
        "type": "action",
        "seq": 1,
        "base_version": 7,
        "action": {"do": "draw"},
    }
    assert not any(f.sent for i, f in enumerate(fakes) if i != 2)
    for p in table.players[:3]:
        p.on_text(_event(8, {"phase": "discard"}))
    table.players[2].on_text(json.dumps({"type": "ack", "seq": 1, "version": 8}))
    assert recorder.done == []  # seat 3 has not seen version 8 yet
    table.players[3].on_text(_event(8, {"phase": "discard"}))
    assert recorder.done == [True]
    sample = recorder.sample
    assert sample.moves == 1 and len(sample.ack) == 1 and len(sample.last) == 1
    assert 0 <= sample.ack[0] <= sample.last[0]
    assert table.acks == [("room1", 2, 1)]
    assert table.players[0].view is not None and table.players[0].view["phase"] == "discard"
    # the next move is the same seat's discard of a plain tile, on version 8
    assert table.try_move()
    assert json.loads(fakes[2].sent[1])["action"] == {"do": "discard", "tile": 2}
    assert json.loads(fakes[2].sent[1])["base_version"] == 8


def test_a_refused_move_is_an_error_and_a_table_behind_waits() -> None:
    table, fakes, recorder = _seated_table(turn=0)
    assert table.try_move()
    table.players[0].on_text(
        json.dumps({"type": "error", "seq": 1, "code": "stale_version", "message": "x"})
    )
    assert recorder.done == [False]
    assert recorder.sample.errors == {"stale_version": 1}
    assert table.acks == []
    table.players[1].on_text(_event(8))  # seat 1 ahead of the others: nobody moves now
    assert not table.try_move() and table.pending
    for p in (table.players[0], table.players[2]):
        p.on_text(_event(8))
    assert fakes[0].sent[-1].startswith('{"type":"action","seq":1,')  # not yet: seat 3
    table.players[3].on_text(_event(8))  # all four on version 8: the wanted move starts
    assert json.loads(fakes[0].sent[-1])["seq"] == 2 and not table.pending


def test_helpers() -> None:
    assert centiles([0.001, 0.002, 0.003, 0.004]) == {
        "p50": 3.0,
        "p90": 4.0,
        "p99": 4.0,
        "p99.9": 4.0,
        "max": 4.0,
    }
    assert shares(2000, 3) == [667, 667, 666] and sum(shares(7, 7)) == 7
    assert action_text(1, 2, {"phase": "build", "hand": [104, 105]}).endswith(
        '"action":{"do":"discard","tile":105}}'
    )


def test_the_nginx_entry_is_deploy_nginx_conf_with_the_benchmarks_nodes(tmp_path: Any) -> None:
    from bench.load.entry import CONF, configuration

    conf = configuration(CONF.read_text(), [8001, 8002], 9000, tmp_path)
    upstream = conf.split("upstream remi {", 1)[1].split("}", 1)[0]
    assert "server 127.0.0.1:8001 max_fails=1 fail_timeout=5s;" in upstream
    assert "server 127.0.0.1:8002 max_fails=1 fail_timeout=5s;" in upstream
    assert "app1" not in conf and "app2" not in conf
    assert "listen 127.0.0.1:9000;" in conf and "listen 8000" not in conf
    assert f"pid {tmp_path / 'nginx.pid'};" in conf
    # What production does to a room socket is kept: the upgrade and the long read.
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_read_timeout 3600s;" in conf
