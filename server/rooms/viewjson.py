"""JSON of the seats' views of one room version, the public part encoded once.

Every connection gets its own seat's view, built by the engine's ``view_for`` (or
``spectator_view``): that never changes. What is shared is the encoding. Most of a
view is public (the table, the row, the seats' counts, ...) and the same for every
seat; only ``seat``, ``hand``, ``joker_credits`` and ``button_used`` are the seat's
own. The first view encoded at a version becomes a template: its JSON with those
four values cut out. Every view of the same version whose public values are equal
to the template's (checked, value by value) is the template with its own four
values encoded into the gaps; any other view is encoded in full. The result is
exactly ``json.dumps`` of that view either way.

>>> enc = ViewJSON()
>>> a = {"seat": 0, "hand": [1, 2], "row": [7], "joker_credits": 0, "button_used": False}
>>> b = {"seat": 1, "hand": [3], "row": [7], "joker_credits": 1, "button_used": False}
>>> enc.reset()
>>> enc.encode(a), enc.encode(b)
('{"seat":0,"hand":[1,2],"row":[7],"joker_credits":0,"button_used":false}', \
'{"seat":1,"hand":[3],"row":[7],"joker_credits":1,"button_used":false}')
>>> enc.encode({**b, "row": [8]}) == dumps({**b, "row": [8]})  # not the template's: in full
True
"""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact JSON (one shared encoder: no encoder built per call)."""
    return _ENCODER.encode(value)


SEAT_KEYS = ("seat", "hand", "joker_credits", "button_used")
"""The values of a view that are the seat's own; every other one is public."""

_MARKERS = {key: f"\x00{key}\x00" for key in SEAT_KEYS}


class ViewJSON:
    """Encodes the views of one version; :meth:`reset` when the version changes."""

    __slots__ = ("_keys", "_parts", "_ref")

    def __init__(self) -> None:
        self._ref: dict[str, Any] | None = None
        self._keys: list[str] = []
        self._parts: list[str] = []

    def reset(self) -> None:
        """Forget the template (a new version)."""
        self._ref = None

    def encode(self, view: dict[str, Any]) -> str:
        """``dumps(view)``, through the version's template when the public part matches."""
        ref = self._ref
        if ref is None:
            if not self._template(view):
                return dumps(view)
        elif not _same_public(view, ref):
            return dumps(view)
        parts = self._parts
        out = [parts[0]]
        for key, part in zip(self._keys, parts[1:], strict=True):
            out.append(dumps(view[key]))
            out.append(part)
        return "".join(out)

    def _template(self, view: dict[str, Any]) -> bool:
        if not all(key in view for key in SEAT_KEYS):
            return False
        text = dumps({**view, **_MARKERS})
        found = sorted(
            (text.find(dumps(marker)), key) for key, marker in _MARKERS.items()
        )
        if any(pos < 0 for pos, _ in found):
            return False
        parts: list[str] = []
        keys: list[str] = []
        start = 0
        for pos, key in found:
            parts.append(text[start:pos])
            keys.append(key)
            start = pos + len(dumps(_MARKERS[key]))
        parts.append(text[start:])
        if any(dumps(m) in part for part in parts for m in _MARKERS.values()):
            return False  # a marker twice: cannot happen in a view, but be exact
        self._ref, self._keys, self._parts = view, keys, parts
        return True


def _same_public(view: dict[str, Any], ref: dict[str, Any]) -> bool:
    if len(view) != len(ref):
        return False
    for key, value in ref.items():
        if key in _MARKERS:
            continue
        other = view.get(key, _MISSING)
        if other is not value and (type(other) is not type(value) or other != value):
            return False
    return True


_MISSING = object()
