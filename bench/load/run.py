"""One run of the load benchmark on one store: the server, the client processes and
the phases, in order.

1. the server alone, then with the tables' rooms created, then with every socket
   connected, then with every match started: its RSS each time (memory per idle
   connection, per playing room);
2. ``warmup`` seconds of paced play, not measured;
3. paced: one move per table every ``interval`` seconds for ``duration`` seconds;
4. saturated (unless ``saturate`` is 0): every table moves again as soon as its
   last move reached all four seats; moves per CPU second of the server process;
5. the clients close; the server's process group is killed (SIGKILL), and every
   acked move, in any phase, must be in its database.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from . import clients
from .entry import Entry
from .server import Nodes, Server, Store
from .stats import Sample, phase_figures

log = logging.getLogger("bench.load")

TARGETS = {
    "paced_ack_p99_ms": 50.0,
    "paced_last_seat_event_p99_ms": 50.0,
    "paced_server_cpu_us_per_move": 300.0,
    "saturated_moves_per_server_cpu_s": 4000.0,
    "rss_per_idle_connection_kb": 25.0,
    "setup_server_cpu_ms_per_request": 1.0,
}

SETUP_REQUESTS_PER_TABLE = 9  # four players, a room, three seats, the start


class ClientProcesses:
    """The client processes (:mod:`bench.load.clients`), commanded together."""

    def __init__(self, count: int, ports: list[int], route: str = "spread") -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.procs: list[BaseProcess] = []
        for i in range(count):
            mine, theirs = context.Pipe()
            proc = context.Process(
                target=clients.main,
                args=(theirs, "127.0.0.1", ports, f"c{i}t", route),
                daemon=True,
            )
            proc.start()
            self.pipes.append(mine)
            self.procs.append(proc)

    def each(self, commands: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        """Send each process its command, then wait for every answer."""
        for pipe, command in zip(self.pipes, commands, strict=True):
            pipe.send(command)
        answers = []
        for pipe, proc in zip(self.pipes, self.procs, strict=True):
            while not pipe.poll(1.0):
                if not proc.is_alive():
                    raise RuntimeError(f"client process {proc.pid} died")
            answer: dict[str, Any] = pipe.recv()
            if "failed" in answer:
                raise RuntimeError(f"client process {proc.pid}: {answer['failed']}")
            answers.append(answer)
        return answers

    def all(self, *command: Any) -> list[dict[str, Any]]:
        return self.each([command] * len(self.pipes))

    def stop(self) -> None:
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join(5)


def shares(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` near-equal whole shares.

    >>> shares(10, 3)
    [4, 3, 3]
    """
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def run_store(store_name: str, opts: argparse.Namespace) -> dict[str, Any]:
    """The whole benchmark on one store; its figures."""
    store = Store.fresh(store_name, opts.postgres_url)
    profile = f"{opts.profile}.{store_name}" if opts.profile else None
    nodes = getattr(opts, "nodes", 1)
    counting = getattr(opts, "promotions", False)
    server: Server | Nodes = (
        Nodes(store, nodes, profile, counting)
        if nodes > 1
        else Server(store, profile, promotions=counting)
    )
    procs: ClientProcesses | None = None
    entry: Entry | None = None
    out: dict[str, Any] = {
        "store": store_name,
        "server_log": str(server.log_path),
        "nodes": nodes,
        "entry": getattr(opts, "entry", "clients"),
        "route": getattr(opts, "route", "spread"),
    }
    if profile:
        out["server_profile"] = profile
    try:
        server.wait_ready()
        n_procs = max(1, min(opts.clients, opts.tables))
        ports = server.ports
        if out["entry"] == "nginx":
            entry = Entry(server.ports, store.data_dir)
            ports = entry.ports
        procs = ClientProcesses(n_procs, ports, out["route"])
        out |= {"tables": opts.tables, "connections": 4 * opts.tables}
        out["client_processes"] = n_procs
        rss = {"started": server.settled_rss_kb()}
        setup: dict[str, Any] = {}
        log.info("%s: setting up %d tables", store_name, opts.tables)
        setup["rooms"] = timed(
            server, procs.each, [("setup", n) for n in shares(opts.tables, n_procs)]
        )
        rss["rooms_created"] = server.settled_rss_kb()
        log.info("%s: connecting %d sockets", store_name, 4 * opts.tables)
        setup["connect"] = timed(server, procs.all, "connect")
        out["bridged_sockets"] = {"connected": server.bridged()}
        rss["clients_connected"] = server.settled_rss_kb()
        setup["start"] = timed(server, procs.all, "start")
        rss["matches_started"] = server.settled_rss_kb()
        out["setup"] = setup
        out["setup_server_cpu_ms_per_request"] = setup_cpu_ms_per_request(out)
        out["rss_kb"] = rss
        out["rss_per_idle_connection_kb"] = round(
            (rss["clients_connected"] - rss["rooms_created"]) / (4 * opts.tables), 1
        )
        out["rss_per_playing_room_kb"] = round(
            (rss["matches_started"] - rss["clients_connected"]) / opts.tables, 1
        )
        if opts.warmup > 0:
            log.info("%s: warm-up, %s s", store_name, opts.warmup)
            procs.all("paced", opts.warmup, opts.interval)
        log.info("%s: paced, %s s", store_name, opts.duration)
        out["paced"] = {
            "interval_s": opts.interval,
            "warmup_s": opts.warmup,
            **measure(server, procs, ("paced", opts.duration, opts.interval)),
        }
        out["bridged_sockets"]["after_paced"] = server.bridged()
        if opts.saturate > 0:
            log.info("%s: saturated, %s s", store_name, opts.saturate)
            out["saturated"] = measure(server, procs, ("saturated", opts.saturate))
        out["server_rss_kb_end"] = server.rss_kb()
        acks = [tuple(a) for answer in procs.all("finish") for a in answer["acks"]]
        server.kill()
        in_database = store.player_actions()
        missing = [a for a in acks if a not in in_database]
        out["commits"] = {
            "acked": len(acks),
            "player_actions_in_database": len(in_database),
            "acked_not_in_database": len(missing),
        }
        out["targets_met"] = targets(out)
        return out
    finally:
        if procs is not None:
            procs.stop()
        if entry is not None:
            entry.stop()
        server.kill()
        store.drop()


