"""A stored round (:class:`~server.storage.gamelog.RoundRecord`) read back: the engine's
inputs (its deal, options and action log) for a replay or a scenario file, and its
published record for the fair-deal check (docs/fairness.md), which the verify endpoint
serves and ``python -m server.cli verify`` reads."""

from __future__ import annotations

from typing import Any

from server.rules import Deal, RoundOptions, get_variant
from server.rules.fairness import SCHEME, verify_record
from server.rules.state import deal_tiles
from server.storage.gamelog import RoundRecord


def stored_deal(record: RoundRecord, players: int, options: RoundOptions) -> Deal:
    """The deal as stored with the round (every round since the room actor exists), else
    dealt again from its seed."""
    stored = record.options.get("deal")
    if stored:
        return Deal.from_dict(stored)
    return deal_tiles(get_variant(record.variant), players, record.seed, record.first_seat, options)


def round_inputs(record: RoundRecord, players: int) -> tuple[Deal, RoundOptions, list[Any]]:
    """The round's deal, options and ``(seat, action)`` log."""
    options = RoundOptions.from_dict(record.options)
    deal = stored_deal(record, players, options)
    return deal, options, [(a.seat, a.action) for a in record.actions]


def published_round(room_id: str, record: RoundRecord, players: int) -> dict[str, Any]:
    """The finished round's published record (docs/fairness.md) with the server's own
    ``checks`` of it. Only for a finished round: it holds the seed."""
    if not record.finished:
        raise ValueError("a round's record is published once the round is over")
    deal, options, actions = round_inputs(record, players)
    data: dict[str, Any] = {
        "scheme": SCHEME if deal.commitment else None,
        "room_id": room_id,
        "round": record.number,
        "variant": record.variant,
        "players": players,
        "first": record.first_seat,
        "options": options.to_dict(),
        "commitment": deal.commitment,
        "seed": record.seed,
        "deal": {
            "first": deal.first,
            "hands": [list(h) for h in deal.hands],
            "atu": deal.atu,
            "stock": list(deal.stock),
        },
        "actions": [[seat, action] for seat, action in actions],
        "result": record.result,
    }
    data["checks"] = [c.to_dict() for c in verify_record(data)]
    return data
