"""The practice room (server/practice/room.py, the offline shell of the room core) speaks
the server socket's message shapes: every frame it sends validates against the
protocol's models (server/protocol/server.py), its query answers are the engine's
helpers on the player's view, a whole match plays to its score sheet, and a match kept
mid-round resumes where it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from server.bots.coach import finished_round
from server.bots.legal import fallback_action
from server.practice.bridge import Session
from server.practice.room import PLAYER, PracticeRoom, SettingsError
from server.protocol.server import ServerMessage
from server.rules import Deal, RoundOptions, RoundState, SeatView, view_for
from server.rules.queries import (
    arrange,
    evaluate_formation,
    opening_lock,
    reachable_row_indices,
    row_take_block,
    row_take_preview,
)

FRAMES: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def checked(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each frame as the server's models read it (raises on a shape they refuse)."""
    for frame in frames:
        FRAMES.validate_python(frame)
    return frames


def run(room: PracticeRoom, now: float, limit: int = 5000) -> tuple[list[dict[str, Any]], float]:
    """Play the player's seat with the always-legal fallback and let the bots play, until
    the match is over; every frame checked. Returns the frames and the clock."""
    out: list[dict[str, Any]] = []
    seq = 0
    for _ in range(limit):
        if room.over:
            return out, now
        state = room.round
        assert state is not None
        if not state.over and state.turn == PLAYER and not room.timed_out:
            seq += 1
            action = fallback_action(view_for(state, PLAYER))
            msg = {"type": "action", "seq": seq, "base_version": room.version, "action": action}
            frames = checked(room.message(msg, now))
            assert frames[0] == {"type": "ack", "seq": seq, "version": frames[1]["version"]}
            assert frames[1]["event"]["by"] == "player"
            out += frames
            continue
        due = room.due()
        assert due is not None
        now = max(now, due)
        out += checked(room.tick(now))
    raise AssertionError("the match did not end")


def test_hello_is_a_snapshot_of_the_players_view() -> None:
    room = PracticeRoom(
        {"variant": "remi", "seats": 3, "bot_levels": ["easy", "hard"]}, "a", 10.0, name="Ana"
    )
    (snap,) = checked(room.message({"type": "hello", "last_version": None}, 11.0))
    assert snap["type"] == "snapshot" and snap["you"] == {"player_id": "local", "seat": 0}
    assert snap["view"] == view_for(room.round, 0).to_dict()  # type: ignore[arg-type]
    assert [s["bot_level"] for s in snap["seats"][1:]] == ["easy", "hard"]
    assert snap["seats"][0]["name"] == "Ana" and snap["recent"][0]["event"]["do"] == "round_start"
    assert snap["deadline"] is None  # no turn timer


@pytest.mark.parametrize("variant,seats", [("remi45", 2), ("remi101", 4), ("etalat", 3)])
def test_a_match_plays_to_its_score_sheet(variant: str, seats: int) -> None:
    room = PracticeRoom(
        {
            "variant": variant,
            "seats": seats,
            "bot_levels": ["easy"] * (seats - 1),
            "end": {"kind": "rounds", "rounds": 2},
        },
        f"m-{variant}",
        0.0,
        bot_delay=0.05,
        round_pause=3.0,
    )
    frames, _ = run(room, 0.0)
    kinds = [f["event"]["do"] for f in frames if f["type"] == "event"]
    assert kinds.count("round_over") == 2 and kinds[-1] == "match_over"
    last = frames[-1]
    assert last["scores"]["over"] and len(last["scores"]["rounds"]) == 2
    assert room.summary()["scores"]["winners"] == last["event"]["winners"]
    versions = [f["version"] for f in frames if f["type"] == "event"]
    assert versions == list(range(versions[0], versions[0] + len(versions)))


