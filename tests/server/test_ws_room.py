"""Room protocol over real WebSockets: resends, stale versions, replay, takeover, timers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import FAST, Client, Server, play_until, running_server, simple_move, two_player_room

from server.settings import Settings


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    return base_settings(data_dir=tmp_path, database_url="")


@pytest.fixture
async def srv(sqlite_settings: Settings) -> AsyncIterator[Server]:
    async with running_server(sqlite_settings) as server:
        yield server


def _events(c: Client, do: str) -> list[dict[str, object]]:
    return [m for m in c.frames if m["type"] == "event" and m["event"].get("do") == do]


async def test_resend_is_answered_from_cache_and_never_applied_twice(srv: Server) -> None:
    _room, a, b, _, _ = await two_player_room(srv)
    assert a.view is not None and a.view["turn"] == 0 and a.view["phase"] == "build"
    tile = simple_move(a.view)["tile"]
    msg = {
        "type": "action",
        "seq": 7,
        "base_version": a.version,
        "action": {"do": "discard", "tile": tile},
    }
    await a.send(msg)
    ack = await a.wait(lambda m: m["type"] == "ack" and m["seq"] == 7)
    await b.wait(lambda m: m["type"] == "event" and m["version"] == ack["version"])
    # The same message again (a client resending after a lost ack): the original answer.
    mark = len(a.frames)
    await a.send(msg)
    again = await a.wait(lambda m: m["type"] in ("ack", "error"), since=mark)
    assert again == ack
    # The same seq for another message is refused.
    other = {**msg, "action": {"do": "draw"}}
    await a.send(other)
    reused = await a.wait(lambda m: m["type"] == "error", since=mark)
    assert reused["code"] == "seq_reused" and reused["seq"] == 7
    await asyncio.sleep(0.1)
    assert b.view is not None and b.view["row_length"] == 1  # applied once
    assert b.version == ack["version"]
    # A refused move is cached too: the resend gets the same error, nothing applied.
    err = await a.act({"do": "draw"}, seq=8)
    assert err["code"] == "not_your_turn"
    mark = len(a.frames)
    await a.act({"do": "draw"}, seq=8)
    assert a.frames[mark:] == [err]


async def test_stale_base_version_is_refused(srv: Server) -> None:
    _room, a, b, _, _ = await two_player_room(srv)
    assert a.version is not None
    stale = await a.act({"do": "discard", "tile": a.view["hand"][0]}, base=a.version - 1)  # type: ignore[index]
    assert stale["type"] == "error" and stale["code"] == "stale_version"
    assert str(a.version) in stale["message"]
    ok = await a.act(simple_move(a.view))  # type: ignore[arg-type]
    assert ok["type"] == "ack" and ok["version"] == a.version
    late = await b.act({"do": "draw"}, base=ok["version"] - 1)
    assert late["code"] == "stale_version"
    fine = await b.act({"do": "draw"})
    assert fine["type"] == "ack"


async def test_reconnect_replays_missed_events_or_sends_a_snapshot(srv: Server) -> None:
    room, a, b, ana, _ = await two_player_room(srv)
    await a.act(simple_move(a.view))  # type: ignore[arg-type]
    held = a.version
    await a.close()
    await b.act({"do": "draw"})
    await b.act(simple_move(b.view))  # type: ignore[arg-type]
    assert b.version is not None and held is not None and b.version == held + 2
    # Replay: every missed event, in order, the last one carrying the view.
    a2 = await srv.client(ana, room)
    first = await a2.hello(held)
    assert first["type"] == "event" and first["replay"] and first["version"] == held + 1
    assert first["view"] is None
    last = await a2.wait(lambda m: m["version"] == held + 2)
    assert last["replay"] and last["view"] is not None and last["view"]["turn"] == 0
    assert [m["type"] for m in a2.frames] == ["event", "event"]
    assert first["event"] == {"seat": 1, "do": "draw", "by": "player"}  # no tile for seat 0
    # Up to date: nothing to replay.
    a3 = await srv.client(ana, room)
    await a3.send({"type": "hello", "last_version": b.version})
    await a3.send({"type": "ping"})
    await a3.wait(lambda m: m["type"] == "pong")
    assert [m["type"] for m in a3.frames] == ["pong"]
    # Too old (not held) or unknown: a snapshot.
    for last_version in (0, b.version + 50, None):
        c = await srv.client(ana, room)
        snap = await c.hello(last_version)
        assert snap["type"] == "snapshot" and snap["version"] == b.version
        assert snap["view"]["hand"] == last["view"]["hand"]
        await c.close()
    for c in (a2, a3, b):
        await c.close()


async def test_timeout_bot_unresponsive_and_return(sqlite_settings: Settings) -> None:
    config = {**FAST, "turn_time_scale": 0.02, "idle_actor_seconds": 1}  # 15 s turns: 0.3 s
    settings = sqlite_settings.model_copy(update={"rate_limit_messages": 100_000})
    async with running_server(settings, config) as srv:
        _room, a, b, _, _ = await two_player_room(srv, turn_seconds=15)
        assert a.deadline is not None
        stop = asyncio.Event()
        bob = asyncio.create_task(play_until(b, stop.is_set, timeout=30))

        # Ana does nothing: her turn times out, the bot plays it. (Bob's 0.3 s turns may
        # time out too on a loaded machine: only Ana's seat is looked at.)
        def hers(do: str) -> Callable[[dict[str, Any]], bool]:
            return lambda m: (
                m["type"] == "event" and m["event"]["do"] == do and m["event"]["seat"] == 0
            )

        t1 = await a.wait(hers("timeout"))
        assert t1["event"] == {"do": "timeout", "seat": 0, "timeouts": 1}
        move = await a.wait(
            lambda m: m["type"] == "event" and m["event"].get("seat") == 0 and "by" in m["event"]
        )
        assert move["event"]["by"] == "timeout"
        # Second timeout in a row: unresponsive.
        t2 = await a.wait(hers("timeout"))
        assert t2["event"]["timeouts"] == 2
        p = await a.wait(hers("presence"))
        assert p["event"] == {"do": "presence", "seat": 0, "away": False, "unresponsive": True}
        assert p["seats"][0]["unresponsive"] and p["seats"][0]["bot_playing"]
        # Now the bot plays her turns at once, without waiting for the deadline.
        mark = len(a.frames)
        quick = await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"].get("seat") == 0
                and m["event"].get("by") == "bot"
            ),
            since=mark,
        )
        between = [
            m["event"] for m in a.frames[mark : a.frames.index(quick)] if m["type"] == "event"
        ]
        assert not [e for e in between if e["do"] == "timeout" and e["seat"] == 0]
        # Ana acts again (any move, even refused): she is responsive again.
        mark = len(a.frames)
        await a.act({"do": "draw"})
        back = await a.wait(hers("presence"), since=mark)
        assert back["event"]["unresponsive"] is False
        # And her next turn is hers, with a full deadline: she plays it herself.
        await a.wait(lambda m: a.my_turn(), since=mark)
        reply = None
        for _ in range(5):
            reply = await a.act(simple_move(a.view))  # type: ignore[arg-type]
            if reply["type"] == "ack":
                break
        assert reply is not None and reply["type"] == "ack"
        mine = await a.wait(
            lambda m: m["type"] == "event" and m["version"] == reply["version"], since=0
        )
        assert mine["event"]["by"] == "player"
        stop.set()
        await bob


async def test_leave_and_take_back_mid_turn_from_another_device(
    sqlite_settings: Settings,
) -> None:
    config = {**FAST, "bot_delay_seconds": 0.6, "idle_actor_seconds": 1}
    async with running_server(sqlite_settings, config) as srv:
        room, a, b, _, bob = await two_player_room(srv)
        await a.act(simple_move(a.view))  # type: ignore[arg-type]
        # Bob arranges his rack, then leaves (back arrow) at the start of his turn.
        await b.wait(lambda m: b.my_turn())
        hand = list(b.view["hand"])  # type: ignore[index]
        layout = [hand[-1], None, *hand[:-1]]
        await b.send({"type": "rack", "seq": 1, "layout": layout})
        await b.wait(lambda m: m["type"] == "ack" and m["seq"] == 1)
        await b.send({"type": "leave"})
        away = await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "presence")
        assert away["event"]["away"] and away["seats"][1]["bot_playing"]
        # The bot takes for him...
        drawn = await a.wait(lambda m: m["type"] == "event" and m["event"].get("seat") == 1)
        assert drawn["event"] == {"seat": 1, "do": "draw", "by": "bot"}
        await b.close()
        # ...and he comes back on another device before the bot discards.
        b2 = await srv.client(bob, room)
        snap = await b2.hello()
        assert snap["type"] == "snapshot" and snap["you"]["seat"] == 1
        assert snap["view"]["turn"] == 1 and snap["view"]["phase"] == "build"
        new_tile = [t for t in snap["view"]["hand"] if t not in hand]
        assert len(new_tile) == 1
        # His layout survived; the drawn tile, with no empty slot away from his tiles,
        # came after them, one empty slot apart (never glued onto a formation).
        assert snap["rack"] == [hand[-1], None, *hand[:-1], None, new_tile[0]]
        back = await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "presence")
        assert back["event"]["away"] is False
        await asyncio.sleep(0.9)  # the bot would have discarded by now: it stopped
        assert b2.view is not None and b2.view["turn"] == 1 and b2.view["phase"] == "build"
        reply = await b2.act(simple_move(b2.view))
        assert reply["type"] == "ack"
        assert b2.frames[-1]["event"]["by"] == "player"
        await a.close()
        await b2.close()


async def test_rack_keeps_every_slot_when_the_bot_plays_for_an_away_seat(srv: Server) -> None:
    room, a, b, _, bob = await two_player_room(srv)
    await a.act(simple_move(a.view))  # type: ignore[arg-type]
    await b.wait(lambda m: b.my_turn())
    hand = list(b.view["hand"])  # type: ignore[index]
    layout: list[int | None] = [*reversed(hand[:7]), None, None, *reversed(hand[7:])]
    await b.send({"type": "rack", "seq": 1, "layout": layout})
    await b.wait(lambda m: m["type"] == "ack" and m["seq"] == 1)
    mark = len(a.frames)
    await b.send({"type": "leave"})
    # The bot plays Bob's whole turn: it draws, then discards.
    discard = await a.wait(
        lambda m: (
            m["type"] == "event"
            and m["event"].get("seat") == 1
            and m["event"].get("do") == "discard"
        ),
        since=mark,
    )
    assert discard["event"]["by"] == "bot"
    await b.close()
    b2 = await srv.client(bob, room)
    snap = await b2.hello()
    now = snap["view"]["hand"]
    rack = snap["rack"]
    gone = [t for t in hand if t not in now]
    drawn = [t for t in now if t not in hand]
    assert len(now) == len(hand) and len(gone) == len(drawn) <= 1
    assert sorted(t for t in rack if t is not None) == sorted(now)
    # Every tile still in the hand is in the very slot Bob put it in: nothing shifted.
    for i, tile in enumerate(layout):
        if tile is not None and tile in now:
            assert rack[i] == tile, (i, layout, rack)
    if gone:  # the discarded tile's slot is free; the drawn tile never touches a tile
        where = rack.index(drawn[0])
        assert where >= len(layout) or layout[where] in (None, gone[0])
        assert all(rack[j] is None for j in (where - 1, where + 1) if 0 <= j < len(rack))
    else:  # the bot discarded the tile it drew: the layout is exactly Bob's
        assert len(rack) == len(layout)
        assert rack == layout
    await a.close()
    await b2.close()


async def test_spectator_sees_no_hand(srv: Server) -> None:
    room, a, b, _, _ = await two_player_room(srv)
    _, eve = await srv.player("Eve")
    s = await srv.client(eve, room)
    snap = await s.hello()
    assert snap["you"]["seat"] is None and snap["view"]["hand"] == [] and snap["rack"] is None
    err = await s.act({"do": "draw"})
    assert err["code"] == "not_seated"
    await a.act(simple_move(a.view))  # type: ignore[arg-type]
    await b.act({"do": "draw"})
    draw = await s.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "draw")
    assert "tile" not in draw["event"] and draw["view"]["hand"] == []
    mine = [m for m in b.frames if m["type"] == "event" and m["event"]["do"] == "draw"]
    assert "tile" in mine[0]["event"]


async def test_query_answers_from_the_seat_view(srv: Server) -> None:
    _room, a, _b, _, _ = await two_player_room(srv)
    hand = a.view["hand"]  # type: ignore[index]
    await a.send({"type": "query", "seq": 1, "query": "formations", "formations": [hand[:3]]})
    res = await a.wait(lambda m: m["type"] == "query_result")
    assert set(res["result"]) == {"formations", "lock"}
    assert res["result"]["lock"]["opened"] is False
    await a.send({"type": "query", "seq": 2, "query": "row_preview", "index": 0})
    res = await a.wait(lambda m: m["type"] == "query_result" and m["seq"] == 2)
    block = res["result"].pop("block")
    assert res["result"] == {"index": 0, "tiles": [], "reachable": []}
    assert block["code"] == "wrong_phase"  # the seat has taken: nothing is reachable
    await a.send({"type": "query", "seq": 3, "query": "arrange"})
    res = await a.wait(lambda m: m["type"] == "query_result" and m["seq"] == 3)
    laid = [t for m in res["result"]["melds"] for t in m["tiles"]]
    assert sorted(laid + res["result"]["left"]) == sorted(hand)  # the seat's own hand only


async def test_empty_room_ends_after_grace_with_scores(tmp_path: Path) -> None:
    settings = base_settings(
        data_dir=tmp_path, database_url="", empty_room_grace_seconds=0.5, reconnect_grace_seconds=0
    )
    async with running_server(settings, FAST) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(
            ana, variant="remi", seats=2, fill_with_bots=True, end={"kind": "rounds", "rounds": 100}
        )
        a = await srv.client(ana, room)
        await a.hello()
        await srv.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        await a.close()
        for _ in range(100):
            sheet = await srv.scores(room)
            if sheet["finished"]:
                break
            await asyncio.sleep(0.1)
        assert sheet["finished"] and sheet["status"] == "finished"
        # the rounds the bots finished in the meantime are on the sheet
        assert (
            sheet["totals"]
            == [sum(c) for c in zip(*(r["scores"] for r in sheet["rounds"]), strict=True)]
            or not sheet["rounds"]
        )


async def test_the_event_that_starts_a_turn_carries_its_deadline(srv: Server) -> None:
    """Issue 18.1: the next turn's clock starts before the move's event is made, so the
    discard that passes the turn shows the new turn's deadline (the one a snapshot shows)."""
    room, a, b, ana, _ = await two_player_room(srv)
    start = _events(a, "round_start")[-1]
    await asyncio.sleep(0.3)  # the next turn starts measurably later than the round
    reply = await a.act(simple_move(a.view))  # type: ignore[arg-type]
    assert reply["type"] == "ack"
    discard = await b.wait(lambda m: m["type"] == "event" and m["version"] == reply["version"])
    assert discard["event"]["do"] == "discard" and discard["view"]["turn"] == 1
    assert discard["deadline"] >= start["deadline"] + 0.25  # type: ignore[operator]
    assert discard["deadline"] - discard["server_time"] > 59
    late = await srv.client(ana, room)
    snap = await late.hello()
    assert snap["version"] == discard["version"] and snap["deadline"] == discard["deadline"]
    # A move that keeps the turn keeps its deadline.
    draw = await b.act({"do": "draw"})
    assert draw["type"] == "ack"
    kept = await a.wait(lambda m: m["type"] == "event" and m["version"] == draw["version"])
    assert kept["deadline"] == discard["deadline"]
    for c in (a, b, late):
        await c.close()


