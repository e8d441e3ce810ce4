"""Resends answered with the original result: a resend of a logged
move gets its original ``ack`` with its original version however many messages came
after it, after a restart, and from an earlier round; another message with that seq is
``seq_reused``. Rack and refused messages are not logged (docs/protocol.md says what
their resends get)."""

from __future__ import annotations

from typing import Any

from wsharness import Client, running_server, simple_move, two_player_room

from server.rooms.core.replies import RESULT_CACHE
from server.settings import Settings


async def _answer(c: Client, msg: dict[str, Any]) -> dict[str, Any]:
    """Send ``msg``; its ``ack``/``error``."""
    mark = len(c.frames)
    await c.send(msg)
    return await c.wait(
        lambda m: m["type"] in ("ack", "error") and m.get("seq") == msg["seq"], since=mark
    )


async def test_a_resend_after_64_later_messages_gets_the_original_ack(settings: Settings) -> None:
    async with running_server(settings) as srv:
        _room, a, b, _, _ = await two_player_room(srv)
        assert a.view is not None and a.version is not None
        move = {
            "type": "action",
            "seq": 1,
            "base_version": a.version,
            "action": simple_move(a.view),
        }
        ack = await _answer(a, move)
        assert ack["type"] == "ack"
        await a.wait(lambda m: m["type"] == "event" and m["version"] == ack["version"])
        await b.wait(lambda m: m["type"] == "event" and m["version"] == ack["version"])
        # More answered messages than the room keeps in memory: rack layouts.
        hand = list(a.view["hand"])
        for seq in range(2, RESULT_CACHE + 3):
            saved = await _answer(a, {"type": "rack", "seq": seq, "layout": hand[::-1]})
            assert saved["type"] == "ack"
        assert (await b.act({"do": "draw"}))["type"] == "ack"  # the room moved on
        # The move's resend: its original ack (before the fix: judged again, stale_version).
        assert await _answer(a, move) == ack
        # Another message with its seq: seq_reused (before the fix: judged as a new move).
        other = {**move, "base_version": b.version}
        reused = await _answer(a, other)
        assert reused["type"] == "error" and reused["code"] == "seq_reused"
        rack = await _answer(a, {"type": "rack", "seq": 1, "layout": hand})
        assert rack["type"] == "error" and rack["code"] == "seq_reused"
        # A rack message whose answer is no longer kept is saved again, acked now.
        again = await _answer(a, {"type": "rack", "seq": 2, "layout": hand[::-1]})
        assert again == {"type": "ack", "seq": 2, "version": b.version}
        assert b.view is not None and b.view["row_length"] == 1  # the discard, once
        await a.close()
        await b.close()


async def test_a_resend_after_a_restart_from_an_earlier_round_gets_the_original_ack(
    settings: Settings,
) -> None:
    async with running_server(settings) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(
            ana,
            variant="remi",
            seats=2,
            fill_with_bots=True,
            end={"kind": "rounds", "rounds": 50},
        )
        a = await srv.client(ana, room)
        await a.hello()
        await srv.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        assert a.view is not None and a.my_turn() and a.version is not None
        move = {
            "type": "action",
            "seq": 1,
            "base_version": a.version,
            "action": simple_move(a.view),
        }
        ack = await _answer(a, move)
        assert ack["type"] == "ack"
        # Ana leaves: the bots play round 1 out; she comes back in a later round.
        await a.send({"type": "leave"})
        await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"]["do"] == "round_start"
                and m["event"]["round"] >= 2
            ),
            timeout=60,
        )
        await a.hello(a.version)
        await a.close()

    async with running_server(settings) as srv2:
        a = await srv2.client(ana, room)
        snap = await a.hello()
        assert snap["type"] == "snapshot" and snap["room"]["round"] >= 2
        assert snap["last_seq"] == 1
        # Round 1's move, resent: the original ack, the original version (before the fix:
        # not restored, judged again: stale_version).
        assert await _answer(a, move) == ack
        reused = await _answer(a, {**move, "base_version": snap["version"]})
        assert reused["type"] == "error" and reused["code"] == "seq_reused"
        rack = await _answer(a, {"type": "rack", "seq": 1, "layout": snap["view"]["hand"]})
        assert rack["type"] == "error" and rack["code"] == "seq_reused"
        await a.close()
