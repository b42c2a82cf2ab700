"""A perf_sim run read: the total cycles of the printed report, each pipe's busy cycles and
share from the pipeline summary CSV, the bottleneck class the rule names and the evidence
line; every malformed output a ReportError naming what is wrong; the first compiler error
of a failed build picked out of g++'s real output."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pto_tui.core.reports.compiler import first_compiler_error
from pto_tui.core.reports.perf_sim import (
    SUMMARY_COLUMNS,
    PipeBusy,
    bottleneck_class,
    parse_perf_sim_run,
    total_cycles,
)
from pto_tui.core.reports.result import ReportError
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES
from tests.core.perf_sim_build import NEEDS_GXX, build_and_run, derived, operator_copy

HEADER = ",".join(SUMMARY_COLUMNS)
REPORT = "===== Perf-Sim Report: k =====\nCores        : 2\nInstructions : 40\nTotal cycles : 1000\n"


def _row(core: int, unit: str, **cycles: int) -> str:
    values = {name: 0 for name in SUMMARY_COLUMNS[3:]} | {"total_cycles": 1000} | cycles
    return ",".join(["k", str(core), unit, *(str(values[name]) for name in SUMMARY_COLUMNS[3:])])


# two cores: the AIV pipes have four units, the AIC pipes two
CSV = "\n".join(
    [
        HEADER,
        _row(0, "AIC", cube_cycles=700, mte2_aic_cycles=500, scalar_cycles=10),
        _row(0, "AIV0", vec_cycles=600, mte2_aiv_cycles=100, mte3_cycles=50),
        _row(0, "AIV1", vec_cycles=200, mte2_aiv_cycles=100),
        _row(1, "AIC", cube_cycles=900, mte2_aic_cycles=300, fixp_cycles=80),
        _row(1, "AIV0", vec_cycles=400, mte2_aiv_cycles=100),
        _row(1, "AIV1", mte2_aiv_cycles=100),
    ]
)


def test_shares_are_the_mean_busy_fraction_of_each_pipe_over_its_units() -> None:
    result = parse_perf_sim_run(REPORT, CSV)
    assert (result.total_cycles, result.cores, result.instructions) == (1000, 2, 40)
    pipes = {p.name: (p.busy_cycles, round(p.share, 4)) for p in result.pipes}
    assert pipes == {
        "Matrix": (1600, 0.8),  # (700 + 900) / (1000 x 2 AIC)
        "Vector": (1200, 0.3),  # (600 + 200 + 400 + 0) / (1000 x 4 AIV)
        "MTE2": (1200, 0.4),  # AIC side 800 / 2000 = 40% beats the AIV side's 400 / 4000
        "MTE1": (0, 0.0),
        "MTE3": (50, 0.0125),
        "Fixpipe": (80, 0.04),
        "Scalar": (10, 0.005),
    }
    assert result.bottleneck == "AIC/AIV imbalance"  # Matrix 80%, Vector 30% <= 40%
    assert (
        result.evidence == "perf_sim 1000 cycles: Matrix 80% busy, MTE2 40%, Vector 30% → AIC/AIV imbalance"
    )


def test_shares_are_taken_over_each_units_active_window() -> None:
    """A cube-only kernel whose two cores run at different times (as gemm's 24 blocks do):
    core 0 is done after 1000 cycles, core 1 after 4000 (the total). Against the total,
    MTE2 would read 37% busy; over the windows the units were active, 97% and 49%: 59% of
    the 5000 active cycles. The idle vector units count with the total."""
    report = REPORT.replace("Total cycles : 1000", "Total cycles : 4000")
    csv = "\n".join(
        [
            HEADER,
            _row(0, "AIC", total_cycles=1000, active_cycles=1000, mte2_aic_cycles=970, cube_cycles=600),
            _row(0, "AIV0", total_cycles=1000),
            _row(0, "AIV1", total_cycles=1000),
            _row(1, "AIC", total_cycles=4000, active_cycles=4000, mte2_aic_cycles=1960, cube_cycles=600),
            _row(1, "AIV0", total_cycles=4000),
            _row(1, "AIV1", total_cycles=4000),
        ]
    )
    result = parse_perf_sim_run(report, csv)
    assert result.pipe("MTE2") == PipeBusy("MTE2", 2930, 2930 / 5000)
    assert result.pipe("Matrix") == PipeBusy("Matrix", 1200, 1200 / 5000)
    assert result.pipe("Vector") == PipeBusy("Vector", 0, 0.0)
    assert result.bottleneck == "GMEM traffic bound"  # MTE2 the busiest, above half busy


def _pipes(**shares: float) -> tuple[PipeBusy, ...]:
    return tuple(PipeBusy(name, int(share * 1000), share) for name, share in shares.items())


@pytest.mark.parametrize(
    ("shares", "kind"),
    [
        ({"Matrix": 0.19, "Vector": 0.85, "MTE2": 0.30}, "AIC/AIV imbalance"),
        ({"Matrix": 0.45, "Vector": 0.85, "MTE2": 0.30}, ""),  # Matrix above half of Vector
        ({"Matrix": 0.0, "Vector": 0.90, "MTE2": 0.30}, ""),  # a vector-only kernel: no imbalance
        ({"Matrix": 0.40, "Vector": 0.43, "MTE2": 0.23}, "pipeline bubble / poor overlap"),
        ({"Matrix": 0.40, "Vector": 0.20, "MTE2": 0.75}, "GMEM traffic bound"),
        ({"Matrix": 0.60, "Vector": 0.45, "MTE2": 0.30}, ""),
    ],
)
def test_the_bottleneck_rule(shares: dict[str, float], kind: str) -> None:
    assert bottleneck_class(_pipes(**shares)) == kind
    assert kind == "" or kind in BOTTLENECK_CLASSES


def test_the_evidence_names_the_busiest_pipe_when_no_class_applies() -> None:
    csv = "\n".join(
        [HEADER, _row(0, "AIC", cube_cycles=600), _row(0, "AIV0", vec_cycles=900), _row(0, "AIV1")]
    )
    result = parse_perf_sim_run(REPORT, csv)
    assert result.bottleneck == ""
    assert result.evidence == "perf_sim 1000 cycles: Matrix 60% busy, Vector 45% → Matrix the busiest pipe"


@NEEDS_GXX
def test_a_real_run_of_the_stand_in_is_read(tmp_path: Path) -> None:
    root = operator_copy("matmul_op", tmp_path)
    (root / "build").mkdir()
    run = build_and_run(root, root / "build", derived(root))
    assert run.summary_csv is not None
    result = parse_perf_sim_run(run.output, run.summary_csv, "run.log", "MatmulOp_pipeline_summary.csv")
    lines = [line.split(",") for line in run.summary_csv.splitlines()[1:]]
    cube = sum(int(fields[SUMMARY_COLUMNS.index("cube_cycles")]) for fields in lines)
    assert len(lines) == 12 and result.cores == 4  # AIC, AIV0, AIV1 per core
    assert result.pipe("Matrix") == PipeBusy("Matrix", cube, cube / (result.total_cycles * 4))
    assert result.pipe("Vector") == PipeBusy("Vector", 0, 0.0)
    assert result.evidence.startswith(f"perf_sim {result.total_cycles} cycles: MTE2 ")


def test_a_run_without_total_cycles_is_refused_naming_the_line() -> None:
    with pytest.raises(ReportError, match="run.log: the perf_sim run printed no 'Total cycles' line"):
        parse_perf_sim_run("===== Perf-Sim Report: k =====\nCores        : 1\n", CSV, "run.log")
    with pytest.raises(ReportError, match="printed 2 'Total cycles' lines: one kernel launch expected"):
        total_cycles(REPORT + REPORT)
    with pytest.raises(
        ReportError, match=r"\[Total cycles\] Total cycles '12x' is not a non-negative integer"
    ):
        total_cycles("Total cycles : 12x\n")
    with pytest.raises(ReportError, match="'Total cycles' is 0: the kernel recorded no instructions"):
        total_cycles("Total cycles : 0\n")


def test_a_bad_pipeline_summary_is_refused_naming_what_is_wrong() -> None:
    source = "perf_sim_output/k_pipeline_summary.csv"
    with pytest.raises(ReportError, match=f"{source}: the perf_sim run wrote no pipeline summary CSV"):
        parse_perf_sim_run(REPORT, None, csv_source=source)
    without_vec = CSV.replace(",vec_cycles", ",vector")
    with pytest.raises(ReportError, match=f"{source}:1: the pipeline summary CSV has no column vec_cycles"):
        parse_perf_sim_run(REPORT, without_vec, csv_source=source)
    bad = CSV.replace(_row(0, "AIV1", vec_cycles=200, mte2_aiv_cycles=100), _row(0, "AIV1", vec_cycles=-3))
    with pytest.raises(
        ReportError, match=rf"{source}:4: \[vec_cycles\] vec_cycles '-3' is not a non-negative"
    ):
        parse_perf_sim_run(REPORT, bad, csv_source=source)
    short = CSV + "\nk,1,AIV1,1000"
    with pytest.raises(ReportError, match=f"{source}:8: row has 4 fields, the header 16"):
        parse_perf_sim_run(REPORT, short, csv_source=source)
    with pytest.raises(ReportError, match="the pipeline summary CSV has no AIC row"):
        parse_perf_sim_run(REPORT, "\n".join([HEADER, _row(0, "AIV0")]), csv_source=source)
    with pytest.raises(ReportError, match="the pipeline summary CSV is empty"):
        parse_perf_sim_run(REPORT, "\n", csv_source=source)


@NEEDS_GXX
def test_the_first_compiler_error_is_picked_out_of_real_output(tmp_path: Path) -> None:
    (tmp_path / "inc.h").write_text("int broken() { return 1 }\n")
    (tmp_path / "a.cpp").write_text('#include "inc.h"\nint main() { return undefined_name; }\n')
    done = subprocess.run(["g++", "-c", "a.cpp"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "In file included from a.cpp:1" in done.stderr
    error = first_compiler_error(done.stderr)
    assert error is not None and error.startswith("inc.h:1:") and "error: expected" in error
    # a link failure: the linker's cause, not collect2's summary
    (tmp_path / "b.cpp").write_text("int missing();\nint main() { return missing(); }\n")
    done = subprocess.run(
        ["g++", "b.cpp", "-o", "b"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "collect2" in done.stderr
    error = first_compiler_error(done.stderr)
    assert error is not None and "undefined reference to" in error and "missing()" in error
    assert first_compiler_error("make[2]: *** [CMakeFiles/x.dir/build.make:76] Error 1\n") is None
    assert first_compiler_error("\x1b[01;31merror:\x1b[m unknown flag\n") == "error: unknown flag"
