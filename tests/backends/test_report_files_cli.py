"""`baseline --report FILE` and `round measure --report FILE` (and the MCP tools' `reports`)
read the file with the parsers a run uses: the recorded numbers are the file's, a variant
case's its own variant's, and a file that does not add up is refused naming it.

The project is a PTO-DSL operator inside a copy of the pto-kernels fixture whose runtime
lists the real repository's three variants (b1_n1_s32_d64, b1_n1_s64_d64, b1_n1_s32_d128);
the reports are fixtures in the runner's structure (tests/fixtures/runner_reports). A
PTO-tile-lib project's report.csv is read the same way: its one row of this run."""

from __future__ import annotations

import asyncio
import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.core.helpers import HAND_ENV, cli, cli_json, make_project, pre_edit_args
from tests.mcp.client import agent

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
REPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "runner_reports"
REAL = REPORTS / "flash_attention_score_b1_n1_s32_d64.json"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
KNOB = "PTO_ATTENTION_QK_BASE_M"
JUSTIFY = "64-row QK tiles of a 32x64 case stay well inside the UB"
REAL_VARIANTS = """VARIANTS = (
    DenseBnsdVariant(batch=1, heads=1, seq_len=32, head_dim=64, seed=0),
    DenseBnsdVariant(batch=1, heads=1, seq_len=64, head_dim=64, seed=1),
    DenseBnsdVariant(batch=1, heads=1, seq_len=32, head_dim=128, seed=2),
)
"""


def variant_project(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str = "b1_n1_s32_d64") -> Path:
    """`new` on the operator with the real variants, case `case`, the environment round
    passed by hand (the reports come from elsewhere)."""
    source = tmp_path / "src" / "pto-kernels"
    shutil.copytree(REPO, source)
    runtime = source / FA / "runtime.py"
    text = runtime.read_text()
    start, end = text.index("VARIANTS = ("), text.index(")\n", text.index("VARIANTS = (")) + 2
    runtime.write_text(text[:start] + REAL_VARIANTS + text[end:])
    out = cli_json(capsys, "new", source / FA, "--projects-root", tmp_path / "projects", "--case", case)
    assert isinstance(out, dict)
    root = Path(out["project"])
    assert cli("--project", root, "env", *HAND_ENV, "--probe", "target=ok") == 0
    capsys.readouterr()
    return root


def edited(tmp_path: Path, name: str, edit: Any) -> Path:
    data = json.loads(REAL.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2, sort_keys=True))
    return path