def test_refused_move_changes_nothing_and_says_why() -> None:
    room = PracticeRoom({"variant": "remi", "seats": 2}, "r", 0.0)
    before = room.to_dict(0.0)
    state = room.round
    assert state is not None
    wrong = {"do": "draw"}  # the first player's first turn has no draw; another's turn is not ours
    (err,) = checked(
        room.message(
            {"type": "action", "seq": 5, "base_version": room.version, "action": wrong}, 0.0
        )
    )
    assert err["type"] == "error" and err["seq"] == 5 and err["code"]
    (stale,) = checked(
        room.message(
            {"type": "action", "seq": 6, "base_version": 999, "action": {"do": "draw"}}, 0.0
        )
    )
    assert stale["code"] == "stale_version"
    after = room.to_dict(0.0)
    assert {k: v for k, v in after.items() if k != "last_seq"} == {
        k: v for k, v in before.items() if k != "last_seq"
    }


def test_queries_are_the_servers_answers() -> None:
    room = PracticeRoom({"variant": "remi45", "seats": 4}, "q", 0.0)
    state = room.round
    assert state is not None
    hand = state.hands[PLAYER]
    for msg in (
        {"type": "query", "seq": 1, "query": "formations", "formations": [hand[:3], hand[3:5]]},
        {
            "type": "query",
            "seq": 3,
            "query": "formations",
            "formations": [hand[:3]],
            "taken": hand[0],
        },
        {"type": "query", "seq": 2, "query": "row_preview", "index": 0},
        {"type": "query", "seq": 4, "query": "arrange"},
    ):
        (mine,) = checked(room.message(msg, 0.0))
        view = view_for(state, PLAYER)
        if msg["query"] == "formations":
            given = msg["formations"]
            want: dict[str, Any] = {
                "formations": [evaluate_formation(view, f) for f in given],  # type: ignore[arg-type]
                "lock": opening_lock(view, given, msg.get("taken")),  # type: ignore[arg-type]
            }
        elif msg["query"] == "arrange":
            want = arrange(view)
        else:
            want = {
                "index": 0,
                "tiles": row_take_preview(view, 0),
                "reachable": reachable_row_indices(view),
                "block": row_take_block(view, 0),
            }
        assert mine == json.loads(
            json.dumps({"type": "query_result", "seq": msg["seq"], "result": want})
        )


def test_rack_layout_is_kept_and_checked() -> None:
    room = PracticeRoom({"variant": "remi", "seats": 2}, "k", 0.0)
    hand = room.round.hands[PLAYER]  # type: ignore[union-attr]
    layout = [None, *reversed(hand)]
    (ack,) = checked(room.message({"type": "rack", "seq": 3, "layout": layout}, 0.0))
    assert ack["type"] == "ack"
    (bad,) = checked(room.message({"type": "rack", "seq": 4, "layout": [999]}, 0.0))
    assert bad["code"] == "bad_message"
    (snap,) = room.message({"type": "hello"}, 0.0)
    assert snap["rack"] == layout and snap["last_seq"] == 4


def test_turn_timer_runs_out_and_a_bot_finishes_the_turn() -> None:
    settings = {"variant": "remi", "seats": 2, "turn_seconds": 15}
    room = PracticeRoom(settings, "t", 0.0, bot_delay=0.1)
    now = 0.0
    while room.round is not None and room.round.turn != PLAYER:
        now = room.due() or now
        room.tick(now)
    assert room.due() == pytest.approx(now + 15)
    frames = checked(room.tick(now + 15))
    assert frames[0]["event"] == {"do": "timeout", "seat": 0, "timeouts": 1}
    played = checked(room.tick(now + 15))
    assert played[0]["event"]["by"] == "timeout"


