"""The Arena: tables played for a stake, the pot going to the best standings.

Seed 001: "În Arena, rezultatele rundelor contează numai pentru clasament; premiul se
acordă din mize." A room of kind ``arena`` settles no round into the balances
(:data:`server.economy.ledger.SETTLED_KINDS`); instead:

* :func:`arena_terms`: at its creation the table's ``stake`` must be one of
  ``REMI_ARENA_STAKES``; its payout table is fixed then (``REMI_ARENA_PAYOUT_3`` / ``_4``,
  the winner's for 2 seats) and a player needs the stake in their balance to sit down.
* :func:`take_stakes`: when the match starts, each seat's stake goes from its player's
  balance into the pot (a ledger row ``stake:<room>:<seat>`` each), in the transaction
  that starts the room; a balance that no longer covers it refuses the start.
* :func:`pay_pot`: when the match result is recorded, in the same transaction
  (:meth:`server.storage.gamelog.GameLog.record_match`), the pot goes to the seats by the
  match's standings (:func:`server.economy.payouts.split`: equal totals share): a ledger row
  ``pot:<room>:<seat>`` each. The match result is recorded once per room and each key
  once, so the pot is paid once. A player who left keeps the seat (a bot plays it) and
  the stake stays in the pot; a match every human abandoned is recorded with the
  standings at that moment, and paid by them.

The pot is what the stakes took (the ledger's ``stake:<room>:`` rows), so the parts paid
always add up to the stakes paid: the ledger's sums hold.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol, cast

from sqlalchemy import Connection, Table, func, select

from server.economy.ledger import change, pay, room_kind
from server.economy.payouts import split
from server.errors import Code, ServerError
from server.settings import Settings
from server.storage.models import LedgerEntry, Room, Seat

log = logging.getLogger(__name__)

_LEDGER = cast(Table, LedgerEntry.__table__)
_ROOMS = cast(Table, Room.__table__)
_SEATS = cast(Table, Seat.__table__)


class ArenaTable(Protocol):
    """What the Arena reads of a room's settings
    (:class:`server.rooms.lobby.options.RoomSettings`)."""

    @property
    def kind(self) -> str: ...
    @property
    def seats(self) -> int: ...
    @property
    def stake(self) -> int | None: ...
    @property
    def min_balance(self) -> int | None: ...


def stake_key(room_id: str, seat: int) -> str:
    """The ledger key of a seat's stake."""
    return f"stake:{room_id}:{seat}"


def pot_key(room_id: str, seat: int) -> str:
    """The ledger key of a seat's part of the pot."""
    return f"pot:{room_id}:{seat}"


def payout_table(settings: Settings, seats: int) -> list[int]:
    """The per cents of the pot by place for a table of ``seats`` seats.

    >>> s = Settings(arena_payout_3="100", arena_payout_4="70,30")
    >>> payout_table(s, 2), payout_table(s, 3), payout_table(s, 4)
    ([100], [100], [70, 30])
    """
    if seats >= 4:
        return list(settings.arena_payout_4)
    if seats == 3:
        return list(settings.arena_payout_3)
    return [100]


def arena_terms(room: ArenaTable, settings: Settings) -> dict[str, Any]:
    """What the server sets in a new room's settings: for an arena table, a stake of
    ``REMI_ARENA_STAKES`` (else ``invalid_request``), its payout table, and a minimum
    balance of at least the stake; nothing for other rooms."""
    if room.kind != "arena" or room.stake is None:
        return {}
    if room.stake not in settings.arena_stakes:
        offered = ", ".join(str(s) for s in settings.arena_stakes)
        raise ServerError(Code.INVALID_REQUEST, f"the stake must be one of {offered}")
    return {
        "payout": payout_table(settings, room.seats),
        "min_balance": max(room.min_balance or 0, room.stake),
    }


def take_stakes(
    conn: Connection, room_id: str, settings: ArenaTable, players: Sequence[tuple[int, str]]
) -> int:
    """Take each seated player's stake (``players``: (seat, player id)) into the pot, in the
    transaction that starts the room; ``insufficient_balance`` (and the caller's
    transaction rolled back, nothing taken) when a balance does not cover it. Returns the
    pot."""
    stake = settings.stake
    if settings.kind != "arena" or stake is None:
        return 0
    for seat, player_id in players:
        try:
            pay(
                conn,
                player_id,
                stake_key(room_id, seat),
                "arena_stake",
                stake,
                room_id=room_id,
                seat=seat,
            )
        except ServerError as exc:
            raise ServerError(
                Code.INSUFFICIENT_BALANCE,
                f"the player on seat {seat + 1} no longer has the stake ({stake}) in their "
                "balance: the match does not start",
            ) from exc
    pot = stake * len(players)
    log.info("arena_stakes_taken", extra={"room_id": room_id, "pot": pot})
    return pot


def pot_of(conn: Connection, room_id: str) -> int:
    """What the room's stakes put in its pot (from the ledger)."""
    taken = conn.execute(
        select(func.coalesce(func.sum(_LEDGER.c.amount), 0)).where(
            _LEDGER.c.room_id == room_id, _LEDGER.c.reason == "arena_stake"
        )
    ).scalar()
    return -int(taken or 0)


def pay_pot(conn: Connection, room_id: str, totals: Sequence[int]) -> list[int]:
    """Pay an arena table's pot by the match's standings ``totals`` (in the transaction
    that records the match result); each seat's part (all 0 for another kind of room).
    A part paid already is not paid again (its key)."""
    stored = conn.execute(select(_ROOMS.c.settings).where(_ROOMS.c.id == room_id)).scalar()
    if room_kind(stored) != "arena":
        return [0] * len(totals)
    pot = pot_of(conn, room_id)
    players = dict(
        conn.execute(
            select(_SEATS.c.seat, _SEATS.c.player_id).where(_SEATS.c.room_id == room_id)
        ).all()
    )
    eligible = [players.get(seat) is not None for seat in range(len(totals))]
    payout = (stored or {}).get("payout")  # set by arena_terms at the creation
    table = [int(p) for p in payout] if payout is not None else [100]
    parts = split(pot, table, totals, eligible)
    for seat, amount in enumerate(parts):
        player_id = players.get(seat)
        if amount and player_id is not None:
            change(
                conn,
                player_id,
                pot_key(room_id, seat),
                "arena_pot",
                amount=amount,
                room_id=room_id,
                seat=seat,
            )
    log.info("arena_pot_paid", extra={"room_id": room_id, "pot": pot, "parts": parts})
    return parts