def entry(data: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = data["pto"]["benchmark"]["variant_reports"][index]
    return found


def faster_s32_d64(data: dict[str, Any]) -> None:
    entry(data, 0)["timings_ms"] = {"median": 0.0251, "min": 0.0240, "max": 0.0290}


def recorded_baseline(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((root / "runs/iter-000/round.toml").read_text())
    return data


def test_baseline_report_of_a_variant_case_records_the_variant_s_own_timing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real measurement: the aggregate said 84.8 us (the slowest variant), the case's own
    entry 30.1 us; the reference is the baseline's entry of that variant (41.2 us)."""
    root = variant_project(tmp_path, capsys)
    record = cli_json(capsys, "--project", root, "baseline", "--report", REAL)
    assert isinstance(record, dict)
    measurement = record["measurement"]
    assert measurement["samples_us"] == pytest.approx([30.1])
    assert measurement["reference_us"] == pytest.approx([41.2])
    assert (measurement["build"], measurement["correctness"]) == ("ok", "pass")
    assert measurement["reports"] == [str(REAL)]
    assert recorded_baseline(root)["measurement"]["samples_us"] == pytest.approx([30.1])


def test_each_report_given_is_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = variant_project(tmp_path, capsys)
    other = edited(tmp_path, "second_run.json", faster_s32_d64)
    record = cli_json(capsys, "--project", root, "baseline", "--report", REAL, "--report", other)
    assert isinstance(record, dict)
    assert record["measurement"]["samples_us"] == pytest.approx([30.1, 25.1])


def _min_above_median(data: dict[str, Any]) -> None:
    entry(data, 0)["timings_ms"]["min"] = 0.05


def _aggregate_below_every_variant(data: dict[str, Any]) -> None:
    data["pto"]["benchmark"]["timings_ms"]["median"] = 0.0295


def _aggregate_above_every_variant(data: dict[str, Any]) -> None:
    data["pto"]["benchmark"]["timings_ms"]["median"] = 0.09


def _another_workload(data: dict[str, Any]) -> None:
    entry(data, 0)["variant"]["seq_len"] = 16


def _a_dry_run(data: dict[str, Any]) -> None:
    data["dry_run"] = True
    del data["pto"]["benchmark"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _min_above_median,
            "[pto.benchmark.variant_reports[0].timings_ms.min] 'pto.benchmark.variant_reports[0]"
            ".timings_ms.min' (0.05 ms) is above",
        ),
        (_aggregate_below_every_variant, "'pto.benchmark.timings_ms.median' (0.0295 ms) is below every"),
        (_aggregate_above_every_variant, "'pto.benchmark.timings_ms.median' (0.09 ms) is above every"),
        (_another_workload, "refused by rule 'same-workload': no entry of pto.benchmark.variant_reports"),
        (_a_dry_run, "[dry_run] a dry run"),
    ],
)
def test_a_report_that_does_not_add_up_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Any, expected: str
) -> None:
    root = variant_project(tmp_path, capsys)
    bad = edited(tmp_path, "bad_report.json", edit)
    assert cli("--project", root, "baseline", "--report", bad) != 0
    err = capsys.readouterr().err
    assert f"{bad}: " in err and expected in err, err
    assert "Traceback" not in err
    # nothing was recorded (a recorded baseline cannot be rewritten): the good report makes it
    assert cli("--project", root, "baseline", "--report", REAL) == 0


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--report", "no_such_report.json"], "no_such_report.json: cannot read the report"),
        (["--report", str(REAL), "--samples", "30.1"], "give --report without --samples"),
        (["--report", str(REAL), "--build", "failed"], "a failed build wrote no benchmark report"),
    ],
)
def test_report_arguments_that_cannot_be_used_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    root = variant_project(tmp_path, capsys)
    assert cli("--project", root, "baseline", *args) == 2
    assert expected in capsys.readouterr().err


