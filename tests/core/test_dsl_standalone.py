"""A PTO-DSL example outside a pto-kernels repository (PTO-ISA/pto-dsl's examples, built by
their own compile.sh): `new` refuses the kind's defaults, which have nothing to run, naming
the scripts it has; declared by a marker ([commands], [result]), the baseline and a round on
its knob run for real on the local target, timed by what its runner prints."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import HAND_ENV, cli, pre_edit_args

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_dsl_repo"
EXAMPLE = "examples/aot/fast_hadamard_like"
MARKER = """kind = "pto-dsl"
generated = ["*.pto"]
[commands]
build = "bash compile.sh"
benchmark = "python3 run_hadamard.py"
[result]
format = "pattern"
time = 'fast_hadamard n=[0-9]+: ([0-9.]+) ms'
unit = "ms"
passed = '^PASS$'
failed = '^FAIL$'
"""


def _example(tmp_path: Path) -> Path:
    shutil.copytree(REPO, tmp_path / "pto-dsl")
    stub = tmp_path / "stand-ins" / "ptodsl"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("def to_ir_module(**options):\n    return lambda function: function\n")
    return tmp_path / "pto-dsl" / EXAMPLE


def test_the_defaults_are_refused_naming_the_examples_own_scripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _example(tmp_path)
    assert cli("new", source, "--projects-root", tmp_path / "projects") == 2
    err = capsys.readouterr().err
    assert f"{source}: no kernel.py and no bench/specs beside it" in err
    scripts = "compile.sh, hadamard_builder.py, pto_kernels_like_tuning.py, run_hadamard.py"
    assert f"its own scripts: {scripts}" in err
    assert "--command build=... --command benchmark=..." in err
    assert not (tmp_path / "projects").exists()


def test_declared_by_its_marker_it_runs_a_round_on_its_knob(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _example(tmp_path)
    (source / "pto-operator.toml").write_text(MARKER)
    setup = f"export PYTHONPATH={tmp_path / 'stand-ins'}"
    assert cli("new", source, "--env-setup", setup, "--projects-root", tmp_path / "projects") == 0
    root = tmp_path / "projects" / "fast_hadamard_like"
    config = ProjectFile(root / "project.toml").config
    assert config.result.format == "pattern" and "HADAMARD_BLOCK" in config.tunables
    # the IR compile.sh writes beside the sources is never part of a round's changes
    assert config.generated == ("pto-kernels/*.pto",)
    assert cli("--project", root, "env", *HAND_ENV, "--probe", "ptodsl=ok") == 0
    assert cli("--project", root, "baseline") == 0
    baseline = tomllib.loads((root / "runs/iter-000/round.toml").read_text())["measurement"]
    assert baseline["correctness"] == "pass" and all(s > 0 for s in baseline["samples_us"])
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("HADAMARD_BLOCK",))) == 0
    justify = ("--justify", "a 128-element butterfly block is a quarter of the smallest size")
    assert cli("--project", root, "round", "changes", "--set", "HADAMARD_BLOCK=128", *justify) == 0
    cli("--project", root, "round", "run")
    record = tomllib.loads((root / "runs/iter-001/round.toml").read_text())
    assert record["status"] == "closed" and record["measurement"]["correctness"] == "pass"
    # the knob reached the build through the environment: the library is the new block's
    library = root / "workspace" / "pto-kernels" / "hadamard_auto_sync_lib.so"
    assert library.read_text().startswith("// fast_hadamard IR, block 128")
