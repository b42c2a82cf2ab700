"""Predictions beside measurements, the project and record side: which targets `[target]
predict = "perf-sim"` suits (and what `new --predict` refuses), a round's predicted cycles
through round.toml and the export, the predicted change against the measured one, and what
notes.md says. The runs themselves: tests/backends/test_perf_sim_predict_e2e.py."""

from __future__ import annotations

import csv
import io
import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.backends.environment import probes_for
from pto_tui.core.errors import ConfigError
from pto_tui.core.project.parse import parse_config
from pto_tui.core.reports.perf_sim import PipeBusy
from pto_tui.core.rounds.export import COLUMNS, export_rows, read_csv, to_csv
from pto_tui.core.rounds.prediction import (
    AGREES,
    DISAGREES,
    change_cell,
    change_line,
    predicted_change,
    prediction_review,
)
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import CLOSED, Changes, Measurement, Round
from pto_tui.core.rounds.render import render_notes
from pto_tui.core.vocabulary import Verdict
from tests.core.helpers import cli, make_project
from tests.core.perf_sim_build import FIXTURE

ATTN = "kernels/manual/common/attn_op"


def _round(
    number: int, median: float, cycles: int | None, based_on: int | None = 0, problem: str = ""
) -> Round:
    m = Measurement(build="ok", correctness="pass", samples_us=[median, median * 1.01, median * 0.99],
                    target_mode="cpu-sim", predicted_cycles=cycles, prediction_problem=problem)
    verdict = None if number == 0 else Verdict.NEUTRAL
    return Round(number, status=CLOSED, measurement=m, verdict=verdict, changes=Changes(based_on=based_on))


def _new(tmp_path: Path, capsys: pytest.CaptureFixture[str], checkout: Path, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli("new", checkout / ATTN, "--case-spec", "64,128,512", "--compiler", "g++", "--projects-root",
               tmp_path / "projects", *extra)
    return code, capsys.readouterr().err


def test_new_predict_writes_the_key_for_an_npu_or_cpu_sim_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = Path(shutil.copytree(FIXTURE, tmp_path / "pto-isa"))
    code, err = _new(tmp_path, capsys, checkout, "--mode", "cpu-sim", "--predict", "perf-sim")
    assert code == 0, err
    target = tomllib.loads((tmp_path / "projects/attn_op/project.toml").read_text())["target"]
    assert (target["mode"], target["predict"]) == ("cpu-sim", "perf-sim")
    # the target's commands stay the mode's: the samples are CPU-simulation timings
    commands = tomllib.loads((tmp_path / "projects/attn_op/project.toml").read_text())["commands"]
    assert "./attn_op_cpu_sim" in commands["benchmark"]


def test_new_predict_is_refused_where_it_cannot_predict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = Path(shutil.copytree(FIXTURE, tmp_path / "pto-isa"))
    code, err = _new(tmp_path, capsys, checkout, "--mode", "perf-sim", "--predict", "perf-sim")
    assert code == 2 and "--predict perf-sim is for the npu and cpu-sim modes, not perf-sim" in err
    shutil.rmtree(checkout / "include/pto/costmodel/perf_sim")
    code, err = _new(tmp_path, capsys, checkout, "--mode", "cpu-sim", "--predict", "perf-sim")
    assert code == 2
    assert f"--predict perf-sim: {checkout} has no include/pto/costmodel/perf_sim/" in err
    assert not (tmp_path / "projects/attn_op").exists()
    capsys.readouterr()
    with pytest.raises(SystemExit) as parsed:  # argparse refuses it, listing perf-sim
        cli("new", checkout / ATTN, "--predict", "gem5")
    assert parsed.value.code == 2
    assert "invalid choice: 'gem5' (choose from 'perf-sim')" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("operator", "lines", "message"),
    [
        ("fa_tilelib", 'mode = "perf-sim"\npredict = "perf-sim"\n',
         "predict = 'perf-sim' is for the npu and cpu-sim modes, not 'perf-sim' (its samples are perf_sim "
         "cycles already)"),
        ("attention_dsl", 'predict = "perf-sim"\n',
         "predict = 'perf-sim' is not supported yet for pto-dsl operators"),
        ("fa_tilelib", 'predict = "gem5"\n', "unknown predictor 'gem5'; expected perf-sim"),
    ],
)
def test_project_toml_refuses_a_predictor_that_does_not_suit_the_target(
    tmp_path: Path, operator: str, lines: str, message: str
) -> None:
    kwargs = {"case": "attention_s1024"} if operator == "attention_dsl" else {}
    root = make_project(tmp_path, operator, **kwargs)
    text = (root / "project.toml").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("mode =")) + "\n"
    text = text.replace("[target]\n", "[target]\n" + lines, 1)
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", text)
    rendered = caught.value.render()
    assert message in rendered and "target.predict" in rendered, rendered


