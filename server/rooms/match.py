"""The match as a server room plays it, from the room's settings: its end condition,
and what a restarted server reads back (the round in play, the time its turn has
left). The match itself is the room core's (:mod:`server.rooms.core.room`).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from server.rooms.core.room import joker_availability
from server.rooms.lobby.options import RoomSettings
from server.rules import Deal, EndCondition, RoundOptions, RoundState, get_variant, replay
from server.rules.state import deal_tiles
from server.storage.gamelog import RoundRecord, TurnClock

log = logging.getLogger(__name__)

__all__ = ["end_condition", "joker_availability", "restored_round", "restored_turn_left"]


def end_condition(settings: RoomSettings) -> EndCondition:
    """The engine's end condition for the room settings (RULES.md A.17)."""
    end = settings.end
    if end.kind == "rounds":
        return EndCondition("rounds", end.rounds)
    if end.kind == "target":
        return EndCondition("target", end.points)
    return EndCondition()


def restored_turn_left(
    current: RoundRecord,
    last_alive: datetime | None,
    turn_seconds: float,
    room_id: str = "",
    clock: TurnClock | None = None,
) -> float:
    """Seconds left of the restored turn: the time it had when the server was last seen
    alive, whatever the number of restarts within the turn (the downtime is not charged).

    What the turn had left is known at its start (the round's, or the discard that
    ended the turn before: all of it) and at the last heartbeat (``rooms.last_alive``,
    written every ``heartbeat_seconds`` and at shutdown, with ``clock``: the time left
    then and when that clock was started; a heartbeat of an earlier turn, or one read
    while the turn's first move was being committed, is older than the turn and is not
    used). From the later of the two, the time until the server was last seen alive
    (that point or a later logged action) is used up; the downtime after it is not.
    At least a few seconds, so that a returning player can still act.
    """
    turn_start = current.created_at
    for a in current.actions:
        if a.action.get("do") == "discard":
            turn_start = a.created_at
    mark, had = turn_start, turn_seconds
    if (
        clock is not None
        and last_alive is not None
        and clock.since >= turn_start
        and last_alive >= turn_start
    ):
        mark, had = last_alive, min(clock.left, turn_seconds)
    seen = current.actions[-1].created_at if current.actions else current.created_at
    if last_alive is not None and last_alive > seen:
        seen = last_alive
    used = max(0.0, (seen - mark).total_seconds())
    downtime = max(0.0, (datetime.now(UTC) - seen).total_seconds())
    left = max(had - used, min(turn_seconds, 5.0))
    log.info(
        "turn_deadline_restored",
        extra={"room_id": room_id, "downtime_s": round(downtime, 3), "left_s": round(left, 3)},
    )
    return left


def restored_round(current: RoundRecord, players: int) -> RoundState:
    """The round being played, rebuilt from its stored deal (or seed) and action log."""
    options = RoundOptions.from_dict(current.options)
    deal_data = current.options.get("deal") if isinstance(current.options, dict) else None
    if deal_data:
        deal = Deal.from_dict(deal_data)
    else:
        variant = get_variant(current.variant)
        deal = deal_tiles(variant, players, current.seed, current.first_seat, options)
    actions = [(a.seat, a.action) for a in current.actions]
    return replay(current.variant, players, deal, options, actions)
