"""A project a coding agent wrote in Markdown only, in the free forms agents write (a prose
torch_npu baseline, Chinese and English labels in every form, parameter snapshots on one
line, as sub-bullets and in a fenced block, "基于 iter-000" lines, a prose line in
files.txt, a removed pipe_barrier), imports with nothing lost: every field of its Markdown
is in the records and in `export --format md`, and what no field takes is listed with its
line. A failed first environment round is an attempt like any other."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.rounds.markdown_read import parse_duration_us, parse_iterations_table
from tests.core.helpers import cli, cli_json

AGENT = Path(__file__).resolve().parents[1] / "fixtures" / "agent_written" / "attention_tuning"
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "pto_tui" / "demo" / "operators" / "demo_attention"
LABEL = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*([^*]+?)[:：]?\*\*[:：]?|([^:：`]{1,40}?)[:：])\s*(.*)$")
# what a line may say that the export shows in pto-tui's words: "基于 iter-000" is "Based on:
# iter-000"; "无" (no files) is an empty file list
SAID_OTHERWISE = {"无"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "attention_tuning"
    shutil.copytree(AGENT, root)
    return root


def _export(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    capsys.readouterr()
    assert cli("--project", root, "export", "--format", "md") == 0
    return capsys.readouterr().out


def _round_section(export: str, number: int) -> str:
    start = export.index(f"### iter-{number:03d}")
    end = export.find("\n### iter-", start + 1)
    return export[start:] if end < 0 else export[start:end]


def _notes_values(path: Path) -> list[tuple[int, str]]:
    """Every value a notes.md line says: a label's value, or the line itself."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith(("#", "```")):
            continue
        match = LABEL.match(text)
        if match and not match.group(3).strip():
            continue  # a label whose value follows on the next lines
        value = (match.group(3) if match else text).strip()
        value = re.sub(r"^[-*+]\s+", "", value)
        based = re.fullmatch(r"基于\s*(iter-\d{3}).*", value)
        found.append((number, f"Based on: {based.group(1)}" if based else value))
    return [(n, v) for n, v in found if v and v not in SAID_OTHERWISE]


def _samples_of(section: str, label: str) -> list[float]:
    line = next(line for line in section.splitlines() if line.startswith(f"- {label}: "))
    return [parse_duration_us(part) or 0.0 for part in line.split(": ", 1)[1].split("; ")]


def _row_cells(root: Path) -> dict[int, list[str]]:
    rows = {}
    for line in (root / "ITERATIONS.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| iter-"):
            rows[int(cells[0].removeprefix("iter-"))] = cells
    return rows


