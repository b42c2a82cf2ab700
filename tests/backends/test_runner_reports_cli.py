"""The real CLI records a baseline from report.json files in the pto-kernels runner's structure.

A demo project's benchmark command is replaced by a harness that does what the runner does
on disk: it writes the report under bench/results/<family>/<name>/<UTC stamp>/report.json
(and its copy under bench/generated/, outside the results folder). The reports are the
fixtures of tests/fixtures/runner_reports."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import HAND_ENV, cli, cli_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runner_reports"

RUNNER_LIKE_HARNESS = """\
import shutil
import sys
import time
from pathlib import Path

source = Path(sys.argv[1])
stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
run_dir = Path("bench/results/gmm/grouped_matmul") / stamp
run_dir.mkdir(parents=True, exist_ok=True)
shutil.copyfile(source, run_dir / "report.json")
latest = Path("bench/generated/gmm/grouped_matmul")
latest.mkdir(parents=True, exist_ok=True)
shutil.copyfile(source, latest / "report.json")
print(f"report: {run_dir / 'report.json'}")
"""


def project_reporting(tmp_path: Path, report: Path) -> Path:
    root = create_demo_project("dsl", tmp_path / "projects")
    (root / "workspace/pto-kernels/emit_runner_report.py").write_text(RUNNER_LIKE_HARNESS)
    project = ProjectFile(root / "project.toml")
    project.set("discipline.repeats", 2)
    project.set("discipline.max_repeats", 2)  # a fixed number of runs
    project.set("commands.benchmark", f"python3 emit_runner_report.py {shlex.quote(str(report))}")
    project.save()
    return root


@pytest.mark.parametrize(
    ("fixture", "median_us", "reference_us"),
    [
        ("grouped_matmul_planned_ok.json", 183.3, 37.1),
        ("flash_attention_score_variants.json", 110.4, 65.5),
    ],
)
def test_baseline_from_a_planned_spec_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixture: str, median_us: float, reference_us: float
) -> None:
    root = project_reporting(tmp_path, FIXTURES / fixture)
    p = ["--project", str(root)]
    notes = cli_json(capsys, *p, "env")
    assert isinstance(notes, dict) and notes["passed"] is True, notes
    assert "bench/results/gmm/grouped_matmul/" in notes["first_valid_result"]
    record = cli_json(capsys, *p, "baseline")
    assert isinstance(record, dict)
    measurement = record["measurement"]
    assert measurement["build"] == "ok" and measurement["correctness"] == "pass"
    assert measurement["samples_us"] == pytest.approx([median_us, median_us])
    assert measurement["reference_us"] == pytest.approx([reference_us, reference_us])
    assert all(r.startswith("bench/results/gmm/grouped_matmul/") for r in measurement["reports"])


def test_dry_run_report_is_refused_with_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project_reporting(tmp_path, FIXTURES / "grouped_matmul_dry_run.json")
    p = ["--project", str(root)]
    capsys.readouterr()
    assert cli(*p, "env", "--json") == 1
    notes = json.loads(capsys.readouterr().out)
    assert notes["probes"]["one valid result"] is False
    assert any("[dry_run] a dry run (dry_run = true)" in problem for problem in notes["problems"])
    assert cli(*p, "baseline") != 0  # the environment round comes first
    assert "refused by rule 'environment-round'" in capsys.readouterr().err
    # with the environment round passed by hand, the baseline still judges its own report
    assert cli(*p, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "target=ok") == 0
    assert cli(*p, "baseline") != 0
    err = capsys.readouterr().err
    assert "refused by rule 'valid-baseline'" in err and "run the benchmark without --dry-run" in err


def test_a_variant_outside_tolerance_fails_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's aggregate says it passes, one of its variants does not: no baseline."""
    data = json.loads((FIXTURES / "flash_attention_score_variants.json").read_text())
    data["pto"]["benchmark"]["variant_reports"][2]["correctness"]["max_abs_diff"] = 0.25
    report = tmp_path / "report_with_a_wrong_variant.json"
    report.write_text(json.dumps(data, indent=2, sort_keys=True))
    root = project_reporting(tmp_path, report)
    p = ["--project", str(root)]
    capsys.readouterr()
    assert cli(*p, "env") == 1
    assert cli(*p, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "target=ok") == 0  # passed by hand: the baseline still judges
    capsys.readouterr()
    assert cli(*p, "baseline") != 0
    err = capsys.readouterr().err
    assert "refused by rule 'valid-baseline'" in err
    assert "variant_reports[2] (batch=1" in err and "max_abs_diff 0.25" in err


def test_a_blocked_baseline_fails_the_environment_round_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/workflow.md §6 asks the environment round for a report with both the baseline and the PTO
    kernel benchmarked ok: a blocked baseline fails it, and the problem says why it was blocked."""
    report = FIXTURES / "grouped_matmul_baseline_blocked.json"
    reason = json.loads(report.read_text())["baseline"]["benchmark"]["reason"]
    root = project_reporting(tmp_path, report)
    capsys.readouterr()
    assert cli("--project", str(root), "env", "--json") == 1
    notes = json.loads(capsys.readouterr().out)
    assert notes["probes"]["one valid result"] is False
    problem = next(p for p in notes["problems"] if "no benchmarked baseline" in p)
    assert "baseline.benchmark.status is 'blocked'" in problem and reason.splitlines()[0] in problem


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda d: d["pto"]["benchmark"]["variant_reports"][1]["timings_ms"].update(max=0.1),
            "[pto.benchmark.variant_reports[1].timings_ms.median] 'pto.benchmark.variant_reports[1]"
            ".timings_ms.median' (0.1104 ms) is above",
        ),
        (
            lambda d: d["pto"]["benchmark"]["timings_ms"].update(median=0.0795),
            "[pto.benchmark.timings_ms.median] 'pto.benchmark.timings_ms.median' (0.0795 ms) is below every "
            "variant's median",
        ),
    ],
)
def test_a_run_s_report_that_does_not_add_up_fails_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, expected: str
) -> None:
    """A run whose report.json has timings out of order, or an aggregate that is none of its
    variants', is no measurement: the baseline is refused, naming the file and the field."""
    data = json.loads((FIXTURES / "flash_attention_score_variants.json").read_text())
    assert callable(edit)
    edit(data)
    report = tmp_path / "report_that_does_not_add_up.json"
    report.write_text(json.dumps(data, indent=2, sort_keys=True))
    root = project_reporting(tmp_path, report)
    p = ["--project", str(root)]
    assert cli(*p, "env", *HAND_ENV, "--probe", "target=ok") == 0
    capsys.readouterr()
    assert cli(*p, "baseline") != 0
    err = capsys.readouterr().err
    assert "refused by rule 'valid-baseline'" in err and expected in err, err
    assert "bench/results/gmm/grouped_matmul/" in err  # the run's own report is named
