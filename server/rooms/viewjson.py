"""JSON of the seats' views of one room version, the public part encoded once.

Every connection gets its own seat's view, built by the engine's ``view_for`` (or
``spectator_view``): that never changes. What is shared is the encoding. Most of a
view is public (the table, the row, the seats' counts, ...) and the same for every
seat; only ``seat``, ``hand``, ``joker_credits`` and ``button_used`` are the seat's
own. The first view encoded at a version becomes a template: its JSON with those
four values cut out. A later view of the same version whose public values are all
equal to the template's (one tuple comparison, types included) is the template
with its own four values encoded into the gaps; any other view is encoded in full.
Either way the result is exactly ``dumps(view_dict(view))``.

>>> from server.rules import new_round, view_for
>>> state = new_round("remi", 3, seed=7)
>>> enc = ViewJSON()
>>> enc.reset()
>>> texts = [enc.encode(view_for(state, seat)) for seat in range(3)]
>>> texts == [dumps(view_dict(view_for(state, seat))) for seat in range(3)]
True
"""

from __future__ import annotations

import dataclasses
import json
import operator
from typing import Any

import orjson

from server.rules.views import SeatView

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def json_dumps(value: Any) -> str:
    """Compact JSON by the standard library (the reference :func:`dumps` must equal).

    One shared encoder: none is built per call.
    """
    return _ENCODER.encode(value)


def dumps(value: Any) -> str:
    """Compact JSON of the server's frames, by ``orjson`` (compiled: 5–10 times faster
    than ``json`` on views and patches).

    For the data the server sends (dicts with str or int keys, lists, tuples, str, int,
    bool, None, finite floats) the text is :func:`json_dumps`'s, with one difference
    that does not change the value read back: a negative exponent has no leading zero
    (``1.5e-7`` where ``json`` writes ``1.5e-07``). A non-finite float becomes ``null`` (``json``
    would write ``NaN``, which is not JSON). What ``orjson`` refuses (an int past 64 bits,
    a str with a lone surrogate) is left to ``json``. tests/server/test_viewjson.py
    compares both on every view and patch of bot rounds and on edge cases.

    >>> dumps({"a": [1, 2.5, None, True], 3: "é"})
    '{"a":[1,2.5,null,true],"3":"é"}'
    >>> dumps(2**70)
    '1180591620717411303424'
    """
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return json_dumps(value)


def view_dict(view: SeatView) -> dict[str, Any]:
    """``view.to_dict()`` without ``dataclasses.asdict``'s deep copy.

    ``view_for`` already builds fresh lists and dicts, so a shallow conversion is
    safe, and several times faster on the hot path.
    """
    data = getattr(view, "__dict__", None)
    if data is None:  # pragma: no cover - a slotted SeatView
        return view.to_dict()
    out = dict(data)
    out["seats"] = [dict(s.__dict__) if hasattr(s, "__dict__") else s for s in view.seats]
    return out


SEAT_KEYS = ("seat", "hand", "joker_credits", "button_used")
"""The values of a view that are the seat's own; every other one is public."""

PUBLIC_KEYS = tuple(f.name for f in dataclasses.fields(SeatView) if f.name not in SEAT_KEYS)

_public_of = operator.attrgetter(*PUBLIC_KEYS)
_MARKERS = {key: f"\x00{key}\x00" for key in SEAT_KEYS}
_MARKER_JSON = {key: dumps(marker) for key, marker in _MARKERS.items()}


class ViewJSON:
    """Encodes the views of one version; :meth:`reset` when the version changes."""

    __slots__ = ("_keys", "_parts", "_public", "_types")

    def __init__(self) -> None:
        self._public: tuple[Any, ...] | None = None
        self._types: tuple[type, ...] = ()
        self._keys: tuple[str, ...] = ()
        self._parts: tuple[str, ...] = ()

    def reset(self) -> None:
        """Forget the template (a new version)."""
        self._public = None

    def encode(self, view: SeatView) -> str:
        """``dumps(view_dict(view))``, through the version's template when it can."""
        public = _public_of(view)
        if self._public is None:
            if not self._template(view, public):
                return dumps(view_dict(view))
        elif public != self._public or tuple(map(type, public)) != self._types:
            return dumps(view_dict(view))
        parts = self._parts
        out = [parts[0]]
        for key, part in zip(self._keys, parts[1:], strict=True):
            out.append(dumps(getattr(view, key)))
            out.append(part)
        return "".join(out)

    def _template(self, view: SeatView, public: tuple[Any, ...]) -> bool:
        data = view_dict(view)
        if any(key not in data for key in SEAT_KEYS):  # pragma: no cover - not a SeatView
            return False
        text = dumps({**data, **_MARKERS})
        found = sorted((text.find(_MARKER_JSON[key]), key) for key in SEAT_KEYS)
        parts: list[str] = []
        start = 0
        for pos, key in found:
            if pos < start:  # pragma: no cover - a marker missing or twice
                return False
            parts.append(text[start:pos])
            start = pos + len(_MARKER_JSON[key])
        parts.append(text[start:])
        self._public = public
        self._types = tuple(map(type, public))
        self._keys = tuple(key for _, key in found)
        self._parts = tuple(parts)
        return True
