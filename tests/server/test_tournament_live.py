"""Tournaments played by the live rooms, on both stores: a
sit-and-go of 8 whose registered players never come, so bots play their seats, through
both stages to its prizes; and the same with the server stopped between the stages, a
new one going on from the database. Each stage is made once, each prize paid once, and
the ledger's sums hold."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from sqlalchemy import func, select
from wsharness import FAST, Server, running_server

from server.settings import Settings
from server.storage.database import Database
from server.storage.models import LedgerEntry, Player, TournamentStage

START = 1000
FEE = 100


def _live(tick: float) -> dict[str, Any]:
    return {
        **FAST,
        "reconnect_grace_seconds": 0.0,
        "tournament_bot_wait_seconds": 0.0,
        "tournament_tick_seconds": tick,
        "tournament_series": [
            {"kind": "sitngo", "players": 8, "fee": FEE, "rounds": 1, "turn_seconds": 15}
        ],
    }


async def _open_sitngo(srv: Server) -> str:
    for _ in range(200):
        found = (await srv.http.get("/api/tournaments")).json()["tournaments"]
        open_ones = [t for t in found if t["status"] == "registering"]
        if open_ones:
            tid: str = open_ones[0]["id"]
            return tid
        await asyncio.sleep(0.05)
    raise AssertionError("no sit-and-go was opened")


async def _register_eight(srv: Server, tid: str) -> list[str]:
    ids = []
    for i in range(8):
        pid, token = await srv.player(f"P{i}")
        r = await srv.http.post(
            f"/api/tournaments/{tid}/register", headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 200, r.text
        ids.append(pid)
    return ids


async def _until(srv: Server, tid: str, done: Any, timeout: float = 240.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        detail: dict[str, Any] = (await srv.http.get(f"/api/tournaments/{tid}")).json()
        if done(detail):
            return detail
        if time.monotonic() > end:
            raise AssertionError(f"tournament stuck: {detail}")
        await asyncio.sleep(0.2)


def _finished(d: dict[str, Any]) -> bool:
    return bool(d["status"] == "finished")


async def _check(settings: Settings, detail: dict[str, Any], ids: list[str]) -> None:
    """Two stages (two tables, then the final of the four who went on by their tables'
    standings); 800 shared 50/30/20 by the final's standings; sums hold, no round settled."""
    first, final = detail["stage_list"]
    assert [len(first["tables"]), len(final["tables"])] == [2, 1] and final["final"]
    went_on = []
    for table in first["tables"]:
        assert table["status"] == "finished" and table["rounds_played"] == 1
        by_standing = sorted(table["seats"], key=lambda s: (-s["total"], s["seat"]))
        assert [s["advanced"] for s in by_standing] == [True, True, False, False]
        went_on += [s["player"]["id"] for s in by_standing[:2]]
    seats = final["tables"][0]["seats"]
    assert sorted(s["player"]["id"] for s in seats) == sorted(went_on)
    assert sum(s["prize"] for s in seats) == 8 * FEE
    db = Database(settings)
    try:
        async with db.engine.connect() as conn:
            balances = dict(
                (
                    await conn.execute(select(Player.id, Player.balance).where(Player.id.in_(ids)))
                ).all()
            )
            sums = dict(
                (
                    await conn.execute(
                        select(LedgerEntry.player_id, func.sum(LedgerEntry.amount))
                        .where(LedgerEntry.player_id.in_(ids))
                        .group_by(LedgerEntry.player_id)
                    )
                ).all()
            )
            prizes = (
                await conn.execute(
                    select(LedgerEntry.player_id, LedgerEntry.amount).where(
                        LedgerEntry.reason == "tournament_prize"
                    )
                )
            ).all()
            rounds = (
                await conn.execute(
                    select(func.count())
                    .select_from(LedgerEntry)
                    .where(LedgerEntry.reason == "round")
                )
            ).scalar()
            stages = (
                await conn.execute(select(func.count()).select_from(TournamentStage))
            ).scalar()
    finally:
        await db.dispose()
    assert balances == sums and rounds == 0 and stages == 2
    assert sorted(a for _, a in prizes) == sorted(s["prize"] for s in seats if s["prize"])
    for s in seats:
        assert balances[s["player"]["id"]] == START - FEE + s["prize"]
    for pid in set(ids) - set(went_on):
        assert balances[pid] == START - FEE


async def test_a_sit_and_go_of_8_played_by_bots_to_its_prizes(settings: Settings) -> None:
    async with running_server(settings, _live(0.2)) as srv:
        tid = await _open_sitngo(srv)
        ids = await _register_eight(srv, tid)
        detail = await _until(srv, tid, _finished)
        # the series opened its next sit-and-go once this one was full
        listed = (await srv.http.get("/api/tournaments")).json()["tournaments"]
        assert any(t["status"] == "registering" and t["id"] != tid for t in listed)
    await _check(settings, detail, ids)


async def test_a_restart_between_two_stages_goes_on_from_the_database(
    settings: Settings,
) -> None:
    # The first server looks at the tournaments only when woken (a registration): it
    # starts the tournament, its first stage is played, and it stops before the next.
    async with running_server(settings, _live(3600)) as srv:
        tid = await _open_sitngo(srv)
        ids = await _register_eight(srv, tid)

        def first_stage_over(d: dict[str, Any]) -> bool:
            tables = d["stage_list"][0]["tables"] if d["stage_list"] else []
            return bool(tables) and all(t["status"] == "finished" for t in tables)

        detail = await _until(srv, tid, first_stage_over)
        assert len(detail["stage_list"]) == 1 and detail["status"] == "running"
    # A new server on the same database: it makes the final, once, and pays it.
    async with running_server(settings, _live(0.2)) as srv:
        detail = await _until(srv, tid, _finished)
    await _check(settings, detail, ids)
