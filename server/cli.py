"""Command-line entry point.

``python -m server.cli serve [--host H] [--port P]``: apply the migrations, then run
uvicorn. ``python -m server.cli migrate [--revision R]``: apply the migrations only.
``python -m server.cli verify FILE|URL|- [--commitment HEX]`` or ``verify --room ID --round
N``: check a finished round's deal against its seed (docs/fairness.md, server/fairness/verifier.py).
Every other setting comes from the ``REMI_*`` environment (see docs/operations.md).
:func:`uvicorn_options` gives the uvicorn options of the app (serve, tests, benchmark).

The server, the web framework and the database are imported only by the commands that
use them: the bots' worker process (:mod:`server.rooms.botplay`, started by multiprocessing's
``spawn``) imports this module first, and must be running its parent's watch within a
moment of its start.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import sys
from typing import TYPE_CHECKING, Any

from server.logs import configure_logging
from server.settings import Settings

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

log = logging.getLogger("server.cli")


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for this app: uvloop, httptools, the sans-io ``websockets``
    protocol with the server's changes (server/wsprotocol.py), the message size limit, no
    compression.

    >>> opts = uvicorn_options(Settings(max_frame_bytes=4096))
    >>> opts["loop"], opts["http"], opts["ws"].__name__, opts["ws_max_size"]
    ('uvloop', 'httptools', 'RoomSocketProtocol', 4096)
    >>> opts["ws_per_message_deflate"]
    False
    """
    from server.wsprotocol import RoomSocketProtocol

    return {
        "loop": "uvloop",
        "http": "httptools",
        "ws": RoomSocketProtocol,
        "ws_max_size": settings.max_frame_bytes,
        "ws_per_message_deflate": False,
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="remi", description="Remi online server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="apply migrations, then run the HTTP/WebSocket server")
    serve.add_argument("--host", default=None, help="bind address (default REMI_HOST)")
    serve.add_argument("--port", type=int, default=None, help="port (default REMI_PORT)")
    mig = sub.add_parser("migrate", help="apply the database migrations and exit")
    mig.add_argument("--revision", default="head", help="target revision (default head)")
    ver = sub.add_parser(
        "verify",
        help="check a finished round's deal against its seed (docs/fairness.md)",
        description="Recompute a finished round's commitment and deal from its seed and "
        "replay its log; exit 0 when every check passes, 1 when one fails, 2 when the "
        "record cannot be read.",
    )
    ver.add_argument(
        "source",
        nargs="?",
        help="the round's record: a file saved from GET /api/rooms/ID/rounds/N/verify, "
        "'-' for standard input, or that URL",
    )
    ver.add_argument("--room", help="read the round from this server's database: the room id")
    ver.add_argument("--round", type=int, dest="number", help="with --room: the round, from 1")
    ver.add_argument("--commitment", help="the commitment your seat was given at the deal")
    return parser


def _handover_server(config: uvicorn.Config, app: FastAPI) -> uvicorn.Server:
    """uvicorn's server, whose shutdown (SIGTERM, SIGINT) first stops taking
    connections, then hands the rooms over (:meth:`server.rooms.live.LiveRooms.stop`:
    the leases released, the lobby streams ended, the sockets closed with 1012), and only
    then lets uvicorn close what is left: the clients reconnect to another node at once,
    which takes their rooms, instead of to this one while it still holds them."""
    import uvicorn

    class HandoverServer(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for server in self.servers:
                server.close()
            live = getattr(app.state, "live", None)
            if live is not None:
                try:
                    await live.stop()
                except Exception:
                    log.exception("handover_failed")
            await super().shutdown(sockets)

    return HandoverServer(config)


def serve(settings: Settings) -> None:
    """Migrate, then serve until interrupted (then hand the rooms over)."""
    from server.app import create_app
    from server.storage.migrate import migrate

    asyncio.run(migrate(settings))
    app = create_app(settings.model_copy(update={"migrate_on_startup": False}), process_wide=True)
    run_server(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        proxy_headers=True,
        **uvicorn_options(settings),
    )


def run_server(app: FastAPI, **options: Any) -> None:
    """Run uvicorn (``options``: its ``Config``'s) until a signal, then hand over."""
    import uvicorn

    _handover_server(uvicorn.Config(app, **options), app).run()


VALUE_OPTIONS = ("--room", "--commitment")
"""Options whose value may begin with ``-`` (a room id does, one in 64)."""


def _glue_values(argv: list[str]) -> list[str]:
    """``--room -x1`` as ``--room=-x1``: argparse would take ``-x1`` for an option.

    >>> _glue_values(["verify", "--room", "-AbC", "--round", "1"])
    ['verify', '--room=-AbC', '--round', '1']
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in VALUE_OPTIONS and i + 1 < len(argv):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Run a command; returns the process exit status."""
    args = _parser().parse_args(_glue_values(sys.argv[1:] if argv is None else argv))
    settings = Settings()
    configure_logging(settings)
    if args.command == "serve":
        update: dict[str, object] = {}
        if args.host is not None:
            update["host"] = args.host
        if args.port is not None:
            update["port"] = args.port
        serve(settings.model_copy(update=update))
        return 0
    if args.command == "verify":
        from server.fairness import verifier

        return verifier.run(args.source, args.room, args.number, args.commitment, settings)
    if args.command == "migrate":
        from server.storage.migrate import migrate

        revision = asyncio.run(migrate(settings, revision=args.revision))
        log.info("migrate_done", extra={"revision": revision})
        return 0
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    raise SystemExit(main())
