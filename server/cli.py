"""Command-line entry point: ``python -m server.cli serve``."""

from __future__ import annotations

import argparse

import uvicorn

from server.app import create_app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="remi")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP/WebSocket server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    if args.command == "serve":
        uvicorn.run(create_app(), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
