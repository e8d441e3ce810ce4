"""A whole match over real WebSockets: two players and two bots to the end condition."""

from __future__ import annotations

import asyncio

from wsharness import play_until, running_server

from server.settings import Settings


async def test_whole_match_bots_and_humans(settings: Settings) -> None:
    async with running_server(settings) as srv:
        ana_id, ana = await srv.player("Ana")
        bob_id, bob = await srv.player("Bob")
        room = await srv.room(
            ana,
            variant="remi",
            seats=4,
            fill_with_bots=True,
            bot_level="easy",
            end={"kind": "rounds", "rounds": 2},
            turn_seconds=15,
        )
        await srv.sit(bob, room, 2)
        a = await srv.client(ana, room)
        b = await srv.client(bob, room)
        snap = await a.hello()
        assert snap["type"] == "snapshot" and snap["room"]["status"] == "waiting"
        assert snap["view"] is None and snap["you"]["seat"] == 0
        await b.hello()
        await srv.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        assert a.seats is not None and [s["is_bot"] for s in a.seats] == [False, True, False, True]

        def over() -> bool:
            return a.status == "finished" and b.status == "finished"

        await asyncio.gather(play_until(a, over), play_until(b, over))
        end = await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "match_over")
        assert end["event"]["reason"] == "end_condition" and end["event"]["rounds"] == 2
        overs = [m for m in a.frames if m["type"] == "event" and m["event"]["do"] == "round_over"]
        assert [m["event"]["round"] for m in overs] == [1, 2]
        sheet = await srv.scores(room)
        assert sheet["finished"] and len(sheet["rounds"]) == 2
        assert sheet["totals"] == end["event"]["totals"]
        assert [
            sum(col) for col in zip(*(r["scores"] for r in sheet["rounds"]), strict=True)
        ] == sheet["totals"]
        hist = await srv.http.get(f"/api/players/{bob_id}/matches")
        assert hist.status_code == 200 and len(hist.json()["matches"]) == 1
        # versions: contiguous and increasing for every connection
        for c in (a, b):
            versions = [m["version"] for m in c.frames if m["type"] == "event"]
            assert versions == list(range(versions[0], versions[0] + len(versions)))
        await a.close()
        await b.close()
        assert ana_id != bob_id