def test_kept_mid_round_resumes_where_it_was() -> None:
    room = PracticeRoom(
        {
            "variant": "remi101",
            "seats": 3,
            "turn_seconds": 60,
            "end": {"kind": "target", "points": 300},
        },
        "keep",
        0.0,
        bot_delay=0.05,
    )
    now = 0.0
    for _ in range(25):
        now = max(now, room.due() or now)
        if room.round is not None and room.round.turn == PLAYER:
            action = fallback_action(view_for(room.round, PLAYER))
            room.message(
                {
                    "type": "action",
                    "seq": int(now * 1000) + 1,
                    "base_version": room.version,
                    "action": action,
                },
                now,
            )
        else:
            room.tick(now)
    kept = json.loads(json.dumps(room.to_dict(now)))
    again = PracticeRoom.from_dict(kept, now + 3600)
    (a,) = room.message({"type": "hello"}, now)
    (b,) = again.message({"type": "hello"}, now + 3600)
    for key in ("version", "view", "seats", "scores", "recent", "rack", "room"):
        assert a[key] == b[key], key
    assert SeatView.from_dict(b["view"]).hand == room.round.hands[PLAYER]  # type: ignore[union-attr]
    frames, _ = run(again, now + 3600)
    assert frames[-1]["event"]["do"] == "match_over"


@pytest.mark.parametrize(
    "settings",
    [
        {"variant": "nope"},
        {"seats": 5},
        {"seats": 3, "short_game": True},
        {"variant": "remi", "seats": 2, "bot_levels": ["godlike"]},
        {"turn_seconds": 7},
        {"end": {"kind": "rounds", "rounds": 0}},
        {"end": {"kind": "endless"}},
        {"variant": "remi", "joker_button": True},
    ],
)
def test_bad_settings_are_refused(settings: dict[str, Any]) -> None:
    with pytest.raises(SettingsError):
        PracticeRoom(settings, "x", 0.0)


def test_bridge_speaks_json() -> None:
    s = Session()
    s.start(json.dumps({"variant": "remi45", "seats": 2, "short_game": True}), "b", 0.0, None, 0.05)
    snap = json.loads(s.message(json.dumps({"type": "hello"}), 0.0))[0]
    assert snap["room"]["settings"]["short_game"] is True
    kept = s.state(0.0)
    other = Session()
    other.resume(kept, 1.0)
    assert json.loads(other.message('{"type": "hello"}', 1.0))[0]["view"] == snap["view"]


def test_a_match_kept_in_the_first_format_resumes() -> None:
    """A match kept before the practice ran the room core (format 1: the round's deal
    beside its options, its log without seqs) resumes where it was and plays on."""
    room = PracticeRoom(
        {"variant": "remi45", "seats": 3, "turn_seconds": 60}, "old", 0.0, bot_delay=0.05
    )
    now = 0.0
    while room.round is not None and len(room.round.log) < 9:
        now = max(now, room.due() or now)
        if room.round.turn == PLAYER and not room.timed_out:
            action = fallback_action(view_for(room.round, PLAYER))
            room.message(
                {
                    "type": "action",
                    "seq": len(room.round.log) + 1,
                    "base_version": room.version,
                    "action": action,
                },
                now,
            )
        else:
            room.tick(now)
    kept = room.to_dict(now)
    options = dict(kept["round"]["options"])
    deal = options.pop("deal")
    first = {
        **kept,
        "format": 1,
        "rack": None,
        "recent": [],
        "turn_left": 30.0,
        "round": {
            "number": kept["round"]["number"],
            "deal": deal,
            "options": options,
            "log": [[seat, action] for seat, action, _, _ in kept["round"]["log"]],
        },
    }
    del first["racks"]
    again = PracticeRoom.from_dict(json.loads(json.dumps(first)), now + 60)
    (a,) = room.message({"type": "hello"}, now)
    (b,) = checked(again.message({"type": "hello"}, now + 60))
    for key in ("version", "view", "seats", "scores"):
        assert a[key] == b[key], key
    frames, _ = run(again, now + 60)
    assert frames[-1]["event"]["do"] == "match_over"


