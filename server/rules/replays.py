"""A finished round told again: every step with all hands revealed, and the round as a
scenario file (../shared/SCENARIOS.md) that the scenario runner replays to the same result.

Both are computed from what a round is — variant, players, options, deal, action log —
by applying the log to a fresh state, so a replay shows only what the engine did.

>>> import random
>>> from server.rules import new_round
>>> from server.rules.playout import play_round
>>> s = new_round("remi", players=2, seed="doc")
>>> _ = play_round(s, random.Random(1))
>>> r = replay_steps("remi", 2, s.deal, s.options, s.log)
>>> len(r["steps"]) == len(s.log) + 1, r["steps"][0]["event"]
(True, None)
>>> r["result"]["scores"] == s.result.scores
True
>>> from server.rules.scenario import run_scenario
>>> run_scenario(to_scenario("remi", 2, s.deal, s.options, s.log, "doc"))
(True, '')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from server.rules.state import Deal, RoundOptions, RoundState, meld_public
from server.rules.tiles import face_of
from server.rules.variants import Variant, get_variant

__all__ = ["replay_steps", "to_scenario"]


def _state(
    variant: str | Variant, players: int, deal: Deal, options: RoundOptions | None
) -> RoundState:
    v = get_variant(variant) if isinstance(variant, str) else variant
    return RoundState(v, players, deal, options)


def _picture(state: RoundState) -> dict[str, Any]:
    """Everything on and under the table now, hands and the stock's order included."""
    return {
        "hands": [list(h) for h in state.hands],
        "stock": list(reversed(state.stock)),  # top first
        "atu": state.atu,
        "atu_taken_by": state.atu_taken_by,
        "row": list(state.row),
        "row_by": list(state.row_by),
        "table": [meld_public(m) for m in state.table],
        "consumed": sorted(state.consumed),
        "turn": state.turn,
        "phase": state.phase,
        "opened": list(state.opened),
    }


def replay_steps(
    variant: str | Variant,
    players: int,
    deal: Deal,
    options: RoundOptions | None,
    actions: Iterable[Sequence[Any]],
) -> dict[str, Any]:
    """The round step by step: step 0 is the deal, step k what the k-th action did
    (its whole event, the actor's part included) and the table after it."""
    state = _state(variant, players, deal, options)
    steps: list[dict[str, Any]] = [{"event": None, **_picture(state)}]
    for seat, action in actions:
        event = state.apply(seat, action)
        steps.append({"event": event.for_seat(event.seat), **_picture(state)})
    result = state.result
    return {
        "variant": state.variant.id,
        "players": players,
        "first": deal.first,
        "options": state.options.to_dict(),
        "steps": steps,
        "result": asdict(result) if result is not None else None,
    }


class _Faces:
    """Tile ids written as faces, the atu as ``ATU`` inside a lay (SCENARIOS.md)."""

    def __init__(self, state: RoundState) -> None:
        self.state = state

    def __call__(self, tile: int) -> str:
        return self.state.family.notation.format(face_of(tile))

    def meld(self, meld: Any, atu: bool) -> Any:
        if isinstance(meld, dict):
            return {"kind": meld["kind"], "tiles": self.meld(meld["tiles"], atu)}
        return ["ATU" if atu and t == self.state.atu else self(t) for t in meld]


def _step(faces: _Faces, seat: int, raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat, "do": raw["do"]}
    atu = bool(raw.get("atu"))
    for key, value in raw.items():
        if key in ("do", "seat"):
            continue
        if key == "tile":
            out[key] = faces(value)
        elif key == "melds":
            out[key] = [faces.meld(m, atu) for m in value]
        elif key == "layoffs":
            out[key] = [{**lo, "tile": faces(lo["tile"])} for lo in value]
        else:
            out[key] = value
    return out


def to_scenario(
    variant: str | Variant,
    players: int,
    deal: Deal,
    options: RoundOptions | None,
    actions: Iterable[tuple[int, dict[str, Any]]],
    name: str,
) -> dict[str, Any]:
    """The round as a scenario file: its deal by faces (the whole stock named, top
    first), each action a step, and the result the engine gave as the file's ``result``."""
    state = _state(variant, players, deal, options)
    faces = _Faces(state)
    steps = []
    for seat, action in actions:
        steps.append(_step(faces, seat, action))
        state.apply(seat, action)
    result = state.result
    opts = state.options
    data: dict[str, Any] = {
        "name": name,
        "variant": state.variant.id,
        "players": players,
        "options": {
            "row_depth": opts.row_depth,
            "short_game": opts.short_game,
            "joker_button": opts.joker_button,
        },
        "deal": {
            "first": deal.first,
            "hands": [[faces(t) for t in h] for h in deal.hands],
            **({"atu": faces(deal.atu)} if deal.atu is not None else {}),
            "stock": [faces(t) for t in deal.stock],
        },
        "steps": steps,
    }
    if result is not None:
        data["result"] = {
            "over": True,
            "reason": result.reason,
            "out": result.out,
            "scores": list(result.scores),
        }
        if not state.family.has_atu:
            data["result"]["closing"] = result.closing
    return data
