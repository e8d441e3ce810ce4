"""The fair deal over the wire (docs/fairness.md): rounds played by bots
are verified from their published record (GET /api/rooms/{id}/rounds/{n}/verify), by the
server, by ``python -m server.cli verify`` on the saved file, on the URL and from the
database; the commitment a watcher got at the deal and the seed it got at the end are the
record's; a tampered record is detected; a round being played shows no seed; a private
room's record is its players' only."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import BOT_ROUNDS, Client, Server, running_server, two_player_room

from server import cli
from server.fairness import verifier
from server.settings import Settings


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(base_settings(data_dir=tmp_path, database_url=""), BOT_ROUNDS) as s:
        yield s


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _event(do: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "event" and m["event"]["do"] == do


async def _bot_round(
    srv: Server, variant: str, public: bool = True
) -> tuple[str, str, Client | None]:
    """A room of Ana (not connected: a bot plays her seat) and two bots, one round played
    to its end; with a public room, Eve watches it from before the deal. The room, Ana's
    token and Eve's connection."""
    _, ana = await srv.player("Ana")
    room = await srv.room(
        ana,
        variant=variant,
        seats=3,
        fill_with_bots=True,
        bot_level="easy",
        public=public,
        end={"kind": "rounds", "rounds": 1},
    )
    watcher = None
    if public:
        _, eve = await srv.player("Eve")
        watcher = await srv.client(eve, room)
        await watcher.hello()
    await srv.start(ana, room)
    for _ in range(600):
        r = await srv.http.get(f"/api/rooms/{room}/scores", headers=_auth(ana))
        assert r.status_code == 200, r.text
        if r.json()["rounds"]:
            return room, ana, watcher
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish the round")