def test_the_predicted_cycles_survive_round_toml_and_a_bad_count_is_refused() -> None:
    record = _round(1, 60.0, 4594)
    data = round_to_dict(record)
    assert data["measurement"]["predicted_cycles"] == 4594 and "prediction_problem" not in data["measurement"]
    assert round_from_dict(data).measurement.predicted_cycles == 4594
    failed = round_to_dict(_round(2, 60.0, None, problem="perf_sim build failed: x.cpp:3:1: error: no"))
    assert "predicted_cycles" not in failed["measurement"]
    assert round_from_dict(failed).measurement.prediction_problem.endswith("error: no")
    data["measurement"]["predicted_cycles"] = 12.5
    with pytest.raises(ValueError, match="measurement.predicted_cycles is 12.5, not a whole number"):
        round_from_dict(data)


def test_the_predicted_change_is_set_beside_the_measured_one() -> None:
    base, slower = _round(0, 60.0, 44619, None), _round(1, 66.0, 56068)
    change = predicted_change(slower, base)
    assert change is not None and change.predicted == pytest.approx(56068 / 44619 - 1)
    assert change.measured == pytest.approx(0.1) and change.agrees is True
    assert change_line(change) == (
        f"perf_sim prediction: 44619 -> 56068 cycles (+25.7%); measured +10.0%: {AGREES}")
    assert change_cell(change) == "+25.7% / +10.0%"
    faster_round = _round(2, 54.0, 56068)
    faster = predicted_change(faster_round, base)
    assert faster is not None and faster.agrees is False and change_line(faster).endswith(DISAGREES)
    # the same configuration: no change predicted, none judged
    same = predicted_change(_round(3, 61.0, 44619), base)
    assert same is not None and same.agrees is None and "not judged" in change_line(same)
    # a side without a prediction says why; a project that never predicts has no line
    broken = predicted_change(_round(4, 61.0, None, problem="perf_sim run failed: exit code 1"), base)
    assert broken is not None and change_line(broken) == (
        "perf_sim prediction: none (iter-004: perf_sim run failed: exit code 1)")
    plain = Round(5, measurement=Measurement(samples_us=[1.0]))
    assert predicted_change(plain, Round(0, measurement=Measurement(samples_us=[1.0]))) is None
    assert [c.round for c in prediction_review([base, slower, faster_round, plain])] == [1, 2]


def test_the_export_carries_the_prediction_and_reads_an_export_from_before_it() -> None:
    rows = export_rows([_round(0, 60.0, 44619, None), _round(1, 66.0, 56068)], None)
    assert [row.predicted_cycles for row in rows] == [44619, 56068]
    assert rows[0].predicted_change is None and rows[1].predicted_change == pytest.approx(56068 / 44619 - 1)
    assert rows[1].measured_change == pytest.approx(0.1) and rows[1].unit == "us"
    text = to_csv(rows)
    assert read_csv(text) == rows
    table = list(csv.reader(io.StringIO(text)))
    keep = [i for i, name in enumerate(COLUMNS) if not name.startswith(("predicted_", "measured_"))]
    older = "\r\n".join(",".join(f'"{line[i]}"' for i in keep) for line in table) + "\r\n"
    assert [row.predicted_cycles for row in read_csv(older)] == [None, None]


def test_notes_say_the_prediction_and_its_pipes() -> None:
    record = _round(1, 66.0, 56068)
    record.measurement.pipes = [PipeBusy("Vector", 40000, 0.71), PipeBusy("Matrix", 9000, 0.16)]
    notes = render_notes(record)
    assert ("- **perf_sim prediction**: 56068 cycles by pto-isa's perf_sim cycle model for this "
            "configuration (a prediction beside the measurement, never a sample)") in notes
    assert "| Vector | 40000 | 71% |" in notes
    assert "- **perf_sim evidence**: perf_sim 56068 cycles: Vector 71% busy" in notes
    assert " us (median of 3 runs" in notes  # the measurement stays microseconds
    failed = render_notes(_round(2, 60.0, None, problem="perf_sim build failed: x.cpp:3:1: error: no"))
    assert "- **perf_sim prediction**: none: perf_sim build failed: x.cpp:3:1: error: no" in failed
    assert "perf_sim prediction" not in render_notes(Round(3, measurement=Measurement(samples_us=[1.0])))


def test_an_npu_target_predicts_and_its_environment_round_probes_the_drivers_compiler(tmp_path: Path) -> None:
    """The npu mode takes the key as cpu-sim does: its probes stay the NPU's (Bisheng, CANN,
    npu-smi), with the perf_sim driver's compiler after them."""
    root = make_project(tmp_path, "fa_tilelib")
    text = (root / "project.toml").read_text().replace("[target]\n", '[target]\npredict = "perf-sim"\n', 1)
    config = parse_config(root / "project.toml", text)
    assert (config.target.mode.value, config.target.predict) == ("npu", "perf-sim")
    names = [probe.name for probe in probes_for(config)]
    assert names[0] == "bisheng" and "ACL runtime / NPU" in names
    assert names[-2:] == ["g++ (perf_sim driver)", "C++23 compile, link, run (g++, perf_sim)"]
    plain = parse_config(root / "project.toml", (root / "project.toml").read_text())
    assert "g++ (perf_sim driver)" not in [probe.name for probe in probes_for(plain)]
