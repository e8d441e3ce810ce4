"""A room's rounds: dealing the next one, finishing one, ending the match.

Each writes to the database first, then changes the live room and shows the
change (``round_start``, ``round_over``, ``match_over``). These functions are the
room actor's own (:mod:`server.rooms.actor`): they run in its task, on its state.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import TYPE_CHECKING

from server.economy.settlement import MatchFinish, RoundFinish
from server.rooms.audience import Change
from server.rooms.match import joker_availability, round_options
from server.rules import new_round

if TYPE_CHECKING:
    from server.rooms.actor import RoomActor

log = logging.getLogger(__name__)


async def start(actor: RoomActor) -> None:
    """Deal the next round: its deal and options written (the joker button's credit read
    from each player's account), every rack layout cleared, the first turn's clock on."""
    match = actor.match
    assert match is not None
    number = len(match.history) + 1
    players = len(actor.seats)
    seed = actor.ctx.new_seed()
    first = (number - 1) % players
    credits = None
    if actor.settings.joker_button:
        ids = [slot.player_id for slot in actor.seats]
        accounts = await actor.ctx.services.economy.credits_of([i for i in ids if i])
        credits = joker_availability(ids, accounts)
    options = round_options(actor.settings, credits)
    state = new_round(actor.settings.variant, players, seed, first, options)
    stored = {**options.to_dict(), "deal": state.deal.to_dict()}
    actor.round_id = await actor.ctx.journal.begin_round(
        actor.room_id, number, actor.settings.variant, seed, first, stored, actor.fence
    )
    actor.round = state
    actor.round_number = number
    actor.round_seed = seed
    actor.timers.next_round_at = None
    for slot in actor.seats:
        slot.rack = None
        slot.rack_round = number
    now = actor.loop.time()
    actor.timers.start_turn(now, actor.turn_seconds)
    actor.timers.bot_at = now + actor.ctx.settings.bot_delay_seconds
    event = {"do": "round_start", "round": number, "first": first,
             "commitment": state.deal.commitment}
    actor.emit(Change(event))


async def finish(actor: RoomActor) -> None:
    """The round just played out: its scores written, ``round_over`` shown (with the
    deal's seed), then the pause before the next round, or the end of the match."""
    state, match = actor.round, actor.match
    assert state is not None and match is not None and actor.round_id is not None
    result = state.result
    assert result is not None
    scores = match.finish_round(state)
    await actor.ctx.journal.finish_round(
        RoundFinish(actor.round_id, asdict(result), scores), actor.fence
    )
    actor.timers.stop_turn()
    pause = actor.ctx.settings.round_pause_seconds
    over = {
        "do": "round_over",
        "round": actor.round_number,
        "result": asdict(result),
        "scores": list(scores),
        "totals": list(match.totals),
        "next_round_in": None if match.over else pause,
        # The deal can be checked now (docs/fairness.md): the seed of the commitment.
        "seed": actor.round_seed,
        "commitment": state.deal.commitment,
    }
    actor.emit(Change(over))
    if match.over:
        await end_match(actor, "end_condition")
    else:
        actor.timers.next_round_at = actor.loop.time() + pause
        actor.summary_read.clear()


async def end_match(actor: RoomActor, reason: str) -> None:
    """End the match (``end_condition``, or ``abandoned``: no human came back in time):
    its result written, the room finished, ``match_over`` shown, the lobby told."""
    match = actor.match
    assert match is not None
    winners = match.winners
    await actor.ctx.gamelog.record_match(
        MatchFinish(actor.room_id, match.totals, winners, len(match.history)), actor.fence
    )
    actor.status = "finished"
    match.over = True
    if actor.round is not None and not actor.round.over:
        actor.round = None  # an abandoned round is not revealed
    actor.timers.stop_turn()
    actor.timers.next_round_at = None
    actor.timers.empty_since = None
    end = {
        "do": "match_over",
        "reason": reason,
        "totals": list(match.totals),
        "winners": winners,
        "rounds": len(match.history),
    }
    actor.emit(Change(end))
    log.info("match_over", extra={"room_id": actor.room_id, "reason": reason})
    actor.ctx.match_over(actor.room_id)
