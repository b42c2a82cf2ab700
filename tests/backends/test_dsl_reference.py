"""The torch_npu reference of a PTO-DSL attention operator from its variant's fields
(batch, heads, seq_len, head_dim), run on the local target with a NumPy stand-in for torch
and torch_npu (no NPU here): the SDPA it times has the variant's shape. A bench-spec case
(every variant at once) has no one shape, and is refused naming what to set."""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from tests.core.helpers import cli, cli_json

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"

# torch as the generated SDPA benchmark uses it, on NumPy; each attention call writes the
# shapes of q and k where $SDPA_SHAPES says
TORCH = '''
import os
import time

import numpy as np

__version__ = "0.0-stub"
float16, bfloat16, float32 = np.float16, np.float32, np.float32


def randn(*shape, dtype=None, device=None):
    return np.random.default_rng(0).standard_normal(shape).astype(dtype or np.float32)


class nn:
    class functional:
        @staticmethod
        def scaled_dot_product_attention(q, k, v, is_causal=False):
            with open(os.environ["SDPA_SHAPES"], "a") as out:
                out.write(",".join(map(str, q.shape)) + " " + ",".join(map(str, k.shape)) + "\\n")
            s = q.astype(np.float32) @ np.swapaxes(k, -1, -2).astype(np.float32) / np.sqrt(q.shape[-1])
            p = np.exp(s - s.max(axis=-1, keepdims=True))
            return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float32)


class npu:
    @staticmethod
    def is_available():
        return True

    @staticmethod
    def synchronize():
        return None

    class Event:
        def __init__(self, enable_timing=False):
            self.at = 0.0

        def record(self):
            self.at = time.perf_counter()

        def elapsed_time(self, other):
            return (other.at - self.at) * 1000.0
'''


def _project(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> Path:
    stand_ins = tmp_path / "stand-ins"
    (stand_ins / "torch").mkdir(parents=True, exist_ok=True)
    (stand_ins / "torch" / "__init__.py").write_text(TORCH)
    (stand_ins / "torch_npu").mkdir(exist_ok=True)
    (stand_ins / "torch_npu" / "__init__.py").write_text("")
    python = Path(sys.executable).parent
    setup = f"export PATH={python}:$PATH PYTHONPATH={stand_ins} SDPA_SHAPES={tmp_path / 'shapes.txt'}"
    if not (tmp_path / "pto-kernels").exists():
        shutil.copytree(REPO, tmp_path / "pto-kernels")
    data = cli_json(capsys, "new", tmp_path / "pto-kernels" / FA, "--case", case, "--env-setup", setup,
                    "--projects-root", tmp_path / "projects", "--overwrite")
    return Path(str(data["project"]))


def test_the_reference_of_a_variant_has_the_variants_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, capsys, "b1_n1_s256_d64")
    assert cli("--project", root, "torch-baseline") == 0
    shapes = set((tmp_path / "shapes.txt").read_text().split("\n")) - {""}
    assert shapes == {"1,1,256,64 1,1,256,64"}  # B, N, S, D of the variant, for q and k
    state = tomllib.loads((root / "project.toml").read_text())["state"]["torch_baseline"]
    assert state["label"] == "torch_npu scaled_dot_product_attention" and state["avg_us"] > 0


def test_a_bench_spec_case_has_no_one_shape_to_compare_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, capsys, "flash_attention_score")
    assert cli("--project", root, "torch-baseline") == 2
    err = capsys.readouterr().err
    assert "the case has no S0 (nor S, SQ, S_Q, SEQ, SEQ_LEN;" in err and "a variant with those fields" in err
