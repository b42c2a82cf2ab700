"""Parsers of benchmark results: both report.json schemas, report.csv, the binary's output.
Every malformed case is a named ReportError, never a crash or a silent pass."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pto_tui.core.reports.parsers import (
    TILELIB_CSV_HEADER,
    ReportError,
    attention_flops,
    count_csv_rows,
    parse_report_csv,
    parse_report_json,
    parse_tilelib_output,
)

RUNNER = {
    "status": "ok",
    "name": "flash_attention_s1024",
    "family": "attention",
    "device": {"soc": "Ascend910B1", "npu_arch": "dav-2201", "toolkit_version": "8.0"},
    "bench": {"warmup": 20, "repeat": 100, "statistic": "median"},
    "correctness": {"atol": 1e-3, "rtol": 1e-3},
    "baseline": {"benchmark": {"status": "ok", "timings_ms": {"median": 3.2, "min": 3.1, "max": 3.4}}},
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


def runner(**edits: object) -> str:
    data = copy.deepcopy(RUNNER)
    for path, value in edits.items():
        node: Any = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[part]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return json.dumps(data)


def test_runner_schema() -> None:
    result = parse_report_json(runner(), "r.json", flops=2.0e9)
    assert result.correct and result.duration_us == pytest.approx(2500.0)
    assert result.reference_us == pytest.approx(3200.0) and result.min_us == pytest.approx(2400.0)
    assert result.tflops == pytest.approx(2.0e9 / 2.5e-3 / 1e12)


def test_flat_schema() -> None:
    result = parse_report_json('{"correctness": {"passes": true}, "duration_ms": 1.5, "TFLOPS": 12.5}', "r")
    assert result.correct and result.duration_us == 1500.0 and result.tflops == 12.5
    computed = parse_report_json('{"correctness": {"passes": true}, "duration_ms": 2}', "r", flops=4e9)
    assert computed.tflops == pytest.approx(2.0)


def test_failed_correctness_is_reported_not_raised() -> None:
    result = parse_report_json(runner(pto__benchmark__correctness__passes=False), "r")
    assert not result.correct and "correctness failed" in result.detail


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "report is empty"),
        ('{"pto": {"benchmark": {"status": "ok", "timings_ms": {"med', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"hello": 1}', "unknown report schema"),
        (runner(pto__benchmark__status="blocked", pto__benchmark__reason="no NPU"), "blocked: no NPU"),
        (runner(pto__benchmark__correctness__passes=None), "missing key 'pto.benchmark.correctness.passes'"),
        (runner(pto__benchmark__correctness__passes="yes"), "not true/false"),
        (runner(pto__benchmark__timings_ms=None), "missing key 'pto.benchmark.timings_ms'"),
        (runner(pto__benchmark__timings_ms={"median": "fast"}), "not a finite number"),
        ('{"correctness": {"passes": true}}', "missing key 'duration_ms'"),
        ('{"correctness": {"passes": true}, "duration_ms": NaN}', "not a finite number"),
    ],
)
def test_malformed_reports(text: str, message: str) -> None:
    with pytest.raises(ReportError) as info:
        parse_report_json(text, "bench/results/x/report.json")
    assert message in info.value.render()
    assert "bench/results/x/report.json" in info.value.render()


@pytest.mark.parametrize("status", ["planned", "prototype", "error"])
def test_top_level_status_is_the_spec_maturity_not_the_outcome(status: str) -> None:
    """The runner copies the spec's status to the top level; the outcome is pto.benchmark.status."""
    result = parse_report_json(runner(status=status), "r")
    assert result.correct and result.spec_status == status and result.duration_us == pytest.approx(2500.0)


def test_blocked_baseline_is_no_reference() -> None:
    result = parse_report_json(
        runner(baseline__benchmark={"status": "blocked", "reason": "torch_npu missing"}), "r"
    )
    assert result.correct and result.reference_us is None


ROW = (
    "case_float_H_128_S0_128_S1_1024,128,128,1024,128,128,256,1508216,492317358,"
    "9816.5,9816.5,67.1,{tflops},{result}"
)


def csv_text(*rows: str) -> str:
    return TILELIB_CSV_HEADER + "\n" + "".join(r + "\n" for r in rows)


def test_report_csv_rows_of_this_run_only() -> None:
    old = ROW.format(tflops="0.000007", result="OK").replace("9816.5", "20000.0")
    new = ROW.format(tflops="NA", result="OK")
    text = csv_text(old, new)
    assert count_csv_rows(csv_text(old)) == 1
    rows = parse_report_csv(text, "report.csv", skip_rows=1)
    assert len(rows) == 1 and rows[0].duration_us == 9816.5 and rows[0].tflops is None and rows[0].ok
    assert parse_report_csv(csv_text(ROW.format(tflops="1.5", result="NOK")), "r")[0].ok is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "report.csv is empty"),
        ("case,HEAD\nx,1\n", "header lacks duration_us, TFLOPS, result"),
        (csv_text("case_float,128,128"), "row has 3 fields"),
        (csv_text(ROW.format(tflops="NA", result="OK").replace("9816.5,", "slow,", 1)), "is not a number"),
        (csv_text(ROW.format(tflops="lots", result="OK")), "TFLOPS 'lots'"),
        (csv_text(ROW.format(tflops="NA", result="MAYBE")), "neither OK nor NOK"),
    ],
)
def test_malformed_csv(text: str, message: str) -> None:
    with pytest.raises(ReportError) as info:
        parse_report_csv(text, "build/report.csv")
    assert message in info.value.render()


def test_tilelib_output() -> None:
    ok = parse_tilelib_output("max diff: 0.0001\ntest success\n[SUMMARY] o_out status: OK\n")
    assert ok.correct is True and ok.max_diff == "0.0001"
    bad = parse_tilelib_output("max diff: 3.2\ntest failed\n[SUMMARY] o_out status: FAIL\n")
    assert bad.correct is False
    assert parse_tilelib_output("Segmentation fault\n").correct is None
    assert parse_tilelib_output("test success\ntest failed\n").correct is False
    none = parse_tilelib_output("[WARN] No cases matched filters; check --case/--cases values.\n")
    assert none.no_case_matched and none.correct is None
    # "test success" inside another line does not count
    assert parse_tilelib_output("echo test success later\n").correct is None


def test_attention_flops() -> None:
    assert attention_flops(1, 2, 512, 512, 64, False) == 4 * 2 * 512 * 512 * 64
    assert attention_flops(1, 2, 512, 512, 64, True) == 2 * 2 * 512 * 512 * 64
