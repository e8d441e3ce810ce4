"""Property: over random rounds of every variant and seat count, a patch connection's
view, rebuilt from its frames, equals at every version the whole view a plain connection
of the same seat received, and each patch holds exactly the keys that differ; also for
connections that miss events (not ready for a while), come back by a snapshot or a
replay, or watch as spectators."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from server.rooms.core import frames
from server.rooms.core.audience import Audience, Change, Shown, Table
from server.rooms.core.bots import make_seat_bot
from server.rooms.core.peers import Peer
from server.rules import new_round, view_for
from server.rules.variants import VARIANTS

ROUNDS = [
    (variant, players, seed)
    for i, variant in enumerate(sorted(VARIANTS))
    for players, seed in [(2 + i % 3, 1), (2 + (i + 1) % 3, 2)]
]


class _Slot:
    def __init__(self, seat: int, away: bool) -> None:
        self.seat = seat
        self.player_id = f"p{seat}"
        self.name = f"P{seat}"
        self.bot_level = None
        self.away = away
        self.unresponsive = False


def _table(players: int, away: set[int], totals: list[int]) -> Table:
    slots = [_Slot(i, i in away) for i in range(players)]
    return Table(
        frames.seat_states(slots, totals, "easy"),
        frames.scores([], totals, False, []),
        None,
    )


class _Client:
    """What one connection received, and the view it rebuilds from it."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.seats: Any = None
        self.at: dict[int, tuple[Any, Any]] = {}  # version -> (view, seats)

    def take(self, text: str) -> None:
        frame = json.loads(text)
        self.frames.append(frame)
        if frame["type"] == "snapshot":
            self.view, self.seats = frame["view"], frame["seats"]
        elif frame["view"] is not None:
            self.view = frame["view"]
        elif frame.get("patch") is not None:
            assert self.view is not None, "a patch before any view"
            for key, value in frame["patch"].items():
                assert self.view[key] != value, ("a key that did not change", key)
            self.view = {**self.view, **frame["patch"]}
        if frame["type"] == "event" and frame["seats"] is not None:
            self.seats = frame["seats"]
        if frame["type"] == "snapshot" or not frame.get("replay") or frame["view"] is not None:
            self.at[frame["version"]] = (self.view, self.seats)


@pytest.mark.parametrize(("variant", "players", "seed"), ROUNDS)
def test_patched_views_equal_whole_views(variant: str, players: int, seed: int) -> None:
    rng = random.Random(f"{variant}/{players}/{seed}")
    clients: dict[int, _Client] = {}

    def send(peer: Peer, text: str) -> None:
        clients[peer.id].take(text)

    audience = Audience(64, send=send)
    ids = iter(range(1, 1000))
    plain: dict[int | None, Peer] = {}
    patching: list[Peer] = []
    for seat in [*range(players), None]:
        peer = Peer(next(ids), f"p{seat}", seat=seat, ready=True)
        clients[peer.id] = _Client()
        audience.hello(peer, False)
        plain[seat] = peer
        for _ in range(2):  # two devices of the seat: they share frames
            peer = Peer(next(ids), f"p{seat}", seat=seat, ready=True)
            clients[peer.id] = _Client()
            audience.hello(peer, True)
            patching.append(peer)
    peers = [*plain.values(), *patching]
    state = new_round(variant, players, seed=f"prop/{seed}")
    bots = [make_seat_bot("easy", f"prop:{seed}:{i}") for i in range(players)]
    away: set[int] = set()
    totals = [0] * players
    version = 1
    shown = Shown(version, state, 1, _table(players, away, totals), 0.0)
    audience.record(version, Change({"do": "round_start"}))
    audience.publish(Change({"do": "round_start"}), peers, shown)
    while not state.over:
        seat = state.turn
        event = state.apply(seat, bots[seat].act(view_for(state, seat)))
        version += 1
        if rng.random() < 0.1:  # presence: the seats change
            away ^= {rng.randrange(players)}
        change = Change.of_move(event, "bot")
        audience.record(version, change)
        shown = Shown(version, state, 1, _table(players, away, totals), 0.0)
        for peer in patching:  # now and then a connection misses events, then is back
            if not peer.ready:
                if rng.random() < 0.3:
                    peer.ready = True
                    way = rng.choice(["snapshot", "replay", "none"])
                    if way == "snapshot":
                        audience.hello(peer, True)
                        audience.snapshot(peer, shown, {}, None, None)
                    elif way == "replay":
                        audience.hello(peer, True)
                        last = clients[peer.id].frames[-1]["version"]
                        assert audience.replay(peer, last, shown)
            elif rng.random() < 0.03:
                peer.ready = False
        audience.publish(change, peers, shown)

    whole = {
        seat: {f["version"]: (f["view"], f["seats"]) for f in clients[p.id].frames}
        for seat, p in plain.items()
    }
    patched_frames = 0
    for peer in patching:
        client = clients[peer.id]
        assert client.at, "the connection got nothing"
        for at, (view, seats) in client.at.items():
            if at in whole[peer.seat]:
                assert view == whole[peer.seat][at][0], (peer.seat, at)
                assert seats == whole[peer.seat][at][1], (peer.seat, at)
        patched_frames += sum(1 for f in client.frames if f.get("patch"))
    assert patched_frames > 0
    # A patch never carries another seat's hand: the hand key is only in seats' patches.
    for peer in patching:
        if peer.seat is None:
            assert not any((f.get("patch") or {}).get("hand") for f in clients[peer.id].frames)
