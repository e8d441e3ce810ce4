"""The room core's audience (server/rooms/core/audience.py) and its frames
(server/rooms/core/frames.py), off the network: over whole bot rounds, every frame
matches the protocol models; a patch connection's view rebuilt from its patches is, at every
version, the whole view a plain
connection of the same seat received; a patch holds exactly the keys that differ; seats
and scores come to a patch connection only when they changed; a replay ends with the
whole state and a reconnecting patch connection patches again after it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.errors import Code
from server.protocol import validate_server
from server.rooms.core import frames
from server.rooms.core.audience import Audience, Change, Shown, Table
from server.rooms.core.bots import make_seat_bot
from server.rooms.core.peers import Peer
from server.rules import ErrorCode, new_round, view_for

_OUT: dict[int, list[str]] = {}
_IDS = iter(range(1, 1_000_000))


def _send(peer: Peer, frame: str) -> None:
    _OUT[peer.id].append(frame)


def _audience(events: int, recent_events: int = 0) -> Audience:
    return Audience(events, recent_events, send=_send)


class _Seats:
    """The ``seats`` as a room shows them (a player on seat 0, bots elsewhere)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.away = False

    def table(self, deadline: float | None, totals: list[int] | None = None) -> Table:
        totals = totals or [0] * self.players
        shown = [
            _Seat(i, "p0" if i == 0 else None, "Ana" if i == 0 else None, self.away and i == 0)
            for i in range(self.players)
        ]
        return Table(
            frames.seat_states(shown, totals, "easy"),
            frames.scores([], totals, False, []),
            deadline,
        )


class _Seat:
    def __init__(self, seat: int, player_id: str | None, name: str | None, away: bool) -> None:
        self.seat = seat
        self.player_id = player_id
        self.name = name
        self.bot_level = None
        self.away = away
        self.unresponsive = False


def _conn(seat: int | None, out: list[str]) -> Peer:
    peer = Peer(next(_IDS), "p0" if seat == 0 else "watcher", seat=seat, ready=True)
    _OUT[peer.id] = out
    return peer


