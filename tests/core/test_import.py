"""A project an agent wrote by hand (Markdown only) opens: what can be read is imported,
what cannot is listed, and the hand-written files are never modified."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.markdown_read import parse_duration_us, parse_iterations_table
from tests.core.helpers import cli, cli_json, pre_edit_args

HANDWRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "handwritten" / "flash_attention"


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".md", ".txt", ".diff")
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "flash_attention"
    shutil.copytree(HANDWRITTEN, root)
    return root


def test_handwritten_project_opens(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = digests(project)
    report = cli_json(capsys, "import", project)  # no --kind: workspace/pto-kernels/ tells
    assert report["imported"] == [0, 1, 2, 3]
    assert report["created_project_file"] is True and report["kind"] == "pto-dsl"
    problems = "\n".join(report["problems"])
    assert "ITERATIONS.md:18" in problems and "no unit" in problems  # "5.10" without a unit
    # and its "neutral" is not taken: a verdict about numbers nobody can read is invented
    assert "ITERATIONS.md:18: result 'neutral' without a readable PTO time" in problems
    assert len(report["problems"]) == 2, problems
    after = digests(project)
    assert {name: after[name] for name in before} == before  # nothing hand-written was touched
    assert report["skill_written"] and set(after) - set(before) == {"SKILL.md"}  # how to work on it

    rounds = cli_json(capsys, "--project", project, "rounds")["rounds"]
    assert [r["verdict"] for r in rounds] == ["baseline", "kept", None, "failure"]
    assert rounds[2]["reason"] == "recorded by hand, unmeasured"
    assert rounds[1]["median_us"] == pytest.approx(4900.0)
    assert rounds[1]["bottleneck"] == "bad tile shape"
    assert rounds[2]["median_us"] is None  # the unreadable number is not guessed
    shown = cli_json(capsys, "--project", project, "show", "1")["record"]
    assert shown["pre_edit"]["hypothesis"] == "QK base M 64 -> 32 raises cube occupancy"
    assert shown["changes"]["based_on"] == 0
    assert shown["imported"] is True
    # rounds pto-tui did not measure never lead by themselves: status says why
    status = cli_json(capsys, "--project", project, "status")
    assert status["frontier_round"] is None and status["speedup_vs_initial"] is None
    passed = "\n".join(status["frontier_passed_over"])
    assert "iter-000" in passed and "iter-001" in passed and "not measured by pto-tui" in passed
    assert "round confirm 1 --reason" in passed
    # a recorded confirmation adopts them; the hand-written files stay untouched
    for number in (0, 1):
        assert cli("--project", project, "round", "confirm", str(number), "--reason",
                   "measured on the NPU by the agent, logs checked") == 0
    status = cli_json(capsys, "--project", project, "status")
    assert status["frontier_round"] == 1 and status["frontier_passed_over"] == []
    assert status["speedup_vs_initial"] == pytest.approx(5800 / 4900)
    assert "measured on the NPU" in cli_json(capsys, "--project", project, "show", "1")[
        "record"]["review_confirmation"]
    after = digests(project)  # pto-tui's own notes go beside the hand-written ones
    assert {name: after[name] for name in before} == before

    # importing again changes nothing and says so
    again = cli_json(capsys, "import", project)
    assert again["imported"] == [] and again["skipped"] == [0, 1, 2, 3]


def test_nothing_the_handwritten_files_hold_is_lost(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = cli_json(capsys, "import", project)
    # the torch_npu section: avg/min/max, TFLOPS, warm-up and timed counts
    status = cli_json(capsys, "--project", project, "status")
    torch = status["torch_baseline"]
    assert (torch["avg_us"], torch["min_us"], torch["max_us"]) == (3210.0, 3150.0, 3400.0)
    assert (torch["tflops"], torch["warmup"], torch["runs"]) == (42.8, 5, 10)
    assert "scaled_dot_product_attention" in torch["label"]
    assert status["speedup_vs_torch"] is None  # no frontier until a round is adopted
    assert cli("--project", project, "round", "confirm", "1", "--reason",
               "the agent measured it on the NPU") == 0
    status = cli_json(capsys, "--project", project, "status")
    assert status["speedup_vs_torch"] == pytest.approx(3210 / 4900)
    # the case (TASK_REQUIREMENTS.md) and the tunables (the workspace source)
    assert status["case"].startswith("B=1, N=16, S=8192, D=128; float16")
    assert report["tunables"] == ["PTO_ATTENTION_QK_BASE_M", "PTO_ATTENTION_QK_BLOCK_DIM"]
    # round 1's parameter change, its kind, snapshot and TFLOPS
    one = cli_json(capsys, "--project", project, "show", "1")["record"]
    assert one["changes"]["kind"] == "environment variable"
    assert one["changes"]["parameters"] == [{"name": "PTO_ATTENTION_QK_BASE_M", "old": 64, "new": 32}]
    assert one["changes"]["snapshot"] == {"PTO_ATTENTION_QK_BASE_M": 32, "PTO_ATTENTION_QK_BLOCK_DIM": 8}
    assert one["measurement"]["tflops"] == 28.1
    # round 3, a code round: files, kind and what changed
    three = cli_json(capsys, "--project", project, "show", "3")["record"]
    assert three["changes"]["kind"] == "code"
    assert three["changes"]["files"] == ["workspace/pto-kernels/kernel.py"]
    assert three["changes"]["description"] == "two softmax buffers, alternating per tile"
    rows = {r["round"]: r for r in cli_json(capsys, "--project", project, "rounds")["rounds"]}
    assert rows[1]["changes"] == "PTO_ATTENTION_QK_BASE_M 64→32"
    assert rows[2]["changes"] == "PTO_ATTENTION_QK_BLOCK_DIM 8→20"
    # the conflict between round 2's notes.md and its row, named by file and line
    assert len(report["conflicts"]) == 1, report["conflicts"]
    conflict = report["conflicts"][0]
    assert "ITERATIONS.md:18" in conflict and "iter-002/notes.md:8" in conflict
    assert "hypothesis differs" in conflict and "block dim 16" in conflict


def test_the_first_write_after_import_appends_only(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("import", project) == 0
    original = (project / "ITERATIONS.md").read_text()
    # the write that used to append every round again (rows named iter-000 were not seen)
    assert (
        cli(
            "--project",
            project,
            "torch-baseline",
            "--avg",
            "3.3",
            "--min",
            "3.2",
            "--max",
            "3.5",
            "--unit",
            "ms",
        )
        == 0
    )
    assert (project / "ITERATIONS.md").read_text() == original
    assert cli("--project", project, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok") == 0
    assert (project / "ITERATIONS.md").read_text() == original
    assert cli("--project", project, "round", "start", *pre_edit_args("softmax in UB")) == 0
    assert cli("--project", project, "round", "changes", "--describe", "keep the row max in UB") == 0
    measure = ["--build", "ok", "--correctness", "pass", "--samples", "4800,4805,4790"]
    assert cli("--project", project, "round", "measure", *measure) == 0
    assert cli("--project", project, "round", "close") == 0
    text = (project / "ITERATIONS.md").read_text()
    assert text.startswith(original)
    appended = text[len(original) :].splitlines()
    # in the hand-written rows' style (iter-00N), not pto-tui's own (4)
    assert len(appended) == 1 and appended[0].startswith("| iter-004 | softmax in UB |")


HAND_ROUND = """# Iter 4

