"""Leak scan (RULES.md §D): every frame each seat received over many bot rounds.

Four players sit, connect and leave at once (the back arrow): bots play every
seat while the connections keep receiving their seat's frames; a spectator
watches too. Afterwards each frame is checked against the engine state at its
version, rebuilt from the stored deal and action log: no tile id that is in
another seat's hand or in the stock may appear anywhere a tile id can be, and
neither the shuffle seed nor anything the shuffle derives from it (its stream
blocks, docs/fairness.md) appears, until the round is over. Every seat and
spectator gets the seed's commitment with the deal (in ``round_start`` and in
every view) and the seed itself with ``round_over``, where SHA-256(seed) must
equal that commitment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from sqlalchemy import select
from wsharness import Client, running_server

from server.rules import Deal, RoundOptions, RoundState, get_variant
from server.rules.shuffle import commitment, stream_block
from server.storage.database import Database
from server.storage.models import Action, Round

ENGINE_MOVES = {
    "draw",
    "discard",
    "lay",
    "take_row",
    "layoff",
    "buy_joker",
    "take_discard",
    "joker_button",
}
# Keys whose integer values are tile ids (anywhere in a frame).
TILE_KEYS = {"hand", "row", "atu", "consumed", "tile", "tiles", "joker", "rack", "layout", "hands"}


def tile_ids(value: Any, key: str | None = None, under_tiles: bool = False) -> set[int]:
    """Every integer found under a tile-bearing key."""
    out: set[int] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "seats" and isinstance(v, list):  # per-seat counts ("tiles": 14)
                for s in v:
                    if isinstance(s, dict):
                        out |= tile_ids({kk: vv for kk, vv in s.items() if kk != "tiles"})
                continue
            out |= tile_ids(v, k, under_tiles or k in TILE_KEYS)
    elif isinstance(value, list):
        for v in value:
            out |= tile_ids(v, key, under_tiles)
    elif isinstance(value, int) and not isinstance(value, bool) and under_tiles:
        out.add(value)
    return out


async def _rounds(db: Database, room_id: str) -> dict[int, tuple[Round, list[Action]]]:
    async with db.transaction() as session:
        rounds = list(await session.scalars(select(Round).where(Round.room_id == room_id)))
        out = {}
        for r in rounds:
            actions = list(
                await session.scalars(
                    select(Action).where(Action.round_id == r.id).order_by(Action.seq)
                )
            )
            out[r.number] = (r, actions)
    return out


def secrets_of(seed: str) -> list[str]:
    """The seed and what the shuffle derives from it (hex of the stream blocks a deal
    of 106 tiles reads), as they could appear in a frame."""
    return [seed, *(stream_block(seed, k).hex() for k in range(20))]


def scan(c: Client, seat: int | None, rounds: dict[int, tuple[Round, list[Action]]]) -> int:
    """Check every frame of one connection; returns how many frames were checked."""
    state: RoundState | None = None
    actions: list[Action] = []
    applied = 0
    secret: list[str] = []
    committed = ""
    checked = 0
    for raw, frame in zip(c.raw, c.frames, strict=True):
        if frame["type"] != "event":
            continue
        event = frame["event"]
        do = event.get("do")
        if do == "round_start":
            rnd, actions = rounds[event["round"]]
            options = RoundOptions.from_dict(rnd.options)
            deal = Deal.from_dict(rnd.options["deal"])
            state = RoundState(get_variant(rnd.variant), len(deal.hands), deal, options)
            applied = 0
            secret = secrets_of(rnd.seed)
            committed = commitment(rnd.seed)
            assert event["commitment"] == committed == deal.commitment
        elif do == "round_over":
            assert state is not None and state.over
            assert event["seed"] == secret[0] and event["commitment"] == committed
            secret = []  # revealed: the round is over
        elif do in ENGINE_MOVES:
            assert state is not None
            logged = actions[applied]
            assert (logged.seat, logged.action["do"]) == (event["seat"], do)
            state.apply(logged.seat, logged.action)
            applied += 1
        if state is None:
            continue
        for value in secret:
            assert value not in raw, f"the seed or its stream in a frame at {frame['version']}"
        if frame["view"] is not None:
            assert frame["view"]["commitment"] == committed
        if state.over or do in ("round_over", "match_over"):
            continue
        hidden = set(state.stock)
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden |= set(hand)
        leaked = tile_ids(frame) & hidden
        assert not leaked, f"seat {seat} saw hidden tiles {leaked} at version {frame['version']}"
        if seat is not None and frame["view"] is not None:
            assert frame["view"]["hand"] == state.hands[seat]
        checked += 1
    return checked


def _doctored(c: Client, rounds: dict[int, tuple[Round, list[Action]]]) -> Client:
    """A copy of ``c`` whose 5th event of round 1 also names the stock's top tile."""
    fake = Client.__new__(Client)
    fake.frames = [dict(m) for m in c.frames]
    fake.raw = list(c.raw)
    starts = [
        i
        for i, m in enumerate(fake.frames)
        if m["type"] == "event" and m["event"]["do"] == "round_start"
    ]
    i = starts[0] + 5
    rnd, _ = rounds[1]
    top = Deal.from_dict(rnd.options["deal"]).stock[-1]  # drawn last, if ever
    fake.frames[i] = {**fake.frames[i], "event": {**fake.frames[i]["event"], "tile": top}}
    return fake


