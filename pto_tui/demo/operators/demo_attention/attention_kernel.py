"""CPU demo kernel: tiled (flash-style, online-softmax) attention in NumPy. Not PTO code.

The tile sizes are tuning knobs, read once at module import from the environment (as the
module-level constants of a real PTO-DSL operator are):

- DEMO_ATTN_BLOCK_Q: query rows per block.
- DEMO_ATTN_BLOCK_KV: keys per block.

Every (query block, key block) pair is one Python-level iteration running a handful of
NumPy calls, so small tiles pay that fixed cost many times (slow) and large tiles few times
(fast) until the arithmetic dominates and the curve flattens: tile choices really change the
speed. `build_jit_wrapper(output_dir=...)._build()` is the demo's stand-in for the JIT build:
it validates the knobs and writes kernel.json describing the plan; the benchmark refuses to
run a kernel that was not built for the current knobs and source.

Build from this folder: `python attention_kernel.py --output-dir build`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

# The module runs from its own folder, where demo_knobs is importable; the type checker
# reads the folder as part of the pto_tui package.
if TYPE_CHECKING:
    from pto_tui.demo.operators.demo_attention.demo_knobs import tuned_int
else:
    from demo_knobs import tuned_int

BLOCK_SIZES = (8, 16, 32, 64, 128, 256)
DEMO_ATTN_BLOCK_Q = tuned_int("DEMO_ATTN_BLOCK_Q", 16, valid_values=(8, 16, 32, 64, 128, 256))
DEMO_ATTN_BLOCK_KV = tuned_int("DEMO_ATTN_BLOCK_KV", 16, valid_values=(8, 16, 32, 64, 128, 256))

KERNEL_JSON = "kernel.json"


def knob_values() -> dict[str, int]:
    """The knob values this module was imported with."""
    return {"DEMO_ATTN_BLOCK_Q": DEMO_ATTN_BLOCK_Q, "DEMO_ATTN_BLOCK_KV": DEMO_ATTN_BLOCK_KV}


def source_hash() -> str:
    """sha256 of this file: the build records it so a later edit means "not built"."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def tiled_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    causal: bool = False,
    block_q: int = DEMO_ATTN_BLOCK_Q,
    block_kv: int = DEMO_ATTN_BLOCK_KV,
) -> np.ndarray:
    """softmax(q k^T / sqrt(D)) v for (B, H, S, D) arrays, one (block_q x block_kv) tile at a time.

    B and H are handled together by NumPy's batched matmul; only the sequence is tiled.
    """
    _, _, seq, head_dim = q.shape
    scale = np.float32(1.0 / np.sqrt(head_dim))
    out = np.empty_like(q)
    for q0 in range(0, seq, block_q):
        q_blk = q[:, :, q0 : q0 + block_q] * scale
        rows = q_blk.shape[2]
        row_max = np.full(q_blk.shape[:3] + (1,), -np.inf, dtype=np.float32)
        row_sum = np.zeros_like(row_max)
        acc = np.zeros_like(q_blk)
        # Causal: keys after the block's last query row are all masked, so skip those tiles.
        # Tile 0 always holds key 0, so every row's running max is finite after the first tile.
        kv_end = min(seq, q0 + rows) if causal else seq
        for k0 in range(0, kv_end, block_kv):
            k_blk = k[:, :, k0 : k0 + block_kv]
            v_blk = v[:, :, k0 : k0 + block_kv]
            scores = q_blk @ np.swapaxes(k_blk, -1, -2)
            if causal and k0 + k_blk.shape[2] - 1 > q0:  # the tile crosses the diagonal
                visible = np.arange(k0, k0 + k_blk.shape[2])[None, :] <= np.arange(q0, q0 + rows)[:, None]
                scores = np.where(visible, scores, np.float32(-np.inf))
            new_max = np.maximum(row_max, scores.max(axis=-1, keepdims=True))
            # Online softmax: what was summed under the old max is rescaled to the new one.
            correction = np.exp(row_max - new_max)
            probs = np.exp(scores - new_max)
            row_sum = row_sum * correction + probs.sum(axis=-1, keepdims=True)
            acc = acc * correction + probs @ v_blk
            row_max = new_max
        out[:, :, q0 : q0 + rows] = acc / row_sum
    return out


class DemoJitWrapper:
    """Stands in for the ptodsl JIT wrapper: `_build()` is the build step."""

    def __init__(self, output_dir: str | os.PathLike[str]) -> None:
        self.output_dir = Path(output_dir)

    def _build(self) -> Path:
        # Re-read the environment: it must still hold valid values, and the ones this module
        # was imported with (a build for other knobs than the kernel would run is a lie).
        for name, value in knob_values().items():
            now = tuned_int(name, value, valid_values=BLOCK_SIZES)
            if now != value:
                raise ValueError(f"{name} changed from {value} to {now} after import; build anew")
        knobs = knob_values()
        tile = f"{DEMO_ATTN_BLOCK_Q}x{DEMO_ATTN_BLOCK_KV} (query rows x keys)"
        plan = {
            "operator": "demo_attention",
            "demo": True,
            "note": "CPU demo operator (NumPy tiled attention), not PTO code",
            "knobs": knobs,
            "tile": tile,
            "source": Path(__file__).name,
            "source_sha256": source_hash(),
            "numpy": np.__version__,
            "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        }
        self.output_dir.mkdir(parents=True, exist_ok=True)
        target = self.output_dir / KERNEL_JSON
        partial = target.with_suffix(".json.tmp")
        partial.write_text(json.dumps(plan, indent=2) + "\n", encoding="utf-8")
        partial.replace(target)  # a reader never sees half a plan
        knob_text = " ".join(f"{k}={v}" for k, v in knobs.items())
        print(f"built demo_attention (CPU demo, NumPy): {knob_text}, tile {tile} -> {target}", flush=True)
        return target


def build_jit_wrapper(*, output_dir: str | os.PathLike[str]) -> DemoJitWrapper:
    return DemoJitWrapper(output_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the CPU demo attention kernel (writes kernel.json).")
    parser.add_argument("--output-dir", default="build", help="where kernel.json goes (default: build)")
    args = parser.parse_args(argv)
    try:
        build_jit_wrapper(output_dir=args.output_dir)._build()
    except (ValueError, OSError) as error:
        print(f"build failed: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
