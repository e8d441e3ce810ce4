"""View patches (``hello`` with ``patches``): the rebuilt view is the seat's view, always.

A seat and a spectator each hold two connections, one asking for patches and one
not, while bots play whole matches. At every version, the view, ``seats`` and
``scores`` rebuilt from the patch connection's frames must equal what the plain
connection received in full; a patch connection that drops and comes back with
its last version gets a replay whose last event is whole, and patches again after.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import Client, running_server

State = tuple[dict[str, Any] | None, list[dict[str, Any]] | None, dict[str, Any] | None]


def timeline(c: Client) -> dict[int, State]:
    """(view, seats, scores) the client holds after each version it saw in full."""
    view: dict[str, Any] | None = None
    seats: list[dict[str, Any]] | None = None
    scores: dict[str, Any] | None = None
    out: dict[int, State] = {}
    for m in c.frames:
        if m["type"] == "snapshot":
            view, seats, scores = m["view"], m["seats"], m["scores"]
        elif m["type"] == "event":
            if m["replay"] and m["view"] is None:
                continue  # earlier replayed events carry no state
            if m["view"] is not None:
                view = m["view"]
            elif m.get("patch") is not None:
                assert view is not None, f"patch with no view at version {m['version']}"
                view = {**view, **m["patch"]}
            if m["seats"] is not None:
                seats = m["seats"]
            if m["scores"] is not None:
                scores = m["scores"]
        else:
            continue
        out[m["version"]] = (view, seats, scores)
    return out


def compare(patched: Client, plain: Client) -> int:
    """Every version both saw: the same state. Returns how many versions were compared."""
    got = timeline(patched)
    want = timeline(plain)
    common = sorted(set(got) & set(want))
    for version in common:
        assert got[version][0] == want[version][0], f"view differs at version {version}"
        assert got[version][1] == want[version][1], f"seats differ at version {version}"
        assert got[version][2] == want[version][2], f"scores differ at version {version}"
    return len(common)


def events(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.frames if m["type"] == "event" and not m["replay"]]


@pytest.mark.parametrize(("variant", "seats"), [("remi", 4), ("remi101", 3), ("etalat", 2)])
async def test_patched_views_equal_the_whole_views(
    tmp_path: Path, variant: str, seats: int
) -> None:
    settings = base_settings(
        data_dir=tmp_path,
        database_url="",
        reconnect_grace_seconds=0,
        rate_limit_messages=10_000,
    )
    async with running_server(settings) as srv:
        tokens = [(await srv.player(f"P{i}"))[1] for i in range(seats)]
        room = await srv.room(
            tokens[0],
            variant=variant,
            seats=seats,
            bot_level="easy",
            end={"kind": "rounds", "rounds": 2},
        )
        for i in range(1, seats):
            await srv.sit(tokens[i], room, i)
        _, watcher = await srv.player("Watcher")
        players = [await srv.client(t, room) for t in tokens]
        seat0_patched = await srv.client(tokens[0], room)  # a second device of seat 0
        seat0_patched.patches = True
        watch_plain = await srv.client(watcher, room)
        watch_patched = await srv.client(watcher, room)
        watch_patched.patches = True
        everyone = [*players, seat0_patched, watch_plain, watch_patched]
        for c in everyone:
            await c.hello()
        await srv.start(tokens[0], room)
        for c in [*players, seat0_patched]:
            await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
            await c.send({"type": "leave"})  # bots play every seat from now on

        # The spectator's patch connection drops mid-round and comes back later.
        await watch_patched.wait(
            lambda m: m["type"] == "event" and m["event"]["do"] == "discard", timeout=60
        )
        await watch_patched.close()
        dropped_at = watch_patched.version
        assert dropped_at is not None
        await watch_plain.wait(
            lambda m: m["type"] == "event" and m["version"] >= dropped_at + 3, timeout=60
        )
        back = await srv.client(watcher, room)
        back.patches = True
        first = await back.hello(last_version=dropped_at)
        assert first["type"] == "event" and first["replay"]

        for c in [*players, seat0_patched, watch_plain, back]:
            await c.wait(
                lambda m: m["type"] == "event" and m["event"]["do"] == "match_over", timeout=120
            )

        # Seat 0: both devices agree at every version, and the patches were used.
        assert compare(seat0_patched, players[0]) >= 50
        patched_events = events(seat0_patched)
        with_patch = [m for m in patched_events if m.get("patch") is not None]
        assert len(with_patch) >= 0.9 * len(patched_events)
        assert all(m["view"] is None for m in with_patch)
        assert all(m.get("patch") is None for m in events(players[0]))
        assert any("hand" in m["patch"] for m in with_patch)
        assert sum(map(len, seat0_patched.raw)) < 0.6 * sum(map(len, players[0].raw))
        # seats and scores come only when they changed
        assert sum(m["seats"] is not None for m in patched_events) < 0.2 * len(patched_events)
        # The spectator: before the drop, and after the replay.
        assert compare(watch_patched, watch_plain) >= 3
        assert compare(back, watch_plain) >= 20
        replay = [m for m in back.frames if m["type"] == "event" and m["replay"]]
        assert [m["version"] for m in replay] == list(
            range(dropped_at + 1, dropped_at + 1 + len(replay))
        )
        last = replay[-1]
        assert last["view"] is not None and last["seats"] is not None
        assert last["scores"] is not None and last["view"]["hand"] == []
        after = [m for m in events(back) if m["version"] > last["version"]]
        assert sum(m.get("patch") is not None for m in after) >= 0.9 * len(after)
        for c in [*players, seat0_patched, watch_plain, back]:
            await c.close()


async def test_a_patch_connection_before_the_deal_gets_the_whole_first_view(
    tmp_path: Path,
) -> None:
    settings = base_settings(data_dir=tmp_path, database_url="")
    async with running_server(settings) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
        a = await srv.client(ana, room)
        a.patches = True
        snap = await a.hello()
        assert snap["type"] == "snapshot" and snap["view"] is None
        await srv.start(ana, room)
        start = await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        assert start["view"] is not None and start.get("patch") is None
        assert start["view"]["seat"] == 0 and len(start["view"]["hand"]) in (14, 15)
        assert start["seats"] is not None and start["scores"] is not None
        await a.close()
