"""A case is timed by what the report says of that case: in a report of several variants
(the pto-kernels runner's variant_reports), by its own variant's entry, never by the
aggregate (the slowest variant's median); and the entry must be the case's workload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.reports.parsers import parse_report_json
from pto_tui.core.reports.result import BenchResult
from pto_tui.core.rules.workload import AGGREGATE, case_timing

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runner_reports"
REAL = "flash_attention_score_b1_n1_s32_d64.json"  # the real runtime's three variants
SOURCE = "bench/results/attention/flash_attention_score/20260415T081200Z/report.json"
S32_D64 = {"batch": 1, "heads": 1, "seq_len": 32, "head_dim": 64}


def report(name: str = REAL, edit: Any = None) -> BenchResult:
    data = json.loads((FIXTURES / name).read_text())
    if edit is not None:
        edit(data)
    return parse_report_json(json.dumps(data), SOURCE)


def test_a_variant_case_is_timed_by_its_own_entry_not_the_aggregate() -> None:
    result = report()
    assert result.duration_us == pytest.approx(84.8)  # what the baseline recorded before
    timing = case_timing(S32_D64, "float16", {"seed": 0}, result)
    assert timing.problem == "" and timing.median_us == pytest.approx(30.1)
    assert timing.source.startswith("variant_reports[0] (batch=1")
    # the reference is the baseline's entry of the same variant, not its aggregate (65.5)
    assert timing.reference_us == pytest.approx(41.2) and timing.reference_problem == ""


def test_each_variant_case_gets_its_own_entry() -> None:
    result = report()
    s32_d128 = {**S32_D64, "head_dim": 128}
    s64 = {**S32_D64, "seq_len": 64}
    assert case_timing(s32_d128, "float16", {}, result).median_us == pytest.approx(47.2)
    assert case_timing(s64, "float16", {}, result).reference_us == pytest.approx(65.5)


def test_a_case_no_entry_ran_is_another_workload() -> None:
    timing = case_timing({**S32_D64, "seq_len": 128}, "float16", {}, report())
    assert timing.median_us is None
    ran = "no entry of pto.benchmark.variant_reports ran the case (batch=1,heads=1,seq_len=128"
    assert ran in timing.problem
    assert "rule same-workload" in timing.problem and "variant_reports[2] (batch=1" in timing.problem


def test_the_dtype_is_part_of_the_variant_s_workload() -> None:
    timing = case_timing(S32_D64, "bfloat16", {}, report())
    assert timing.median_us is None and "dtype=bfloat16" in timing.problem


def test_entries_of_the_same_shape_are_told_apart_by_the_case_s_settings() -> None:
    def same_shapes(data: dict[str, Any]) -> None:  # the third variant: s32_d64 again, seed 2
        data["pto"]["benchmark"]["variant_reports"][2]["variant"]["head_dim"] = 64

    result = report(edit=same_shapes)
    assert case_timing(S32_D64, "float16", {"seed": 2}, result).median_us == pytest.approx(47.2)
    ambiguous = case_timing(S32_D64, "float16", {}, result)
    assert ambiguous.median_us is None
    assert "2 entries of pto.benchmark.variant_reports match" in ambiguous.problem


def test_a_bench_spec_case_is_timed_by_the_aggregate() -> None:
    """A case naming no variant field (the bench spec: every variant is the workload)."""
    timing = case_timing({}, "float16", {"bench_spec": "bench/specs/attention/x.yaml"}, report())
    assert (timing.median_us, timing.source, timing.problem) == (pytest.approx(84.8), AGGREGATE, "")


def test_a_baseline_without_variant_entries_gives_no_reference() -> None:
    """The older fixture's baseline times every variant together: no honest reference."""
    timing = case_timing(S32_D64, "float16", {}, report("flash_attention_score_variants.json"))
    assert timing.median_us == pytest.approx(80.2) and timing.reference_us is None
    assert "baseline.benchmark has no variant_reports" in timing.reference_problem


def test_variants_timed_together_without_entries_are_refused() -> None:
    def no_entries(data: dict[str, Any]) -> None:
        del data["pto"]["benchmark"]["variant_reports"]

    timing = case_timing(S32_D64, "float16", {}, report(edit=no_entries))
    assert timing.median_us is None
    assert "times 3 variants together" in timing.problem and "rule same-workload" in timing.problem


def test_a_single_variant_report_is_still_checked_as_a_whole() -> None:
    result = report("grouped_matmul_planned_ok.json")
    wrong = case_timing({"m": 64}, "", {}, result)
    assert wrong.median_us == pytest.approx(183.3) and "a different workload" in wrong.problem
    assert case_timing({"m": 128}, "", {}, result).problem == ""
