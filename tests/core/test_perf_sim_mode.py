"""The perf-sim target mode's project side: what `new --mode perf-sim` refuses (a checkout
without perf_sim, an operator without a CPU simulation, one whose driver cannot be derived
and whose marker names none, a marker key that is wrong) and writes (the commands), the
unit and pipes a measurement records, the evidence offered to the Pre-Edit form."""

from __future__ import annotations

import csv
import io
import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.campaign.prefill import perf_sim_evidence_of
from pto_tui.core.project.modes import CYCLES, MODES, sample_unit_of
from pto_tui.core.reports.perf_sim import PipeBusy
from pto_tui.core.rounds.export import COLUMNS, export_rows, read_csv, to_csv
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import CLOSED, Measurement, Round
from pto_tui.core.vocabulary import TargetMode, Verdict
from tests.core.helpers import cli
from tests.core.perf_sim_build import FIXTURE

ATTN = "kernels/manual/common/attn_op"
MATMUL = "kernels/manual/a2a3/matmul_op"
SECOND = "template void LaunchMatmulOp<float>(uint8_t *out, uint8_t *src0, uint8_t *src1, void *stream);\n"


def _checkout(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "pto-isa"))


def _new(tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli("new", source, "--mode", "perf-sim", "--compiler", "g++", "--projects-root",
               tmp_path / "projects", *extra)
    return code, capsys.readouterr().err


def test_the_mode_is_cycles_simulated_deterministic() -> None:
    spec = MODES[TargetMode.PERF_SIM]
    assert spec.simulated and spec.cpu_simulation and spec.perf_sim and spec.deterministic
    assert sample_unit_of(TargetMode.PERF_SIM) == CYCLES and sample_unit_of(TargetMode.CPU_SIM) == ""


def test_new_writes_the_cpu_simulation_build_and_correctness_and_the_driver_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = _checkout(tmp_path)
    code, err = _new(tmp_path, checkout / ATTN, capsys, "--case-spec", "64,128,512")
    assert code == 0, err
    data = tomllib.loads((tmp_path / "projects/attn_op/project.toml").read_text())
    commands = data["commands"]
    assert "cmake -DPTO_CPU_SIM_STANDALONE=ON" in commands["build"]
    generator = "generate_cases.py --cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD}"
    assert generator in commands["build"]
    assert commands["correctness"] == (
        "cd build && python3 ../scripts/gen_data.py --cases {case},{CUBE_S0},{TILE_S1}"
        " && ./attn_op_cpu_sim --cases {case}"
    )
    assert commands["benchmark"] == "cd build-perf_sim && rm -rf perf_sim_output && ./perf_sim_driver"
    assert commands["results"] == "build-perf_sim/perf_sim_output"
    assert data["target"]["mode"] == "perf-sim"
    # the include tree came with the operator: the workspace holds perf_sim and the generator
    include = tmp_path / "projects/attn_op/workspace/kernel/include/pto/costmodel"
    assert (include / "perf_sim/launch.hpp").is_file()
    assert (include / "a2a3/formula_costmodel/params/formula_params.csv").is_file()


def test_a_gemm_shaped_operator_generates_its_data_where_its_binary_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's gemm_performance: no case generator, and a data generator that takes no
    --cases and writes into the folder it runs in, from which the binary reads ../input."""
    code, err = _new(tmp_path, _checkout(tmp_path) / MATMUL, capsys)
    assert code == 0, err
    commands = tomllib.loads((tmp_path / "projects/matmul_op/project.toml").read_text())["commands"]
    assert "generate_cases.py" not in commands["build"]
    assert "cmake -DPTO_CPU_SIM_STANDALONE=ON" in commands["build"]
    # its main() takes no arguments: the binary gets no --cases
    assert commands["correctness"] == (
        "cd build && (cd .. && python3 scripts/gen_data.py) && ./matmul_op_cpu_sim")
    text = (tmp_path / "projects/matmul_op/project.toml").read_text()
    assert "main.cpp:30 reads its data from the operator folder, where gen_data.py runs" in text
    assert "scripts/gen_data.py takes no --cases" in text
    assert "its main() reads no --cases" in text


def test_an_operator_without_scripts_gets_no_script_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = _checkout(tmp_path)
    shutil.rmtree(checkout / MATMUL / "scripts")
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 0, err
    commands = tomllib.loads((tmp_path / "projects/matmul_op/project.toml").read_text())["commands"]
    assert "generate_cases.py" not in commands["build"]
    assert commands["correctness"] == "cd build && ./matmul_op_cpu_sim"


def test_a_checkout_without_perf_sim_is_refused_naming_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = _checkout(tmp_path)
    shutil.rmtree(checkout / "include/pto/costmodel/perf_sim")
    code, err = _new(tmp_path, checkout / ATTN, capsys, "--case-spec", "64,128,512")
    assert code == 2
    assert f"{checkout} has no include/pto/costmodel/perf_sim/ (pto-isa's perf_sim cycle model)" in err
    assert "use another --mode" in err and not (tmp_path / "projects/attn_op").exists()


def test_an_operator_without_a_cpu_simulation_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Correctness comes from the CPU simulation: without it (pto-isa's topk) no round could
    be checked, so none is measured."""
    checkout = _checkout(tmp_path)
    lists = checkout / MATMUL / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("PTO_CPU_SIM_STANDALONE", "PTO_SIM_OFF"))
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 2
    assert "CMakeLists.txt: no PTO_CPU_SIM_STANDALONE option: the perf-sim mode checks correctness in " \
           "pto-isa's CPU simulation, which this operator's build cannot configure" in err


