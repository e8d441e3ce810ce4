"""Small helpers to write family-A scenario files (../shared/SCENARIOS.md).

Nothing here knows the rules of play: it only spells steps, checks that a
deal is a consistent file (hand sizes, no face more often than the set holds)
and lists the stock in the file format's fixed order so that long
draw/discard loops can be written. Expected results are written by hand in
the scenario definitions (see family_a.py), never computed here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

RANKS = "A23456789TJQK"
SUITS = "SHDC"
FACES = [r + s for s in SUITS for r in RANKS]
SCENARIO_DIR = Path(__file__).resolve().parent.parent


def tiles(text: str) -> list[str]:
    """'5H 6H 7H' -> ['5H', '6H', '7H']."""
    return text.split()


def _melds(melds: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for m in melds:
        out.append(tiles(m) if isinstance(m, str) else m)
    return out


def with_error(step: dict[str, Any], error: str | None) -> dict[str, Any]:
    if error is not None:
        step["error"] = error
    return step


def draw(seat: int, error: str | None = None) -> dict[str, Any]:
    return with_error({"seat": seat, "do": "draw"}, error)


def disc(seat: int, tile: str, error: str | None = None) -> dict[str, Any]:
    return with_error({"seat": seat, "do": "discard", "tile": tile}, error)


def lay(seat: int, *melds: Any, atu: bool = False, error: str | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"seat": seat, "do": "lay", "melds": _melds(melds)}
    if atu:
        step["atu"] = True
    return with_error(step, error)


def take(seat: int, index: int, *melds: Any, error: str | None = None) -> dict[str, Any]:
    return with_error(
        {"seat": seat, "do": "take_row", "index": index, "melds": _melds(melds)}, error
    )


def off(
    seat: int, tile: str, meld: int, end: str | None = None, error: str | None = None
) -> dict[str, Any]:
    step: dict[str, Any] = {"seat": seat, "do": "layoff", "tile": tile, "meld": meld}
    if end is not None:
        step["end"] = end
    return with_error(step, error)


def buy(seat: int, tile: str, meld: int, error: str | None = None) -> dict[str, Any]:
    return with_error({"seat": seat, "do": "buy_joker", "tile": tile, "meld": meld}, error)


def run(text: str) -> dict[str, Any]:
    return {"kind": "run", "tiles": tiles(text)}


def set_(text: str) -> dict[str, Any]:
    return {"kind": "set", "tiles": tiles(text)}


def check(**keys: Any) -> dict[str, Any]:
    return {"check": keys}


def _copies(short_game: bool) -> Counter[str]:
    n = 1 if short_game else 2
    c: Counter[str] = Counter({f: n for f in FACES})
    c["JK"] = 2
    return c


def named_faces(sc: dict[str, Any]) -> list[str]:
    deal = sc["deal"]
    return [f for h in deal["hands"] for f in h] + [deal["atu"]] + list(deal.get("stock", []))


def validate(sc: dict[str, Any]) -> None:
    """The file-level consistency SCENARIOS.md asks for (sizes, copies)."""
    short = bool(sc.get("options", {}).get("short_game"))
    big, small = (11, 10) if short else (15, 14)
    deal = sc["deal"]
    assert len(deal["hands"]) == sc["players"], sc["name"]
    for seat, hand in enumerate(deal["hands"]):
        want = big if seat == deal["first"] else small
        assert len(hand) == want, f"{sc['name']}: hand {seat} has {len(hand)}, wants {want}"
    have = _copies(short)
    used = Counter(named_faces(sc))
    for face, n in used.items():
        assert face in have, f"{sc['name']}: unknown face {face}"
        assert n <= have[face], f"{sc['name']}: {face} named {n} times, the set holds {have[face]}"
    assert "RULES A." in sc["name"], sc["name"]


def full_stock(sc: dict[str, Any]) -> list[str]:
    """The whole stock, top first: the named stock, then the rest in the
    format's fixed order (faces sorted as strings, repeated, jokers last)."""
    short = bool(sc.get("options", {}).get("short_game"))
    left = _copies(short) - Counter(named_faces(sc))
    rest = [f for f in sorted(f for f in left if f != "JK") for _ in range(left[f])]
    rest += ["JK"] * left["JK"]
    return list(sc["deal"].get("stock", [])) + rest


def _dump(sc: dict[str, Any]) -> str:
    """JSON with one hand, one step and one check per line."""
    out = ["{"]
    head = [(k, sc[k]) for k in ("name", "variant", "players", "options")]
    for k, v in head:
        out.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    deal = sc["deal"]
    out.append('  "deal": {')
    out.append(f'    "first": {deal["first"]},')
    out.append('    "hands": [')
    hands = [f"      {json.dumps(h)}" for h in deal["hands"]]
    out.append(",\n".join(hands))
    out.append("    ],")
    out.append(f'    "atu": {json.dumps(deal["atu"])},')
    out.append(f'    "stock": {json.dumps(deal.get("stock", []))}')
    out.append("  },")
    out.append('  "steps": [')
    out.append(",\n".join(f"    {json.dumps(s, ensure_ascii=False)}" for s in sc["steps"]))
    out.append("  ],")
    if "note" in sc:
        out.append(f'  "result": {json.dumps(sc["result"])},')
        out.append(f'  "note": {json.dumps(sc["note"], ensure_ascii=False)}')
    else:
        out.append(f'  "result": {json.dumps(sc["result"])}')
    out.append("}")
    text = "\n".join(out) + "\n"
    keys = ("name", "variant", "players", "options", "deal", "steps", "result", "note")
    assert json.loads(text) == {k: sc[k] for k in keys if k in sc}
    return text


def write(slug: str, sc: dict[str, Any], directory: Path = SCENARIO_DIR) -> Path:
    validate(sc)
    path = directory / f"{slug}.json"
    path.write_text(_dump(sc), encoding="utf-8")
    return path


def scenario(
    name: str,
    variant: str,
    hands: list[str],
    atu: str,
    stock: str = "",
    steps: list[dict[str, Any]] | None = None,
    result: dict[str, Any] | None = None,
    first: int = 0,
    options: dict[str, Any] | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """A scenario dict; hands and stock are written as space-separated faces.

    ``note`` carries the hand-made score arithmetic (RULES.md A.16) as an
    extra top-level field the runner ignores.
    """
    sc: dict[str, Any] = {
        "name": name,
        "variant": variant,
        "players": len(hands),
        "options": options or {},
        "deal": {
            "first": first,
            "hands": [tiles(h) for h in hands],
            "atu": atu,
            "stock": tiles(stock),
        },
        "steps": steps or [],
        "result": result or {"over": False},
    }
    if note is not None:
        sc["note"] = note
    return sc


def dd(seat: int, tile: str) -> list[dict[str, Any]]:
    """A plain turn: draw from the stock, then discard ``tile``."""
    return [draw(seat), disc(seat, tile)]
