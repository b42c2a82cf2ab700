"""`pto-tui chart`, `export` and `report` end to end on a small real project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.rounds.export import export_rows, read_csv, read_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "operators" / "fa_tilelib"
CHECKS = [
    arg
    for key in (
        "tile_shape",
        "gm_ub_traffic",
        "small_transfer",
        "barrier_sync",
        "ub_pressure",
        "pipeline_overlap",
        "aic_aiv_balance",
        "bottleneck_shift",
    )
    for arg in ("--check", f"{key}=checked")
]


def run(project: Path, *args: str) -> int:
    return main(["--project", str(project), *args])


def start(project: Path, title: str, hypothesis: str, param: str) -> None:
    answers = {
        "--kernel": "fa_tilelib",
        "--bottleneck": "bad tile shape",
        "--evidence": "UB 40% used",
        "--hypothesis": hypothesis,
        "--why": "fewer GM loads per tile",
        "--metric": "duration",
        "--risk": "UB overflow",
        "--correctness-plan": "the binary's check",
        "--title": title,
    }
    options = [item for pair in answers.items() for item in pair]
    scope = ["--scope", param, "--scope", "workspace/kernel/fa_kernel.h"]
    assert run(project, "round", "start", *options, *CHECKS, *scope) == 0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Baseline, torch_npu reference, a kept round, a failed build, an open round."""
    base = tmp_path_factory.mktemp("cli")
    root = base / "projects" / "fa_tilelib"
    assert (
        main(
            [
                "new",
                str(FIXTURE),
                "--case-spec",
                "128,128,1024,128",
                "--shape",
                "S=1024",
                "--projects-root",
                str(base / "projects"),
            ]
        )
        == 0
    )
    assert run(root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--version", "cann=8.0.RC3") == 0
    assert run(root, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "1000,1002,998") == 0
    assert run(root, "torch-baseline", "--avg", "800", "--min", "790", "--max", "820") == 0
    start(root, "kFaTileS1 512", "增大 kFaTileS1 到 512 减少搬运", "kFaTileS1")
    assert run(root, "round", "changes", "--set", "kFaTileS1=512", "--justify", "512 still fits in UB") == 0
    assert (
        run(root, "round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "700,701,699")
        == 0
    )
    assert run(root, "round", "close", "--analysis", "fewer GM loads") == 0
    start(root, "preload 2", "a shorter preload", "kFaQkPreload")
    assert run(root, "round", "changes", "--set", "kFaQkPreload=2") == 0
    assert run(root, "round", "measure", "--build", "failed", "--problem", "bad template") == 0
    assert run(root, "round", "close", "--analysis", "the template needs 4") == 0
    start(root, "still open", "an open round", "kFaQkPreload")
    return root


def test_chart_writes_png_and_svg(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "chart", "--svg", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    png = project / "summary_chart.png"
    assert data["png"] == str(png) and data["svg"] == str(project / "summary_chart.svg")
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 30_000
    assert (project / "summary_chart.svg").stat().st_size > 10_000
    assert [a["round"] for a in data["x_axis"]] == [0, 1, 2]  # the open round 3 is not charted
    assert data["milestones"] == [1] and data["best_round"] == 1
    assert data["units"] == "us" and data["log_scale"] is False


def test_chart_output_path(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "slides" / "fa.png"
    assert run(project, "chart", "--output", str(out)) == 0
    assert out.is_file() and not out.with_suffix(".svg").exists()


def test_chart_output_must_be_png(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "chart", "--output", "chart.pdf") == 2
    assert "must end in .png" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_round_trips(project: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"rounds.{fmt}"
    assert run(project, "export", "--format", fmt, "--output", str(out)) == 0
    with open(out, encoding="utf-8", newline="") as handle:
        text = handle.read()
    rows = read_csv(text) if fmt == "csv" else read_json(text)
    with Campaign(project) as campaign:
        expected = export_rows(campaign.rounds(), campaign.torch_baseline())
    assert rows == expected
    assert [r.round for r in rows] == [0, 1, 2, 3]
    assert rows[1].parameters == [{"name": "kFaTileS1", "old": 256, "new": 512}]
    assert rows[1].snapshot["kFaTileS1"] == 512
    assert rows[1].files == ["workspace/kernel/fa_kernel.h"]
    assert rows[1].fingerprint and rows[1].fingerprint == rows[0].fingerprint
    assert rows[0].toolchain == {"cann": "8.0.RC3"}
    assert rows[2].verdict == "failure" and rows[2].problem == "bad template"


def test_export_markdown_to_stdout(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, "export", "--format", "md") == 0
    out = capsys.readouterr().out
    assert out.startswith("# Rounds of fa_tilelib")
    assert "| 1 | " in out and "kFaTileS1 256→512" in out and "| open |" in out


def test_report_draws_the_chart_when_missing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("summary_chart.png", "REPORT.md"):
        (project / name).unlink(missing_ok=True)
    assert run(project, "report", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chart_drawn"] is True and (project / "summary_chart.png").is_file()
    text = (project / "REPORT.md").read_text(encoding="utf-8")
    assert "![Summary chart](summary_chart.png)" in text
    assert "### iter-001: kFaTileS1 512" in text and "增大 kFaTileS1 到 512 减少搬运" in text
    assert "### iter-002: preload 2" in text and "the template needs 4" in text
    assert "- **What happened**: build failed; bad template" in text
    assert "| PTO best (iter-001) | 700.0 us |" in text
    # a second report reuses the chart, which is up to date
    assert run(project, "report", "--json") == 0
    assert json.loads(capsys.readouterr().out)["chart_drawn"] is False


def test_report_elsewhere_links_the_chart_relatively(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "docs" / "fa-report.md"
    assert run(project, "report", "--output", str(out)) == 0
    text = out.read_text(encoding="utf-8")
    link = text.split("![Summary chart](", 1)[1].split(")", 1)[0]
    assert not link.startswith("/")
    assert (out.parent / link).resolve() == (project / "summary_chart.png").resolve()


def test_commands_on_an_empty_project_fail_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "projects" / "fa_tilelib"
    shutil.rmtree(root, ignore_errors=True)
    assert main(["new", str(FIXTURE), "--projects-root", str(tmp_path / "projects")]) == 0
    capsys.readouterr()
    for command in (["chart"], ["report"]):
        assert run(root, *command) == 2
        err = capsys.readouterr().err
        assert "nothing to chart" in err and "Traceback" not in err
    assert not (root / "summary_chart.png").exists() and not (root / "REPORT.md").exists()
    assert run(root, "export", "--format", "csv") == 0  # an empty table is still a table
    assert capsys.readouterr().out.startswith("round,status,")
