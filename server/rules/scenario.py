"""Scenario runner (../shared/SCENARIOS.md): ``python -m server.rules.scenario FILE_OR_DIR...``.

A scenario fixes a deal by faces, plays face-written actions and checks what
must happen. This module translates faces to tile ids (the copy that came into
the hand first; in ``take_row``/``take_discard`` the taken tile where its face
appears) and drives :class:`~server.rules.state.RoundState` through the same
``apply`` every client uses. It imports only the standard library and
``server.rules``.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from server.rules.errors import RuleError
from server.rules.melds import RUN
from server.rules.state import Deal, RoundOptions, RoundState
from server.rules.tiles import face_of, scenario_order
from server.rules.variants import Variant, get_variant


class ScenarioFileError(Exception):
    """The file itself is wrong (not the engine)."""


class StepFailure(Exception):
    """A step did not do what the file expects."""


def _parse(notation: Any, face_text: str) -> int:
    """A face written exactly as SCENARIOS.md writes it (``"7S"``, ``"10B"``): another
    spelling of it (``"7s"``, ``" 7S"``) is a ValueError, like an unknown face."""
    face: int = notation.parse(face_text)
    written = notation.format(face)
    if written != face_text:
        raise ValueError(f"{face_text!r} is not written as a face is (write {written!r})")
    return face


def _faces_to_deal(
    variant: Variant, players: int, options: RoundOptions, deal: Mapping[str, Any]
) -> Deal:
    notation = variant.family.notation
    ids = variant.family.tile_ids(options.short_game)
    free: dict[int, list[int]] = {}
    for t in ids:
        free.setdefault(face_of(t), []).append(t)

    def take(face_text: str) -> int:
        try:
            face = _parse(notation, face_text)
        except ValueError as exc:
            raise ScenarioFileError(str(exc)) from None
        copies = free.get(face)
        if not copies:
            raise ScenarioFileError(f"more copies of {face_text} than the set holds")
        return copies.pop(0)

    first = int(deal.get("first", 0))
    raw_hands = deal.get("hands")
    if not isinstance(raw_hands, list) or len(raw_hands) != players:
        raise ScenarioFileError(f"deal.hands must list {players} hands")
    big, small = variant.family.hand_sizes(options.short_game)
    hands = []
    for seat, hand in enumerate(raw_hands):
        want = big if seat == first else small
        if len(hand) != want:
            raise ScenarioFileError(f"hand {seat} has {len(hand)} tiles, the deal gives {want}")
        hands.append(tuple(take(f) for f in hand))
    atu = None
    if variant.family.has_atu:
        if "atu" not in deal:
            raise ScenarioFileError("deal.atu is required in family A")
        atu = take(deal["atu"])
    elif deal.get("atu") is not None:
        raise ScenarioFileError("family B has no atu")
    stock = [take(f) for f in deal.get("stock", [])]
    rest = tuple(t for copies in free.values() for t in copies)
    stock.extend(scenario_order(rest, notation))
    return Deal(first, tuple(hands), atu, tuple(stock))


class _Picker:
    """Chooses tile ids for faces, without using one id twice in an action.

    ``raw`` (a step that expects ``bad_action``): a value that names no tile (not a
    face string, an unknown face, ``ATU`` in a round without one) is passed to the
    engine as it is, and a face with no copy left names a copy again (SCENARIOS.md).
    """

    def __init__(
        self, state: RoundState, pools: Sequence[Iterable[int]], raw: bool = False
    ) -> None:
        self.state = state
        self.order: list[int] = [t for pool in pools for t in pool]
        self.used: set[int] = set()
        self.raw = raw

    def __call__(self, face_text: Any) -> Any:
        if not isinstance(face_text, str):
            if self.raw:
                return face_text
            raise ScenarioFileError(f"a tile is written as a face string, not {face_text!r}")
        notation = self.state.family.notation
        if face_text == "ATU":
            if self.state.atu is None:
                if self.raw:
                    return face_text
                raise ScenarioFileError("ATU used in a round without an atu")
            self.used.add(self.state.atu)
            return self.state.atu
        try:
            face = _parse(notation, face_text)
        except ValueError as exc:
            if self.raw:
                return face_text
            raise ScenarioFileError(str(exc)) from None
        for t in self.order:
            if t not in self.used and face_of(t) == face:
                self.used.add(t)
                return t
        # Not available where the action takes it: name another copy so the
        # engine answers tile_not_in_hand.
        copies = [t for t in sorted(self.state.tile_locations()) if face_of(t) == face]
        for t in copies:
            if t not in self.used and t not in self.order:
                self.used.add(t)
                return t
        if self.raw and copies:
            return copies[0]  # the same tile twice in one action
        raise ScenarioFileError(f"no copy of {face_text} to name")


def _melds(picker: _Picker, raw: Any) -> Any:
    if not isinstance(raw, list):
        if picker.raw:
            return raw
        raise ScenarioFileError("melds must be a list")
    out: list[Any] = []
    for m in raw:
        if isinstance(m, Mapping):
            tiles = m.get("tiles", [])
            if isinstance(tiles, list):
                tiles = [picker(f) for f in tiles]
            elif not picker.raw:
                raise ScenarioFileError("a meld's tiles are a list of faces")
            out.append({**m, "tiles": tiles})
        elif isinstance(m, list):
            out.append([picker(f) for f in m])
        elif picker.raw:
            out.append(m)
        else:
            raise ScenarioFileError("a meld is a list of faces or an object")
    return out


def _layoffs(picker: _Picker, raw: Any) -> Any:
    if not isinstance(raw, list):
        if picker.raw:
            return raw
        raise ScenarioFileError("layoffs must be a list")
    out: list[Any] = []
    for lo in raw:
        if isinstance(lo, Mapping):
            out.append({**lo, "tile": picker(lo.get("tile"))})
        elif picker.raw:
            out.append(lo)
        else:
            raise ScenarioFileError("a lay-off is an object with 'tile' and 'meld'")
    return out


_STEP_KEYS = ("seat", "do", "error", "tile", "melds", "layoffs", "index", "meld", "end", "atu")


def translate(state: RoundState, step: Mapping[str, Any]) -> dict[str, Any]:
    """A face-written step as the id-written action the engine takes.

    A step that expects ``bad_action`` may hold malformed values: they go to the
    engine as they are (SCENARIOS.md), and so does a missing field."""
    raw = step.get("error") == "bad_action"
    seat = step.get("seat")
    do = step.get("do")
    hand = state.hands[seat] if isinstance(seat, int) and 0 <= seat < state.players else []
    action: dict[str, Any] = {"do": do}
    if do in ("discard", "layoff", "buy_joker"):
        if "tile" in step or not raw:
            action["tile"] = _Picker(state, [hand], raw)(step.get("tile"))
        if do != "discard" and "meld" in step:
            action["meld"] = step["meld"]
    elif do == "lay":
        if "melds" in step or not raw:
            action["melds"] = _melds(_Picker(state, [hand], raw), step.get("melds"))
    elif do == "take_row":
        index = step.get("index")
        pools: list[Iterable[int]] = [hand]
        if isinstance(index, int) and 0 <= index < len(state.row):
            pools = [[state.row[index]], hand, state.row[index + 1 :]]
        if "index" in step:
            action["index"] = index
        action["melds"] = _melds(_Picker(state, pools, raw), step.get("melds", []))
    elif do == "take_discard":
        picker = _Picker(state, [state.row[-1:], hand], raw)
        action["melds"] = _melds(picker, step.get("melds", []))
        action["layoffs"] = _layoffs(picker, step.get("layoffs", []))
    for key in ("end", "atu"):
        if key in step:
            action[key] = step[key]
    for key, value in step.items():
        if key not in _STEP_KEYS:
            action[key] = value
    return action


def _fingerprint(state: RoundState) -> dict[str, Any]:
    """Everything an action may change (the rules, options and deal never do)."""
    return {
        k: copy.deepcopy(v)
        for k, v in vars(state).items()
        if k not in ("variant", "family", "options", "deal", "_result")
    }


def _faces(state: RoundState, tiles: Iterable[int]) -> list[str]:
    return [state.family.notation.format(face_of(t)) for t in tiles]


def _norm_faces(state: RoundState, faces: Iterable[str]) -> list[str]:
    n = state.family.notation
    try:
        return [n.format(_parse(n, f)) for f in faces]
    except ValueError as exc:
        raise ScenarioFileError(str(exc)) from None


def _check(state: RoundState, expect: Mapping[str, Any]) -> None:
    got: dict[str, Any] = {}
    for key, want in expect.items():
        if key == "row":
            got_v: Any = _faces(state, state.row)
            want = _norm_faces(state, want)
        elif key == "stock_count":
            got_v = state.stock_count
        elif key == "hand_count":
            got_v = [len(h) for h in state.hands]
        elif key == "hand":
            for seat_key, faces in want.items():
                mine = sorted(_faces(state, state.hands[int(seat_key)]))
                if mine != sorted(_norm_faces(state, faces)):
                    raise StepFailure(f"expected hand {seat_key} {sorted(faces)}, got {mine}")
            continue
        elif key == "table":
            got_v = [
                _faces(state, m.tiles) if m.kind == RUN else sorted(_faces(state, m.tiles))
                for m in state.table
            ]
            want = [
                _norm_faces(state, w)
                if i < len(state.table) and state.table[i].kind == RUN
                else sorted(_norm_faces(state, w))
                for i, w in enumerate(want)
            ]
        elif key == "turn":
            got_v = state.turn
        elif key == "phase":
            got_v = state.phase
        elif key == "opened":
            got_v = list(state.opened)
        elif key == "credits":
            got_v = [state.credits(s) for s in range(state.players)]
        else:
            raise ScenarioFileError(f"unknown check key {key!r}")
        got[key] = got_v
        if got_v != want:
            raise StepFailure(f"expected {key} {want}, got {got_v}")


def _check_result(state: RoundState, expect: Mapping[str, Any]) -> None:
    result = state.result
    actual: dict[str, Any] = {"over": state.over}
    if result is not None:
        actual.update(
            reason=result.reason, out=result.out, scores=result.scores, closing=result.closing
        )
    for key, want in expect.items():
        if key not in ("over", "reason", "out", "scores", "closing"):
            raise ScenarioFileError(f"unknown result key {key!r}")
        if actual.get(key) != want:
            raise StepFailure(f"expected {key} {want}, got {actual.get(key)}")


def build_state(data: Mapping[str, Any]) -> RoundState:
    """The round a scenario's header describes."""
    try:
        variant = get_variant(data["variant"])
    except KeyError as exc:
        raise ScenarioFileError(str(exc)) from None
    players = int(data.get("players", len(data["deal"]["hands"])))
    raw = dict(data.get("options") or {})
    credits = tuple([1] * players) if raw.get("joker_button") else None
    options = RoundOptions(
        row_depth=raw.get("row_depth"),
        short_game=bool(raw.get("short_game")),
        joker_button=bool(raw.get("joker_button")),
        joker_credits=credits,
    )
    deal = _faces_to_deal(variant, players, options, data["deal"])
    try:
        return RoundState(variant, players, deal, options)
    except ValueError as exc:
        raise ScenarioFileError(str(exc)) from None


