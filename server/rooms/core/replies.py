"""The answers a room gave to each player's ``action`` and ``rack`` messages, for resends.

A client that lost an answer resends the message with the same ``seq``: it gets the
very answer it missed, and the message is never applied twice. The same ``seq`` on
another message is ``seq_reused``.

* Every move in the room's log (any round of the match, before or after any number
  of restarts) is answered from the log: its record holds the action, the player's
  ``seq`` and the room version after the move, so a resend gets the original
  ``ack`` with the original version (:func:`answer_from_log`). In memory the room
  keeps only the seqs of each seat's logged moves (given on restore), so a new seq
  costs no read; a resend of one whose answer is no longer in memory asks the shell
  for the logged move (a :class:`~server.rooms.core.messages.FindLogged` effect).
* The last :data:`RESULT_CACHE` answers of each player are also kept in memory,
  refusals and rack acks included, which are not logged: a resend of one of those
  after that (or after a restart) is judged again as a new message
  (docs/protocol.md, docs/reliability.md).

A message is remembered as text (its fields' ``repr``) and an answer as its frame:
text only, which the garbage collector does not track, so a long-lived room's cache
never adds to the work of a full collection.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.errors import Code
from server.rooms.core import frames
from server.rooms.core.frames import Encode, dumps
from server.rooms.core.messages import READ_FAILED, Act, FindLogged, LoggedMove, SetRack
from server.rules.actions import action_to_dict

RESULT_CACHE = 64
"""Answers remembered in memory per player."""

_Answer = tuple[str, str]
"""The message's text and the answer's frame."""


@dataclass(slots=True)
class _PlayerReplies:
    answers: OrderedDict[int, _Answer] = field(default_factory=OrderedDict)
    last_seq: int | None = None


def message_key(message: Act | SetRack) -> str:
    """What two messages with one seq must share to be the same message."""
    if isinstance(message, Act):
        return repr(("action", message.seq, message.base_version, message.action))
    return repr(("rack", message.seq, message.layout))


def reused(seq: int, encode: Encode = dumps) -> str:
    """The answer to a used ``seq`` on another message."""
    return frames.error(
        seq, Code.SEQ_REUSED, f"seq {seq} was already used for another message", encode
    )


def answer_from_log(
    move: LoggedMove, message: Act | SetRack, version: int, encode: Encode = dumps
) -> str | None:
    """The original ``ack`` of the logged ``move`` when ``message`` (with the move's
    ``seq``) is the same message: the same action, decided on the version before the
    move's. None: another message (``seq_reused``). A move logged without its version
    is acked with the room's current ``version``."""
    if not isinstance(message, Act):
        return None
    if action_to_dict(message.action) != move.action:
        return None
    if move.version is None:
        return frames.ack(message.seq, version, encode)
    if message.base_version != move.version - 1:
        return None
    return frames.ack(message.seq, move.version, encode)


class Replies:
    """One room's answers by player and ``seq``: see the module docstring."""

    def __init__(self, encode: Encode = dumps) -> None:
        self._players: dict[str, _PlayerReplies] = {}
        self._logged: dict[int, set[int]] = {}
        """Seat -> the client seqs of its moves in the room's log."""
        self.encode = encode

    def load(self, logged: Mapping[int, frozenset[int]]) -> None:
        """The seqs of the moves in the room's log (when the room is taken up or starts)."""
        self._logged = {seat: set(seqs) for seat, seqs in logged.items()}

    def logged(self, seat: int, seq: int) -> None:
        """The seat's move with ``seq`` is committed to the log."""
        self._logged.setdefault(seat, set()).add(seq)

    def resend(
        self, player_id: str, seat: int | None, message: Act | SetRack, version: int
    ) -> Generator[FindLogged, Any, str | None]:
        """The answer to send again when ``message.seq`` was answered already (None: a
        new seq). ``version``: the room's now (for a move logged without its version)."""
        seq = message.seq
        mine = self._players.get(player_id)
        answer = mine.answers.get(seq) if mine is not None else None
        if answer is not None:
            held, reply = answer
            return reply if held == message_key(message) else reused(seq, self.encode)
        if seat is None or seq not in self._logged.get(seat, ()):
            return None
        move = yield FindLogged(seat, seq)
        if move == READ_FAILED:
            return frames.error(
                seq, Code.INTERNAL_ERROR, "the answer could not be read: resend later", self.encode
            )
        if not isinstance(move, LoggedMove):  # pragma: no cover - the seqs come from the log
            return None
        ack = answer_from_log(move, message, version, self.encode)
        if ack is None:
            return reused(seq, self.encode)
        self.put(player_id, message, ack)
        return ack

    def put(self, player_id: str, message: Act | SetRack, reply: str) -> None:
        """Remember the answer to ``message``."""
        mine = self._players.get(player_id)
        if mine is None:
            mine = self._players[player_id] = _PlayerReplies()
        seq = message.seq
        mine.answers[seq] = (message_key(message), reply)
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
