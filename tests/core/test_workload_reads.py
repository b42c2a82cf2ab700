"""The workload inside the kernel: a round that replaces the kernel's read of a shape knob
or case field with a literal measures another workload, and is refused under same-workload
naming the file and line the baseline read it at."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.operators.workload_reads import case_macro_reads, python_reads
from tests.core.helpers import cli, pre_edit_args

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEMO_FA = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators" / "demo_fa"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
SEQ_READ = 'tuned_int("PTO_ATTENTION_SEQ_LEN", 128, valid_values=(128, 256))'
DECLARE = ("--declare-environment", "probes given by hand in this test")
BASELINE = ("baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99")
MEASURE = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "60,61,59")


def _repository_project(tmp_path: Path) -> Path:
    source = tmp_path / "src" / "pto-kernels"
    shutil.copytree(FIXTURES / "pto_kernels_repo", source)
    assert cli("new", source / FA, "--projects-root", tmp_path / "projects",
               "--case", "flash_attention_score") == 0
    root = tmp_path / "projects" / "flash_attention_score"
    assert cli("--project", root, "env", *DECLARE, "--probe", "python=ok") == 0
    assert cli("--project", root, *BASELINE) == 0
    return root


def _demo_fa_project(tmp_path: Path) -> Path:
    source = tmp_path / "src" / "demo_fa"
    shutil.copytree(DEMO_FA, source)
    assert cli("new", source, "--projects-root", tmp_path / "projects",
               "--case", "case_float_H_64_S0_256_S1_1024") == 0
    root = tmp_path / "projects" / "demo_fa"
    assert cli("--project", root, "env", *DECLARE, "--probe", "g++=ok") == 0
    assert cli("--project", root, *BASELINE) == 0
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _baseline_reads(root: Path) -> list[dict[str, object]]:
    record = tomllib.loads((root / "runs" / "iter-000" / "round.toml").read_text(encoding="utf-8"))
    reads = record["measurement"].get("workload_reads", [])
    assert isinstance(reads, list)
    return reads


def test_the_baseline_keeps_where_the_kernel_reads_its_shape_knobs(tmp_path: Path) -> None:
    root = _repository_project(tmp_path)
    reads = {(r["name"], r["file"], r["line"]) for r in _baseline_reads(root)}
    assert reads == {("PTO_ATTENTION_SEQ_LEN", "kernel.py", 9), ("PTO_ATTENTION_HEAD_DIM", "kernel.py", 10)}


def test_a_round_replacing_the_seq_len_read_with_a_literal_is_refused_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repository_project(tmp_path)
    kernel = root / "workspace" / "pto-kernels" / FA / "kernel.py"
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    _edit(kernel, SEQ_READ, "32")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'same-workload'" in err
    assert f"workspace/pto-kernels/{FA}/kernel.py:9 read the workload's PTO_ATTENTION_SEQ_LEN" in err
    assert "removed or replaced" in err
    # nor can its measurement be recorded (the check before a measurement repeats it)
    assert cli("--project", root, *MEASURE) == 1
    assert "same-workload" in capsys.readouterr().err
    # put back, the round goes on
    _edit(kernel, "seq_len=32", f"seq_len={SEQ_READ}")
    assert cli("--project", root, "round", "changes") == 0


def test_a_round_that_keeps_the_reads_passes(tmp_path: Path) -> None:
    root = _repository_project(tmp_path)
    kernel = root / "workspace" / "pto-kernels" / FA / "kernel.py"
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    # a tuning edit that moves the reads down a line: still the same workload
    _edit(kernel, "def _config()", "# tiles retuned\n\n\ndef _config()")
    assert cli("--project", root, "round", "changes") == 0
    assert cli("--project", root, *MEASURE) == 0


def test_a_tile_lib_round_replacing_a_case_field_with_a_literal_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _demo_fa_project(tmp_path)
    assert {r["name"] for r in _baseline_reads(root)} == {"HEAD", "S0", "S1"}
    kernel = root / "workspace" / "kernel" / "fa_kernel.cpp"
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    _edit(kernel, "template void LaunchTFA<S0, HEAD, S1,", "template void LaunchTFA<S0, HEAD, 1024,")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'same-workload'" in err
    assert "workspace/kernel/fa_kernel.cpp:133 read the workload's S1" in err


def test_a_tile_lib_round_that_keeps_the_case_fields_passes(tmp_path: Path) -> None:
    root = _demo_fa_project(tmp_path)
    kernel = root / "workspace" / "kernel" / "fa_kernel.cpp"
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    kernel.write_text(kernel.read_text(encoding="utf-8") + "\n// a comment a round added\n", encoding="utf-8")
    assert cli("--project", root, "round", "changes") == 0


def test_a_baseline_recorded_before_the_reads_were_kept_is_read_from_its_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older project: its round.toml has no workload reads; the baseline's workspace
    snapshot still says where the kernel read the workload."""
    root = _repository_project(tmp_path)
    record = root / "runs" / "iter-000" / "round.toml"
    text = record.read_text(encoding="utf-8")
    head, _, _ = text.partition("[[measurement.workload_reads]]")
    record.write_text(head.rstrip() + "\n", encoding="utf-8")  # as written before the reads were kept
    assert _baseline_reads(root) == []
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    kernel = root / "workspace" / "pto-kernels" / FA / "kernel.py"
    _edit(kernel, SEQ_READ, "32")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    assert f"{FA}/kernel.py:9 read the workload's PTO_ATTENTION_SEQ_LEN" in capsys.readouterr().err