async def test_saving_the_rack_is_not_acting(sqlite_settings: Settings) -> None:
    """Issue 18.1: a rack layout is no move. An unresponsive player who saves one stays
    unresponsive (the bot keeps playing their turns at once); one whose turn timed out
    does not get the turn back nor its clock restarted."""
    config = {**FAST, "turn_time_scale": 0.02, "idle_actor_seconds": 1}  # 15 s turns: 0.3 s
    settings = sqlite_settings.model_copy(update={"rate_limit_messages": 100_000})
    async with running_server(settings, config) as srv:
        _room, a, b, _, _ = await two_player_room(srv, turn_seconds=15)
        stop = asyncio.Event()
        bob = asyncio.create_task(play_until(b, stop.is_set, timeout=30))
        p = await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"]["do"] == "presence"
                and m["event"]["unresponsive"]
            ),
            timeout=20,
        )
        assert p["seats"][0]["unresponsive"]
        for seq in range(1001, 1004):
            mark = len(a.frames)
            # Slots only (the hand changes under the bot's moves): always a valid layout.
            await a.send({"type": "rack", "seq": seq, "layout": [None] * (seq - 1000)})
            ack = await a.wait(lambda m, seq=seq: m.get("seq") == seq, since=mark)
            assert ack["type"] == "ack" and ack["version"] >= p["version"]
            # The bot goes on playing her turns; no presence change, no timeout of hers
            # (Bob's 0.3 s turns may time out on a loaded machine: not what is tested).
            bot = await a.wait(
                lambda m: (
                    m["type"] == "event" and m["event"].get("seat") == 0 and "by" in m["event"]
                ),
                since=mark,
            )
            assert bot["event"]["by"] == "bot"
            between = [m for m in a.frames[mark:] if m["type"] == "event"]
            assert not [
                m
                for m in between
                if m["event"]["do"] in ("presence", "timeout") and m["event"]["seat"] == 0
            ]
        assert a.seats is not None and a.seats[0]["unresponsive"]
        stop.set()
        await bob
        for c in (a, b):
            await c.close()
