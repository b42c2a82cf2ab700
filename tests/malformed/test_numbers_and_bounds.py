"""Numbers that cannot be measurements and round numbers out of bounds: refused where they
enter, naming the field, never a traceback, never stored; a stray round folder is reported
and never counted (nor iterated up to); every --json output is strict JSON."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.numbers import MAX_US
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import MAX_ROUND
from pto_tui.core.reports.fields import tflops_from
from pto_tui.core.reports.parsers import TILELIB_CSV_HEADER, ReportError, parse_report_csv, parse_report_json
from pto_tui.core.reports.result import BenchResult
from pto_tui.core.rounds.markdown_read import durations_in, parse_duration_us, tflops_in
from pto_tui.core.rounds.numbering import numbering_gaps, stray_numbers
from pto_tui.core.rules.workload import case_timing
from pto_tui.mcp.inputs import MeasurementInput
from tests.core.helpers import cli, cli_json, make_project, pre_edit_args, ready_project

RUNNER = {
    "pto": {
        "compile": {"status": "ready"},
        "benchmark": {
            "status": "ok",
            "timings_ms": {"median": 2.5, "min": 2.4, "max": 2.7},
            "correctness": {"max_abs_diff": 1e-4, "atol": 1e-3, "rtol": 1e-3, "passes": True},
            "variant": {"m": 1024},
        },
    },
}


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise AssertionError(f"{name} in --json output: not JSON")

    return json.loads(text, parse_constant=refuse)


def _diff(value: object) -> str:
    data = copy.deepcopy(RUNNER)
    data["pto"]["benchmark"]["correctness"]["max_abs_diff"] = value  # type: ignore[index]
    return json.dumps(data)


# ------------------------------------------------------------------ report parsers


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"correctness": {"passes": true}, "duration_ms": 1e-322}', "duration_ms"),
        ('{"correctness": {"passes": true}, "duration_ms": ' + "9" * 400 + "}", "duration_ms"),
        ('{"correctness": {"passes": true}, "duration_ms": 1e308}', "duration_ms"),
        ('{"correctness": {"passes": true}, "duration_ms": 1, "TFLOPS": -1}', "TFLOPS"),
        ('{"correctness": {"passes": true}, "duration_ms": 1, "TFLOPS": 1e300}', "TFLOPS"),
        (_diff(1e9), "max_abs_diff"),
        (_diff(-5), "max_abs_diff"),
        (_diff(float("nan")), "max_abs_diff"),
        (_diff(float("inf")), "max_abs_diff"),
        (_diff(True), "max_abs_diff"),
        ("[" * 100_000, "nested"),
    ],
)
def test_absurd_numbers_in_a_report_are_refused_naming_the_key(text: str, key: str) -> None:
    with pytest.raises(ReportError) as refused:
        parse_report_json(text, "report.json", flops=2.0e9)
    assert key in refused.value.render(), refused.value.render()


def test_a_failing_report_may_have_a_large_difference() -> None:
    """max_abs_diff above atol is what a failing report says: no contradiction."""
    data = json.loads(_diff(1e9))
    data["pto"]["benchmark"]["correctness"]["passes"] = False
    result = parse_report_json(json.dumps(data), "report.json")
    assert not result.correct and result.max_abs_diff == 1e9


def test_tflops_from_a_tiny_duration_is_no_number() -> None:
    assert tflops_from(1e-322, 2.0e9) is None
    assert tflops_from(2500.0, 2.0e9) == pytest.approx(0.8)


ROW = "case_a,128,128,1024,128,128,256,1,2,{duration},{duration},67.1,{tflops},OK"


@pytest.mark.parametrize(
    ("duration", "tflops", "key"),
    [
        ("1_000", "NA", "duration_us"),
        (" 1e3x", "NA", "duration_us"),
        ("infinity", "NA", "duration_us"),
        ("1e300", "NA", "duration_us"),
        ("-5", "NA", "duration_us"),
        ("1000", "1_0", "TFLOPS"),
        ("1000", "-1", "TFLOPS"),
        ("1000", "inf", "TFLOPS"),
    ],
)
def test_report_csv_numbers_in_benchmark_syntax_only(duration: str, tflops: str, key: str) -> None:
    text = TILELIB_CSV_HEADER + "\n" + ROW.format(duration=duration, tflops=tflops) + "\n"
    with pytest.raises(ReportError) as refused:
        parse_report_csv(text, "report.csv")
    assert key in refused.value.render() and refused.value.line == 2


def test_a_report_of_the_other_causal_mask_is_another_workload() -> None:
    result = BenchResult(correct=True, duration_us=10.0, extra={"variant": {"S1": 1024, "causal": True}})
    assert "causal" in case_timing({"S1": 1024}, "", {}, result, causal=False).problem
    assert case_timing({"S1": 1024}, "", {}, result, causal=True).problem == ""
    assert case_timing({"S1": 1024}, "", {}, result).problem == ""  # the case's mask unknown


# ------------------------------------------------------------------ MCP inputs


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"tflops": -5.0}, "tflops"),
        ({"tflops": float("inf")}, "tflops"),
        ({"samples_us": [100.0, float("nan")]}, "samples_us[1]"),
        ({"samples_us": [0.0]}, "samples_us[0]"),
        ({"samples_us": [MAX_US * 10]}, "samples_us[0]"),
        ({"reference_us": [-1.0]}, "reference_us[0]"),
    ],
)
def test_mcp_measurement_numbers_are_refused_naming_the_field(fields: dict[str, object], key: str) -> None:
    given = MeasurementInput(build="ok", correctness="pass", **fields)  # type: ignore[arg-type]
    with pytest.raises(InputError) as refused:
        given.to_record()
    assert refused.value.key == key and key in refused.value.message


# ------------------------------------------------------------------ CLI and records


@pytest.fixture(scope="module")
def measured_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = ready_project(tmp_path_factory.mktemp("numbers"))
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/fa.cpp",))) == 0
    return root


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("--samples", "100,101,99", "--tflops", "-1"), "--tflops"),
        (("--samples", "100,101,99", "--tflops", "nan"), "--tflops"),
        (("--samples", "100,101,99", "--reference", "nan,-1"), "--reference"),
        (("--samples", "100,0,99"), "--samples"),
        (("--samples", "100,1_000,99"), "--samples"),
        (("--samples", "1e-322,100"), "--samples"),
        (("--samples", "1e308", "--unit", "ms"), "--samples"),
        (("--samples", "inf"), "--samples"),
    ],
)
def test_round_measure_refuses_absurd_numbers_naming_the_flag(
    measured_project: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], flag: str
) -> None:
    capsys.readouterr()
    measure = ("round", "measure", "--build", "ok", "--correctness", "pass")
    code = cli("--project", measured_project, *measure, *args)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("pto-tui: error: ") and flag in err, err
    assert "measurement" not in (measured_project / "runs" / "iter-001" / "round.toml").read_text()


def test_the_baseline_refuses_a_duration_that_overflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
               "--probe", "ssh=ok") == 0
    capsys.readouterr()
    code = cli("--project", root, "baseline", "--build", "ok", "--correctness", "pass",
               "--samples", "1e308,1e308", "--unit", "ms")
    assert code == 2 and "--samples" in capsys.readouterr().err
    assert not (root / "runs" / "iter-000" / "round.toml").read_text().count("inf")


def test_a_non_finite_number_in_a_record_never_reaches_json(
    measured_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TOML has nan and inf: a hand edit putting one in a record makes it unreadable (named),
    and the JSON printed stays strict."""
    path = measured_project / "runs" / "iter-001" / "round.toml"
    good = path.read_text()
    path.write_text(good + "\n[measurement]\nsamples_us = [nan, 100.0]\ntflops = inf\n")
    try:
        for command in (("rounds", "--json"), ("status", "--json")):
            capsys.readouterr()
            cli("--project", measured_project, *command)
            out, err = capsys.readouterr()
            assert "Traceback" not in err
            data = _strict(out)
            assert "not a finite number" in json.dumps(data) or "not a finite number" in err
    finally:
        path.write_text(good)
    capsys.readouterr()
    assert cli("--project", measured_project, "rounds", "--json") == 0
    _strict(capsys.readouterr().out)


