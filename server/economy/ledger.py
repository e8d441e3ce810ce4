"""The player's "cont": a balance of points and joker credits, each change a ledger row.

Every change of ``players.balance`` or ``players.joker_credits`` is made by
:func:`change`, which appends its ``ledger`` row in the same transaction, so a balance
always equals the sum of its ledger. Each row has a unique ``key`` naming the change
(docs/economy.md lists them): a change whose key is in the ledger already is not made
again, so a retried or concurrent settlement, grant or spend adds nothing.

* :func:`settle_round`: a finished round's scores into the balances of the seats'
  players, for the room kinds that settle (normal, quick start); called by the journal
  in the transaction that writes the round's scores (:mod:`server.rooms.journal`).
* :func:`spend_joker`: the 101 joker button's credit (B.9), in the transaction that logs
  the button's action; :class:`NoJokerCredit` when the account has none.
* :class:`Economy`: the accounts' reads and the requests (the starting balance, the daily
  grant, buying joker credits, the ledger's pages).

The functions that take a ``Connection`` are synchronous: they run inside the journal's
transactions (on its own thread for SQLite) and through ``run_sync`` elsewhere.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from server.errors import Code, ServerError
from server.settings import Settings
from server.storage.database import Database
from server.storage.models import Action, LedgerEntry, Player, Room, Round, Seat, utcnow

log = logging.getLogger(__name__)

_LEDGER = cast(Table, LedgerEntry.__table__)
_PLAYERS = cast(Table, Player.__table__)
_ROOMS = cast(Table, Room.__table__)
_SEATS = cast(Table, Seat.__table__)
_ROUNDS = cast(Table, Round.__table__)
_ACTIONS = cast(Table, Action.__table__)
OWN_MOVE = "player"
"""The ``source`` of an action its seat's player made (a bot's move is ``bot``, a move
made for a player whose time ran out ``timeout``)."""


def seats_that_moved(conn: Connection, room_id: str, number: int | None = None) -> dict[int, int]:
    """How many rounds of the room (or round ``number`` alone) each seat's player made
    at least one move of their own in: ``{seat: rounds}``, seats that made none left out."""
    query = (
        select(_ACTIONS.c.seat, func.count(func.distinct(_ACTIONS.c.round_id)))
        .select_from(_ACTIONS.join(_ROUNDS, _ROUNDS.c.id == _ACTIONS.c.round_id))
        .where(_ROUNDS.c.room_id == room_id, _ACTIONS.c.source == OWN_MOVE)
        .group_by(_ACTIONS.c.seat)
    )
    if number is not None:
        query = query.where(_ROUNDS.c.number == number)
    return {seat: rounds for seat, rounds in conn.execute(query).all()}


ROOM_KINDS = ("practice", "normal", "quick", "arena", "tournament")
SETTLED_KINDS = frozenset({"normal", "quick"})
"""Room kinds whose finished rounds are settled into the balances."""


class NoJokerCredit(Exception):
    """The account holds no joker credit: the button's action is not logged."""


def round_key(room_id: str, number: int, seat: int) -> str:
    """The key of a round's settlement of one seat."""
    return f"round:{room_id}:{number}:{seat}"


def joker_key(room_id: str, number: int, seat: int) -> str:
    """The key of the joker credit spent by a seat in a round (B.9: once per round)."""
    return f"joker:{room_id}:{number}:{seat}"


def has_key(conn: Connection, key: str) -> bool:
    """Whether the change named ``key`` is in the ledger."""
    return conn.execute(select(_LEDGER.c.id).where(_LEDGER.c.key == key)).first() is not None


def change(
    conn: Connection,
    player_id: str,
    key: str,
    reason: str,
    *,
    amount: int = 0,
    credits: int = 0,
    room_id: str | None = None,
    round_number: int | None = None,
    seat: int | None = None,
) -> bool:
    """Add ``amount`` to the player's balance and ``credits`` to its joker credits, with
    their ledger row, unless the change named ``key`` is made already (False then).

    The ledger row goes first: a concurrent change of the same key fails on the unique
    key (the caller's transaction rolls back) before any balance is touched."""
    if has_key(conn, key):
        return False
    conn.execute(
        insert(_LEDGER).values(
            player_id=player_id,
            key=key,
            reason=reason,
            amount=amount,
            credits=credits,
            room_id=room_id,
            round_number=round_number,
            seat=seat,
            created_at=utcnow(),
        )
    )
    conn.execute(
        update(_PLAYERS)
        .where(_PLAYERS.c.id == player_id)
        .values(
            balance=_PLAYERS.c.balance + amount,
            joker_credits=_PLAYERS.c.joker_credits + credits,
        )
    )
    return True