_FILE_ERRORS = (ScenarioFileError, KeyError, TypeError, ValueError, IndexError, AttributeError)


def run_scenario(data: Mapping[str, Any]) -> tuple[bool, str]:
    """Run one scenario; (passed, message)."""
    try:
        state = build_state(data)
    except _FILE_ERRORS as exc:
        return False, f"bad file: {exc}"
    steps = data.get("steps")
    if not isinstance(steps, list):
        return False, "bad file: 'steps' must be a list of steps"
    step_no = 0
    try:
        for step_no, step in enumerate(steps, start=1):  # noqa: B007
            if not isinstance(step, Mapping) or not ("check" in step or "do" in step):
                raise ScenarioFileError("a step is an object with 'do' or 'check'")
            if "check" in step:
                _check(state, step["check"])
                continue
            expected = step.get("error")
            # A step that expects bad_action may name no seat: None goes to the engine.
            seat: Any = step.get("seat") if expected == "bad_action" else step["seat"]
            action = translate(state, step)
            before = _fingerprint(state) if expected else None
            try:
                state.apply(seat, action)
            except RuleError as err:
                if expected is None:
                    raise StepFailure(
                        f"expected success, got {err.code.value} ({err.message})"
                    ) from None
                if err.code.value != expected:
                    raise StepFailure(
                        f"expected {expected}, got {err.code.value} ({err.message})"
                    ) from None
                if _fingerprint(state) != before:
                    raise StepFailure(
                        f"expected {expected} to change nothing, but the state changed"
                    ) from None
                continue
            if expected is not None:
                raise StepFailure(f"expected {expected}, got success")
        step_no = 0
        if "result" in data:
            _check_result(state, data["result"])
    except StepFailure as exc:
        where = f"step {step_no}: " if step_no else "result: "
        return False, where + str(exc)
    except _FILE_ERRORS as exc:
        # A malformed step (missing "seat", not an object, unknown seat in a
        # check...) fails this scenario only; the run goes on to the next file.
        where = f"step {step_no}: " if step_no else "result: "
        return False, f"{where}bad file: {exc!r}"
    return True, ""


def scenario_files(paths: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.json")) if p.is_dir() else [p])
    return files


def main(argv: Sequence[str] | None = None, out: Any = None) -> int:
    out = out or sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        out.write("usage: python -m server.rules.scenario FILE_OR_DIR...\n")
        return 2
    passed = failed = 0
    for path in scenario_files(args):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            name = str(data.get("name", path.stem))
            ok, message = run_scenario(data)
        except (OSError, ValueError, AttributeError) as exc:
            name, ok, message = path.stem, False, f"bad file: {exc}"
        if ok:
            passed += 1
            out.write(f"PASS {name}\n")
        else:
            failed += 1
            out.write(f"FAIL {name}: {message}\n")
    out.write(f"{passed} passed, {failed} failed\n")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
