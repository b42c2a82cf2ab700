"""`pto-tui verdict`: the verdict rule on durations given by hand (--samples) or as JSON
lines (--pairs), with the discipline of the project it runs in, else the defaults."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rules.verdict import RULE
from tests.core.helpers import cli
from tests.json_check import validate

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "json" / "verdict.schema.json"

# ten runs of a frontier near 100 us, about 1% apart
FRONTIER = [99.2, 100.4, 99.8, 100.9, 100.1, 99.5, 100.6, 99.9, 100.3, 99.7]
# the same runs 6% faster, in another order: a clear gain
FASTER = [round(v / 1.06, 2) for v in reversed(FRONTIER)]
# the same runs 0.1% slower: no change worth having
SAME = [round(v * 1.001, 2) for v in reversed(FRONTIER)]


def _csv(values: list[float]) -> str:
    return ",".join(f"{v:g}" for v in values)


def _validate(data: object) -> None:
    validate("verdict", data)


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """The real CLI's exit code, stdout and stderr (argparse's refusals exit with 2)."""
    capsys.readouterr()
    try:
        code = cli(*(str(a) for a in args))
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def verdict_json(capsys: pytest.CaptureFixture[str], *args: object) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    _validate(data)
    return data


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no project.toml at or above: the defaults


@pytest.fixture
def strict_project(tmp_path: Path) -> Path:
    """A demo project whose [discipline] noise_floor is 10% (max_spread 20%), away from the current directory
    (a single project under ./projects is found from it)."""
    root = create_demo_project("tile-lib", tmp_path / "repo" / "projects")
    project = ProjectFile(root / "project.toml")
    project.set("discipline.noise_floor", 0.10)
    project.set("discipline.max_spread", 0.20)
    project.save()
    return root


def test_a_clear_6_percent_gain_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    data = verdict_json(capsys, "verdict", "--samples", _csv(FASTER), "--frontier", _csv(FRONTIER))
    assert (data["verdict"], data["settled"], data["held"]) == ("kept", True, False)
    assert data["gain"] == pytest.approx(0.06, abs=0.002)
    assert 0.03 < data["low"] < data["gain"] < data["high"] < 0.09
    assert (data["runs"], data["frontier_runs"], data["confidence"]) == (10, 10, 0.95)
    assert data["rule"] == RULE and data["source"] == "defaults"
    assert data["discipline"] == {"noise_floor": 0.02, "max_spread": 0.1, "review_gain": 10.0,
                                  "confidence": 0.95}
    assert data["stability"] == "stable" and data["flags"] == []

    code, out, _ = run(capsys, "verdict", "--samples", _csv(FASTER), "--frontier", _csv(FRONTIER))
    assert code == 0
    assert "verdict:    kept" in out and "settled:    yes" in out
    assert "gain:       +6.0%" in out
    assert "bounds:     +5.5% to +6.5% (each at 95%; 10 against 10 runs)" in out
    assert "above the noise floor 2.0%" in out and "stability:  stable" in out
    assert "noise_floor 0.02, max_spread 0.1, review_gain 10, confidence 0.95 (from defaults)" in out


def test_sets_that_barely_differ_are_neutral(capsys: pytest.CaptureFixture[str]) -> None:
    data = verdict_json(capsys, "verdict", "--samples", _csv(SAME), "--frontier", _csv(FRONTIER))
    assert (data["verdict"], data["settled"]) == ("neutral", True)
    assert data["low"] < 0 < data["high"] < 0.02
    assert "within the noise floor" in data["reason"]


def test_two_runs_against_two_are_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    data = verdict_json(capsys, "verdict", "--samples", "95,96", "--frontier", "100,101")
    assert (data["verdict"], data["settled"]) == ("inconclusive", False)
    assert data["low"] is None and data["high"] is None and data["gain"] > 0.02
    code, out, _ = run(capsys, "verdict", "--samples", "95,96", "--frontier", "100,101")
    assert code == 0 and "settled:    no, a round would measure on: undecided" in out
    assert "bounds:     too few runs for 95% bounds (2 against 2 runs)" in out


def test_a_broken_duration_is_a_failure_verdict_not_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    data = verdict_json(capsys, "verdict", "--samples", "nan,95,96", "--frontier", "100,101,99")
    assert data["verdict"] == "failure" and "NaN" in data["reason"]
    assert data["gain"] is None and data["low"] is None


def test_pairs_give_one_line_each_and_name_the_malformed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(7)
    noisy = [100 * rng.lognormvariate(0, 0.01) for _ in range(10)]
    lines = [
        json.dumps({"samples": FASTER, "frontier": FRONTIER}),
        "",  # blank: skipped, still counted as a line
        json.dumps({"samples": [95, "fast"], "frontier": FRONTIER}),
        json.dumps({"samples": noisy, "frontier": FRONTIER, "note": "extra keys are ignored"}),
    ]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "verdict", "--pairs", pairs)
    assert code == 1  # a malformed line: the others judged, the run says it
    rows = [json.loads(line) for line in out.splitlines()]
    for row in rows:
        _validate(row)
    assert [row["line"] for row in rows] == [1, 3, 4]
    assert rows[0]["verdict"] == "kept" and "discipline" not in rows[0]
    assert rows[1] == {"schema_version": 1, "line": 3, "error": '"samples" value 2 is "fast", not a number'}
    assert rows[2]["verdict"] == "neutral" and rows[2]["runs"] == 10
    assert f"{pairs}:3: " in err and "not a number" in err


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("{not json", "invalid JSON"),
        ('{"samples": [95, 96]}', 'missing key "frontier"'),
        ('{"samples": [], "frontier": [100]}', '"samples" must be a non-empty list'),
        ('{"samples": [true], "frontier": [100]}', '"samples" value 1 is true, not a number'),
        ("[95, 96]", "expected a JSON object"),
    ],
)
def test_every_kind_of_malformed_line_is_named(
    line: str, error: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = json.dumps({"samples": [0, 1, 2], "frontier": [100, 101]})  # a zero: failure, not error
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(f"{line}\n{good}\n".encode())))
    code, out, err = run(capsys, "verdict", "--pairs", "-")
    assert code == 1
    first, second = (json.loads(text) for text in out.splitlines())
    assert first["line"] == 1 and error in first["error"]
    assert f"stdin:1: {first['error']}" in err
    assert (second["line"], second["verdict"]) == (2, "failure")


def test_the_projects_discipline_is_used_inside_it(
    strict_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given = ("verdict", "--samples", _csv(FASTER), "--frontier", _csv(FRONTIER))
    assert verdict_json(capsys, *given)["verdict"] == "kept"  # the defaults: 2% floor

    data = verdict_json(capsys, "--project", strict_project, *given)
    assert data["verdict"] == "neutral" and "noise floor 10.0%" in data["reason"]
    assert data["discipline"]["noise_floor"] == 0.10
    assert data["source"] == str(strict_project / "project.toml")

    monkeypatch.chdir(strict_project / "runs")  # found from the current directory
    code, out, _ = run(capsys, *given)
    assert code == 0 and "verdict:    neutral" in out
    assert f"noise_floor 0.1, max_spread 0.2, review_gain 10, confidence 0.95 (from {strict_project}" in out


def test_an_invalid_project_toml_is_reported_not_replaced(
    strict_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = strict_project / "project.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("noise_floor = 0.1", 'noise_floor = "high"'),
                    encoding="utf-8")
    monkeypatch.chdir(strict_project)
    code, out, err = run(capsys, "verdict", "--samples", "95,96,94", "--frontier", "100,101,99")
    assert code == 2 and out == ""
    assert "project.toml" in err and "noise_floor" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--samples", "abc", "--frontier", "1,2"), "argument --samples: 'abc' is not a number"),
        (("--samples", "1,,2", "--frontier", "1,2"), "argument --samples: value 2 of '1,,2' is empty"),
        (("--samples", "1,2", "--frontier", "1,x"), "argument --frontier: 'x' is not a number"),
        (("--samples", "1,2"), "--samples needs --frontier"),
        (("--frontier", "1,2"), "one of the arguments --samples --pairs is required"),
        (("--samples", "1,2", "--pairs", "-"), "not allowed with argument"),
        (("--pairs", "-", "--frontier", "1,2"), "--frontier goes with --samples"),
        (("--pairs", "missing.jsonl"), "missing.jsonl: no such file"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(
    args: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "verdict", *args)
    assert code == 2 and out == ""
    assert said in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_several_projects_here_is_a_question_not_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for which in ("tile-lib", "dsl"):
        create_demo_project(which, tmp_path / "projects")  # under the current directory
    code, _, err = run(capsys, "verdict", "--samples", "95,96,94", "--frontier", "100,101,99")
    assert code == 2 and "several projects" in err and "--project" in err
