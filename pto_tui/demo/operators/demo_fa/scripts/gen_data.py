"""Write the inputs and the golden output of each case, relative to the current directory.

CPU demo of a PTO-tile-lib flash attention's data generator; run it from the build directory:

    python3 ../scripts/gen_data.py --cases "64,256,1024,64,256" [--causal-mask 0|1]

Without --causal-mask the mask compiled into the binary is used: FA_CAUSAL_MASK of
./generated_cases.inc (0 when that file is absent).

For each case: data/case_float_H_<H>_S0_<S0>_S1_<S1>/{q,k,v,golden}.bin, raw float32,
row-major q[S0][H], k[S1][H], v[S1][H], golden[S0][H] = softmax(q k^T / sqrt(H)) v
(computed in float64). Inputs come from a fixed seed, so every run writes the same bytes.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

# The script runs from its own folder, where generate_cases is importable; the type checker
# reads the folder as part of the pto_tui package.
if TYPE_CHECKING:
    from pto_tui.demo.operators.demo_fa.scripts.generate_cases import OUTPUT, FaCase, parse_cases
else:
    from generate_cases import OUTPUT, FaCase, parse_cases

SEED = 20240601


def golden(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    scores = q64 @ k64.T / np.sqrt(q.shape[1])
    if causal:  # query row i sees keys 0..i (top-left aligned), as the kernel does
        scores = np.where(np.tri(q.shape[0], k.shape[0], dtype=bool), scores, -np.inf)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return (weights @ v64).astype(np.float32)


def compiled_causal_mask() -> int:
    """FA_CAUSAL_MASK of the case list in the current (build) directory, 0 without one."""
    try:
        text = Path(OUTPUT).read_text(encoding="utf-8")
    except OSError:
        return 0
    match = re.search(r"^#define FA_CAUSAL_MASK (\d)", text, re.M)
    return int(match.group(1)) if match else 0


def write_case(case: FaCase, causal: bool) -> Path:
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((case.s0, case.head), dtype=np.float32)
    k = rng.standard_normal((case.s1, case.head), dtype=np.float32)
    v = rng.standard_normal((case.s1, case.head), dtype=np.float32)
    folder = Path("data") / case.name
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in (("q", q), ("k", k), ("v", v), ("golden", golden(q, k, v, causal))):
        array.tofile(folder / f"{name}.bin")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate inputs and golden data for the demo flash attention."
    )
    parser.add_argument("--cases", required=True, help='e.g. "64,256,1024,64,256"')
    parser.add_argument("--causal-mask", type=int, default=None, choices=(0, 1), help="default: as compiled")
    args = parser.parse_args(argv)
    causal = bool(compiled_causal_mask() if args.causal_mask is None else args.causal_mask)
    seen = set()
    for case in parse_cases(args.cases):
        if case.name in seen:  # tile variants of one workload share its data
            continue
        seen.add(case.name)
        print(f"  - {write_case(case, causal)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
