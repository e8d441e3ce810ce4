"""One room core, two shells: the same room (settings, seeds, bots, the player's moves)
played through the server (a real socket on a running server) and through the offline
practice's shell (server/practice/room.py, under CPython as in the browser's worker)
sends the player the same frames, every one of them: the snapshot, each ack and each
event with its view, seats and scores. Only what belongs to a shell differs and is left
out: the room's id and settings as shown, the player's id, the clocks (``server_time``,
``deadline``) and the versions' origin (the server's room counted its waiting-room
events first)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from wsharness import FAST, running_server, simple_move

from server.practice.room import PLAYER, PracticeRoom, round_seed
from server.protocol import validate_server
from server.rooms.live import LiveContext
from server.rules import view_for
from server.settings import Settings

SEED = "two-shells"


def _normal(frames: list[dict[str, Any]], origin: int) -> list[dict[str, Any]]:
    out = []
    for frame in frames:
        validate_server(frame)
        f = {k: v for k, v in frame.items() if k not in ("server_time", "deadline", "room")}
        if "version" in f:
            f["version"] -= origin
        if "you" in f:
            f["you"] = {**f["you"], "player_id": "me"}
        if f.get("seats"):
            f["seats"] = [{**s, "player_id": "me" if s["player_id"] else None} for s in f["seats"]]
        if "recent" in f:
            f["recent"] = [{**r, "version": r["version"] - origin} for r in f["recent"]]
        out.append(f)
    return out


@pytest.mark.parametrize("variant", ["remi45", "remi101"])
async def test_the_server_and_the_practice_send_the_same_frames(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    seeds = itertools.count(1)
    monkeypatch.setattr(LiveContext, "new_seed", lambda self: round_seed(SEED, next(seeds)))
    end = {"kind": "rounds", "rounds": 1}
    live = {**FAST, "reconnect_grace_seconds": 600.0}
    async with running_server(settings, live) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(
            ana,
            variant=variant,
            seats=2,
            fill_with_bots=True,
            bot_level="normal",
            end=end,
            turn_seconds=120,
        )
        await srv.start(ana, room)
        a = await srv.client(ana, room)
        await a.hello()
        while a.status != "finished":
            if a.my_turn():
                assert a.view is not None
                assert (await a.act(simple_move(a.view)))["type"] == "ack"
            else:
                await a.wait(lambda m: m["type"] == "event", timeout=30)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "match_over", since=0)
        online = list(a.frames)
        await a.close()

    practice = PracticeRoom(
        {"variant": variant, "seats": 2, "bot_levels": ["normal"], "turn_seconds": 120, "end": end},
        SEED,
        0.0,
        name="Ana",
        bot_delay=0.0,
        round_pause=0.0,
        bot_key=room,
    )
    now = 0.0
    offline = practice.message({"type": "hello", "last_version": None}, now)
    seq = 0
    while not practice.over:
        state = practice.round
        assert state is not None
        if not state.over and state.turn == PLAYER and not practice.timed_out:
            seq += 1
            view = view_for(state, PLAYER).to_dict()
            offline += practice.message(
                {
                    "type": "action",
                    "seq": seq,
                    "base_version": practice.version,
                    "action": simple_move(view),
                },
                now,
            )
        else:
            due = practice.due()
            assert due is not None
            now = max(now, due)
            offline += practice.tick(now)

    assert online[0]["type"] == offline[0]["type"] == "snapshot"
    mine, theirs = _normal(online, online[0]["version"]), _normal(offline, offline[0]["version"])
    assert len(mine) == len(theirs) > 20
    for i, (x, y) in enumerate(zip(mine, theirs, strict=True)):
        assert x == y, (i, x, y)
    assert theirs[-1]["event"]["do"] == "match_over"
