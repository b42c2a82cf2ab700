"""CPU reference attention standing in for the torch_npu baseline on the demo (docs/formats.md §5).

    python reference_attention.py --case "B=1,H=2,S=512,D=64" [--causal] --warmup 5 --runs 10

Uses torch.nn.functional.scaled_dot_product_attention when torch is importable, else the
NumPy full-softmax attention; same shape, float32. Prints one JSON line:
{"label", "avg_us", "min_us", "max_us", "tflops", "warmup", "runs"}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

# One thread, like bench_attention.py, so the demo's baseline numbers are comparable run to run.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

# The script runs from its own folder, where its sibling modules are importable; the type
# checker reads the folder as part of the pto_tui package.
if TYPE_CHECKING:
    from pto_tui.demo.operators.demo_attention.attention_case import (
        case_argument,
        make_inputs,
        parse_case,
        reference_attention,
    )
else:
    from attention_case import case_argument, make_inputs, parse_case, reference_attention


def reference_runner(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool
) -> tuple[str, Callable[[], object]]:
    """(backend name, a call running the reference once)."""
    try:
        import torch  # type: ignore[import-not-found]  # optional: not a dependency
        import torch.nn.functional as functional  # type: ignore[import-not-found]
    except ImportError:
        return "numpy", lambda: reference_attention(q, k, v, causal)
    torch.set_num_threads(1)
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))

    def run() -> object:
        with torch.no_grad():
            return functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

    return "torch", run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU reference attention (stand-in for torch_npu).")
    parser.add_argument("--case", required=True, type=case_argument, help='e.g. "B=1,H=2,S=512,D=64"')
    parser.add_argument("--causal", action="store_true")
    parser.add_argument(
        "--causal-mask", type=int, choices=(0, 1), default=0, help="1: causal (same as --causal)"
    )
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    if args.warmup < 0 or args.runs < 1:
        parser.error("--warmup must be >= 0 and --runs >= 1")
    case = parse_case(args.case, causal=args.causal or args.causal_mask == 1)
    backend, run = reference_runner(*make_inputs(case), case.causal)
    for _ in range(args.warmup):
        run()
    samples = []
    for _ in range(args.runs):
        start = time.thread_time()  # this thread's CPU time: steady on a busy machine
        run()
        samples.append((time.thread_time() - start) * 1e6)
    avg_us = sum(samples) / len(samples)
    result = {
        "label": f"CPU reference ({backend}) standing in for torch_npu",
        "avg_us": round(avg_us, 3),
        "min_us": round(min(samples), 3),
        "max_us": round(max(samples), 3),
        "tflops": case.flops / (avg_us * 1e-6) / 1e12,
        "warmup": args.warmup,
        "runs": args.runs,
    }
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
