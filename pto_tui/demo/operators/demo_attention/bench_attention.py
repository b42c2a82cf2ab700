"""Benchmark the CPU demo attention kernel and write a runner-schema report.json.

Run from this folder after the build (`python attention_kernel.py --output-dir build`):

    python bench_attention.py --case "B=1,H=2,S=512,D=64" [--causal] [--warmup 3] [--repeat 10]
        [--atol 1e-3 --rtol 1e-3] [--results-dir bench/results] [--build-dir build]

The report goes to <results-dir>/demo/demo_attention/<UTC stamp>/report.json in the schema of
the pto-kernels runner (docs/formats.md §2); the last line printed is `report: <path>`. The
"baseline" is the untiled NumPy attention; the "pto" part is the tiled demo kernel. Exit code:
0 when the report says ok (correctness is in the report, not the exit code), 1 when blocked
(kernel not built for these knobs/source), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

# One BLAS thread, set before NumPy loads: on a small shared machine threaded BLAS adds more
# noise than speed and would blur the effect of the tile sizes. A caller may still override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

# The script runs from its own folder, where its sibling modules are importable; the type
# checker reads the folder as part of the pto_tui package.
if TYPE_CHECKING:
    from pto_tui.demo.operators.demo_attention.attention_case import (
        Case,
        case_argument,
        make_inputs,
        parse_case,
        reference_attention,
    )
else:
    from attention_case import Case, case_argument, make_inputs, parse_case, reference_attention

NAME = "demo_attention"
FAMILY = "demo"
Inputs = tuple[np.ndarray, np.ndarray, np.ndarray]  # q, k, v


def log(message: str) -> None:
    print(message, flush=True)  # flushed per line: the log is streamed while the run goes on


def time_ms(run: Callable[[], object], warmup: int, repeat: int) -> dict[str, float]:
    """CPU time of this thread per run: like device time on an NPU it leaves out whatever else
    the machine is doing (wall-clock timings on a shared 2-core box swing by 50% and more)."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeat):
        start = time.thread_time()
        run()
        samples.append((time.thread_time() - start) * 1000.0)
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def new_run_dir(results_dir: Path) -> Path:
    """<results>/demo/demo_attention/<UTC %Y%m%dT%H%M%SZ>, with -2, -3, ... when that second is taken.

    mkdir without exist_ok claims the name atomically, so two runs never share a folder.
    """
    base = results_dir / FAMILY / NAME
    base.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for attempt in range(1, 1000):
        candidate = base / (stamp if attempt == 1 else f"{stamp}-{attempt}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise RuntimeError(f"no free result folder for {stamp} under {base}")


def write_report(results_dir: Path, report: dict[str, object]) -> Path:
    run_dir = new_run_dir(results_dir)
    target = run_dir / "report.json"
    partial = run_dir / "report.json.tmp"
    partial.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    partial.replace(target)  # a reader never sees half a report
    return target


def build_problem(build_dir: Path, knobs: dict[str, int], source_sha256: str) -> str | None:
    """Why the built kernel is not the one that would run, or None when it is."""
    plan_path = build_dir / "kernel.json"
    try:
        plan = json.loads(plan_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"the kernel was not built: {plan_path} is missing (run the build first)"
    except (OSError, json.JSONDecodeError) as error:
        return f"the kernel was not built: cannot read {plan_path} ({error})"
    built = plan.get("knobs") if isinstance(plan, dict) else None
    if built != knobs:
        return f"the kernel was not built for these knobs: built {built}, environment {knobs}"
    if plan.get("source_sha256") != source_sha256:
        return "the kernel was not built from this source: attention_kernel.py changed since the build"
    return None


def base_report(args: argparse.Namespace, case: Case) -> dict[str, object]:
    return {
        "status": "ok",
        "name": NAME,
        "family": FAMILY,
        "demo": True,
        "case": case.spec,
        "device": {"soc": "cpu-demo", "npu_arch": "none", "toolkit_version": f"numpy {np.__version__}"},
        "bench": {"warmup": args.warmup, "repeat": args.repeat, "statistic": "median"},
        "correctness": {"atol": args.atol, "rtol": args.rtol},
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark the CPU demo attention kernel (not PTO code).")
    parser.add_argument("--case", required=True, type=case_argument, help='e.g. "B=1,H=2,S=512,D=64"')
    parser.add_argument("--causal", action="store_true", help="causal mask (FLOPs halved)")
    parser.add_argument(
        "--causal-mask", type=int, choices=(0, 1), default=0, help="1: causal (same as --causal)"
    )
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--results-dir", type=Path, default=Path("bench/results"))
    parser.add_argument("--build-dir", type=Path, default=Path("build"), help="where kernel.json was built")
    args = parser.parse_args(argv)
    if args.warmup < 0 or args.repeat < 1:
        parser.error("--warmup must be >= 0 and --repeat >= 1")
    if not (args.atol >= 0 and args.rtol >= 0):
        parser.error("--atol and --rtol must be >= 0")
    return args


def measure_baseline(args: argparse.Namespace, case: Case, inputs: Inputs) -> dict[str, object]:
    q, k, v = inputs
    log(f"baseline (untiled NumPy attention): warmup {args.warmup}, repeat {args.repeat}")
    baseline_ms = time_ms(lambda: reference_attention(q, k, v, case.causal), args.warmup, args.repeat)
    log(f"baseline median {baseline_ms['median']:.3f} ms")
    return {"name": "numpy full-softmax attention", "benchmark": {"status": "ok", "timings_ms": baseline_ms}}


def load_kernel(build_dir: Path) -> tuple[ModuleType | None, str | None]:
    """The kernel module beside this script, or why it cannot run."""
    try:
        # importing it reads the knobs, so a bad value raises ValueError here
        kernel = importlib.import_module("attention_kernel")
    except ValueError as error:
        return None, f"bad knob: {error}"
    return kernel, build_problem(build_dir, kernel.knob_values(), kernel.source_hash())


def check_correctness(
    args: argparse.Namespace, case: Case, inputs: Inputs, kernel: ModuleType
) -> dict[str, object]:
    q, k, v = inputs
    out = kernel.tiled_attention(q, k, v, case.causal)
    # Compared with a float64 reference so the check measures the kernel, not float32 rounding.
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    expected = reference_attention(q64, k64, v64, case.causal)
    finite = bool(np.isfinite(out).all())
    diff = float(np.max(np.abs(out - expected))) if finite else None
    passes = finite and bool(np.allclose(out, expected, atol=args.atol, rtol=args.rtol))
    verdict = "pass" if passes else "FAIL"
    log(f"correctness: max_abs_diff {diff} (atol {args.atol}, rtol {args.rtol}) -> {verdict}")
    return {"max_abs_diff": diff, "atol": args.atol, "rtol": args.rtol, "passes": passes}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    case = parse_case(args.case, causal=args.causal or args.causal_mask == 1)
    report = base_report(args, case)
    log(f"demo_attention (CPU demo, NumPy; not PTO code): case {case.spec} causal={case.causal}")

    inputs = make_inputs(case)
    report["baseline"] = measure_baseline(args, case, inputs)
    kernel, problem = load_kernel(args.build_dir)
    if problem is not None or kernel is None:
        report["pto"] = {
            "compile": {"status": "missing", "reason": problem},
            "benchmark": {"status": "blocked", "reason": problem},
        }
        log(f"blocked: {problem}")
        log(f"report: {write_report(args.results_dir, report)}")
        return 1

    block_q, block_kv = kernel.DEMO_ATTN_BLOCK_Q, kernel.DEMO_ATTN_BLOCK_KV
    variant = {
        "B": case.B,
        "H": case.H,
        "S": case.S,
        "D": case.D,
        "dtype": "float32",
        "causal": case.causal,
        "block_q": block_q,
        "block_kv": block_kv,
    }
    log(f"tiled kernel: block_q={block_q} block_kv={block_kv}")
    correctness = check_correctness(args, case, inputs, kernel)
    q, k, v = inputs
    log(f"timing: warmup {args.warmup}, repeat {args.repeat}")
    pto_ms = time_ms(lambda: kernel.tiled_attention(q, k, v, case.causal), args.warmup, args.repeat)
    log(f"tiled kernel median {pto_ms['median']:.3f} ms (min {pto_ms['min']:.3f}, max {pto_ms['max']:.3f})")
    report["pto"] = {
        "compile": {"status": "ready", "kernel": str(args.build_dir / "kernel.json")},
        "benchmark": {"status": "ok", "timings_ms": pto_ms, "correctness": correctness, "variant": variant},
    }
    log(f"report: {write_report(args.results_dir, report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
