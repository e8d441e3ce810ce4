"""The answers a room gave to each player's recent ``action`` and ``rack`` messages.

A client that lost an answer resends the message with the same ``seq``: it gets
the very answer it missed, and the message is never applied twice. The same
``seq`` on another message is ``seq_reused``. After a restart, the moves in the
round's log are answered as accepted (:meth:`Replies.restored`).

A message is remembered as its JSON (the model's, so spacing and key order of the
client's frame do not matter) and an answer as its frame: text only, which the
garbage collector does not track, so a long-lived room's cache never adds to the
work of a full collection.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from pydantic import BaseModel

from server.rooms import frames

RESULT_CACHE = 64
"""Answers remembered per player."""


_Answer = tuple[str | None, str]
"""The message's JSON (None: restored from the log, any message with that seq is the
same) and the answer's frame."""


@dataclass(slots=True)
class _PlayerReplies:
    answers: OrderedDict[int, _Answer] = field(default_factory=OrderedDict)
    last_seq: int | None = None


class Replies:
    """Every player's answers by ``seq`` (the last :data:`RESULT_CACHE` of each)."""

    def __init__(self) -> None:
        self._players: dict[str, _PlayerReplies] = {}

    def resend(self, player_id: str, seq: int, message: BaseModel) -> str | None:
        """The answer to send again when ``seq`` was answered already (None: a new seq)."""
        mine = self._players.get(player_id)
        answer = mine.answers.get(seq) if mine is not None else None
        if answer is None:
            return None
        held, reply = answer
        if held is None or held == message.model_dump_json():
            return reply
        return frames.error(seq, "seq_reused", f"seq {seq} was already used for another message")

    def put(self, player_id: str, seq: int, message: BaseModel | None, reply: str) -> None:
        """Remember the answer to ``message``."""
        mine = self._players.get(player_id)
        if mine is None:
            mine = self._players[player_id] = _PlayerReplies()
        held = message.model_dump_json() if message is not None else None
        mine.answers[seq] = (held, reply)
        while len(mine.answers) > RESULT_CACHE:
            mine.answers.popitem(last=False)
        if mine.last_seq is None or seq > mine.last_seq:
            mine.last_seq = seq

    def restored(self, player_id: str, seq: int, version: int) -> None:
        """A logged move of the player (after a restart): answered as accepted."""
        self.put(player_id, seq, None, frames.ack(seq, version))

    def last_seq(self, player_id: str) -> int | None:
        """The highest seq the player used (shown in a snapshot)."""
        mine = self._players.get(player_id)
        return mine.last_seq if mine is not None else None
