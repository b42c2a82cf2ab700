"""`pto-tui diff N`: the parameters, the duration with its noise, TFLOPS and the patch of a
round against its base, the frontier or a chosen round."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.campaign.what_changed import what_changed
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.records import CLOSED, Changes, Measurement, Round
from tests.core.helpers import cli, cli_json, ready_project, run_round
from tests.json_check import validate

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "json" / "diff.schema.json"
HEADER = "workspace/kernel/fa_kernel.h"


def _validate(data: object) -> None:
    validate("diff", data)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """iter-001 TILE_S1=512 (kept); iter-002, based on it, a hand edit of kFaQkPreload that
    gains 1.3%: below the noise floor (neutral)."""
    root = ready_project(tmp_path)
    justify = "UB use at 512 is 96 KiB of 192 KiB"
    assert run_round(root, "80,81,80.5", params=("TILE_S1=512",), justify=justify) == 0
    edit = (HEADER, "kFaQkPreload = 4", "kFaQkPreload = 6")
    assert run_round(root, "79,80,79.5", hypothesis="deeper preload", edit=edit) == 0
    return root


def test_diff_against_the_round_it_was_based_on(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diff = cli_json(capsys, "--project", project, "diff", "2")
    _validate(diff)
    assert (diff["round"], diff["against"], diff["against_how"]) == (2, 1, "previous")
    assert diff["parameters"] == [{"name": "kFaQkPreload", "before": 4, "after": 6}]
    d = diff["duration"]
    assert (d["before"]["median_us"], d["after"]["median_us"]) == (80.5, 79.5)
    assert d["before"]["runs"] == 3 and d["before"]["stability"] == "stable"
    assert d["before"]["spread"] == pytest.approx(1 / 80.5)
    assert d["delta"] == pytest.approx(79.5 / 80.5 - 1)
    # judged as the verdict is: +1.3%, at most +2.5% (81 / 79 - 1), below 1.4 noise floors
    assert d["gain"] == pytest.approx(80.5 / 79.5 - 1) and d["high"] == pytest.approx(81 / 79 - 1)
    assert d["judged"] == "within the noise floor"
    assert diff["verdict"] == "neutral"
    assert "kFaQkPreload = 6" in diff["patch"] and diff["patch_against"] == 1

    capsys.readouterr()
    assert cli("--project", project, "diff", "2") == 0
    out = capsys.readouterr().out
    assert "iter-002 against iter-001 (the round it was based on)" in out
    assert "kFaQkPreload: 4 -> 6" in out
    assert "duration (median): 80.5 us -> 79.5 us (-1.2%, 1.01x)" in out
    judged = "gain +1.3% (95% bounds +0.0% to +2.5%) against the noise floor 2.0%: within the noise floor"
    assert judged in out
    assert "+constexpr int kFaQkPreload = 6;" in out


def test_diff_against_the_frontier_and_a_chosen_round(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # iter-001 is the frontier; against the frontier of the other rounds it is the baseline
    diff = cli_json(capsys, "--project", project, "diff", "1", "--against", "frontier")
    assert (diff["against"], diff["against_how"]) == (0, "frontier")
    assert diff["duration"]["judged"] == "beyond the noise floor"
    assert diff["parameters"] == [{"name": "TILE_S1", "before": 256, "after": 512}]
    against_2 = cli_json(capsys, "--project", project, "diff", "2", "--against", "frontier")
    assert against_2["against"] == 1
    diff = cli_json(capsys, "--project", project, "diff", "2", "--against", "0")
    _validate(diff)
    assert [p["name"] for p in diff["parameters"]] == ["TILE_S1", "kFaQkPreload"]
    assert diff["against_how"] == "round" and diff["patch_against"] == 1

    capsys.readouterr()
    assert cli("--project", project, "diff", "2", "--against", "sideways") == 2
    assert "--against expects previous, frontier or a round number" in capsys.readouterr().err
    assert cli("--project", project, "diff", "2", "--against", "9") == 2
    assert "no round 9" in capsys.readouterr().err


def _round(number: int, samples: list[float], tflops: float | None = None, **snapshot: int) -> Round:
    return Round(
        number=number,
        status=CLOSED,
        changes=Changes(parameter_values=dict(snapshot), based_on=0 if number else None),
        measurement=Measurement(build="ok", correctness="pass", samples_us=samples, tflops=tflops),
    )


def test_what_changed_is_pure_and_says_the_noise() -> None:
    before = _round(0, [20_000, 22_000, 21_000], tflops=1.0, A=1, B=2)
    after = _round(3, [15_000, 19_000, 16_000], tflops=1.25, A=1, C=3)
    diff = what_changed(after, before, patch="", noise_floor=0.02, max_spread=0.10, confidence=0.95)
    assert [(p.name, p.before, p.after) for p in diff.parameters] == [("B", 2, None), ("C", None, 3)]
    d = diff.duration
    assert d is not None
    assert d.after.stability == "noisy" and d.before.stability == "stable"
    assert d.speedup == pytest.approx(21_000 / 16_000)
    # the smallest pairwise gain is 20 / 19 - 1 = +5.3%: beyond the floor, however noisy
    assert d.low == pytest.approx(20_000 / 19_000 - 1) and d.judged == "beyond the noise floor"
    assert diff.tflops_delta == pytest.approx(0.25)
    # a side without valid samples: nothing is judged
    unmeasured = _round(4, [])
    d = what_changed(unmeasured, before, patch="", noise_floor=0.02, max_spread=0.1, confidence=0.95).duration
    assert d is not None and d.delta is None and d.judged == "" and d.after.stability == ""


def test_format_durations_uses_one_unit() -> None:
    assert format_durations([9_000.0, 12_000.0]) == ["9.000 ms", "12.000 ms"]
    assert format_durations([80.5, None, 950.25]) == ["80.5 us", "-", "950.2 us"]
    assert format_durations([None]) == ["-"]


def test_tflops_keep_three_digits_when_small() -> None:
    from pto_tui.core.rounds.render import format_tflops

    assert format_tflops(None) == "-" and format_tflops(12.345) == "12.35"
    assert format_tflops(0.5) == "0.50" and format_tflops(0.0123) == "0.0123"
    assert format_tflops(8.52e-05) == "0.0000852"  # a CPU simulation's, not "0.000"