## Pre-Edit

- **Kernel**: flash_attention_score, S=8192, D=128
- **Current bottleneck**: bad tile shape
- **Evidence**: costmodel TMATMUL 16x64x128
- **Hypothesis**: QK base M 32 -> 16
- **Why it should help on Ascend**: more blocks again
- **Expected improved metric**: duration_ms

## Post-Run

- **Correctness**: pass
- **Performance**: 3.21 ms → 4.80 ms
- **Result**: kept
"""


def test_a_round_added_by_hand_is_read_and_checked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("import", project) == 0
    (project / "runs/iter-004").mkdir()
    (project / "runs/iter-004/notes.md").write_text(HAND_ROUND)
    with (project / "ITERATIONS.md").open("a") as handle:
        handle.write(
            "| iter-004 | QK base M 32 -> 16 | PTO_ATTENTION_QK_BASE_M=16 "
            "| 3.21 ms | 4.80 ms | pass | kept |\n"
        )
    before = digests(project)
    listed = cli_json(capsys, "--project", project, "rounds")
    assert listed["unreadable"] == [] and listed["missing"] == []
    row = listed["rounds"][4]
    assert (row["round"], row["verdict"], row["median_us"]) == (4, "kept", 4800.0)
    assert row["tampered"] == []  # pto-tui never closed it: not a tampered round
    flags = "\n".join(row["flags"])
    assert "runs/iter-004 was written by hand" in flags
    assert "[pre-edit-complete]" in flags and "Main risk" in flags
    assert "[honest-verdict]" in flags  # kept from one number
    status = cli_json(capsys, "--project", project, "status")
    # a round written by hand never leads by itself: the frontier passes over it, saying so
    assert status["unreadable_rounds"] == [] and status["frontier_round"] is None
    assert any(line.startswith("iter-004 (4800.0 us) is not the frontier: written by hand")
               for line in status["frontier_passed_over"])
    assert (
        cli_json(capsys, "--project", project, "show", "4")["record"]["pre_edit"].get("main_risk", "") == ""
    )
    assert digests(project) == before and not (project / "runs/iter-004/round.toml").exists()
    # an edit of its notes.md is read again
    (project / "runs/iter-004/notes.md").write_text(
        HAND_ROUND.replace("- **Expected", "- **Main risk**: UB\n- **Expected")
    )
    flags = "\n".join(cli_json(capsys, "--project", project, "rounds")["rounds"][4]["flags"])
    assert "Main risk" not in flags
    # importing it makes it a record like the others
    assert cli_json(capsys, "import", project)["imported"] == [4]


def test_new_rounds_append_to_a_handwritten_iterations_md(project: Path) -> None:
    assert cli("import", project) == 0
    original = (project / "ITERATIONS.md").read_text()
    notes0 = (project / "runs/iter-000/notes.md").read_text()
    assert cli("--project", project, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok") == 0
    # the baseline is already closed (imported): it cannot be recorded again
    assert (
        cli(
            "--project",
            project,
            "baseline",
            "--build",
            "ok",
            "--correctness",
            "pass",
            "--samples",
            "1",
        )
        == 1
    )
    assert cli("--project", project, "round", "start", *pre_edit_args("softmax in UB")) == 0
    assert cli("--project", project, "round", "changes", "--describe", "keep the row max in UB") == 0
    assert (
        cli(
            "--project",
            project,
            "round",
            "measure",
            "--build",
            "ok",
            "--correctness",
            "pass",
            "--samples",
            "4800,4805,4790",
        )
        == 0
    )
    assert cli("--project", project, "round", "close") == 0
    text = (project / "ITERATIONS.md").read_text()
    assert text.startswith(original)  # every hand-written line kept
    assert text[len(original) :].startswith("| iter-004 | softmax in UB |")
    assert (project / "runs/iter-000/notes.md").read_text() == notes0


def test_malformed_iterations_md_is_a_named_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "op"
    (root / "runs").mkdir(parents=True)
    (root / "workspace/kernel").mkdir(parents=True)
    (root / "ITERATIONS.md").write_text("# 迭代记录\n\nsome prose but no table\n")
    with pytest.raises(InputError, match="no round table"):
        parse_iterations_table(root / "ITERATIONS.md")
    capsys.readouterr()
    assert cli("import", root) == 2
    err = capsys.readouterr().err
    assert "ITERATIONS.md" in err and "no round table" in err and "Traceback" not in err
    (root / "ITERATIONS.md").write_text(
        "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |\n|---|---|---|---|---|---|---|\n"
        "| 0 | baseline | - | - | 1 ms | pass |\n| one | x | - | - | 1 ms | pass | kept |\n"
    )
    rows, problems = parse_iterations_table(root / "ITERATIONS.md")
    assert rows == []
    assert any(":3: expected 7 columns, found 6" in p for p in problems)
    assert any(":4: row does not start with a round number" in p for p in problems)


def test_parse_duration() -> None:
    assert parse_duration_us("1.5 ms") == 1500.0
    assert parse_duration_us("812.5us") == 812.5
    assert parse_duration_us("-") is None
    with pytest.raises(ValueError, match="no unit"):
        parse_duration_us("12")
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration_us("fast")


HOLD_LOCK = """
import sys, time
from pathlib import Path
from pto_tui.core.project.lock import ProjectLock
ProjectLock(Path(sys.argv[1]), command="an agent's write").acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_import_waits_for_the_project_lock_and_names_its_holder(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """import writes round.toml files: like every write it takes the lock, so it never
    interleaves with an agent's or the terminal application's write."""
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(project / ".pto-tui")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert cli("import", project) == 1  # refused, as any write under another's lock
        err = capsys.readouterr().err
        assert "locked by another pto-tui" in err and "an agent's write" in err
        assert not list(project.glob("runs/iter-*/round.toml"))  # nothing written meanwhile
    finally:
        holder.kill()
        holder.wait()
    assert cli("import", project) == 0  # the holder is gone: the import goes ahead
    assert (project / "runs/iter-001/round.toml").is_file()
