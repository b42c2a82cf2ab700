"""`suggest` on a PTO-DSL operator laid out as pto-kernels' flash_attention_score: the
kernel's tile knobs are the base tiles of its QK and PV matmul stages, built in the
shared `ops/attention/common.py` it imports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.cycles.stages import matmul_stage_plans, stage_knobs

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"

KERNEL = '''"""Staged dense attention: QK matmul, row softmax, PV matmul."""
from pto_kernels.ops.attention.common import DenseAttentionConfig, DenseAttentionPipelineWrapper
from pto_kernels.utils.tuning import tuned_int


def _config():
    return DenseAttentionConfig(
        seq_len=tuned_int("PTO_ATTENTION_SEQ_LEN", 128, valid_values=(128, 256)),
        head_dim=tuned_int("PTO_ATTENTION_HEAD_DIM", 64, valid_values=(64, 128)),
        qk_base_m=tuned_int("PTO_ATTENTION_QK_BASE_M", 16, valid_values=(16, 32, 64)),
        qk_base_n=tuned_int("PTO_ATTENTION_QK_BASE_N", 16, valid_values=(16, 32, 64)),
        qk_base_k=tuned_int("PTO_ATTENTION_QK_BASE_K", 64, valid_values=(32, 64)),
        pv_base_m=tuned_int("PTO_ATTENTION_PV_BASE_M", 16, valid_values=(16, 32, 64)),
        pv_base_n=tuned_int("PTO_ATTENTION_PV_BASE_N", 32, valid_values=(32, 64, 128)),
        pv_base_k=tuned_int("PTO_ATTENTION_PV_BASE_K", 32, valid_values=(16, 32, 64)),
        softmax_block_dim=tuned_int("PTO_ATTENTION_SOFTMAX_BLOCK_DIM", 8, valid_values=(1, 8)),
    )


def build_jit_wrapper(*, output_dir):
    return DenseAttentionPipelineWrapper(config=_config(), output_dir=output_dir)
'''

# what the PTO-DSL stage builders in common.py call, in the real module's words
STAGES = '''

def _qk_stage_body(q_tile_buf, kt_tile_buf, scores_acc_tile, first):
    if first:
        tile.matmul(q_tile_buf, kt_tile_buf, scores_acc_tile)
    else:
        tile.matmul_acc(scores_acc_tile, q_tile_buf, kt_tile_buf, scores_acc_tile)
'''


def _project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "src" / "pto-kernels"
    shutil.copytree(REPO, root)
    (root / FA / "kernel.py").write_text(KERNEL)
    common = root / "python/pto_kernels/ops/attention/common.py"
    common.write_text(common.read_text() + STAGES)
    assert main(["new", str(root / FA), "--projects-root", str(tmp_path / "projects"),
                 "--case", "b1_n1_s128_d64"]) == 0
    capsys.readouterr()
    return tmp_path / "projects" / "flash_attention_score"


def test_base_tile_knobs_name_their_stage() -> None:
    names = ["PTO_ATTENTION_QK_BASE_M", "PTO_ATTENTION_QK_BASE_N", "PTO_ATTENTION_QK_BASE_K",
             "PTO_ATTENTION_PV_BASE_M", "PTO_ATTENTION_PV_BASE_N", "OTHER_BASE_M"]
    assert stage_knobs(names) == {"PTO_ATTENTION_QK": {"M": names[0], "N": names[1], "K": names[2]}}
    assert matmul_stage_plans({"k.py": "x = 1"}, names, "float16") == []  # no matmul called
    (plan,) = matmul_stage_plans({"common.py": "tile.matmul(a, b, c)"}, names, "float16")
    assert plan.templates == ("TMATMUL half half float --m {PTO_ATTENTION_QK_BASE_M} "
                              "--k {PTO_ATTENTION_QK_BASE_K} --n {PTO_ATTENTION_QK_BASE_N}",)
    assert plan.work == "{PTO_ATTENTION_QK_BASE_M}*{PTO_ATTENTION_QK_BASE_K}*{PTO_ATTENTION_QK_BASE_N}"
    assert "common.py" in plan.source


def test_suggest_ranks_the_matmul_stages_of_a_dsl_attention(
        tmp_path: Path, stub_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, capsys)
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json"]) == 0
    by_knob = {s["knob"]: s for s in json.loads(capsys.readouterr().out)["suggestions"]}
    stage = ("BASE_M", "BASE_N", "BASE_K")
    assert set(by_knob) == {f"PTO_ATTENTION_{s}_{d}" for s in ("QK", "PV") for d in stage}
    pv_n = by_knob["PTO_ATTENTION_PV_BASE_N"]
    assert pv_n["current"] == 32 and sorted(c["value"] for c in pv_n["ranking"]) == [32, 64, 128]
    assert "derived from python/pto_kernels/ops/attention/common.py" in pv_n["plan"]
    for c in pv_n["ranking"]:
        (q,) = c["queries"]  # one TMATMUL of the base tile, the others at their values
        assert q["label"] == f"TMATMUL.float<half,half>_16x32x{c['value']}"
        assert c["work"] == 16 * 32 * c["value"]  # multiply-accumulates
        assert c["cycles"] == q["cycles"] and c["cycles_per_unit"] == q["cycles"] / c["work"]
    per_unit = [c["cycles_per_unit"] for c in pv_n["ranking"]]
    assert per_unit == sorted(per_unit)
    assert "Costmodel ranking of PTO_ATTENTION_PV_BASE_N" in pv_n["evidence"]
    assert "PTO_ATTENTION_SOFTMAX_BLOCK_DIM" not in by_knob  # not a tile of a matmul stage