def test_a_driver_that_cannot_be_derived_is_refused_unless_the_marker_names_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = _checkout(tmp_path)
    kernel = checkout / MATMUL / "matmul_op_kernel.cpp"
    first = SECOND.replace("<float>", "<uint16_t>")
    kernel.write_text(kernel.read_text().replace(first, first + SECOND))
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 2
    assert "no perf_sim driver derived: LaunchMatmulOp has 2 explicit instantiations" in err
    assert 'name a hand-written driver in the operator marker (perf_sim_driver = "path")' in err
    # a marker naming a driver that is not there is refused, naming the file and the key
    marker = checkout / MATMUL / "pto-operator.toml"
    marker.write_text('kind = "pto-tile-lib"\nperf_sim_driver = "drivers/perf_sim_main.cpp"\n')
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 2 and f"{marker}" in err and "[perf_sim_driver]" in err and "no such file" in err
    marker.write_text('kind = "pto-tile-lib"\nperf_sim_driver = "../../outside.cpp"\n')
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 2 and "must lie inside the operator folder" in err
    (checkout / MATMUL / "drivers").mkdir()
    (checkout / MATMUL / "drivers/perf_sim_main.cpp").write_text("int main() { return 0; }\n")
    marker.write_text('kind = "pto-tile-lib"\nperf_sim_driver = "drivers/perf_sim_main.cpp"\n')
    code, err = _new(tmp_path, checkout / MATMUL, capsys)
    assert code == 0, err


def _measured(number: int, cycles: float, pipes: list[PipeBusy], verdict: Verdict | None = None) -> Round:
    m = Measurement(build="ok", correctness="pass", samples_us=[cycles, cycles], target_mode="perf-sim",
                    unit=CYCLES, pipes=pipes)
    return Round(number, status=CLOSED, measurement=m, verdict=verdict)


PIPES = [PipeBusy("Matrix", 8288, 0.19), PipeBusy("Vector", 38008, 0.46), PipeBusy("MTE2", 23850, 0.25)]


def test_a_measurement_keeps_its_unit_and_pipes_through_round_toml() -> None:
    record = _measured(1, 44619.0, PIPES, Verdict.NEUTRAL)
    data = round_to_dict(record)
    assert data["measurement"]["unit"] == "cycles" and data["measurement"]["pipes"][1] == {
        "name": "Vector", "busy_cycles": 38008, "share": 0.46
    }
    back = round_from_dict(data)
    assert back.measurement.unit == CYCLES and back.measurement.pipes == PIPES and back.sample_unit == CYCLES
    # a record before units: microseconds, no pipes
    old = round_to_dict(Round(2, measurement=Measurement(samples_us=[10.0])))
    assert "unit" not in old["measurement"] and "pipes" not in old["measurement"]
    assert round_from_dict(old).measurement.unit == ""


def test_the_export_says_the_unit_and_reads_an_export_from_before_it() -> None:
    rows = export_rows([_measured(0, 44619.0, PIPES), _measured(1, 56068.0, PIPES, Verdict.NEUTRAL)], None)
    assert [row.unit for row in rows] == ["cycles", "cycles"]
    assert rows[1].speedup_vs_initial == pytest.approx(44619 / 56068) and rows[1].tflops is None
    text = to_csv(rows)
    assert read_csv(text) == rows
    # an export written before the unit column: read as microseconds
    table = list(csv.reader(io.StringIO(text)))
    at = COLUMNS.index("unit")
    older = "\r\n".join(",".join(f'"{c}"' for c in line[:at] + line[at + 1:]) for line in table) + "\r\n"
    assert [row.unit for row in read_csv(older)] == ["us", "us"]


def test_the_evidence_offered_is_the_frontiers_pipes() -> None:
    base = _measured(0, 44619.0, PIPES)
    slower = _measured(1, 56068.0, [PipeBusy("Vector", 40000, 0.37)], Verdict.NEUTRAL)
    evidence = perf_sim_evidence_of([base, slower])
    assert evidence == (
        "iter-000: perf_sim 44619 cycles: Vector 46% busy, MTE2 25%, Matrix 19% → "
        "pipeline bubble / poor overlap"
    )
    assert perf_sim_evidence_of([Round(0, status=CLOSED, measurement=Measurement(samples_us=[9.0]))]) == ""