def room_kind(settings: dict[str, Any] | None) -> str:
    """A room's kind from its stored settings (rooms made before kinds were normal)."""
    kind = (settings or {}).get("kind", "normal")
    return kind if kind in ROOM_KINDS else "normal"


def settle_round(conn: Connection, room_id: str, number: int, scores: list[int]) -> int:
    """Settle a finished round's scores into the balances of its seats' players (a seat
    played by a bot for its away player settles for that player; a seat with no player
    settles nothing). Only for the kinds in :data:`SETTLED_KINDS`. An idle seat earns
    nothing: a seat whose player made no move of their own in the round (every move a
    bot's or a timeout's) settles its loss but not its gain (docs/economy.md). Returns
    the rows added (a seat settled already adds none)."""
    settings = conn.execute(select(_ROOMS.c.settings).where(_ROOMS.c.id == room_id)).scalar()
    if room_kind(settings) not in SETTLED_KINDS:
        return 0
    seats = conn.execute(
        select(_SEATS.c.seat, _SEATS.c.player_id).where(_SEATS.c.room_id == room_id)
    ).all()
    moved = seats_that_moved(conn, room_id, number)
    added = 0
    for seat, player_id in seats:
        if player_id is None or seat >= len(scores):
            continue
        amount = scores[seat] if seat in moved else min(scores[seat], 0)
        if change(
            conn,
            player_id,
            round_key(room_id, number, seat),
            "round",
            amount=amount,
            room_id=room_id,
            round_number=number,
            seat=seat,
        ):
            added += 1
    return added


def spend_joker(conn: Connection, player_id: str, room_id: str, number: int, seat: int) -> None:
    """Spend one of the player's joker credits for the seat's button in this round (once:
    a spend already made for it is the same spend); :class:`NoJokerCredit` without one."""
    key = joker_key(room_id, number, seat)
    if has_key(conn, key):
        return
    taken = conn.execute(
        update(_PLAYERS)
        .where(_PLAYERS.c.id == player_id, _PLAYERS.c.joker_credits >= 1)
        .values(joker_credits=_PLAYERS.c.joker_credits - 1)
    )
    if getattr(taken, "rowcount", 0) != 1:
        raise NoJokerCredit(player_id)
    conn.execute(
        insert(_LEDGER).values(
            player_id=player_id,
            key=key,
            reason="joker_spent",
            amount=0,
            credits=-1,
            room_id=room_id,
            round_number=number,
            seat=seat,
            created_at=utcnow(),
        )
    )


def pay(
    conn: Connection,
    player_id: str,
    key: str,
    reason: str,
    amount: int,
    *,
    room_id: str | None = None,
    seat: int | None = None,
) -> bool:
    """Take ``amount`` from the player's balance with its ledger row (an Arena stake, a
    tournament's entry fee: :mod:`server.economy.arena`, :mod:`server.tournaments`), unless the
    change named ``key`` is made already (False then); ``insufficient_balance`` when the
    balance does not cover it (the balance never goes below zero this way)."""
    if has_key(conn, key):
        return False
    paid = conn.execute(
        update(_PLAYERS)
        .where(_PLAYERS.c.id == player_id, _PLAYERS.c.balance >= amount)
        .values(balance=_PLAYERS.c.balance - amount)
    )
    if getattr(paid, "rowcount", 0) != 1:
        raise ServerError(
            Code.INSUFFICIENT_BALANCE, f"the balance does not cover {amount}: nothing changed"
        )
    conn.execute(
        insert(_LEDGER).values(
            player_id=player_id,
            key=key,
            reason=reason,
            amount=-amount,
            credits=0,
            room_id=room_id,
            seat=seat,
            created_at=utcnow(),
        )
    )
    return True


@dataclass(frozen=True, slots=True)
class Account:
    """A player's balance and joker credits."""

    balance: int
    joker_credits: int


@dataclass(frozen=True, slots=True)
class Entry:
    """A ledger row as its player sees it."""

    id: int
    reason: str
    amount: int
    credits: int
    room_id: str | None
    round_number: int | None
    seat: int | None
    created_at: datetime


def today() -> str:
    """The UTC day a daily grant belongs to."""
    return datetime.now(UTC).date().isoformat()


