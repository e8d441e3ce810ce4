"""Scenario files and the runner's contract (../shared/SCENARIOS.md).

Every ``tests/scenarios/**/*.json`` runs through
:func:`server.rules.scenario.run_scenario`, one test per file. The CLI
contract is checked on fixtures written into ``tmp_path``: one line per
scenario (``PASS name`` / ``FAIL name: step N: expected …, got …``), the final
``N passed, M failed`` line, exit 0 only when all passed, a failing scenario
and a malformed file.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.rules.scenario import main, run_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "tests" / "scenarios"
SCENARIOS = sorted(SCENARIO_DIR.rglob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    ok, message = run_scenario(data)
    assert ok, f"{path.name}: {message}"


def test_there_are_family_a_and_b_scenarios() -> None:
    names = [p.name for p in SCENARIOS]
    assert any(n.startswith("a") for n in names) and any(n.startswith("b") for n in names)


# ------------------------------------------------------------------ fixtures
SPADES = [r + "S" for r in "A23456789TJQK"]
DIAMONDS = [r + "D" for r in "A23456789TJQK"]


def hands(extra0: str = "2H 3H", extra1: str = "4H") -> list[list[str]]:
    """Seat 0: the 13 spades + ``extra0`` (15); seat 1: the 13 diamonds + ``extra1`` (14)."""
    return [[*SPADES, *extra0.split()], [*DIAMONDS, *extra1.split()]]


GOOD: dict[str, Any] = {
    "name": "good: first turns of remi45",
    "variant": "remi45",
    "players": 2,
    "options": {"row_depth": None, "short_game": False},
    "deal": {"first": 0, "hands": hands(), "atu": "KC", "stock": ["5C"]},
    "steps": [
        {"seat": 0, "do": "discard", "tile": "AS"},
        {
            "check": {
                "turn": 1,
                "phase": "take",
                "row": ["AS"],
                "hand_count": [14, 14],
                "stock_count": 76,
                "opened": [False, False],
                "credits": [0, 0],
                "table": [],
            }
        },
        {"seat": 1, "do": "draw"},
        {"check": {"hand_count": [14, 15], "hand": {"1": [*DIAMONDS, "4H", "5C"]}}},
        {"seat": 1, "do": "lay", "melds": [["2D", "3D", "4D"]], "error": "first_turn"},
        {"seat": 1, "do": "discard", "tile": "5C"},
        {"check": {"turn": 0, "phase": "take", "row": ["AS", "5C"]}},
    ],
    "result": {"over": False},
}


def variant_of(name: str, **changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    data["name"] = name
    data.update(changes)
    return data


def with_step(name: str, index: int, step: dict[str, Any]) -> dict[str, Any]:
    data = variant_of(name)
    data["steps"][index] = step
    return data


def write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def run_main(*paths: Path) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = main([str(p) for p in paths], out=out)
    return code, out.getvalue().splitlines()


# ------------------------------------------------------------------ run_scenario
def test_good_fixture_passes() -> None:
    assert run_scenario(GOOD) == (True, "")


def test_wrong_error_code_names_the_step_one_based() -> None:
    """Decision: step numbers count every step, checks included, from 1."""
    data = with_step(
        "x", 4, {"seat": 1, "do": "lay", "melds": [["2D", "3D", "4D"]], "error": "not_opened"}
    )
    ok, message = run_scenario(data)
    assert not ok and message.startswith("step 5: expected not_opened, got first_turn")


def test_unexpected_success_and_unexpected_refusal() -> None:
    ok, message = run_scenario(
        with_step("x", 0, {"seat": 0, "do": "discard", "tile": "AS", "error": "first_turn"})
    )
    assert (ok, message) == (False, "step 1: expected first_turn, got success")
    ok, message = run_scenario(with_step("x", 2, {"seat": 0, "do": "draw"}))
    assert not ok and message.startswith("step 3: expected success, got not_your_turn")


def test_check_and_result_failures() -> None:
    ok, message = run_scenario(with_step("x", 1, {"check": {"turn": 0}}))
    assert (ok, message) == (False, "step 2: expected turn 0, got 1")
    ok, message = run_scenario(variant_of("x", result={"over": True}))
    assert (ok, message) == (False, "result: expected over True, got False")


@pytest.mark.parametrize(
    "change",
    [
        {"variant": "remi46"},
        {"deal": {"first": 0, "hands": hands("2H"), "atu": "KC"}},
        {"deal": {"first": 0, "hands": hands()}},  # no atu
        {"deal": {"first": 0, "hands": hands("AS AS"), "atu": "KC"}},
        {"deal": {"first": 0, "hands": hands("2H 3H", "4X"), "atu": "KC"}},
        {"players": 3},
    ],
)
def test_bad_file_header(change: dict[str, Any]) -> None:
    ok, message = run_scenario(variant_of("x", **change))
    assert not ok and message.startswith("bad file: ")


def test_malformed_step_is_a_bad_file_of_that_scenario_only() -> None:
    ok, message = run_scenario(with_step("x", 2, {"do": "draw"}))  # no seat
    assert not ok and message.startswith("step 3: bad file")
    ok, message = run_scenario(with_step("x", 1, {"check": {"colour": "red"}}))
    assert not ok and "step 2: bad file" in message


@pytest.mark.parametrize(
    "step",
    [
        {"seat": 0, "do": "discard", "tile": "ZZ"},
        {"seat": 0, "do": "discard", "tile": 3.5},
        {"seat": 0, "do": "lay", "melds": "AS 2S 3S"},
        {"seat": 0, "do": "lay", "melds": [["AS", "2S", {"x": 1}]]},
        {"seat": 0, "do": "lay", "melds": [{"kind": "run", "tiles": "AS"}]},
        {"seat": 0, "do": "lay", "melds": [["KS", "KS", "KS"]]},  # a third KS names one twice
        {"seat": 0, "do": "discard"},
        {"do": "discard", "tile": "AS"},
    ],
)
def test_malformed_values_of_a_bad_action_step_reach_the_engine(step: dict[str, Any]) -> None:
    """SCENARIOS.md: a step expecting bad_action may hold malformed values; the engine
    refuses them (the file is fine). The same values in any other step are an error
    of the file."""
    assert run_scenario(with_step("x", 0, {**step, "error": "bad_action"})) == (
        False,
        "step 2: expected turn 1, got 0",
    )  # refused, then the file goes on
    ok, message = run_scenario(with_step("x", 0, step))
    assert not ok and message.startswith("step 1: bad file"), message


def test_a_bad_action_step_refused_for_another_reason_fails() -> None:
    ok, message = run_scenario(
        with_step(
            "x",
            0,
            {
                "seat": 0,
                "do": "lay",
                "melds": [["2H", "3H", "ATU"]],
                "atu": True,
                "error": "bad_action",
            },
        )
    )
    assert not ok and message.startswith("step 1: expected bad_action, got first_turn")


@pytest.mark.parametrize("change", [{"steps": None}, {"steps": "draw"}])
def test_steps_must_be_a_list(change: dict[str, Any]) -> None:
    ok, message = run_scenario(variant_of("x", **change))
    assert (ok, message) == (False, "bad file: 'steps' must be a list of steps")


@pytest.mark.parametrize("step", [{"seat": 0, "tile": "AS", "error": "bad_action"}, ["draw"]])
def test_a_step_without_do_is_a_bad_file(step: Any) -> None:
    ok, message = run_scenario(with_step("x", 0, step))
    assert not ok and message.startswith("step 1: bad file"), message


# ------------------------------------------------------------------ the CLI
def test_cli_lines_summary_and_exit_code(tmp_path: Path) -> None:
    good = write(tmp_path / "a-good.json", GOOD)
    failing = write(
        tmp_path / "b-fail.json", with_step("fails on purpose", 1, {"check": {"stock_count": 75}})
    )
    malformed = write(tmp_path / "c-malformed.json", "{not json")
    code, lines = run_main(good, failing, malformed)
    assert lines == [
        "PASS good: first turns of remi45",
        "FAIL fails on purpose: step 2: expected stock_count 75, got 76",
        lines[2],
        "1 passed, 2 failed",
    ]
    assert lines[2].startswith("FAIL c-malformed: bad file")
    assert code == 1
    assert run_main(good) == (0, ["PASS good: first turns of remi45", "1 passed, 0 failed"])


def test_cli_directories_are_searched_recursively(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)
    write(tmp_path / "deep" / "er" / "one.json", variant_of("one"))
    write(tmp_path / "two.json", variant_of("two"))
    write(tmp_path / "notes.txt", "not a scenario")
    code, lines = run_main(tmp_path)
    assert code == 0 and sorted(lines[:-1]) == ["PASS one", "PASS two"]
    assert lines[-1] == "2 passed, 0 failed"


def test_cli_nothing_to_run(tmp_path: Path) -> None:
    """Decision: no scenario found is not a success (exit 1); no argument is usage (exit 2)."""
    assert run_main(tmp_path) == (1, ["0 passed, 0 failed"])
    out = io.StringIO()
    assert main([], out=out) == 2 and out.getvalue().startswith("usage:")


def test_cli_as_a_module_process(tmp_path: Path) -> None:
    """``python -m server.rules.scenario FILE_OR_DIR...``: the exit code is the contract."""
    write(tmp_path / "ok.json", GOOD)
    run = subprocess.run(
        [sys.executable, "-m", "server.rules.scenario", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "1 passed, 0 failed"
    write(tmp_path / "bad.json", with_step("bad", 0, {"seat": 1, "do": "draw"}))
    run = subprocess.run(
        [sys.executable, "-m", "server.rules.scenario", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == "1 passed, 1 failed"
    assert "FAIL bad: step 1: expected success, got not_your_turn" in run.stdout


def test_runner_imports_only_the_standard_library_and_server_rules() -> None:
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import server.rules.scenario\n"
        "roots = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(r for r in roots if r not in sys.stdlib_module_names\n"
        "             and r not in ('__main__', 'server')))\n"
        "print(sorted(m for m in sys.modules if m.startswith('server.')\n"
        "             and not m.startswith('server.rules')))\n"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.splitlines() == ["[]", "[]"]


A02 = Path(__file__).resolve().parents[1] / "scenarios" / "a02-remi45-deal-first-turn.json"


@pytest.mark.parametrize("spelling", ["ks", " KS", "KS ", "Ks"])
@pytest.mark.parametrize("where", ["deal", "step", "check"])
def test_a_face_not_written_as_scenarios_md_writes_it_is_a_bad_file(
    spelling: str, where: str
) -> None:
    data = json.loads(A02.read_text(encoding="utf-8"))
    assert run_scenario(data)[0]
    if where == "deal":
        data["deal"]["hands"][0][13] = spelling  # "KS"
    elif where == "step":
        # Seat 0 discards 9D first in the file; it discards KS instead.
        step = next(s for s in data["steps"] if s.get("do") == "discard" and "error" not in s)
        step["tile"] = spelling
        data["steps"] = data["steps"][: data["steps"].index(step) + 1]
    else:
        data["steps"] = [
            {
                "check": {
                    "hand": {
                        "0": [
                            "7S",
                            "8S",
                            "9S",
                            "TS",
                            "QH",
                            "QD",
                            "QC",
                            "2H",
                            "3D",
                            "5C",
                            "6H",
                            "9D",
                            "JD",
                            spelling,
                            "4C",
                        ]
                    }
                }
            }
        ]
    passed, message = run_scenario(data)
    assert not passed
    assert "not written as a face is" in message, message