def _play(room: PracticeRoom, rounds: int) -> tuple[list[RoundState], float]:
    """Play the player's turns (the fallback move) and the room's timers until ``rounds``
    rounds are over, or the match is: the finished rounds, and the time reached."""
    played: list[RoundState] = []
    now, seq = 0.0, 0
    while True:
        state = room.round
        if state is not None and state.over and (not played or played[-1] is not state):
            played.append(state)
        if len(played) == rounds or room.over:
            return played, now
        assert state is not None
        if not state.over and state.turn == PLAYER and not room.timed_out:
            seq += 1
            action = fallback_action(view_for(state, PLAYER))
            msg = {"type": "action", "seq": seq, "base_version": room.version, "action": action}
            room.message(msg, now)
        else:
            now = max(now, room.due() or now)
            room.tick(now)


def _is_the_round(record: dict[str, Any], state: RoundState, variant: str, players: int) -> None:
    """A kept round's record is the round as played: its deal, options and log."""
    assert (record["variant"], record["players"]) == (variant, players)
    assert record["deal"] == state.deal.to_dict()
    assert record["options"] == state.options.to_dict()
    assert [tuple(e) for e in record["log"]] == [(s, dict(a)) for s, a in state.log]


def test_finished_rounds_are_kept_for_the_coach_across_a_reload() -> None:
    """Every finished round of the match is kept with it (deal, options, log) and given
    to the coach as it was played, after a reload too; the round in play is not."""
    room = PracticeRoom(
        {
            "variant": "remi",
            "seats": 2,
            "bot_levels": ["easy"],
            "end": {"kind": "rounds", "rounds": 3},
        },
        "rev",
        0.0,
        bot_delay=0.05,
    )
    played, now = _play(room, 2)
    assert room.round is played[1] and room.round.over  # round 2 over, round 3 not dealt
    assert room.finished_round(3) is None

    again = PracticeRoom.from_dict(json.loads(json.dumps(room.to_dict(now))), now + 60)
    for number, state in ((1, played[0]), (2, played[1])):
        record = again.finished_round(number)
        assert record is not None
        assert record["number"] == number
        _is_the_round(record, state, "remi", 2)
    assert again.finished_round(None) == again.finished_round(2)

    # The bridge gives it to the coach as JSON; the coach replays it to its end.
    session = Session()
    session.resume(json.dumps(room.to_dict(now)), now + 60)
    text = session.finished_round(1)
    assert text is not None
    data = json.loads(text)
    finished_round(
        data["variant"],
        data["players"],
        Deal.from_dict(data["deal"]),
        RoundOptions.from_dict(data["options"]),
        data["log"],
    )
    assert session.finished_round(0) == json.dumps(again.finished_round(2))
    assert session.finished_round(7) is None

    # The next deal: round 3 in play is never given, rounds 1 and 2 still are.
    for _ in range(100):
        if again.round is not None and not again.round.over:
            break
        now = max(now + 60, again.due() or now)
        again.tick(now)
    assert again.round is not None and not again.round.over
    assert again.finished_round(3) is None
    assert again.finished_round(None) == again.finished_round(2)
    assert [r["number"] for r in again.to_dict(now)["finished"]] == [1, 2]


def test_a_finished_match_gives_the_history_its_rounds() -> None:
    """Once the match is over, its summary (what the local history keeps) has every
    finished round as the coach reads it, the last one included: a round of a finished
    match is reviewed from the history, with no kept game left."""
    room = PracticeRoom(
        {
            "variant": "remi45",
            "seats": 3,
            "bot_levels": ["easy", "normal"],
            "end": {"kind": "rounds", "rounds": 2},
        },
        "hist",
        0.0,
        bot_delay=0.05,
    )
    played, _ = _play(room, 3)
    assert room.over
    assert len(played) == 2

    session = Session()
    session.room = room
    rounds = json.loads(session.summary())["rounds"]
    assert [r["number"] for r in rounds] == [1, 2]
    for record, state in zip(rounds, played, strict=True):
        _is_the_round(record, state, "remi45", 3)
        replayed = finished_round(
            record["variant"],
            record["players"],
            Deal.from_dict(record["deal"]),
            RoundOptions.from_dict(record["options"]),
            record["log"],
        )
        assert replayed.over
    assert rounds[-1] == room.finished_round(None)
