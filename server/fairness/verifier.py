"""``python -m server.cli verify``: check a finished round's deal against its seed
(docs/fairness.md), from its published record.

The record comes from a file saved from ``GET /api/rooms/{id}/rounds/{n}/verify`` (``-``:
standard input), from that URL itself, or, for an operator, from the server's own database
(``--room ID --round N``, the ``REMI_*`` settings). The checks are the rules engine's
(:mod:`server.rules.fairness`), computed here again: the record's own ``checks`` (the
server's word) are not read. ``--commitment`` adds the commitment your seat was given at
the deal. One line per check, then a verdict; the exit status is 0 when every check passes,
1 when one fails, 2 when the record cannot be read.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any, TextIO

from server.fairness.rounds import published_round
from server.rules.fairness import Check, parse_record, verify
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog

MAX_RECORD_BYTES = 8_000_000
"""A round's record is tens of kilobytes; anything far larger is not one."""


class RecordError(Exception):
    """The record could not be had or read (exit status 2)."""


def load_record(source: str, timeout: float = 20.0) -> Any:
    """The JSON record from a file, ``-`` (standard input) or an http(s) URL."""
    try:
        if source.startswith(("http://", "https://")):
            request = urllib.request.Request(source, headers={"Accept": "application/json"})
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read(MAX_RECORD_BYTES + 1)
        elif source == "-":
            raw = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            raw = Path(source).read_bytes()
    except OSError as exc:  # urllib's errors are OSErrors too
        raise RecordError(f"cannot read {source}: {exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"{source} is larger than a round's record")
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise RecordError(f"{source} is not JSON: {exc}") from None


async def stored_record(settings: Settings, room_id: str, number: int) -> dict[str, Any]:
    """The published record of round ``number`` of ``room_id``, read from the database."""
    db = Database(settings)
    try:
        log = GameLog(db)
        record = await log.round_log(room_id, number)
        if record is None:
            raise RecordError(f"room {room_id} has no round {number}")
        if not record.finished:
            raise RecordError(
                f"round {number} of room {room_id} is still being played: "
                "its seed is shown once it is over"
            )
        deal = record.options.get("deal")
        players = len(deal["hands"]) if deal else len((await log.load(room_id)).seats)
        return published_round(room_id, record, players)
    finally:
        await db.dispose()


def report(data: Any, out: TextIO, commitment: str | None = None) -> int:
    """Check ``data``, write one line per check and the verdict; the exit status."""
    try:
        record = parse_record(data)
    except ValueError as exc:
        out.write(f"cannot check this record: {exc}\n")
        return 2
    checks = verify(record)
    if commitment is not None:
        given = commitment.strip().lower()
        checks.insert(
            1,
            Check(
                "your commitment",
                given == (record.commitment or ""),
                "the commitment you were given matches the round's"
                if given == record.commitment
                else f"you were given {given}, the round's is {record.commitment}",
            ),
        )
    where = ""
    if isinstance(data, dict) and data.get("room_id"):
        where = f"room {data['room_id']}, round {data.get('round')}, "
    out.write(f"{where}{record.variant.id}, {record.players} seats, seed {record.seed}\n")
    for check in checks:
        out.write(f"{'OK  ' if check.ok else 'FAIL'} {check.name}: {check.detail}\n")
    failed = [c.name for c in checks if not c.ok]
    if failed:
        out.write(f"NOT VERIFIED: {', '.join(failed)} failed\n")
        return 1
    out.write(f"VERIFIED: all {len(checks)} checks pass\n")
    return 0


def run(
    source: str | None,
    room: str | None,
    number: int | None,
    commitment: str | None,
    settings: Settings,
    out: TextIO | None = None,
) -> int:
    """The command: a record from ``source`` or from the database (``room``, ``number``)."""
    out = out or sys.stdout
    try:
        if source is not None:
            data = load_record(source)
        elif room is not None and number is not None:
            data = asyncio.run(stored_record(settings, room, number))
        else:
            out.write("verify: give a record (FILE, - or URL) or --room ID --round N\n")
            return 2
    except RecordError as exc:
        out.write(f"{exc}\n")
        return 2
    return report(data, out, commitment)
