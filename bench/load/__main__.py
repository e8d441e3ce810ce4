"""The load benchmark's command line: ``python -m bench.load [--store sqlite|postgres|both]``.

Prints a summary, or with ``--json`` the whole result as JSON (docs/benchmarks.md
says which figures it records).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import resource
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .run import run_store
from .server import POSTGRES_URL
from .stats import text_report


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.load", description="Load benchmark of the room server."
    )
    p.add_argument("--store", choices=("sqlite", "postgres", "both"), default="sqlite")
    p.add_argument("--tables", type=int, default=2000, help="tables of 4 sockets (2000)")
    p.add_argument("--interval", type=float, default=4.0, help="s between a table's moves (4)")
    p.add_argument("--warmup", type=float, default=20.0, help="s of paced play not measured (20)")
    p.add_argument("--duration", type=float, default=60.0, help="s of measured paced play (60)")
    p.add_argument("--saturate", type=float, default=20.0, help="s of saturated play; 0 skips")
    p.add_argument("--clients", type=int, default=2, help="client processes sharing the tables (2)")
    p.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="server processes (1); more share the PostgreSQL store and a Redis of their own, "
        "each table's room on one node and its sockets spread over them",
    )
    p.add_argument(
        "--entry",
        choices=("clients", "nginx"),
        default="clients",
        help="how the clients reach the nodes: each table to its own node (clients), or "
        "all through one nginx with deploy/nginx.conf, which routes each room by its id (nginx)",
    )
    p.add_argument(
        "--route",
        choices=("spread", "owner"),
        default="spread",
        help="with several nodes and --entry clients, where each socket goes: spread over the "
        "nodes, so that with two half are bridged to their room's node (spread), or to the "
        "node that plays its room (owner)",
    )
    p.add_argument(
        "--postgres-url",
        default=POSTGRES_URL,
        help=f"PostgreSQL database (a fresh schema is made and dropped): {POSTGRES_URL}",
    )
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.add_argument(
        "--profile",
        metavar="PATH",
        help="run the server under cProfile, its stats written to PATH.<store> "
        "(slower: the figures are then not the product's)",
    )
    p.add_argument(
        "--promotions",
        action="store_true",
        help="count, per move, the objects the server's collector promotes to its oldest "
        "generation, by kind (bench/load/gcwatch; slower: the figures are then not the "
        "product's)",
    )
    return p


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu": model or platform.processor(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def raise_file_limit(sockets: int) -> None:
    """Let this process, its client processes and the server (which inherit it) open
    a socket per connection and then some, as far as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = sockets + 1024
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    raise_file_limit(4 * opts.tables)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    stores = ["sqlite", "postgres"] if opts.store == "both" else [opts.store]
    result: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "options": {k: v for k, v in vars(opts).items() if k != "json"},
        "stores": {},
    }
    for store in stores:
        result["stores"][store] = run_store(store, opts)
    text = json.dumps(result, indent=2) if opts.json else text_report(result)
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
