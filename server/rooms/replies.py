"""The answers a room gave to each player's ``action`` and ``rack`` messages, for resends.

A client that lost an answer resends the message with the same ``seq``: it gets the
very answer it missed, and the message is never applied twice. The same ``seq`` on
another message is ``seq_reused``.

* Every move in the room's log (any round of the match, before or after any number
  of restarts) is answered from the log: its row holds the action, the player's
  ``seq`` and the room version after the move, so a resend gets the original
  ``ack`` with the original version (:func:`answer_from_log`). In memory the room
  keeps only the seqs of each seat's logged moves (read at boot in one query), so a
  new seq costs no read; a resend of one whose answer is no longer in memory is read
  from the database (:func:`~server.rooms.store.logged_move`): this room's actor
  awaits it, other rooms go on.
* The last :data:`RESULT_CACHE` answers of each player are also kept in memory,
  refusals and rack acks included, which are not logged: a resend of one of those
  after that (or after a restart) is judged again as a new message
  (docs/protocol.md, docs/reliability.md).

A message is remembered as its JSON (the model's, so spacing and key order of the
client's frame do not matter) and an answer as its frame: text only, which the
garbage collector does not track, so a long-lived room's cache never adds to the
work of a full collection.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field

from pydantic import BaseModel

from server.errors import Code
from server.protocol import ActionMessage, action_dict
from server.rooms import frames
from server.rooms.store import LoggedMove, logged_move, logged_seqs
from server.rules import RuleError, parse_action
from server.rules.actions import action_to_dict
from server.storage.database import Database

log = logging.getLogger(__name__)

RESULT_CACHE = 64
"""Answers remembered in memory per player."""


_Answer = tuple[str, str]
"""The message's JSON and the answer's frame."""


@dataclass(slots=True)
class _PlayerReplies:
    answers: OrderedDict[int, _Answer] = field(default_factory=OrderedDict)
    last_seq: int | None = None


def reused(seq: int) -> str:
    """The answer to a used ``seq`` on another message."""
    return frames.error(
        seq, Code.SEQ_REUSED.value, f"seq {seq} was already used for another message"
    )


def answer_from_log(move: LoggedMove, message: BaseModel, seq: int, version: int) -> str | None:
    """The original ``ack`` of the logged ``move`` when ``message`` (with the move's
    ``seq``) is the same message: the same action, decided on the version before the
    move's. None: another message (``seq_reused``). A row logged before migration 0004
    has no version: acked with the room's current ``version``."""
    if not isinstance(message, ActionMessage):
        return None
    try:
        action = action_to_dict(parse_action(action_dict(message.action)))
    except RuleError:
        return None
    if action != move.action:
        return None
    if move.version is None:
        return frames.ack(seq, version)
    if message.base_version != move.version - 1:
        return None
    return frames.ack(seq, move.version)


class Replies:
    """One room's answers by player and ``seq``: see the module docstring."""

    def __init__(self, db: Database, room_id: str) -> None:
        self._db = db
        self._room_id = room_id
        self._players: dict[str, _PlayerReplies] = {}
        self._logged: dict[int, set[int]] = {}
        """Seat -> the client seqs of its moves in the room's log."""

    async def load(self) -> None:
        """Read the seqs of the moves in the room's log (when the room boots or deals)."""
        self._logged = await logged_seqs(self._db, self._room_id)

    def logged(self, seat: int, seq: int) -> None:
        """The seat's move with ``seq`` is committed to the log."""
        self._logged.setdefault(seat, set()).add(seq)

    async def resend(
        self, player_id: str, seat: int | None, seq: int, message: BaseModel, version: int
    ) -> str | None:
        """The answer to send again when ``seq`` was answered already (None: a new seq).

        ``seat``: the player's seat (its logged moves are looked up); ``version``: the
        room's now (for a move logged before its version was)."""
        mine = self._players.get(player_id)
        answer = mine.answers.get(seq) if mine is not None else None
        if answer is not None:
            held, reply = answer
            return reply if held == message.model_dump_json() else reused(seq)
        if seat is None or seq not in self._logged.get(seat, ()):
            return None
        try:
            move = await logged_move(self._db, self._room_id, seat, seq)
        except Exception:
            log.exception("resend_read_failed", extra={"room_id": self._room_id, "seq": seq})
            return frames.error(
                seq, Code.INTERNAL_ERROR.value, "the answer could not be read: resend later"
            )
        if move is None:  # pragma: no cover - the seqs are read from the same log
            return None
        ack = answer_from_log(move, message, seq, version)
        if ack is None:
            return reused(seq)
        self.put(player_id, seq, message, ack)
        return ack

    def put(self, player_id: str, seq: int, message: BaseModel, reply: str) -> None:
        """Remember the answer to ``message``."""
        mine = self._players.get(player_id)
        if mine is None:
            mine = self._players[player_id] = _PlayerReplies()
        mine.answers[seq] = (message.model_dump_json(), reply)
        while len(mine.answers) > RESULT_CACHE:
            mine.answers.popitem(last=False)
        if mine.last_seq is None or seq > mine.last_seq:
            mine.last_seq = seq

    def last_seq(self, player_id: str, seat: int | None) -> int | None:
        """The highest seq the player used (shown in a snapshot): answered in memory or,
        for the seat's moves, in the room's log."""
        mine = self._players.get(player_id)
        seqs = [mine.last_seq] if mine is not None and mine.last_seq is not None else []
        if seat is not None and self._logged.get(seat):
            seqs.append(max(self._logged[seat]))
        return max(seqs) if seqs else None
