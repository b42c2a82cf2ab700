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
    jobs_listed(root, capsys)
    refused_before_any_job(root, capsys)


def refused_before_any_job(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Once iter-000 is closed, env and baseline are refused by their rule before anything
    runs on the target: no job is started, the refusal is the first thing said."""
    jobs_before = sorted(p.name for p in (root / ".pto-tui" / "jobs").iterdir())
    for step in ("env", "baseline"):
        assert main(["--project", str(root), step]) == 1
        err = capsys.readouterr().err
        assert "refused by rule 'honest-history'" in err, err
    assert sorted(p.name for p in (root / ".pto-tui" / "jobs").iterdir()) == jobs_before


def jobs_listed(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`jobs` lists the steps that ran (build, benchmark, ...), named by round and step;
    pto-tui's bookkeeping (the DSL runner's clock reads and report listings) only with --all."""
    assert main(["--project", str(root), "jobs"]) == 0
    shown = capsys.readouterr().out
    assert "iter-001 benchmark" in shown and "iter-001 build" in shown
    assert "date +%s.%N" not in shown and "-newermt" not in shown
    assert main(["--project", str(root), "jobs", "--all"]) == 0
    everything = capsys.readouterr().out
    assert "date +%s.%N" in everything and "-newermt" in everything
    assert len(everything.splitlines()) > len(shown.splitlines())
    assert main(["--project", str(root), "jobs", "--json"]) == 0
    assert not any(job["internal"] for job in json.loads(capsys.readouterr().out)["jobs"])


def test_round_run_no_close_then_post_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pto_tui.core.campaign.demo import create_demo_project
    from pto_tui.core.project.file import ProjectFile
    from tests.core.helpers import pre_edit_args

    root = create_demo_project("dsl", tmp_path / "projects")
    project = ProjectFile(root / "project.toml")
    project.set("discipline.repeats", 2)
    project.set("discipline.max_repeats", 2)  # a fixed number of runs
    project.save()
    p = ["--project", str(root)]
    assert main([*p, "env"]) == 0
    assert main([*p, "baseline"]) == 0
    # the environment notes of a closed iter-000 are never rewritten
    capsys.readouterr()
    assert main([*p, "env"]) == 1
    assert "refused by rule 'honest-history'" in capsys.readouterr().err
    assert main([*p, "round", "start", *pre_edit_args(scope=("DEMO_ATTN_BLOCK_KV",))]) == 0
    justify = ("--justify", "a small tile, no risk")
    assert main([*p, "round", "changes", "--set", "DEMO_ATTN_BLOCK_KV=32", *justify]) == 0
    capsys.readouterr()
    assert main([*p, "round", "run", "--no-close", "--quiet", "--json"]) == 0
    preview = json.loads(capsys.readouterr().out)
    assert preview["status"] == "open" and preview["verdict"] in ("kept", "neutral", "inconclusive")
    assert main([*p, "round", "close", "--analysis", "tiles", "--next", "more", "--json"]) == 0
    closed = json.loads(capsys.readouterr().out)
    assert closed["status"] == "closed" and closed["verdict"] == preview["verdict"]
    assert (closed["analysis"], closed["next"]) == ("tiles", "more")
