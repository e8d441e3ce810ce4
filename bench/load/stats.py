"""Latency samples, centiles and the report of a run (JSON and text)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999))


@dataclass
class Sample:
    """What one phase measured in one client process (seconds, counts)."""

    ack: list[float] = field(default_factory=list)  # action sent -> its ack
    ack_direct: list[float] = field(default_factory=list)  # the same, sockets on the owner
    ack_bridged: list[float] = field(default_factory=list)  # sockets bridged to the owner
    last: list[float] = field(default_factory=list)  # action sent -> event at the 4th seat
    moves: int = 0
    errors: dict[str, int] = field(default_factory=dict)  # error code (or "timeout") -> count
    elapsed: float = 0.0
    cpu: float = 0.0  # this client process's CPU seconds during the phase

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1

    def to_wire(self) -> dict[str, Any]:
        return {
            "ack": self.ack,
            "ack_direct": self.ack_direct,
            "ack_bridged": self.ack_bridged,
            "last": self.last,
            "moves": self.moves,
            "errors": self.errors,
            "elapsed": self.elapsed,
            "cpu": self.cpu,
        }

    @classmethod
    def merged(cls, parts: list[dict[str, Any]]) -> Sample:
        """The samples of every client process as one (the longest elapsed time)."""
        out = cls()
        for p in parts:
            out.ack += p["ack"]
            out.ack_direct += p.get("ack_direct", [])
            out.ack_bridged += p.get("ack_bridged", [])
            out.last += p["last"]
            out.moves += p["moves"]
            for code, n in p["errors"].items():
                out.errors[code] = out.errors.get(code, 0) + n
            out.elapsed = max(out.elapsed, p["elapsed"])
            out.cpu += p["cpu"]
        return out


def centiles(values: list[float]) -> dict[str, float | None]:
    """p50 / p90 / p99 / p99.9 / max of durations in seconds, as milliseconds.

    >>> centiles([i / 1000 for i in range(1, 1001)])
    {'p50': 501.0, 'p90': 901.0, 'p99': 991.0, 'p99.9': 1000.0, 'max': 1000.0}
    >>> centiles([])["p99"] is None
    True
    """
    out: dict[str, float | None] = {}
    ordered = sorted(values)
    n = len(ordered)
    for name, q in CENTILES:
        out[name] = round(ordered[min(n - 1, int(q * n))] * 1000, 2) if n else None
    out["max"] = round(ordered[-1] * 1000, 2) if n else None
    return out


def phase_figures(sample: Sample, server_cpu: float) -> dict[str, Any]:
    """A phase's figures; ``server_cpu``: the server process's CPU seconds meanwhile."""
    elapsed = sample.elapsed or 1e-9
    moves = sample.moves
    bridged = {}
    if sample.ack_bridged:  # several nodes: the moves of sockets on the owner, and bridged
        bridged = {
            "ack_direct_ms": centiles(sample.ack_direct),
            "ack_bridged_ms": centiles(sample.ack_bridged),
        }
    return {
        **bridged,
        "duration_s": round(sample.elapsed, 1),
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "errors": sum(sample.errors.values()),
        "errors_by_code": sample.errors,
        "ack_ms": centiles(sample.ack),
        "last_seat_event_ms": centiles(sample.last),
        "server_cpu_s": round(server_cpu, 2),
        "server_cpu_pct": round(server_cpu / elapsed * 100, 1),
        "moves_per_server_cpu_s": round(moves / server_cpu, 1) if server_cpu > 0 else None,
        "server_cpu_us_per_move": round(server_cpu / moves * 1e6, 1) if moves else None,
        "clients_cpu_pct": round(sample.cpu / elapsed * 100, 1),
        "clients_cpu_us_per_move": round(sample.cpu / moves * 1e6, 1) if moves else None,
    }


def text_report(result: dict[str, Any]) -> str:
    """A short human-readable summary of ``python -m bench.load``'s JSON result."""
    lines: list[str] = []
    for store, run in result["stores"].items():
        lines.append(
            f"[{store}] {run['tables']} tables, {run['connections']} sockets, "
            f"{run['client_processes']} client process(es), {run.get('nodes', 1)} node(s), "
            f"entry {run.get('entry', 'clients')}"
        )
        setup = run["setup"]
        lines.append(
            "  set-up: "
            + ", ".join(
                f"{k} {v['wall_s']} s (server CPU {v['server_cpu_s']} s)" for k, v in setup.items()
            )
            + f"; {run.get('setup_server_cpu_ms_per_request')} ms of server CPU per HTTP request"
        )
        bridged = run.get("bridged_sockets")
        if bridged and run.get("nodes", 1) > 1:
            lines.append(
                f"  route {run.get('route', 'spread') if run.get('entry') != 'nginx' else 'nginx'}"
                f": {bridged['connected']} of "
                f"{run['connections']} sockets bridged to another node once connected, "
                f"{bridged.get('after_paced', '?')} after the paced phase"
            )
        lines.append(
            f"  memory: {run['rss_per_idle_connection_kb']} KB per idle connection, "
            f"{run['rss_per_playing_room_kb']} KB per playing room"
        )
        for name in ("paced", "saturated"):
            phase = run.get(name)
            if not phase:
                continue
            ack, last = phase["ack_ms"], phase["last_seat_event_ms"]
            lines.append(
                f"  {name}: {phase['moves']} moves in {phase['duration_s']} s "
                f"({phase['moves_per_s']}/s), {phase['errors']} errors; "
                f"{phase['moves_per_server_cpu_s']} moves per server CPU second "
                f"({phase['server_cpu_us_per_move']} µs each)"
            )
            lines.append("    ack ms  " + " ".join(f"{k} {v}" for k, v in ack.items()))
            for key, label in (("ack_direct_ms", "direct"), ("ack_bridged_ms", "bridged")):
                if key in phase:
                    lines.append(
                        f"      {label} " + " ".join(f"{k} {v}" for k, v in phase[key].items())
                    )
            lines.append("    last ms " + " ".join(f"{k} {v}" for k, v in last.items()))
            gc_full = phase.get("gc_full_collections")
            if gc_full:
                lines.append(
                    f"    full GC collections {gc_full['count']}, paused "
                    f"{gc_full['pause_s']} s in all (longest since start "
                    f"{gc_full['longest_since_start_s']} s)"
                )
            promoted = phase.get("promoted_per_move")
            if promoted:
                lines.append(f"    promoted to the oldest generation per move: {promoted['total']}")
                lines.extend(f"      {v:6.2f} {k}" for k, v in promoted.items() if k != "total")
        c = run["commits"]
        lines.append(
            f"  commits: {c['acked']} acked moves, {c['player_actions_in_database']} player "
            f"actions in the database after the server was killed, "
            f"{c['acked_not_in_database']} acked but missing"
        )
        missed = [name for name, met in run["targets_met"].items() if not met]
        lines.append("  targets: " + ("all met" if not missed else "missed: " + ", ".join(missed)))
    return "\n".join(lines)