# ------------------------------------------------------------------ round numbers


def test_numbering_gaps_are_bounded_by_the_folders() -> None:
    started = time.perf_counter()
    assert numbering_gaps([0, 1, 3, 99_999_999, 10**4000]) == [2]
    assert time.perf_counter() - started < 0.1
    assert stray_numbers([0, 1, 3, 99_999_999]) == [99_999_999]
    assert stray_numbers([0, 20_000]) == [20_000]  # more than MAX_ROUND_GAP past iter-000
    assert stray_numbers([0, 1, MAX_ROUND + 1]) == [MAX_ROUND + 1]


@pytest.mark.parametrize("name", ["iter-99999999", "iter-" + "9" * 250], ids=["8 digits", "250 digits"])
def test_a_stray_round_folder_is_reported_and_never_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = ready_project(tmp_path)
    (root / "runs" / name).mkdir()
    capsys.readouterr()
    started = time.perf_counter()
    assert cli("--project", root, "status") == 0
    elapsed = time.perf_counter() - started
    out = capsys.readouterr().out
    assert elapsed < 1.0, elapsed  # measured: 0.03 s in process (it took 285 s and 13 GB)
    assert "not a round folder" in out and "missing on disk" not in out
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 0
    assert (root / "runs" / "iter-001").is_dir()  # the next number, not one past the stray
    capsys.readouterr()
    assert cli("--project", root, "status", "--json") == 0
    data = _strict(capsys.readouterr().out)
    assert isinstance(data, dict) and not data["missing_rounds"], data


def test_a_campaign_passes_round_9999(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", 9999)
    project.save()
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 0
    assert (root / "runs" / "iter-10000" / "round.toml").is_file()
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    assert "open round: 10000" in capsys.readouterr().out


def test_a_start_past_the_last_round_number_leaves_nothing_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", MAX_ROUND)
    project.save()
    before = sorted(p.name for p in (root / "runs").iterdir())
    capsys.readouterr()
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 2
    assert str(MAX_ROUND) in capsys.readouterr().err
    assert sorted(p.name for p in (root / "runs").iterdir()) == before


# ------------------------------------------------------------------ import


@pytest.mark.parametrize("text", ["0 us", "0.0 ms", "1e400 ms", "1e13 us", "1e-12 us"])
def test_an_imported_duration_that_is_no_measurement_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration_us(text)


def test_numbers_in_imported_free_text_are_bounded() -> None:
    assert durations_in("3.21 ms -> 0 us") == [3210.0]
    assert tflops_in("9" * 400 + " TFLOPS") is None
    assert tflops_in("12.5 TFLOPS") == 12.5


def test_a_last_round_set_far_past_the_folders_is_one_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pto_tui.core.project.file import ProjectFile

    root = ready_project(tmp_path)
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", 999000)  # as a hand edit would leave it
    project.save()
    started = time.monotonic()
    status = cli_json(capsys, "--project", root, "status")
    assert time.monotonic() - started < 5  # not a million missing rounds listed
    assert isinstance(status, dict) and status["missing_rounds"] == []
    assert any("last_round = 999000 is far past the last round folder" in n for n in status["notices"])
