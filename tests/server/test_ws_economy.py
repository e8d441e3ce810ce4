"""The joker button and the balance in a live room: the 101
button spends the player's joker credit once, is refused without one, and every
finished round of a normal room settles into the seats' balances."""

from __future__ import annotations

import asyncio
from typing import Any

from wsharness import play_until, running_server, with_overrides

from server.settings import Settings

ECONOMY: dict[str, Any] = {
    "starting_joker_credits": 0,
    "daily_grant": 0,
    "daily_joker_credits": 0,
}


def _discard(view: dict[str, Any]) -> dict[str, Any]:
    plain = [t for t in view["hand"] if t < 104] or view["hand"]
    return {"do": "discard", "tile": plain[-1]}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_joker_button_spends_the_account_credit_once(settings: Settings) -> None:
    async with running_server(with_overrides(settings, ECONOMY)) as srv:
        _, ana = await srv.player("Ana")
        _, bob = await srv.player("Bob")
        bought = await srv.http.post(
            "/api/account/jokers", json={"count": 1, "request_id": "j1"}, headers=_bearer(ana)
        )
        assert bought.status_code == 200 and bought.json()["joker_credits"] == 1
        room = await srv.room(ana, variant="remi101", seats=2, joker_button=True, turn_seconds=60)
        await srv.sit(bob, room, 1)
        a, b = await srv.client(ana, room), await srv.client(bob, room)
        await a.hello()
        await b.hello()
        await srv.start(ana, room)
        for c in (a, b):
            await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        assert a.view is not None and a.view["turn"] == 0 and a.view["joker_credits"] == 1
        if a.view["phase"] != "take":  # the first seat of 101 holds one tile more
            assert (await a.act(_discard(a.view)))["type"] == "ack"
            await b.wait(lambda m: m["type"] == "event" and m["event"].get("do") == "discard")
            assert b.view is not None and b.view["joker_credits"] == 0
            refused = await b.act({"do": "joker_button"})  # Bob has no credit
            assert refused["type"] == "error", refused
            assert (await b.act({"do": "draw"}))["type"] == "ack"
            assert b.view is not None
            assert (await b.act(_discard(b.view)))["type"] == "ack"
            await a.wait(lambda m: m["type"] == "event" and m["event"].get("do") == "discard")
        ack = await a.act({"do": "joker_button"})
        assert ack["type"] == "ack", ack
        acc = (await srv.http.get("/api/account", headers=_bearer(ana))).json()
        assert acc["joker_credits"] == 0
        ledger = (await srv.http.get("/api/account/ledger", headers=_bearer(ana))).json()
        assert [e["reason"] for e in ledger["entries"]][:1] == ["joker_spent"]
        assert (await a.act(_discard(a.view)))["type"] == "ack"
        spent = [e for e in ledger["entries"] if e["reason"] == "joker_spent"]
        assert len(spent) == 1 and spent[0]["credits"] == -1
        await a.close()
        await b.close()


async def test_every_finished_round_settles_into_the_balances(settings: Settings) -> None:
    async with running_server(settings) as srv:
        ana_id, ana = await srv.player("Ana")
        bob_id, bob = await srv.player("Bob")
        start = {}
        for tok in (ana, bob):
            start[tok] = (await srv.http.get("/api/account", headers=_bearer(tok))).json()
        room = await srv.room(
            ana,
            variant="remi",
            seats=3,
            fill_with_bots=True,
            bot_level="easy",
            end={"kind": "rounds", "rounds": 2},
            turn_seconds=15,
        )
        await srv.sit(bob, room, 1)
        a, b = await srv.client(ana, room), await srv.client(bob, room)
        await a.hello()
        await b.hello()
        await srv.start(ana, room)

        def over() -> bool:
            return a.status == "finished" and b.status == "finished"

        await asyncio.gather(play_until(a, over), play_until(b, over))
        sheet = await srv.scores(room)
        for seat, tok in enumerate((ana, bob)):
            acc = (await srv.http.get("/api/account", headers=_bearer(tok))).json()
            assert acc["balance"] == start[tok]["balance"] + sheet["totals"][seat]
            rows = (await srv.http.get("/api/account/ledger", headers=_bearer(tok))).json()
            rounds = [e for e in rows["entries"] if e["reason"] == "round"]
            assert sorted((e["round_number"], e["amount"]) for e in rounds) == [
                (i + 1, r["scores"][seat]) for i, r in enumerate(sheet["rounds"])
            ]
            assert sum(e["amount"] for e in rows["entries"]) == acc["balance"]
        await a.close()
        await b.close()
        assert ana_id != bob_id


async def test_a_practice_room_settles_nothing_rates_nothing_and_says_so(
    settings: Settings,
) -> None:
    """The lobby's practice game asks for kind practice: the server keeps it, every frame
    and list says it, and a finished practice match leaves the ledger and the rating board
    as they were."""
    async with running_server(settings) as srv:
        ana_id, ana = await srv.player("Ana")
        before = (await srv.http.get("/api/account", headers=_bearer(ana))).json()
        room = await srv.room(
            ana,
            variant="remi",
            seats=2,
            public=False,
            fill_with_bots=True,
            kind="practice",
            bot_level="easy",
            end={"kind": "rounds", "rounds": 1},
            turn_seconds=15,
        )
        a = await srv.client(ana, room)
        snapshot = await a.hello()
        assert snapshot["room"]["kind"] == "practice"
        await srv.start(ana, room)
        await play_until(a, lambda: a.status == "finished")
        sheet = await srv.http.get(f"/api/rooms/{room}/scores", headers=_bearer(ana))
        assert sheet.json()["rounds"], "a round was played"
        after = (await srv.http.get("/api/account", headers=_bearer(ana))).json()
        assert after["balance"] == before["balance"]
        rows = (await srv.http.get("/api/account/ledger", headers=_bearer(ana))).json()
        assert [e for e in rows["entries"] if e["room_id"] == room] == []
        board = (await srv.http.get("/api/leaderboards/rating/remi")).json()
        assert ana_id not in str(board)
        await a.close()