def test_every_field_of_the_markdown_is_in_the_records_and_the_export(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report: Any = cli_json(capsys, "import", project, "--no-input")
    assert report["imported"] == [0, 1, 2, 3] and report["schema_version"] == 1
    # what no field takes is kept and listed with its line; no false conflict
    problems = report["problems"]
    assert len(problems) == 2, problems
    assert problems[0].endswith(
        "iter-001/notes.md:29: 'Profiling' is no field pto-tui records; kept as written"
    )
    assert "iter-002/notes.md:34: section '备注'" in problems[1]
    assert report["conflicts"] == []
    # the operator TASK_REQUIREMENTS.md names (not the folder), its case and tunables
    assert (report["operator"], report["kind"]) == ("demo_attention", "pto-dsl")
    assert report["case"] == "B=1, H=2, S=512, D=64; float32"
    assert report["tunables"] == ["DEMO_ATTN_BLOCK_Q", "DEMO_ATTN_BLOCK_KV"]
    toml = (project / "project.toml").read_text(encoding="utf-8")
    knob = '{value = 16, kind = "env", default = 16, allowed = [8, 16, 32, 64, 128, 256]}'
    assert f"DEMO_ATTN_BLOCK_KV = {knob}" in toml
    # the prose torch_npu baseline
    torch = report["torch_baseline"]
    said = (torch["avg_us"], torch["min_us"], torch["max_us"], torch["tflops"])
    assert said == (1284.0, 1270.0, 1301.0, 13.38)
    assert (torch["warmup"], torch["runs"]) == (5, 10)
    assert torch["label"] == "torch.nn.functional.scaled_dot_product_attention"
    # the removed pipe_barrier is high-risk, and so is the bigger KV tile
    flagged = "\n".join(report["flagged"])
    assert "runs/iter-003: barrier/sync removed without a dependency proof: pto.pipe_barrier" in flagged
    assert "runs/iter-001: bigger tile DEMO_ATTN_BLOCK_KV 16->64" in flagged
    assert report["skill_written"] and (project / "SKILL.md").read_text().startswith("---\nname: pto-tui")

    export = _export(capsys, project)
    torch_part = export[export.index("## torch_npu baseline"):export.index("## Rounds in detail")]
    for expected in ("avg: 1.284 ms", "min: 1.270 ms", "max: 1.301 ms", "TFLOPS: 13.38", "Warm-up runs: 5",
                 "Timed runs: 10", "warm-up 5 次，timed 10 次"):
        shown = expected.replace("1.284 ms", "1284.0 us").replace("1.270 ms", "1270.0 us").replace(
            "1.301 ms", "1301.0 us")
        assert shown in torch_part, (expected, torch_part)
    rows = _row_cells(project)
    for number in range(4):
        section = _round_section(export, number)
        # every line of notes.md, as its value or its words
        for line, value in _notes_values(project / "runs" / f"iter-{number:03d}" / "notes.md"):
            assert value in section, (number, line, value, section)
        # every cell of its ITERATIONS.md row
        _, hypothesis, changes, baseline, pto, correct, result = rows[number]
        assert hypothesis in section.splitlines()[0]
        assert changes in section or all(
            f"{name} " in section and f"→{value}" in section
            for name, value in re.findall(r"(\w+)=(\w+)", changes)
        ), (number, changes)
        assert _samples_of(section, "Samples") == [parse_duration_us(pto)]
        assert _samples_of(section, "Reference") == [parse_duration_us(baseline)]
        assert f"Correctness: {correct}" in section
        assert f"Result: {result}" in section
    # what each round's files say beside notes.md: the prose of files.txt, the patch's base
    one = _round_section(export, 1)
    assert "files.txt: 本轮无源码修改（仅环境变量调参）" in one and "Files:" not in one
    assert "Based on: iter-000" in one
    assert "Parameter snapshot: DEMO_ATTN_BLOCK_Q=16, DEMO_ATTN_BLOCK_KV=64" in one
    two = _round_section(export, 2)
    assert "Parameter snapshot: DEMO_ATTN_BLOCK_Q=32, DEMO_ATTN_BLOCK_KV=64" in two
    assert "Kind: environment variable" in two and "Changes: 修改类型: 环境变量" in two
    assert "TFLOPS: 14.1" in two  # a figure the table lacks, from the Post-Run line
    zero = _round_section(export, 0)
    assert "Result: baseline" in zero and "ITERATIONS.md: Result: kept" in zero  # iter-000's "kept"
    assert "Versions: python=3.11.2, numpy=1.26.4" in zero and "Build outcome: 构建成功" in zero
    # `diff 1` has its base
    assert cli_json(capsys, "--project", project, "show", "1")["record"]["changes"]["based_on"] == 0


def test_a_failed_first_environment_round_is_an_attempt_until_one_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report: Any = cli_json(capsys, "import", project, "--no-input")
    assert report["workspace"] == "" and report["target"] == "local, mode npu"
    assert any("no operator source in workspace/" in step for step in report["next_steps"])
    p = ["--project", project]
    for _attempt in range(2):  # no workspace yet: it fails, and may be run again
        capsys.readouterr()
        assert cli(*p, "env") == 1
        out = capsys.readouterr()
        assert "environment round NOT passed" in out.out + out.err and "refused" not in out.err
        assert cli_json(capsys, *p, "status")["environment_passed"] is False
    # the operator's source, given now: copied, and project.toml made from it (its state kept)
    again: Any = cli_json(capsys, "import", project, "--no-input", "--source", DEMO)
    assert again["workspace"] == str(DEMO) and again["target"] == "local, mode demo"
    assert again["imported"] == [] and again["skipped"] == [0, 1, 2, 3]
    assert cli_json(capsys, *p, "status")["torch_baseline"]["avg_us"] == 1284.0
    assert cli(*p, "env") == 0
    shown = cli_json(capsys, *p, "show", "0")["record"]
    assert shown["environment"]["passed"] is True
    attempts = shown["environment_attempts"]
    assert [a.get("declared_by", "") for a in attempts] == ["import", "", ""]  # the notes, 2 failures
    assert all(a["passed"] is False for a in attempts)
    # a passed environment round on a closed iter-000 is not rewritten
    capsys.readouterr()
    assert cli(*p, "env") == 1
    assert "iter-000 is closed with its environment notes" in capsys.readouterr().err
    assert cli(*p, "import", "--source", DEMO, "--no-input") == 2  # the workspace is given once


def test_a_round_table_with_chinese_headers_reads_like_the_english_one(project: Path) -> None:
    iterations = project / "ITERATIONS.md"
    text = iterations.read_text(encoding="utf-8")
    english = "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |"
    chinese = "| 轮次 | 假设 | 修改 | 基线 | PTO | 正确性 | 结果 |"
    iterations.write_text(text.replace(english, chinese), encoding="utf-8")
    rows, problems = parse_iterations_table(iterations)
    assert problems == [] and [r.number for r in rows] == [0, 1, 2, 3]
    assert (rows[3].iter_cell, rows[3].correct, rows[3].result) == ("iter-003", "fail", "failure")


def test_in_a_terminal_the_import_asks_for_the_source_and_the_target(project: Path) -> None:
    controller, terminal = os.openpty()  # the import's standard input is a terminal
    try:
        os.write(controller, f"{DEMO}\nlocal\n".encode())  # the answers, typed ahead
        done = subprocess.run(
            [sys.executable, "-m", "pto_tui.cli.main", "import", str(project)],
            stdin=terminal, capture_output=True, text=True, timeout=120, cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, done.stderr
    assert "operator source to copy into workspace/" in done.stdout
    assert "target: local or ssh:ALIAS" in done.stdout
    assert f"workspace: copied from {DEMO}" in done.stdout
    assert (project / "workspace" / "pto-kernels" / "attention_kernel.py").is_file()