def start_round(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--project", root, "baseline", "--report", REAL) == 0
    start = pre_edit_args("bigger QK tiles cut per-tile overhead", scope=(KNOB,))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", f"{KNOB}=64", "--justify", JUSTIFY) == 0
    capsys.readouterr()


def test_round_measure_reads_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = variant_project(tmp_path, capsys)
    start_round(root, capsys)
    faster = edited(tmp_path, "round_1.json", faster_s32_d64)
    record = cli_json(capsys, "--project", root, "round", "measure", "--build", "ok", "--report", faster)
    assert isinstance(record, dict)
    assert record["measurement"]["samples_us"] == pytest.approx([25.1])  # not the aggregate 84.8
    assert record["measurement"]["correctness"] == "pass"


def test_a_report_whose_correctness_failed_records_a_failed_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = variant_project(tmp_path, capsys)
    start_round(root, capsys)

    def wrong(data: dict[str, Any]) -> None:
        data["pto"]["benchmark"]["correctness"].update(max_abs_diff=0.25, passes=False)
        entry(data, 1)["correctness"]["max_abs_diff"] = 0.25

    report = edited(tmp_path, "wrong_result.json", wrong)
    p = ["--project", str(root), "round", "measure", "--build", "ok", "--report", str(report)]
    assert cli(*p, "--correctness", "pass") == 2  # the file says otherwise
    assert "correctness pass was given, but the report says otherwise" in capsys.readouterr().err
    record = cli_json(capsys, *p)
    assert isinstance(record, dict)
    measurement = record["measurement"]
    assert measurement["correctness"] == "fail" and not measurement.get("samples_us")
    assert "max_abs_diff 0.25" in measurement["problem"]


async def _mcp_baseline(root: Path, bad: Path) -> None:
    async with agent(root) as a:  # reports outside the server's roots are not read
        refused = await a.call("baseline", measurement={"build": "ok", "reports": [str(REAL)]})
        assert refused["is_error"] and refused["error"]["type"] == "outside_roots", refused
        assert refused["error"]["path"] == str(REAL.resolve())
    async with agent(root, roots=(bad.parent, REAL.parent)) as a:
        refused = await a.call("baseline", measurement={"build": "ok", "reports": [str(bad)]})
        assert refused["is_error"] is True
        assert str(bad) in refused["error"]["message"], refused
        assert "is below every variant's median" in refused["error"]["message"]
        record = await a.ok("baseline", measurement={"build": "ok", "reports": [str(REAL)]})
        assert record["measurement"]["samples_us"] == pytest.approx([30.1])
        assert record["measurement"]["reference_us"] == pytest.approx([41.2])


def test_the_mcp_baseline_reads_its_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = variant_project(tmp_path, capsys)
    bad = edited(tmp_path, "bad_report.json", _aggregate_below_every_variant)
    asyncio.run(_mcp_baseline(root, bad))


async def _mcp_round_measure(root: Path, relative: str) -> None:
    async with agent(root) as a:
        refused = await a.call(
            "round_measure", measurement={"build": "ok", "reports": ["bench/results/none/report.json"]}
        )
        assert refused["is_error"] is True and "cannot read the report" in refused["error"]["message"]
        record = await a.ok("round_measure", measurement={"build": "ok", "reports": [relative]})
        assert record["measurement"]["samples_us"] == pytest.approx([25.1])


def test_the_mcp_round_measure_reads_reports_below_the_operator_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = variant_project(tmp_path, capsys)
    start_round(root, capsys)
    relative = "bench/results/attention/flash_attention_score/20260415T090000Z/report.json"
    target = root / "workspace/pto-kernels" / relative
    target.parent.mkdir(parents=True)
    shutil.copyfile(edited(tmp_path, "round_1.json", faster_s32_d64), target)
    asyncio.run(_mcp_round_measure(root, relative))


CSV_HEADER = (
    "case,HEAD,S0,S1,CUBE_S0,CUBE_S1,TILE_S1,start_time,end_time,duration_us,avg_block_us,GOPS,TFLOPS,result"
)
CASE = "case_float_H_128_S0_128_S1_1024"
CSV_ROW = CASE + ",128,128,1024,128,128,256,1508216,492317358,{us},{us},67.1,0.01,{result}"


def tilelib_project(tmp_path: Path) -> Path:
    root = make_project(tmp_path, "fa_tilelib")
    assert cli("--project", root, "env", *HAND_ENV, "--probe", "target=ok") == 0
    return root


def csv_report(tmp_path: Path, *rows: tuple[float, str]) -> Path:
    path = tmp_path / "report.csv"
    lines = [CSV_HEADER, *(CSV_ROW.format(us=us, result=result) for us, result in rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_tilelib_report_csv_gives_its_row_s_duration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tilelib_project(tmp_path)
    record = cli_json(capsys, "--project", root, "baseline", "--report", csv_report(tmp_path, (812.5, "OK")))
    assert isinstance(record, dict)
    assert record["measurement"]["samples_us"] == pytest.approx([812.5])


def test_a_report_csv_of_several_runs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The binary appends to report.csv on every run: which row is this run's cannot be told."""
    root = tilelib_project(tmp_path)
    report = csv_report(tmp_path, (812.5, "OK"), (790.0, "OK"))
    capsys.readouterr()
    assert cli("--project", root, "baseline", "--report", report) == 2
    err = capsys.readouterr().err
    assert f"{report}: this run wrote 2 rows" in err


def test_a_nok_row_is_a_failed_correctness_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tilelib_project(tmp_path)
    report = csv_report(tmp_path, (812.5, "NOK"))
    capsys.readouterr()
    assert cli("--project", root, "baseline", "--report", report) != 0
    err = capsys.readouterr().err
    assert "refused by rule 'valid-baseline'" in err and f"report.csv marks {CASE} NOK" in err
