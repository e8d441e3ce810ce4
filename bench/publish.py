"""What a move costs the room core's audience (not a test): ``python -m bench.publish``.

Replays bot rounds of ``remi`` at four seats, off the network, through what the room
does for each move once the engine has applied it: the event recorded for replays, the
table (``seats``, ``scores``) of the new version, and the frames of every connection
(``Audience.publish``): one patch connection per seat and a spectator's, as the web
client connects. The moves are played first (not measured); the figure is the CPU time
(``time.process_time``, steadier than the wall clock on a shared machine) per move of
those steps, and the frames sent per move. ``--profile`` prints where it goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from typing import Any

from pydantic_core import to_json

from server.rooms.core.audience import Audience, Change, Shown, Table, next_table
from server.rooms.core.bots import make_seat_bot
from server.rooms.core.peers import Peer
from server.rules import new_round, view_for


class _Slot:
    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.player_id = f"p{seat}"
        self.name = f"P{seat}"
        self.bot_level = None
        self.away = False
        self.unresponsive = False


def rounds(count: int, players: int) -> list[list[tuple[int, Any]]]:
    """The (seat, action) of ``count`` bot rounds (seeds ``bench/0``…)."""
    out = []
    for r in range(count):
        state = new_round("remi", players, seed=f"bench/{r}")
        bots = [make_seat_bot("easy", f"bench{r}:{i}") for i in range(players)]
        moves = []
        while not state.over:
            seat = state.turn
            action = bots[seat].act(view_for(state, seat))
            moves.append((seat, action))
            state.apply(seat, action)
        out.append(moves)
    return out


def replay(played: list[list[tuple[int, Any]]], players: int) -> tuple[int, int, float]:
    """Moves, frames sent, CPU seconds of recording and publishing them."""
    slots = [_Slot(i) for i in range(players)]
    sent = [0]

    def send(peer: Peer, frame: str) -> None:
        sent[0] += 1

    moves, cpu = 0, 0.0
    for r, actions in enumerate(played):
        audience = Audience(512, send=send, encode=to_json)
        peers = [Peer(i + 1, f"p{i}", seat=i, ready=True) for i in range(players)]
        peers.append(Peer(players + 1, "watcher", seat=None, ready=True))
        for peer in peers:
            audience.hello(peer, True)
        state = new_round("remi", players, seed=f"bench/{r}")
        table: Table | None = None
        for version, (seat, action) in enumerate(actions, start=2):
            event = state.apply(seat, action)
            t0 = time.process_time()
            change = Change.of_move(event, "player")
            audience.record(version, change)
            totals = [0] * players
            table = next_table(table, slots, totals, "easy", [], False, [], 100.0, to_json)
            audience.publish(change, peers, Shown(version, state, r, table, 0.0, to_json))
            cpu += time.process_time() - t0
            moves += 1
    return moves, sent[0], cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.publish", description=__doc__)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--repeat", type=int, default=5, help="runs; the best is reported (5)")
    p.add_argument("--profile", action="store_true")
    opts = p.parse_args(argv)
    played = rounds(opts.rounds, 4)
    if opts.profile:
        profile = cProfile.Profile(time.process_time)
        profile.runcall(replay, played, 4)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return 0
    runs = [replay(played, 4) for _ in range(opts.repeat)]
    moves, frames, cpu = min(runs, key=lambda run: run[2])
    print(
        f"{moves} moves of {opts.rounds} rounds, 4 seats + a spectator, patches: "
        f"{cpu / moves * 1e6:.1f} µs CPU per move (best of {opts.repeat}), "
        f"{frames / moves:.2f} frames sent per move"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