async def _play(variant: str, players: int) -> None:
    audience = _audience(512)
    table = _Seats(players)
    received: dict[str, list[str]] = {}
    conns: list[Peer] = []
    for name, seat, patching in [
        ("seat0", 0, False),
        ("seat0+", 0, True),
        ("seat1+", 1, True),
        ("watch", None, False),
        ("watch+", None, True),
    ]:
        conn = _conn(seat, received.setdefault(name, []))
        audience.hello(conn, patching)
        conns.append(conn)
    version = 1
    state = new_round(variant, players, seed=f"audience/{variant}")
    bots = [make_seat_bot("easy", f"audience:{i}") for i in range(players)]
    start = Change({"do": "round_start", "round": 1, "first": 0})
    audience.record(version, start)
    audience.publish(start, conns, Shown(version, state, 1, table.table(100.0), 0.0))
    while not state.over:
        seat = state.turn
        event = state.apply(seat, bots[seat].act(view_for(state, seat)))
        version += 1
        change = Change.of_move(event, "bot")
        audience.record(version, change)
        if version % 17 == 0:  # a presence change now and then: seats change
            table.away = not table.away
        shown = Shown(version, state, 1, table.table(100.0 + version), 0.0)
        audience.publish(change, conns, shown)
        if version == 40:  # the spectator's patch connection drops, comes back later
            conns.remove(conns[4])
        if version == 60:
            back = _conn(None, received.setdefault("back+", []))
            audience.hello(back, True)
            assert audience.replay(back, 40, Shown(version, state, 1, table.table(160.0), 0.0))
            conns.append(back)

    parsed = {name: [json.loads(f) for f in texts] for name, texts in received.items()}
    for texts in parsed.values():
        for frame in texts:
            validate_server(frame)
    assert len(parsed["seat0"]) == version
    # Plain connections: the whole view, as the engine makes it, and never a patch.
    for frame in parsed["seat0"]:
        assert "patch" not in frame and frame["view"]["seat"] == 0
    for name, plain in [("seat0+", "seat0"), ("watch+", "watch"), ("back+", "watch")]:
        whole = {f["version"]: f for f in parsed[plain]}
        view: dict[str, Any] | None = None
        seats = scores = None
        patched = 0
        for frame in parsed[name]:
            if frame["replay"] and frame["view"] is None:
                continue
            if frame["view"] is not None:
                assert frame["patch"] is None and frame["seats"] is not None
                view = frame["view"]
            else:
                assert view is not None
                for key, value in frame["patch"].items():
                    assert view[key] != value, (name, frame["version"], key)  # exactly what differs
                view = {**view, **frame["patch"]}
                patched += 1
            if frame["seats"] is not None:
                assert frame["seats"] != seats or frame["view"] is not None
                seats = frame["seats"]
            if frame["scores"] is not None:
                scores = frame["scores"]
            want = whole[frame["version"]]
            assert view == want["view"], (name, frame["version"])
            assert seats == want["seats"] and scores == want["scores"]
        assert patched >= 0.8 * sum(not f["replay"] for f in parsed[name])
    # A seat's patches carry its own hand; a spectator's never a hand.
    assert any("hand" in f["patch"] for f in parsed["seat0+"] if f.get("patch"))
    assert not any(f["patch"].get("hand") for f in parsed["watch+"] if f.get("patch"))
    # The drawn tile is in the drawer's copy of the event alone.
    draws = [f for f in parsed["seat1+"] if f["event"]["do"] == "draw" and f["event"]["seat"] == 1]
    assert draws and all("tile" in f["event"] or f["event"].get("stock_empty") for f in draws)
    others = [f for f in parsed["seat0"] if f["event"]["do"] == "draw" and f["event"]["seat"] == 1]
    assert len(others) == len(draws) and not any("tile" in f["event"] for f in others)
    # The replay: versions 41.. in order; the earlier ones bare, the last one whole.
    replay = [f for f in parsed["back+"] if f["replay"]]
    assert [f["version"] for f in replay] == list(range(41, 61))
    assert all(f["view"] is None and f["seats"] is None for f in replay[:-1])
    assert replay[-1]["view"] == _view_at(parsed["watch"], 60)


def _view_at(frames_: list[dict[str, Any]], version: int) -> Any:
    return next(f["view"] for f in frames_ if f["version"] == version)


@pytest.mark.parametrize(("variant", "players"), [("remi", 4), ("remi101", 3), ("etalat", 2)])
async def test_patches_rebuild_the_whole_views(variant: str, players: int) -> None:
    await _play(variant, players)


async def test_a_new_round_or_no_round_is_never_patched() -> None:
    audience = _audience(8)
    out: list[str] = []
    conn = _conn(0, out)
    audience.hello(conn, True)
    table = _Seats(2).table(None)
    waiting = Change({"do": "room_changed"})
    audience.publish(waiting, [conn], Shown(1, None, None, table, 0.0))
    first = new_round("remi", 2, seed="r1")
    audience.publish(Change({"do": "round_start"}), [conn], Shown(2, first, 1, table, 0.0))
    same = Change({"do": "presence", "seat": 1, "away": False, "unresponsive": False})
    audience.publish(same, [conn], Shown(3, first, 1, table, 0.0))
    second = new_round("remi", 2, seed="r2")
    audience.publish(Change({"do": "round_start"}), [conn], Shown(4, second, 2, table, 0.0))
    audience.publish(Change({"do": "match_over"}), [conn], Shown(5, None, None, table, 0.0))
    got = [json.loads(f) for f in out]
    assert [(f["view"] is None, f["patch"]) for f in got] == [
        (True, None),  # no round: no view
        (False, None),  # the first view: whole
        (True, {}),  # nothing changed
        (False, None),  # another round: whole
        (True, None),  # no round any more
    ]
    assert got[1]["view"] == view_for(first, 0).to_dict()
    assert got[2]["seats"] is None and got[2]["scores"] is None
    assert got[3]["seats"] is not None and got[3]["scores"] is not None


