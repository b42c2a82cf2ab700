"""Shared helpers for tests that drive the CLI on real project files."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pto_tui.cli.main import main
from pto_tui.core.errors import InputError
from pto_tui.core.operators.scan import classify
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.ledger import Ledger, LedgerProblems
from pto_tui.core.rounds.numbering import numbering_gaps
from pto_tui.core.rounds.records import Round

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "operators"
CHECKLIST_KEYS = (
    "tile_shape",
    "gm_ub_traffic",
    "small_transfer",
    "barrier_sync",
    "ub_pressure",
    "pipeline_overlap",
    "aic_aiv_balance",
    "bottleneck_shift",
)


# the environment round passed by hand, declared as such (tests with no target to probe)
HAND_ENV = ("--declare-environment", "probes given by hand in this test")


def read_every_round(layout: ProjectLayout) -> tuple[list[Round], LedgerProblems]:
    """What a read of every round's file gives, with no cache or index: what the read
    model must agree with."""
    ledger = Ledger(layout)
    problems = LedgerProblems()
    rounds: list[Round] = []
    numbers = ledger.round_numbers()
    problems.missing = numbering_gaps(numbers)
    problems.unreadable += ledger.stray_problems()
    for number in numbers:
        try:
            rounds.append(ledger.load(number))
        except InputError as error:
            problems.unreadable.append(error.render())
    return rounds, problems


def cli(*args: object) -> int:
    """Run the CLI; paths and numbers are given as they print."""
    return main([str(a) for a in args])


def cli_json(capsys: pytest.CaptureFixture[str], *args: object) -> Any:
    """The parsed --json output (whatever JSON the command prints) of a command that succeeds."""
    capsys.readouterr()
    code = cli(*args, "--json")
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def pre_edit_args(
    hypothesis: str = "bigger tiles cut reloads",
    scope: tuple[str, ...] = ("workspace/**",),
    overrides: Mapping[str, str] | None = None,
) -> list[str]:
    fields = {
        "--kernel": "fa S1=1024",
        "--bottleneck": "bad tile shape",
        "--evidence": "costmodel: TMATMUL 128x64x128 costs fewer cycles per FLOP",
        "--hypothesis": hypothesis,
        "--why": "fewer GM->UB reloads per output tile on Ascend",
        "--metric": "duration_us",
        "--risk": "UB overflow",
        "--correctness-plan": "binary prints test success against the golden data",
    }
    fields.update(overrides or {})
    args: list[str] = []
    for flag, value in fields.items():
        args += [flag, value]
    for key in CHECKLIST_KEYS:
        args += ["--check", f"{key}=checked for this round"]
    for item in scope:
        args += ["--scope", item]
    return args


def make_project(tmp_path: Path, operator: str = "fa_tilelib", **kwargs: str) -> Path:
    """Copy a fixture operator into tmp and create its project; return the project root.
    An operator that lists cases gets its first one unless a case is given (new asks for one)."""
    source = tmp_path / "src" / operator
    shutil.copytree(FIXTURES / operator, source)
    if not {"case", "shape", "case_spec"} & set(kwargs):
        listed = classify(source)
        if listed is not None and listed.cases:
            kwargs = {**kwargs, "case": listed.cases[0].name}
    extra: list[str] = []
    for key, value in kwargs.items():
        extra += [f"--{key.replace('_', '-')}", value]
    assert cli("new", source, "--projects-root", tmp_path / "projects", *extra) == 0
    return tmp_path / "projects" / operator


def ready_project(
    tmp_path: Path, operator: str = "fa_tilelib", samples: str = "100,101,99", extra_toml: str = ""
) -> Path:
    """A project with the environment round passed and the baseline recorded (extra_toml is
    appended to project.toml before the baseline, e.g. tolerances)."""
    root = make_project(tmp_path, operator)
    if extra_toml:
        with (root / "project.toml").open("a") as handle:
            handle.write(extra_toml)
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok") == 0
    assert (
        cli(
            "--project",
            root,
            "baseline",
            "--build",
            "ok",
            "--correctness",
            "pass",
            "--samples",
            samples,
        )
        == 0
    )
    return root


def run_round(
    root: Path,
    samples: str,
    *,
    hypothesis: str = "bigger tiles cut reloads",
    edit: tuple[str, str, str] | None = None,
    params: tuple[str, ...] = (),
    correctness: str = "pass",
    build: str = "ok",
    justify: str = "",
) -> int:
    """Start, change, measure and close one round through the CLI; returns close's exit code.
    The declared scope is exactly what the round changes."""
    scope = tuple(p.split("=")[0] for p in params) + ((edit[0],) if edit else ())
    start = pre_edit_args(hypothesis, scope=scope)
    assert cli("--project", root, "round", "start", "--restore", *start) == 0
    if edit:
        rel, old, new = edit
        path = root / rel
        path.write_text(path.read_text().replace(old, new))
    change_args: list[str] = ["--justify", justify] if justify else []
    for p in params:
        change_args += ["--set", p]
    assert cli("--project", root, "round", "changes", *change_args) == 0
    measure = ["--build", build, "--correctness", correctness]
    if samples:
        measure += ["--samples", samples]
    assert cli("--project", root, "round", "measure", *measure) == 0
    return cli("--project", root, "round", "close", "--analysis", "see numbers", "--next", "continue")