def _told(c: Client, secret: str) -> Client:
    """A copy of ``c`` whose 3rd event of round 1 also carries ``secret``."""
    fake = Client.__new__(Client)
    fake.frames = list(c.frames)
    fake.raw = list(c.raw)
    starts = [
        i
        for i, m in enumerate(fake.frames)
        if m["type"] == "event" and m["event"]["do"] == "round_start"
    ]
    i = starts[0] + 3
    fake.raw[i] = fake.raw[i][:-1] + f', "note": "{secret}"}}'
    return fake


@pytest.mark.parametrize(
    ("variant", "seats", "rounds"), [("remi", 4, 4), ("etalat", 3, 3), ("remi101", 4, 3)]
)
async def test_no_frame_leaks_hidden_tiles(
    tmp_path: Path, variant: str, seats: int, rounds: int
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
            end={"kind": "rounds", "rounds": rounds},
        )
        for i in range(1, seats):
            await srv.sit(tokens[i], room, i)
        _, watcher = await srv.player("Watcher")
        clients = [await srv.client(t, room) for t in tokens]
        spectator = await srv.client(watcher, room)
        # View patches too: a second device of seat 1 and a second spectator ask for them.
        seat1_patched = await srv.client(tokens[1], room)
        spectator_patched = await srv.client(watcher, room)
        seat1_patched.patches = spectator_patched.patches = True
        for c in [*clients, spectator, seat1_patched, spectator_patched]:
            await c.hello()
        await srv.start(tokens[0], room)
        for c in [*clients, seat1_patched]:
            await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
            await c.send({"type": "leave"})  # bots play every seat from now on
        for c in [*clients, spectator, seat1_patched, spectator_patched]:
            await c.wait(
                lambda m: m["type"] == "event" and m["event"]["do"] == "match_over", timeout=120
            )
        stored = await _rounds(srv.live.services.db, room)
        assert len(stored) == rounds
        total = 0
        for seat, c in enumerate(clients):
            total += scan(c, seat, stored)
            # rack frames of this seat hold only its own tiles (checked above as well)
        total += scan(spectator, None, stored)
        assert total > 100 * rounds
        patched = scan(seat1_patched, 1, stored) + scan(spectator_patched, None, stored)
        assert patched > 50 * rounds
        assert any(m.get("patch") for m in seat1_patched.frames if m["type"] == "event")
        moves = {m["event"]["do"] for m in spectator.frames if m["type"] == "event"}
        assert {"draw", "discard", "round_start", "round_over", "match_over"} <= moves
        # Negative controls: the scan does catch a stock tile slipped into a frame, and
        # the seed or a block of its stream given before the round is over.
        fake = _doctored(clients[1], stored)
        with pytest.raises(AssertionError, match="hidden tiles"):
            scan(fake, 1, stored)
        for k in (0, 1):
            told = _told(spectator, secrets_of(stored[1][0].seed)[k])
            with pytest.raises(AssertionError, match="seed or its stream"):
                scan(told, None, stored)
        for c in [*clients, spectator, seat1_patched, spectator_patched]:
            await c.close()