async def test_replay_needs_every_missed_event() -> None:
    audience = _audience(3)
    for version in range(1, 6):
        audience.record(version, Change({"do": "room_changed"}))
    conn = _conn(None, [])
    audience.hello(conn, False)
    shown = Shown(5, None, None, _Seats(2).table(None), 0.0)
    assert not audience.replay(conn, None, shown)  # no version: a snapshot
    assert not audience.replay(conn, 1, shown)  # 2 is no longer held
    assert not audience.replay(conn, 6, shown)  # ahead of the room
    assert audience.replay(conn, 2, shown) and audience.replay(conn, 5, shown)


def test_frames_match_the_protocol_models() -> None:
    state = new_round("remi", 2, seed="frames")
    table = _Seats(2).table(12.5)
    view = view_for(state, 0).to_dict()
    room = frames.room_info("r", "playing", {"variant": "remi"}, 1, 30.0)
    texts = [
        frames.ack(3, 9),
        frames.error(3, ErrorCode.NOT_YOUR_TURN, "it is seat 1's turn"),
        frames.error(None, Code.BAD_MESSAGE, "x"),
        frames.PONG,
        frames.query_result(4, {"index": 0, "tiles": [], "reachable": []}),
        frames.replayed(5, {"do": "room_changed"}, 1.0),
        frames.event(
            6,
            {"do": "draw", "seat": 0},
            view=view,
            seats=table.seats,
            deadline=1.5,
            server_time=1.0,
            scores=table.scores,
        ),
        frames.event(
            7,
            {"do": "draw", "seat": 0},
            view=None,
            patch={"turn": 1},
            seats=None,
            deadline=None,
            server_time=1.0,
            scores=None,
            patching=True,
        ),
        frames.snapshot(
            7,
            room,
            "p0",
            0,
            seats=table.seats,
            view=view,
            rack=[1, None],
            deadline=None,
            server_time=1.0,
            scores=table.scores,
            last_seq=None,
        ),
    ]
    for text in texts:
        validate_server(json.loads(text))
    plain, patched = json.loads(texts[6]), json.loads(texts[7])
    assert "patch" not in plain and plain["view"] == view
    assert patched["patch"] == {"turn": 1} and patched["view"] is None


async def test_a_snapshot_carries_the_rounds_recent_events_as_its_seat_sees_them() -> None:
    """``recent``: the current round's last events (from its ``round_start``, at most
    ``recent_events``), each seat's own copy for its own move (a drawn tile) and the
    public copy otherwise (RULES.md §D)."""
    audience = _audience(512, recent_events=4)
    state = new_round("remi", 2, seed="recent")
    audience.record(1, Change({"do": "round_start", "round": 1, "first": 0}))
    audience.record(
        2, Change.of_move(state.apply(0, {"do": "discard", "tile": state.hands[0][0]}), "player")
    )
    drawn = state.apply(1, {"do": "draw"})
    audience.record(3, Change.of_move(drawn, "bot"))
    table = _Seats(2).table(None)
    shown = Shown(3, state, 1, table, 0.0)
    room = frames.room_info("r", "playing", {"variant": "remi"}, 1, 30.0)
    got: dict[int | None, Any] = {}
    for seat in (0, 1, None):
        out: list[str] = []
        conn = _conn(seat, out)
        audience.hello(conn, False)
        audience.snapshot(conn, shown, room, None, None)
        frame = json.loads(out[0])
        validate_server(frame)
        got[seat] = frame["recent"]
    assert [r["version"] for r in got[0]] == [1, 2, 3]
    assert [r["event"]["do"] for r in got[0]] == ["round_start", "discard", "draw"]
    assert got[1][2]["event"]["tile"] == drawn.private["tile"]
    assert "tile" not in got[0][2]["event"] and "tile" not in got[None][2]["event"]
    for version in range(4, 10):  # a long round: only the last four
        audience.record(
            version, Change({"do": "presence", "seat": 1, "away": False, "unresponsive": False})
        )
    assert [v for v, _ in audience.recent(0)] == [6, 7, 8, 9]
    audience.record(10, Change({"do": "round_start", "round": 2, "first": 1}))
    assert [v for v, _ in audience.recent(0)] == [10]
