"""The transactions that finish a round, end a match and spend a joker credit, composed
here from storage's statements and the economy's, and handed to storage to run as one
unit of work each (:data:`server.storage.gamelog.Work`): storage imports no domain
module, and everything a finish changes commits together or not at all.

* :class:`RoundFinish`: the round's result and scores stored, then settled into the
  balances of its seats' players (:func:`~server.economy.ledger.settle_round`), in the
  journal's transaction; a round finished already is neither stored nor settled again.
* :class:`MatchFinish`: the match's result stored and the room finished, the match rated
  (:func:`~server.economy.ratings.rate_match`) and an Arena table's pot paid
  (:func:`~server.economy.arena.pay_pot`), by :meth:`GameLog.record_match
  <server.storage.gamelog.GameLog.record_match>`; the result's primary key makes it
  once per room.
* :class:`JokerSpend`: the 101 joker button's credit (B.9), run by the journal after the
  button's action is inserted, in that action's transaction.

Each is a small frozen value: the room's shell builds it from what the room decided and
passes it to the journal or the game log, which call it with the transaction's
connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from server.economy.arena import pay_pot
from server.economy.ledger import settle_round, spend_joker
from server.economy.ratings import rate_match
from server.storage.gamelog import store_match_result, store_round_finish


@dataclass(frozen=True, slots=True)
class RoundFinish:
    """A played-out round: its result and each seat's score, settled once."""

    round_id: int
    result: dict[str, Any]
    scores: Sequence[int]

    def __call__(self, conn: Connection) -> None:
        finished = store_round_finish(conn, self.round_id, self.result, self.scores)
        if finished is not None and self.scores:
            settle_round(conn, finished.room_id, finished.number, list(self.scores))


@dataclass(frozen=True, slots=True)
class MatchFinish:
    """A match's end: its standings stored, rated, and an Arena table's pot paid."""

    room_id: str
    totals: Sequence[int]
    winners: Sequence[int]
    rounds_played: int

    def __call__(self, conn: Connection) -> None:
        store_match_result(conn, self.room_id, self.totals, self.winners, self.rounds_played)
        rate_match(conn, self.room_id, self.totals, self.rounds_played)
        pay_pot(conn, self.room_id, self.totals)


@dataclass(frozen=True, slots=True)
class JokerSpend:
    """A seat's joker credit spent for the button in this round of the room
    (:class:`~server.economy.ledger.NoJokerCredit` without one: the action is then not
    logged either)."""

    player_id: str
    room_id: str
    number: int
    seat: int

    def __call__(self, conn: Connection) -> None:
        spend_joker(conn, self.player_id, self.room_id, self.number, self.seat)
