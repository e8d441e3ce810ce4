"""What the browser's worker calls (web/src/practice/worker.ts): JSON text in and out.

The worker holds one :class:`Session` (a Pyodide proxy); every call passes ``now``
(unix seconds) so that nothing here reads a clock. Frames come back as a JSON list,
the state to keep as a JSON object, the variant catalogue as the server's
``GET /api/variants`` body, a finished round as the coach reads it.

>>> s = Session()
>>> frames = json.loads(s.start(json.dumps({"variant": "remi", "seats": 2}), "x", 0.0, "Ana", 0.1))
>>> frames
[]
>>> [f["type"] for f in json.loads(s.message('{"type": "hello"}', 0.0))]
['snapshot']
>>> json.loads(s.catalogue())["variants"][0]["id"]
'remi'
"""

from __future__ import annotations

import json

from server.practice.room import PracticeRoom
from server.rules.catalogue import catalogue


class Session:
    """The worker's practice room, if any."""

    def __init__(self) -> None:
        self.room: PracticeRoom | None = None

    def start(
        self, settings: str, seed: str, now: float, name: str | None, bot_delay: float
    ) -> str:
        """A new match (raises :class:`~server.practice.settings.SettingsError`)."""
        self.room = PracticeRoom(json.loads(settings), seed, now, name=name, bot_delay=bot_delay)
        return "[]"

    def resume(self, state: str, now: float, bot_delay: float | None = None) -> None:
        """The match kept by :meth:`state`."""
        self.room = PracticeRoom.from_dict(json.loads(state), now)
        if bot_delay is not None:
            self.room.bot_delay = bot_delay

    def _room(self) -> PracticeRoom:
        if self.room is None:
            raise RuntimeError("no practice match")
        return self.room

    def message(self, msg: str, now: float) -> str:
        return json.dumps(self._room().message(json.loads(msg), now))

    def tick(self, now: float) -> str:
        return json.dumps(self._room().tick(now))

    def due(self) -> float | None:
        return self._room().due()

    def over(self) -> bool:
        return self._room().over

    def state(self, now: float) -> str:
        return json.dumps(self._room().to_dict(now))

    def summary(self) -> str:
        return json.dumps(self._room().summary())

    def finished_round(self, number: int) -> str | None:
        """Finished round ``number`` of the match (0: the last one) as the coach reads it
        (:meth:`PracticeRoom.finished_round`), or None when there is no such round."""
        record = self._room().finished_round(number or None)
        return None if record is None else json.dumps(record)

    def catalogue(self) -> str:
        return json.dumps({"variants": catalogue()})
