"""The pause between rounds: the next deal waits for the round pause
or for every connected human's ``next_round`` (the summary read), whichever is first;
bots and players who are gone never hold it back."""

from __future__ import annotations

import asyncio
from typing import Any

from wsharness import FAST, Client, Server, play_until, running_server

from server.settings import Settings

LONG_PAUSE = {**FAST, "round_pause_seconds": 600.0}
"""A pause no test waits out: a next round that starts came from ``next_round``."""


def _is(do: str) -> Any:
    return lambda m: m["type"] == "event" and m["event"]["do"] == do


async def _first_round_over(srv: Server) -> tuple[str, Client, Client]:
    """Two humans (seats 0, 2) and two bots play round 1 to its end."""
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(
        ana,
        variant="remi",
        seats=4,
        fill_with_bots=True,
        bot_level="easy",
        end={"kind": "rounds", "rounds": 3},
    )
    await srv.sit(bob, room, 2)
    a, b = await srv.client(ana, room), await srv.client(bob, room)
    await a.hello()
    await b.hello()
    await srv.start(ana, room)

    def over() -> bool:
        return any(_is("round_over")(m) for m in a.frames) and any(
            _is("round_over")(m) for m in b.frames
        )

    await asyncio.gather(play_until(a, over), play_until(b, over))
    end = await a.wait(_is("round_over"))
    assert end["event"]["next_round_in"] == 600.0
    return room, a, b


async def _query(c: Client, seq: int) -> None:
    """A query answered: every frame this client sent before it reached the room."""
    await c.send({"type": "query", "seq": seq, "query": "formations", "formations": []})
    await c.wait(lambda m: m["type"] in ("query_result", "error") and m.get("seq") == seq)


async def test_the_next_deal_starts_when_every_human_read_the_summary(
    settings: Settings,
) -> None:
    async with running_server(settings, LONG_PAUSE) as srv:
        room, a, b = await _first_round_over(srv)
        actor = await srv.live.actor(room)
        waiting_until = actor.timers.next_round_at
        assert waiting_until is not None
        await a.send({"type": "next_round"})
        await _query(a, 901)
        # One human read it, the other has not: the pause goes on (the bots never count).
        assert actor.timers.next_round_at == waiting_until
        assert actor.round_number == 1
        await b.send({"type": "next_round"})
        start = await a.wait(_is("round_start"), timeout=20)
        assert start["event"]["round"] == 2
        await b.wait(_is("round_start"), timeout=20)
        await a.close()
        await b.close()


async def test_a_player_who_is_gone_does_not_hold_the_next_deal(settings: Settings) -> None:
    async with running_server(settings, LONG_PAUSE) as srv:
        room, a, b = await _first_round_over(srv)
        await b.close()
        actor = await srv.live.actor(room)
        for _ in range(200):  # the room hears that Bob's socket closed
            if not actor.seat_connected(2):
                break
            await asyncio.sleep(0.05)
        await a.send({"type": "next_round"})
        start = await a.wait(_is("round_start"), timeout=20)
        assert start["event"]["round"] == 2
        await a.close()


async def test_next_round_outside_the_pause_changes_nothing(settings: Settings) -> None:
    async with running_server(settings, LONG_PAUSE) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(
            ana, variant="remi", seats=2, fill_with_bots=True, bot_level="easy", turn_seconds=60
        )
        a = await srv.client(ana, room)
        await a.hello()
        await srv.start(ana, room)
        await a.wait(_is("round_start"))
        actor = await srv.live.actor(room)
        deadline, version = actor.timers.deadline, actor.version
        await a.send({"type": "next_round"})
        await _query(a, 902)
        assert (actor.timers.deadline, actor.version, actor.round_number) == (deadline, version, 1)
        assert not any(m["type"] == "error" and m.get("seq") is None for m in a.frames)
        await a.close()