@pytest.mark.parametrize("variant", ["remi45", "etalat", "remi101"])
async def test_a_bot_round_verifies_over_http_and_on_the_command_line(
    srv: Server, tmp_path: Path, variant: str
) -> None:
    room, _, watcher = await _bot_round(srv, variant)
    assert watcher is not None
    start = await watcher.wait(_event("round_start"))
    over = await watcher.wait(_event("round_over"), timeout=30)

    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/verify")  # a public room: anyone
    assert r.status_code == 200, r.text
    record = r.json()
    assert [(c["name"], c["ok"]) for c in record["checks"]] == [
        ("commitment", True),
        ("deal", True),
        ("log", True),
        ("result", True),
    ]
    # What the watcher was given at the deal, and at the end, is the record's.
    seed = record["seed"]
    assert start["event"]["commitment"] == record["commitment"]
    assert record["commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    assert over["event"]["seed"] == seed and over["event"]["commitment"] == record["commitment"]
    assert start["view"]["commitment"] == record["commitment"]
    # The replay starts from the record's deal and ends in its result.
    replay = (await srv.http.get(f"/api/rooms/{room}/rounds/1/replay")).json()
    first = replay["steps"][0]
    assert (first["hands"], first["stock"], first["atu"]) == (
        record["deal"]["hands"],
        record["deal"]["stock"],
        record["deal"]["atu"],
    )
    assert len(replay["steps"]) == len(record["actions"]) + 1
    assert replay["result"] == record["result"]
    assert replay["seed"] == seed and replay["commitment"] == record["commitment"]
    assert record["result"]["scores"] == (await srv.scores(room))["rounds"][0]["scores"]

    # The command line on the saved file, with the commitment the watcher was given.
    path = tmp_path / "round.json"
    path.write_text(r.text, encoding="utf-8")
    out = io.StringIO()
    code = verifier.run(str(path), None, None, start["event"]["commitment"], srv.settings, out)
    assert code == 0, out.getvalue()
    text = out.getvalue()
    assert "VERIFIED: all 5 checks pass" in text and f"seed {seed}" in text
    assert "OK   your commitment" in text
    # ... and on the URL itself (the server's answer, read over HTTP).
    out = io.StringIO()
    url = f"{srv.base}/api/rooms/{room}/rounds/1/verify"
    code = await asyncio.to_thread(verifier.run, url, None, None, None, srv.settings, out)
    assert code == 0, out.getvalue()
    await watcher.close()


def _tamper_seed(r: dict[str, Any]) -> None:
    r["seed"] = "0" * 32


def _tamper_stock(r: dict[str, Any]) -> None:
    r["deal"]["stock"] = r["deal"]["stock"][::-1]


def _tamper_action(r: dict[str, Any]) -> None:
    other = r["deal"]["hands"][(r["first"] + 1) % r["players"]]
    action = next(a for _, a in r["actions"] if a["do"] == "discard")
    action["tile"] = other[0]  # a tile the seat did not hold


def _tamper_result(r: dict[str, Any]) -> None:
    r["result"]["scores"] = [s + 10 for s in r["result"]["scores"]]


def _tamper_checks(r: dict[str, Any]) -> None:
    r["seed"] = "0" * 32  # and the record's own checks still say all is well
    for c in r["checks"]:
        c["ok"] = True


@pytest.mark.parametrize(
    ("tamper", "failing"),
    [
        (_tamper_seed, "FAIL commitment"),
        (_tamper_stock, "FAIL deal"),
        (_tamper_action, "FAIL log"),
        (_tamper_result, "FAIL result"),
        (_tamper_checks, "FAIL commitment"),
    ],
)
async def test_the_command_line_detects_a_tampered_record(
    srv: Server, tmp_path: Path, tamper: Callable[[dict[str, Any]], None], failing: str
) -> None:
    room, _, watcher = await _bot_round(srv, "remi45")
    record = (await srv.http.get(f"/api/rooms/{room}/rounds/1/verify")).json()
    tamper(record)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = io.StringIO()
    assert verifier.run(str(path), None, None, None, srv.settings, out) == 1
    assert failing in out.getvalue() and "NOT VERIFIED" in out.getvalue()
    if watcher is not None:
        await watcher.close()


async def test_a_commitment_you_were_not_given_and_unreadable_records(
    srv: Server, tmp_path: Path
) -> None:
    room, _, watcher = await _bot_round(srv, "remi")
    path = tmp_path / "round.json"
    path.write_bytes((await srv.http.get(f"/api/rooms/{room}/rounds/1/verify")).content)
    out = io.StringIO()
    other = hashlib.sha256(b"another seed").hexdigest()
    assert verifier.run(str(path), None, None, other, srv.settings, out) == 1
    assert "FAIL your commitment: you were given " + other in out.getvalue()
    for content, says in [
        ("{not json", "is not JSON"),
        ('{"variant": "remi"}', "cannot check"),
        (json.dumps({**json.loads(path.read_text()), "seed": None}), "no seed"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(content, encoding="utf-8")
        out = io.StringIO()
        assert verifier.run(str(bad), None, None, None, srv.settings, out) == 2
        assert says in out.getvalue()
    out = io.StringIO()
    assert verifier.run(str(tmp_path / "missing.json"), None, None, None, srv.settings, out) == 2
    assert verifier.run(None, None, None, None, srv.settings, io.StringIO()) == 2
    if watcher is not None:
        await watcher.close()


def test_the_cli_command_reads_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m server.cli verify FILE``: the argument parsing and the exit status."""
    from server.rules import new_round
    from server.rules.fairness import published
    from server.rules.playout import play_round

    monkeypatch.setenv("REMI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REMI_LOG_FORMAT", "text")
    import random

    state = new_round("remi101", 2, "cli-seed")
    play_round(state, random.Random(3))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(published(state, "cli-seed")), encoding="utf-8")
    assert cli.main(["verify", str(path), "--commitment", state.deal.commitment or ""]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    assert cli.main(["verify"]) == 2


async def test_the_operator_verifies_a_round_from_the_database(settings: Settings) -> None:
    async with running_server(settings, BOT_ROUNDS) as srv:
        room, _, watcher = await _bot_round(srv, "etalat51")
        if watcher is not None:
            await watcher.close()
    record = await verifier.stored_record(settings, room, 1)
    assert [c["ok"] for c in record["checks"]] == [True] * 4
    out = io.StringIO()
    assert verifier.report(record, out) == 0
    assert f"room {room}, round 1, etalat51" in out.getvalue()
    with pytest.raises(verifier.RecordError, match="no round 2"):
        await verifier.stored_record(settings, room, 2)


async def test_a_round_being_played_shows_no_seed(srv: Server) -> None:
    room, a, b, ana, _ = await two_player_room(srv)
    seed = srv.live.actors[room].core.round_seed
    assert seed
    for what in ("verify", "replay", "scenario"):
        r = await srv.http.get(f"/api/rooms/{room}/rounds/1/{what}", headers=_auth(ana))
        assert r.status_code == 409 and r.json()["code"] == "round_not_finished"
        assert seed not in r.text
    with pytest.raises(verifier.RecordError, match="still being played"):
        await verifier.stored_record(srv.settings, room, 1)
    # The view and the round's start carry the commitment only.
    start = await a.wait(_event("round_start"), since=0)
    assert start["event"]["commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    assert all(seed not in raw for raw in [*a.raw, *b.raw])
    await a.close()
    await b.close()


async def test_a_private_rooms_record_is_its_players_only(srv: Server) -> None:
    room, ana, _ = await _bot_round(srv, "remi101", public=False)
    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/verify", headers=_auth(ana))
    assert r.status_code == 200 and all(c["ok"] for c in r.json()["checks"])
    _, eve = await srv.player("Eve")
    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/verify", headers=_auth(eve))
    assert r.status_code == 404 and r.json()["code"] == "room_not_found"
    assert (await srv.http.get(f"/api/rooms/{room}/rounds/1/verify")).status_code == 404
