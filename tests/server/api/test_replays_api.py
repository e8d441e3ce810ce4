"""Replays over HTTP: a finished round's every step with all hands, and
its scenario file, which the scenario runner replays to the same result; a private
room's rounds only for its players; a round being played shows nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import BOT_ROUNDS, Server, running_server, two_player_room

from server.rules.scenario import main as scenario_main
from server.rules.scenario import run_scenario


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(base_settings(data_dir=tmp_path, database_url=""), BOT_ROUNDS) as s:
        yield s


async def _finished_bot_round(srv: Server, token: str, variant: str, public: bool) -> str:
    """A room of the player (away: a bot plays the seat) and bots, one round played."""
    room = await srv.room(
        token,
        variant=variant,
        seats=3,
        fill_with_bots=True,
        bot_level="easy",
        public=public,
        end={"kind": "rounds", "rounds": 1},
    )
    await srv.start(token, room)
    for _ in range(600):
        r = await srv.http.get(f"/api/rooms/{room}/scores", headers=_auth(token))
        assert r.status_code == 200, r.text
        if r.json()["rounds"]:
            return room
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish the round")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("variant", ["remi45", "etalat", "remi101"])
async def test_a_finished_round_replays_and_downloads_as_a_scenario(
    srv: Server, tmp_path: Path, variant: str
) -> None:
    _, ana = await srv.player("Ana")
    room = await _finished_bot_round(srv, ana, variant, public=True)
    scores = (await srv.scores(room))["rounds"][0]["scores"]

    _, eve = await srv.player("Eve")  # anyone may watch a public room's rounds
    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/replay", headers=_auth(eve))
    assert r.status_code == 200, r.text
    replay = r.json()
    steps = replay["steps"]
    assert steps[0]["event"] is None and len(steps[0]["hands"]) == 3
    assert all(len(h) > 0 for h in steps[0]["hands"]) and steps[0]["stock"]
    assert steps[-1]["phase"] == "over"
    assert replay["result"]["scores"] == scores
    assert replay["seats"][0]["name"] == "Ana"

    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/scenario")
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    scenario = r.json()
    assert scenario["result"]["scores"] == scores
    assert run_scenario(scenario) == (True, "")
    # The runner's own command on the downloaded file.
    path = tmp_path / "round.json"
    path.write_bytes(r.content)
    assert scenario_main([str(path)], out=_Sink()) == 0


class _Sink:
    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> Any:
        self.text += s


async def test_a_private_rooms_rounds_are_only_its_players(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await _finished_bot_round(srv, ana, "remi", public=False)
    assert (
        await srv.http.get(f"/api/rooms/{room}/rounds/1/replay", headers=_auth(ana))
    ).status_code == 200
    _, eve = await srv.player("Eve")
    for what in ("replay", "scenario"):
        r = await srv.http.get(f"/api/rooms/{room}/rounds/1/{what}", headers=_auth(eve))
        assert r.status_code == 404 and r.json()["code"] == "room_not_found"
        r = await srv.http.get(f"/api/rooms/{room}/rounds/1/{what}")
        assert r.status_code == 404


async def test_a_round_being_played_or_missing_shows_nothing(srv: Server) -> None:
    room, a, b, ana, _ = await two_player_room(srv)
    r = await srv.http.get(f"/api/rooms/{room}/rounds/1/replay", headers=_auth(ana))
    assert r.status_code == 409 and r.json()["code"] == "round_not_finished"
    assert "hands" not in r.text and json.loads(r.text)["detail"]
    r = await srv.http.get(f"/api/rooms/{room}/rounds/7/scenario", headers=_auth(ana))
    assert r.status_code == 404 and r.json()["code"] == "round_not_found"
    r = await srv.http.get(f"/api/rooms/{room}/rounds/0/replay", headers=_auth(ana))
    assert r.status_code == 422
    await a.close()
    await b.close()
