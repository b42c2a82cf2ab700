"""The bench spec's correctness tolerances (pto-kernels' bench/specs/<family>/<name>.yaml,
with bench/canonical_compile_flags.yaml for what a spec leaves out, as the runner merges
them) become [tolerances] at `new`, and a later round that loosens them in the spec is
refused under tolerance-protected: the spec is a protected file a bug fix may change, but
only the user's approval may loosen what correctness is judged by."""

from __future__ import annotations

import asyncio
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.core.helpers import HAND_ENV, cli, cli_json, pre_edit_args
from tests.mcp.client import agent

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
SPEC = "bench/specs/attention/flash_attention_score.yaml"
DEFAULTS = "bench/canonical_compile_flags.yaml"
WS = "workspace/pto-kernels"
KNOB = "PTO_ATTENTION_QK_BASE_M"
JUSTIFY = "64-row QK tiles of a 128x64 case stay well inside the UB"
BUG_FIX = "the spec's atol was written one digit too tight"


def source_repo(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "pto-kernels"
    shutil.copytree(REPO, root)
    return root


def new_project(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path | None = None) -> Path:
    source = source or source_repo(tmp_path)
    out = cli_json(
        capsys, "new", source / FA, "--projects-root", tmp_path / "projects", "--case", "b1_n1_s128_d64"
    )
    assert isinstance(out, dict)
    return Path(out["project"])


def tolerances(root: Path) -> dict[str, float]:
    found: dict[str, float] = tomllib.loads((root / "project.toml").read_text()).get("tolerances", {})
    return found


def test_new_imports_the_spec_s_tolerances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = new_project(tmp_path, capsys)
    # atol from the spec; rtol, which the spec leaves out, from the runner's defaults file
    assert tolerances(root) == {"atol": 0.002, "rtol": 0.001}
    assert f"# from {SPEC} ({DEFAULTS} for what it leaves out)" in (root / "project.toml").read_text()


def test_a_spec_without_correctness_takes_the_runner_s_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real repository's flash_attention_score spec has no correctness section."""
    source = source_repo(tmp_path)
    spec = source / SPEC
    spec.write_text(spec.read_text().replace("correctness:\n  atol: 0.002\n", ""))
    assert tolerances(new_project(tmp_path, capsys, source)) == {"atol": 0.001, "rtol": 0.001}


def test_a_tolerance_that_is_no_number_is_refused_at_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = source_repo(tmp_path)
    spec = source / SPEC
    spec.write_text(spec.read_text().replace("atol: 0.002", "atol: loose"))
    assert cli("new", source / FA, "--projects-root", tmp_path / "projects", "--case", "b1_n1_s128_d64") == 2
    err = capsys.readouterr().err
    assert f"{spec}: [correctness.atol] correctness.atol 'loose' is not a tolerance" in err
    assert not (tmp_path / "projects" / "flash_attention_score").exists()


def round_open(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """iter-000 recorded, round 1 open with a tuning change."""
    p = ["--project", str(root)]
    assert cli(*p, "env", *HAND_ENV, "--probe", "target=ok") == 0
    assert cli(*p, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101") == 0
    baseline = tomllib.loads((root / "runs/iter-000/round.toml").read_text())
    assert baseline["tolerances"] == {"atol": 0.002, "rtol": 0.001}
    scope = (KNOB, f"{WS}/{SPEC}", f"{WS}/{DEFAULTS}")  # the edits below are this round's
    assert cli(*p, "round", "start", *pre_edit_args("bigger QK tiles", scope=scope)) == 0
    assert cli(*p, "round", "changes", "--set", f"{KNOB}=16", "--justify", JUSTIFY) == 0
    capsys.readouterr()


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / WS / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_spec_loosened_as_a_bug_fix_is_refused_without_the_approval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = new_project(tmp_path, capsys)
    round_open(root, capsys)
    edit(root, SPEC, "atol: 0.002", "atol: 0.02")
    p = ["--project", str(root), "round"]
    assert cli(*p, "changes", "--bug-fix", BUG_FIX) == 1
    err = capsys.readouterr().err
    assert "refused by rule 'tolerance-protected'" in err and "atol 0.002 -> 0.02" in err
    # the refused bug fix was not recorded: no measurement either
    assert cli(*p, "measure", "--build", "ok", "--correctness", "pass", "--samples", "90") == 1
    assert "refused by rule 'editable-scope'" in capsys.readouterr().err
    # the user's explicit approval (with the bug fix: the spec is a protected file) lets it through
    approved = ["--bug-fix", BUG_FIX, "--approve-tolerance", "approved by the user: atol 0.02 for fp16"]
    assert cli(*p, "changes", *approved) == 0
    assert cli(*p, "measure", "--build", "ok", "--correctness", "pass", "--samples", "90") == 0


def test_a_loosened_default_in_the_runner_s_flags_file_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = new_project(tmp_path, capsys)
    round_open(root, capsys)
    edit(root, DEFAULTS, "rtol: 1.0e-3", "rtol: 1.0e-2")
    assert cli("--project", root, "round", "changes", "--bug-fix", BUG_FIX) == 1
    err = capsys.readouterr().err
    assert "refused by rule 'tolerance-protected'" in err and "rtol 0.001 -> 0.01" in err


def test_a_tightened_spec_tolerance_needs_only_the_bug_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = new_project(tmp_path, capsys)
    round_open(root, capsys)
    edit(root, SPEC, "atol: 0.002", "atol: 0.001")
    assert cli("--project", root, "round", "changes", "--bug-fix", BUG_FIX) == 0


async def _mcp_bug_fix_only(root: Path) -> None:
    async with agent(root) as a:
        refused = await a.call("round_changes", bug_fix=BUG_FIX)
        assert refused["is_error"] is True
        error = refused["error"]
        assert error["rule"] == "tolerance-protected" and "atol 0.002 -> 0.02" in error["message"], error
        await a.ok("round_changes", bug_fix=BUG_FIX, approve_tolerance="approved by the user for fp16")


def test_over_mcp_a_bug_fix_alone_cannot_loosen_the_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = new_project(tmp_path, capsys)
    round_open(root, capsys)
    edit(root, SPEC, "atol: 0.002", "atol: 0.02")
    asyncio.run(_mcp_bug_fix_only(root))


async def _mcp_new(source: Path, projects: Path) -> None:
    async with agent(cwd=projects.parent) as a:
        await a.ok("new", source=str(source / FA), projects_root=str(projects), case="b1_n1_s128_d64")


def test_the_mcp_new_imports_the_spec_s_tolerances(tmp_path: Path) -> None:
    source = source_repo(tmp_path)
    spec = source / SPEC
    spec.write_text(spec.read_text().replace("atol: 0.002", "atol: 0.004\n  rtol: 0.002"))
    asyncio.run(_mcp_new(source, tmp_path / "projects"))
    assert tolerances(tmp_path / "projects" / "flash_attention_score") == {"atol": 0.004, "rtol": 0.002}
