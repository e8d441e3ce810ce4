"""Skill ratings per variant: openskill's Plackett–Luce model.

A finished match of a rated kind (:data:`RATED_KINDS`: normal, quick start, Arena,
tournament; never practice) is a free-for-all of its 2 to 4 seats, ranked by their
totals (the highest first, as the match's winners; equal totals share a rank). It is
rated when at least one seat has a player and at least one round was played.

* A seat with a player (also when a bot played it for a while the player was away: the
  seat is the player's, as for the balance) is rated: its rating of the match's variant
  (openskill's default, mu 25 and sigma 25/3, the first time) goes into the model and
  the model's answer is stored. A player who made moves of their own in fewer than half
  the match's rounds (a stand-in bot played the rest) is not rated for it: the seat
  still ranks, with its rating, for the others, but nothing of theirs is stored.
* A seat filled by a bot at the start takes part in the ranking with a fixed rating of
  its level (:data:`BOT_RATINGS`), never stored nor changed: beating a bot counts, a
  hard bot more than an easy one, and a match of one player against bots is rated.

:func:`rate_match` runs inside the transaction that stores the match's result
(:meth:`server.storage.gamelog.GameLog.record_match`, whose ``match_results`` primary key
makes it once per room), and each change it makes has a row in ``rating_changes``,
unique per room and player: a retried or concurrent finish rates nothing more, and a
crash before that commit loses the result and the rating together (the restarted room
ends the match again, and rates it then). The players' ratings are locked for the
update (:mod:`server.storage.locks`), so two matches of one player ending at once
both count.

``rating`` = mu − 3·sigma (openskill's ordinal: 0 for a new player, rising as the
model grows sure that the player is good) is what the leaderboards sort by.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from openskill.models import PlackettLuce
from sqlalchemy import Connection, Table, insert, select, update

from server.economy.ledger import room_kind, seats_that_moved
from server.storage.locks import lock
from server.storage.models import Rating, RatingChange, Room, Seat, utcnow

log = logging.getLogger(__name__)

_RATINGS = cast(Table, Rating.__table__)
_CHANGES = cast(Table, RatingChange.__table__)
_ROOMS = cast(Table, Room.__table__)
_SEATS = cast(Table, Seat.__table__)

RATED_KINDS = frozenset({"normal", "quick", "arena", "tournament"})
"""Room kinds whose finished matches change the ratings (practice does not)."""

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
"""openskill's defaults: a player's rating before their first rated match."""

BOT_RATINGS: dict[str, tuple[float, float]] = {
    "easy": (20.0, DEFAULT_SIGMA),
    "normal": (25.0, DEFAULT_SIGMA),
    "hard": (30.0, DEFAULT_SIGMA),
}
"""The fixed (mu, sigma) a bot seat of each level plays at in the model (module doc)."""


def model() -> PlackettLuce:
    """The rating model: openskill's Plackett–Luce with its default parameters."""
    return PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown and sorted by: mu − 3·sigma.

    >>> ordinal(25.0, 25.0 / 3.0)
    0.0
    """
    return mu - 3.0 * sigma


def ranks(totals: Sequence[int]) -> list[int]:
    """Each seat's rank by total, 1 for the highest; equal totals share a rank.

    >>> ranks([10, 30, 10, -5])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for u in totals if u > t) for t in totals]


@dataclass(frozen=True, slots=True)
class SeatRating:
    """One seat in the model: its player (None for a bot) and its rating going in."""

    player_id: str | None
    mu: float
    sigma: float


def rate(seats: Sequence[SeatRating], totals: Sequence[int]) -> list[tuple[float, float]]:
    """Each seat's (mu, sigma) after the match: openskill's answer for these ratings
    and the ranks of ``totals`` (ties shared)."""
    m = model()
    teams = [[m.rating(mu=s.mu, sigma=s.sigma)] for s in seats]
    out = m.rate(teams, ranks=[float(r) for r in ranks(totals)])
    return [(team[0].mu, team[0].sigma) for team in out]


def rating_lock(player_id: str, variant: str) -> str:
    """The lock name of a player's rating in a variant."""
    return f"rating:{player_id}:{variant}"


def rate_match(conn: Connection, room_id: str, totals: Sequence[int], rounds_played: int) -> int:
    """Rate a finished match, in the transaction that stores its result (module doc).
    Returns how many players' ratings changed (0: not rated, or rated already)."""
    settings: dict[str, Any] = (
        conn.execute(select(_ROOMS.c.settings).where(_ROOMS.c.id == room_id)).scalar() or {}
    )
    if room_kind(settings) not in RATED_KINDS or rounds_played < 1:
        return 0
    variant = str(settings.get("variant", ""))
    rows = conn.execute(
        select(_SEATS.c.seat, _SEATS.c.player_id, _SEATS.c.bot_level)
        .where(_SEATS.c.room_id == room_id)
        .order_by(_SEATS.c.seat)
    ).all()
    if not 2 <= len(rows) <= 4 or len(rows) != len(totals):
        return 0
    humans = [r.player_id for r in rows if r.player_id is not None]
    if not humans:
        return 0  # a bot-only match
    lock(conn, (rating_lock(p, variant) for p in humans))
    done = conn.execute(select(_CHANGES.c.id).where(_CHANGES.c.room_id == room_id)).first()
    if done is not None:
        return 0
    stored = {
        r.player_id: r
        for r in conn.execute(
            select(_RATINGS).where(_RATINGS.c.variant == variant, _RATINGS.c.player_id.in_(humans))
        )
    }
    seats = []
    for r in rows:
        if r.player_id is None:
            mu, sigma = BOT_RATINGS.get(r.bot_level or "normal", BOT_RATINGS["normal"])
        elif r.player_id in stored:
            mu, sigma = stored[r.player_id].mu, stored[r.player_id].sigma
        else:
            mu, sigma = DEFAULT_MU, DEFAULT_SIGMA
        seats.append(SeatRating(r.player_id, mu, sigma))
    after = rate(seats, totals)
    places = ranks(totals)
    now = utcnow()
    moved = seats_that_moved(conn, room_id)
    for r, before, (mu, sigma), place in zip(rows, seats, after, places, strict=True):
        if r.player_id is None or 2 * moved.get(r.seat, 0) < rounds_played:
            continue  # a bot's seat, or a player who did not play most of the rounds
        values = {"mu": mu, "sigma": sigma, "rating": ordinal(mu, sigma), "updated_at": now}
        if r.player_id in stored:
            conn.execute(
                update(_RATINGS)
                .where(_RATINGS.c.player_id == r.player_id, _RATINGS.c.variant == variant)
                .values(matches=_RATINGS.c.matches + 1, **values)
            )
        else:
            conn.execute(
                insert(_RATINGS).values(player_id=r.player_id, variant=variant, matches=1, **values)
            )
        conn.execute(
            insert(_CHANGES).values(
                room_id=room_id,
                player_id=r.player_id,
                variant=variant,
                seat=r.seat,
                rank=place,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu=mu,
                sigma=sigma,
                rating=ordinal(mu, sigma),
                created_at=now,
            )
        )
    log.info("match_rated", extra={"room_id": room_id, "players": len(humans)})
    return len(humans)
