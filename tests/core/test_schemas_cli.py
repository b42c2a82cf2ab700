"""Every `--json` output has a schema in docs/json/ (with a version, listed in its README),
and the real commands' output validates against it: setup, recording, costmodel and
suggestions, export, report, jobs and the demo."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pto_tui.cli.main import build_parser
from pto_tui.core.campaign.demo import create_demo_project
from tests.core.helpers import cli, run_round
from tests.costmodel.conftest import copy_stub
from tests.json_check import validate

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "json"
DEMO_FA = REPO / "pto_tui" / "demo" / "operators" / "demo_fa"
CASE = "case_float_H_128_S0_128_S1_1024"


def out(capsys: pytest.CaptureFixture[str], *args: object, code: int = 0) -> Any:
    capsys.readouterr()
    assert cli(*args) == code, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def json_commands() -> list[str]:
    """Every sub-command that takes --json, e.g. "round start"."""
    found: list[str] = []

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*prefix, name])
        if any("--json" in action.option_strings for action in parser._actions):
            found.append(" ".join(prefix))

    walk(build_parser(), [])
    return found


def test_every_json_command_and_schema_is_documented_with_a_version() -> None:
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    undocumented = [c for c in json_commands() if f"`pto-tui {c}" not in readme]
    assert undocumented == []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(schema.get("schema_version"), int), path.name
        assert f"`{path.name}`" in readme, f"{path.name} is not in docs/json/README.md"


def test_setup_recording_costmodel_and_export_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = copy_stub(tmp_path / "pto-isa")
    shutil.copytree(DEMO_FA, tmp_path / "src")
    validate("scan", out(capsys, "scan", tmp_path / "src", "--json"))
    validate("new", out(capsys, "new", tmp_path / "src", "--projects-root", tmp_path / "projects",
                        "--case", CASE, "--json"))
    p = ["--project", tmp_path / "projects" / "demo_fa"]
    env = out(capsys, *p, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok", "--json")
    validate("env", env)
    assert env["environment_passed"] is True and env["probes"] == {"ssh": True, "build": True}
    validate("round", out(capsys, *p, "baseline", "--build", "ok", "--correctness", "pass",
                          "--samples", "100,101,99", "--json"))
    validate("torch-baseline", out(capsys, *p, "torch-baseline", "--avg", "120", "--min", "118",
                                   "--max", "123", "--json"))
    validate("phase", out(capsys, *p, "phase", "--json"))
    validate("phase", out(capsys, *p, "phase", "fine-tune", "--json"))
    validate("classes", out(capsys, *p, "round", "classes", "--json"))
    validate("config-keys", out(capsys, "config", "keys", "--json"))
    root = tmp_path / "projects" / "demo_fa"
    assert run_round(root, "120,121,119", params=("TILE_S1=128",)) == 0
    assert run_round(root, "80,81,79", params=("TILE_S1=128",)) == 0
    validate("round", out(capsys, *p, "amend", "1", "--field", "analysis", "--value", "reworded",
                          "--why", "a typo in the analysis", "--json"))
    engine = ["--pto-isa", stub, "--engine", "builtin", "--json"]
    matmul = ["costmodel", "TMATMUL", "half", "half", "float", "--k", "64", "--n", "128"]
    validate("costmodel", out(capsys, *p, *matmul, "--m", "128", *engine))
    sweep = out(capsys, *p, *matmul, "--m", "64,128", *engine)
    validate("costmodel", sweep)
    assert len(sweep["results"]) == 2
    validate("suggest", out(capsys, *p, "suggest", "--pto-isa", stub, "--json"))
    validate("suggest-review", out(capsys, *p, "suggest", "--review", "--pto-isa", stub, "--json"))
    export = out(capsys, *p, "export", "--format", "json")
    validate("export", export)
    assert [row["round"] for row in export["rounds"]] == [0, 1, 2]
    validate("report", out(capsys, *p, "report", "--json"))
    validate("jobs", out(capsys, *p, "jobs", "--json"))


def test_live_environment_demo_and_jobs_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = create_demo_project("dsl", tmp_path / "projects")
    p = ["--project", root]
    env = out(capsys, *p, "env", "--json")  # probes run on the (local) target
    validate("env", env)
    assert env["environment_passed"] is True and env["versions"]
    validate("torch-baseline", out(capsys, *p, "torch-baseline", "--json"))
    demo = out(capsys, "demo", "--run", "--rounds", "0", "--json", "--projects-root", tmp_path / "projects")
    validate("demo", demo)
    assert demo["status"]["environment_passed"] is True  # status.schema.json's, inside demo's
    jobs = out(capsys, *p, "jobs", "--json")
    validate("jobs", jobs)
    assert jobs["jobs"] and all(job["state"] == "succeeded" for job in jobs["jobs"])