class Economy:
    """The accounts' balances and credits: reads, grants, purchases (module doc)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._settings = settings

    def starting_grant(self, conn: Connection, player_id: str) -> None:
        """A new player's starting balance and credits (in its creation's transaction)."""
        s = self._settings
        if s.starting_balance or s.starting_joker_credits:
            change(
                conn,
                player_id,
                f"start:{player_id}",
                "start",
                amount=s.starting_balance,
                credits=s.starting_joker_credits,
            )

    async def daily_grant(self, player_id: str, day: str | None = None) -> bool:
        """The day's grant (once per player and UTC day): True when given now."""
        s = self._settings
        if not (s.daily_grant or s.daily_joker_credits):
            return False
        key = f"grant:{player_id}:{day or today()}"

        def grant(conn: Connection) -> bool:
            return change(
                conn,
                player_id,
                key,
                "daily_grant",
                amount=s.daily_grant,
                credits=s.daily_joker_credits,
            )

        try:
            async with self._db.engine.begin() as conn:
                given = await conn.run_sync(grant)
        except IntegrityError:  # a concurrent request gave it
            return False
        if given:
            log.info("daily_grant", extra={"player_id": player_id})
        return given

    async def account(self, player_id: str) -> Account:
        """The player's balance and credits."""
        async with self._db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(_PLAYERS.c.balance, _PLAYERS.c.joker_credits).where(
                        _PLAYERS.c.id == player_id
                    )
                )
            ).first()
        if row is None:
            raise ServerError(Code.PLAYER_NOT_FOUND, "no such player")
        return Account(balance=row.balance, joker_credits=row.joker_credits)

    async def credits_of(self, player_ids: list[str]) -> dict[str, int]:
        """Joker credits of each player (what a new round's button may use)."""
        if not player_ids:
            return {}
        async with self._db.engine.connect() as conn:
            rows = await conn.execute(
                select(_PLAYERS.c.id, _PLAYERS.c.joker_credits).where(_PLAYERS.c.id.in_(player_ids))
            )
            return {r.id: r.joker_credits for r in rows}

    async def buy_jokers(self, player_id: str, count: int, request_id: str) -> Account:
        """Buy ``count`` joker credits at ``joker_credit_price`` each from the balance;
        ``insufficient_balance`` when it does not cover them. ``request_id`` names the
        purchase: the same id again buys nothing more."""
        price = self._settings.joker_credit_price * count

        def buy(conn: Connection) -> None:
            key = f"buy:{player_id}:{request_id}"
            if has_key(conn, key):
                return
            paid = conn.execute(
                update(_PLAYERS)
                .where(_PLAYERS.c.id == player_id, _PLAYERS.c.balance >= price)
                .values(balance=_PLAYERS.c.balance - price)
            )
            if getattr(paid, "rowcount", 0) != 1:
                raise ServerError(
                    Code.INSUFFICIENT_BALANCE,
                    f"{count} joker credit(s) cost {price}: the balance is too low",
                )
            conn.execute(
                update(_PLAYERS)
                .where(_PLAYERS.c.id == player_id)
                .values(joker_credits=_PLAYERS.c.joker_credits + count)
            )
            conn.execute(
                insert(_LEDGER).values(
                    player_id=player_id,
                    key=key,
                    reason="joker_bought",
                    amount=-price,
                    credits=count,
                    created_at=utcnow(),
                )
            )

        try:
            async with self._db.engine.begin() as conn:
                await conn.run_sync(buy)
        except IntegrityError:  # the same purchase, concurrently: made once
            pass
        log.info("jokers_bought", extra={"player_id": player_id, "count": count})
        return await self.account(player_id)

    async def ledger(
        self, player_id: str, before: int | None = None, limit: int = 50
    ) -> list[Entry]:
        """The player's ledger, newest first, ``limit`` rows with ids below ``before``."""
        query = select(_LEDGER).where(_LEDGER.c.player_id == player_id)
        if before is not None:
            query = query.where(_LEDGER.c.id < before)
        query = query.order_by(_LEDGER.c.id.desc()).limit(limit)
        async with self._db.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            Entry(
                id=r.id,
                reason=r.reason,
                amount=r.amount,
                credits=r.credits,
                room_id=r.room_id,
                round_number=r.round_number,
                seat=r.seat,
                created_at=r.created_at,
            )
            for r in rows
        ]

    async def sums(self, player_id: str) -> Account:
        """The sums of the player's ledger (what its account must equal)."""
        async with self._db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(
                        func.coalesce(func.sum(_LEDGER.c.amount), 0),
                        func.coalesce(func.sum(_LEDGER.c.credits), 0),
                    ).where(_LEDGER.c.player_id == player_id)
                )
            ).one()
        return Account(balance=int(row[0]), joker_credits=int(row[1]))

    async def balance_of(self, player_id: str) -> int:
        """The player's balance (a room's minimum balance to sit down)."""
        return (await self.account(player_id)).balance