def test_reads_are_found_through_helpers_and_the_environment() -> None:
    text = (
        "import os\n"
        'a = tuned_int("SEQ", 128)\n'
        'b = os.environ["SEQ"]\n'
        'c = os.environ.get("SEQ", "1")\n'
        'd = os.getenv("SEQ")\n'
        'e = tuned_int("BLOCK", 16)\n'
        'f = "SEQ"\n'
    )
    assert [(r.name, r.line) for r in python_reads(text, "k.py", {"SEQ"})] == [
        ("SEQ", 2), ("SEQ", 3), ("SEQ", 4), ("SEQ", 5)
    ]


def test_case_macro_parameters_that_are_tunables_are_no_workload() -> None:
    text = "#define CASE(H, S, TILE) \\\n  Row{H, S, &LaunchK<S, H, TILE>},\n"
    reads = case_macro_reads(text, "main.cpp", {"TILE"})
    assert [(r.name, r.where) for r in reads] == [("S", "main.cpp:2"), ("H", "main.cpp:2")]


def test_the_traced_case_fields_of_a_pto_isa_layout_are_kept_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's layout (a generator writing the X-macro, the entry template instantiated
    from its row): the knob resolver's trace says where the case fields reach the kernel."""
    source = tmp_path / "src" / "fa_like"
    shutil.copytree(FIXTURES / "tilelib_repo" / "kernels" / "manual" / "common" / "fa_like", source)
    assert cli("new", source, "--projects-root", tmp_path / "projects") == 0
    root = tmp_path / "projects" / "fa_like"
    assert cli("--project", root, "env", *DECLARE, "--probe", "g++=ok") == 0
    assert cli("--project", root, *BASELINE) == 0
    assert {(r["name"], r["file"], r["line"]) for r in _baseline_reads(root)} == {
        ("s0", "main.cpp", 46), ("head_size", "main.cpp", 46), ("s1", "main.cpp", 46)
    }
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    main = root / "workspace" / "kernel" / "main.cpp"
    _edit(main, "LaunchFaLike<S0, HEAD_SIZE, S1,", "LaunchFaLike<S0, HEAD_SIZE, 512,")
    capsys.readouterr()
    # the driver is protected: even a declared bug fix may not change the workload in it
    assert cli("--project", root, "round", "changes", "--bug-fix", "the driver ran the wrong tile") == 1
    err = capsys.readouterr().err
    assert "same-workload" in err and "workspace/kernel/main.cpp:46 read the workload's s1" in err


@pytest.mark.parametrize("git", [False, True], ids=["own-store", "git-workspace"])
def test_a_snapshot_copies_out_the_source_files_it_held(tmp_path: Path, git: bool) -> None:
    import subprocess

    from pto_tui.core.workspace.snapshots import SnapshotStore

    workspace = tmp_path / "project" / "workspace"
    (workspace / "op" / "sub").mkdir(parents=True)
    (workspace / "op" / "sub" / "kernel.py").write_text("SEQ = 128\n")
    (workspace / "op" / "data.bin").write_bytes(b"\0\1")
    (workspace / "other.py").write_text("elsewhere\n")
    if git:
        subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = SnapshotStore(tmp_path / "project")
    snap = store.take()
    (workspace / "op" / "sub" / "kernel.py").write_text("SEQ = 32\n")  # the workspace moves on
    out = tmp_path / "out"
    store.copy_out(snap, ["op"], out, (".py",))
    assert (out / "op" / "sub" / "kernel.py").read_text() == "SEQ = 128\n"
    assert not (out / "op" / "data.bin").exists() and not (out / "other.py").exists()
