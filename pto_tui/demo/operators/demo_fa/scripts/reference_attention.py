"""CPU reference attention standing in for torch_npu on the demo_fa operator.

Same workload as the case spec "HEAD_SIZE,S0,S1" (one batch, one head), float32. Uses
torch's scaled_dot_product_attention when torch is installed, else NumPy; prints one JSON
line with avg/min/max in microseconds and TFLOPS, labelled as a CPU stand-in.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def parse_spec(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) < 3 or not all(p.strip().isdigit() for p in parts[:3]):
        raise argparse.ArgumentTypeError(f"expected HEAD_SIZE,S0,S1 as integers, got {text!r}")
    head, s0, s1 = (int(p) for p in parts[:3])
    if min(head, s0, s1) <= 0:
        raise argparse.ArgumentTypeError("HEAD_SIZE, S0 and S1 must be positive")
    return head, s0, s1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU reference attention (stand-in for torch_npu).")
    parser.add_argument("--case", required=True, type=parse_spec, help='e.g. "64,256,1024"')
    parser.add_argument("--causal-mask", type=int, choices=(0, 1), default=0)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    head, s0, s1 = args.case
    causal = args.causal_mask == 1
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((n, head), dtype=np.float32) for n in (s0, s1, s1))
    try:
        import torch  # type: ignore[import-not-found]  # optional: not a dependency

        torch.set_num_threads(1)  # thread CPU time only counts this thread

        tq, tk, tv = (torch.from_numpy(x)[None, None] for x in (q, k, v))

        def run() -> None:
            with torch.no_grad():
                torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

        backend = "torch"
    except ImportError:
        mask = np.triu(np.ones((s0, s1), dtype=bool), 1) if causal else None

        def run() -> None:
            scores = q @ k.T / np.sqrt(head)
            if mask is not None:
                scores = np.where(mask, -np.inf, scores)
            scores = np.exp(scores - scores.max(axis=1, keepdims=True))
            (scores / scores.sum(axis=1, keepdims=True)) @ v

        backend = "numpy"
    for _ in range(args.warmup):
        run()
    samples = []
    for _ in range(args.runs):
        start = time.thread_time()  # this thread's CPU time: steady on a busy machine
        run()
        samples.append((time.thread_time() - start) * 1e6)
    avg = sum(samples) / len(samples)
    flops = 4.0 * s0 * s1 * head / (2 if causal else 1)
    print(
        json.dumps(
            {
                "label": f"CPU reference ({backend}) standing in for torch_npu",
                "avg_us": avg,
                "min_us": min(samples),
                "max_us": max(samples),
                "tflops": flops / (avg * 1e-6) / 1e12,
                "warmup": args.warmup,
                "runs": args.runs,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
