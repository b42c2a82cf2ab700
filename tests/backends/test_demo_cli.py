"""The README's main job: `pto-tui demo --run` on a fresh directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.cli.main import main


def test_demo_run_headless(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    projects = tmp_path / "projects"
    code = main(["demo", "--run", "--rounds", "2", "--projects-root", str(projects), "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(out)
    assert data["status"]["environment_passed"] is True
    assert data["status"]["torch_baseline"]["label"].startswith("CPU reference")
    verdicts = [r["verdict"] for r in data["rounds"]]
    assert verdicts[0] == "baseline" and len(verdicts) == 3
    assert all(v in ("kept", "neutral", "failure", "inconclusive") for v in verdicts[1:])
    chart = Path(data["chart"])
    assert chart.is_file() and chart.stat().st_size > 20_000
    root = projects / "demo_attention"
    assert (root / "runs/iter-002/notes.md").is_file()
    # running again continues the script instead of starting over
    assert main(["demo", "--run", "--rounds", "1", "--projects-root", str(projects), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [r["round"] for r in again["rounds"]] == [0, 1, 2, 3]
