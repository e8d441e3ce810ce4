"""JSON of the seats' views of a room, the public part encoded once.

Every connection gets its own seat's view, built by the engine's ``view_for`` (or
``spectator_view``): that never changes. What is shared is the encoding. Most of a
view is public (the table, the row, the seats' counts, ...) and the same for every
seat; only ``seat``, ``hand``, ``joker_credits`` and ``button_used`` are the seat's
own.

* Within a version, the first view encoded becomes a template: its public values
  encoded, with gaps for the seat's own four. Every view of the same version whose
  public values are equal to the template's (checked, value by value) is the
  template with its own four values encoded into the gaps; any other view is
  encoded in full.
* Across versions, each public value's JSON is kept with the value it encodes and
  reused while the value stays equal (a draw changes the stock count and a seat's
  tile count, not the table or the row).

The result is always exactly ``dumps(view)``.

>>> enc = ViewJSON()
>>> a = {"seat": 0, "hand": [1, 2], "row": [7], "joker_credits": 0, "button_used": False}
>>> b = {"seat": 1, "hand": [3], "row": [7], "joker_credits": 1, "button_used": False}
>>> enc.reset()
>>> enc.encode(a), enc.encode(b)
('{"seat":0,"hand":[1,2],"row":[7],"joker_credits":0,"button_used":false}', \
'{"seat":1,"hand":[3],"row":[7],"joker_credits":1,"button_used":false}')
>>> enc.encode({**b, "row": [8]}) == dumps({**b, "row": [8]})  # not the template's: in full
True
>>> enc.reset()
>>> enc.encode({**a, "row": [7, 9]})
'{"seat":0,"hand":[1,2],"row":[7,9],"joker_credits":0,"button_used":false}'
"""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact JSON (one shared encoder: no encoder built per call)."""
    return _ENCODER.encode(value)


SEAT_KEYS = frozenset({"seat", "hand", "joker_credits", "button_used"})
"""The values of a view that are the seat's own; every other one is public."""

_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type (``True == 1``, but their JSON differs).

    The engine builds every view from fresh lists and dicts; the very same container
    met twice would mean one that may have changed in place since it was encoded, so
    it never counts as the same.
    """
    if type(a) is not type(b):
        return False
    if a is b:
        return not isinstance(a, list | dict)
    return bool(a == b)


class ViewJSON:
    """Encodes the views of a room; :meth:`reset` when the version changes."""

    __slots__ = ("_keys", "_parts", "_prefix", "_public", "_ref")

    def __init__(self) -> None:
        self._ref: dict[str, Any] | None = None
        self._keys: list[str] = []
        self._parts: list[str] = []
        self._public: dict[str, tuple[Any, str]] = {}
        """Public key → (value, its JSON), kept across versions."""
        self._prefix: dict[str, str] = {}
        """Key → ``"key":`` (and the comma before it)."""

    def reset(self) -> None:
        """Forget the template (a new version); the public values' JSON is kept."""
        self._ref = None

    def encode(self, view: dict[str, Any]) -> str:
        """``dumps(view)``, through the version's template when the public part matches."""
        ref = self._ref
        if ref is None:
            self._template(view)
        elif not _same_public(view, ref):
            return dumps(view)
        parts = self._parts
        out = [parts[0]]
        for key, part in zip(self._keys, parts[1:], strict=True):
            out.append(dumps(view[key]))
            out.append(part)
        return "".join(out)

    def _template(self, view: dict[str, Any]) -> None:
        public = self._public
        parts: list[str] = []
        keys: list[str] = []
        run: list[str] = ["{"]
        for i, (key, value) in enumerate(view.items()):
            prefix = self._prefix.get(key)
            if prefix is None:
                prefix = self._prefix[key] = f"{dumps(key)}:"
            run.append(prefix if i == 0 else "," + prefix)
            if key in SEAT_KEYS:
                parts.append("".join(run))
                keys.append(key)
                run = []
                continue
            cached = public.get(key)
            if cached is not None and _same(cached[0], value):
                run.append(cached[1])
            else:
                text = dumps(value)
                public[key] = (value, text)
                run.append(text)
        run.append("}")
        parts.append("".join(run))
        self._ref, self._keys, self._parts = view, keys, parts


def _same_public(view: dict[str, Any], ref: dict[str, Any]) -> bool:
    if len(view) != len(ref):
        return False
    for key, value in ref.items():
        if key in SEAT_KEYS:
            continue
        if not _same(view.get(key, _MISSING), value):
            return False
    return True