def timed(server: Server | Nodes, step: Any, *args: Any) -> dict[str, float]:
    """A set-up step's wall-clock time and the server's CPU time meanwhile."""
    t0, cpu0 = time.perf_counter(), server.cpu_s()
    step(*args)
    return {
        "wall_s": round(time.perf_counter() - t0, 1),
        "server_cpu_s": round(server.cpu_s() - cpu0, 1),
    }


def measure(
    server: Server | Nodes, procs: ClientProcesses, command: tuple[Any, ...]
) -> dict[str, Any]:
    """One measured phase: the clients' samples merged, the server's CPU meanwhile."""
    cpu0, (full0, paused0, _) = server.cpu_s(), server.gc_full()
    promoted0 = server.promotions()
    sample = Sample.merged(procs.all(*command))
    figures = phase_figures(sample, server.cpu_s() - cpu0)
    if promoted0:
        figures["promoted_per_move"] = per_move(promoted0, server.promotions(), sample.moves)
    full, paused, longest = server.gc_full()
    figures["gc_full_collections"] = {
        "count": full - full0,
        "pause_s": round(paused - paused0, 3),
        "longest_since_start_s": round(longest, 3),
    }
    return figures


def per_move(before: dict[str, int], after: dict[str, int], moves: int) -> dict[str, float]:
    """Objects promoted per move between two counts (``--promotions``): the total, then
    the 15 commonest kinds.

    >>> per_move({"list": 10}, {"list": 30, "Future": 10}, 10)
    {'total': 3.0, 'list': 2.0, 'Future': 1.0}
    """
    diff = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    top = sorted(diff.items(), key=lambda kv: -kv[1])[:15]
    out = {"total": round(sum(diff.values()) / max(1, moves), 2)}
    out |= {k: round(v / max(1, moves), 2) for k, v in top if v > 0}
    return out


def setup_cpu_ms_per_request(run: dict[str, Any]) -> float:
    """The server's CPU per HTTP request of the set-up (players, rooms, seats, starts).

    >>> setup_cpu_ms_per_request({"tables": 10, "setup": {
    ...     "rooms": {"server_cpu_s": 0.4}, "start": {"server_cpu_s": 0.05}}})
    5.0
    """
    setup = run["setup"]
    cpu = setup["rooms"]["server_cpu_s"] + setup["start"]["server_cpu_s"]
    return round(cpu / (SETUP_REQUESTS_PER_TABLE * run["tables"]) * 1000, 2)


def targets(run: dict[str, Any]) -> dict[str, bool]:
    """The targets for this run, met or not (``saturated_...`` only with that phase)."""
    paced = run["paced"]
    ack_p99, last_p99 = paced["ack_ms"]["p99"], paced["last_seat_event_ms"]["p99"]
    cpu = paced["server_cpu_us_per_move"]
    out = {
        "paced_ack_p99_le_50_ms": ack_p99 is not None and ack_p99 <= TARGETS["paced_ack_p99_ms"],
        "paced_last_seat_event_p99_le_50_ms": last_p99 is not None
        and last_p99 <= TARGETS["paced_last_seat_event_p99_ms"],
        "paced_server_cpu_le_300_us_per_move": cpu is not None
        and cpu <= TARGETS["paced_server_cpu_us_per_move"],
        "no_errors": paced["errors"] == 0 and run.get("saturated", {}).get("errors", 0) == 0,
        "every_acked_move_committed": run["commits"]["acked_not_in_database"] == 0,
        "rss_per_idle_connection_le_25_kb": run["rss_per_idle_connection_kb"]
        <= TARGETS["rss_per_idle_connection_kb"],
        "setup_server_cpu_le_1_ms_per_request": run["setup_server_cpu_ms_per_request"]
        <= TARGETS["setup_server_cpu_ms_per_request"],
    }
    if "saturated" in run:
        moves = run["saturated"]["moves_per_server_cpu_s"]
        out["saturated_ge_4000_moves_per_server_cpu_s"] = (
            moves is not None and moves >= TARGETS["saturated_moves_per_server_cpu_s"]
        )
    return out
