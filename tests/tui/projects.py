"""Real projects for the TUI tests, made with the headless CLI (the same core calls)."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

from pto_tui.cli.main import main as cli
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OPERATOR = FIXTURES / "operators" / "fa_tilelib"
COSTMODEL_TOOL = FIXTURES / "costmodel_tool" / "query_pto_cycles.py"


def run(*argv: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli(list(argv))
    if code != 0:
        raise AssertionError(f"pto-tui {' '.join(argv)} failed ({code}):\n{out.getvalue()}")


def new_project(base: Path, *, environment: bool = True, baseline: bool = True,
                torch: bool = True, costmodel: bool = True) -> Path:
    """projects/fa_tilelib from a copy of the fixture operator (copied, so paths are ours)."""
    source = base / "src" / "fa_tilelib"
    shutil.copytree(OPERATOR, source)
    run("new", str(source), "--projects-root", str(base / "projects"),
        "--case-spec", "128,128,1024,128", "--shape", "S=1024", "--shape", "HEAD_SIZE=128",
        *(["--costmodel-tool", str(COSTMODEL_TOOL)] if costmodel else []))
    root = base / "projects" / "fa_tilelib"
    if environment:
        run("--project", str(root), "env", "--declare-environment", "probes given by hand in this test",
            "--probe", "ssh=ok", "--probe", "build=ok",
            "--version", "cann=8.0")
    if baseline:
        run("--project", str(root), "baseline", "--build", "ok", "--correctness", "pass",
            "--samples", "100,101,99", "--tflops", "50.0")
    if torch:
        run("--project", str(root), "torch-baseline", "--avg", "120", "--min", "118",
            "--max", "123", "--tflops", "41.5")
    return root


def pre_edit_flags(hypothesis: str, bottleneck: str = "bad tile shape",
                   scope: str = "kFaTileS1") -> list[str]:
    flags = [
        "--kernel", "fa_tilelib LaunchTFA", "--bottleneck", bottleneck,
        "--evidence", "profiling shows idle cube", "--hypothesis", hypothesis,
        "--why", "fills the cube unit", "--metric", "duration_us down",
        "--risk", "UB overflow", "--correctness-plan", "same test, same tolerances",
        "--title", hypothesis[:30], "--scope", scope,
    ]
    for key in HARDWARE_CHECKLIST:
        flags += ["--check", f"{key}=checked {key}"]
    return flags


def add_round(root: Path, hypothesis: str, samples: str, *, bottleneck: str = "bad tile shape",
              param: str = "kFaTileS1", value: str = "128", build: str = "ok",
              correctness: str = "pass", phase: str | None = None) -> None:
    project = ["--project", str(root)]
    start = [*project, "round", "start", *pre_edit_flags(hypothesis, bottleneck, param),
             "--restore"]
    if phase:
        start += ["--phase", phase]
    run(*start)
    run(*project, "round", "changes", "--set", f"{param}={value}", "--describe", hypothesis,
        "--justify", "costmodel shows the tile fits in UB")
    measure = [*project, "round", "measure", "--build", build]
    if build == "ok":
        measure += ["--correctness", correctness]
        if correctness == "pass":
            measure += ["--samples", samples, "--tflops", "55.0"]
    else:
        measure += ["--problem", "compile error"]
    run(*measure)
    run(*project, "round", "close", "--analysis", f"analysis of {hypothesis}",
        "--next", "try the next idea")


def campaign_project(base: Path) -> Path:
    """A project with a kept, a neutral, a failure and an inconclusive round."""
    root = new_project(base)
    add_round(root, "smaller S1 tile", "90,91,89", value="128")
    add_round(root, "smaller FIFO", "90.5,90,91", param="kFaCvFifoSize", value="4",
              bottleneck="CV FIFO pressure")
    add_round(root, "preload more", "0", param="kFaQkPreload", value="8", build="failed",
              bottleneck="pipeline bubble / poor overlap")
    add_round(root, "sync period 2", "87,89.5,86.5", param="kFaCvFifoConsSyncPeriod", value="2",
              bottleneck="barrier / wait / sync overhead", phase="fine-tune")
    return root


def demo_ready_project(base: Path) -> Path:
    """projects/demo_attention, brought to iter-000 as `pto-tui demo --run --rounds 0` does:
    environment round, the CPU stand-in for torch_npu, baseline.

    max_spread is raised to 5.0 before the baseline (a later change is a discipline change
    that needs a reason): the demo's CPU timings on a shared 2-core machine can swing past
    the demo's own 0.35 (180% was seen under load), and a test must not turn inconclusive on
    noise; a 5x gain must still exceed the measured noise to be kept."""
    root = create_demo_project("dsl", base / "projects")
    project = ProjectFile(root / "project.toml")
    project.set("discipline.max_spread", 5.0)
    project.set("discipline.review_gain", 100.0)  # large demo gains: the review hold is tested apart
    project.save()
    for step in ("env", "torch-baseline", "baseline"):
        run("--project", str(root), step)
    return root
