"""Case strings, inputs and the plain NumPy reference shared by the demo's scripts."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import numpy as np

# Strict on purpose: the case string arrives from a command line a tool builds, so anything
# but four `KEY=<digits>` fields (e.g. "128;rm -rf ~") is rejected, never interpreted.
_CASE = re.compile(r"B=(\d{1,6}),H=(\d{1,6}),S=(\d{1,6}),D=(\d{1,6})")
_MAX_SCORES = 64 * 1024 * 1024  # B*H*S*S floats the full-softmax reference may hold (256 MiB)
SEED = 20240601


@dataclass(frozen=True)
class Case:
    B: int
    H: int
    S: int
    D: int
    causal: bool = False

    @property
    def spec(self) -> str:
        return f"B={self.B},H={self.H},S={self.S},D={self.D}"

    @property
    def flops(self) -> float:
        """docs/formats.md §5: 4 * B * H * S_q * S_kv * D, halved when causal."""
        flops = 4.0 * self.B * self.H * self.S * self.S * self.D
        return flops / 2 if self.causal else flops


def parse_case(text: str, causal: bool = False) -> Case:
    """`B=1,H=2,S=512,D=64` -> Case; ValueError naming the expected form otherwise."""
    match = _CASE.fullmatch(text.strip())
    if not match:
        raise ValueError(
            f"bad case {text!r}: expected B=<int>,H=<int>,S=<int>,D=<int>, e.g. B=1,H=2,S=512,D=64"
        )
    b, h, s, d = (int(g) for g in match.groups())
    if min(b, h, s, d) < 1:
        raise ValueError(f"bad case {text!r}: every size must be at least 1")
    if b * h * s * s > _MAX_SCORES:
        raise ValueError(f"bad case {text!r}: too large for the CPU demo (B*H*S*S > {_MAX_SCORES})")
    return Case(b, h, s, d, causal)


def case_argument(text: str) -> str:
    """argparse type= for --case: a bad value becomes a usage error (exit code 2)."""
    try:
        parse_case(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def make_inputs(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v of shape (B, H, S, D), float32, the same for every run of a case."""
    rng = np.random.default_rng(SEED)
    shape = (case.B, case.H, case.S, case.D)
    q = rng.standard_normal(shape, dtype=np.float32)
    k = rng.standard_normal(shape, dtype=np.float32)
    v = rng.standard_normal(shape, dtype=np.float32)
    return q, k, v


def reference_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False) -> np.ndarray:
    """softmax(q k^T / sqrt(D)) v over the full score matrix: the untiled baseline."""
    scale = np.float32(1.0 / np.sqrt(q.shape[-1]))
    scores = (q @ np.swapaxes(k, -1, -2)) * scale
    if causal:
        s = q.shape[-2]
        scores = np.where(np.tri(s, dtype=bool), scores, np.float32(-np.inf))
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v
