"""Plans with repeated steps: a kernel that runs its step in sub-tiles is costed as it
runs, so its current tile is not refused as one whole-tile query."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.cycles.guidance import attention_plan, candidate_values
from pto_tui.core.cycles.plan import Plan, Step, evaluate, step_queries
from pto_tui.core.cycles.query import QueryError
from tests.costmodel.test_suggest import _project

# The shape of the pto-isa flash attention: a TILE_S1 step split into CUBE_S1 chunks.
SUBTILED = {
    "fa_performance_kernel.h": (
        "constexpr int kFaCubeS1 = 128;\n#ifdef __CPU_SIM\nconstexpr int VEC_CORES = 1;\n"
        "#else\nconstexpr int VEC_CORES = 2;\n#endif\n"),
    "fa_performance_kernel.cpp": (
        "constexpr uint32_t kTileFactor = Tile_S1 / Cube_S1;\n"
        "constexpr uint32_t Vec_S0 = Cube_S0 / VEC_CORES / kTileFactor;\n"),
    "pto_macro_matmul.hpp": "TMATMUL(acc, a, b);",
    "pto_macro_fa_softmax.hpp": "TROWMAX(m, s, tmp); TEXP(p, p); TROWSUM(l, p, tmp);",
    "scripts/fa_cost_model.py": "cube_s1 = 720  # a sketch, not what the kernel compiles\n",
}
NAMES = ["CUBE_S0", "TILE_S1", "HEAD_SIZE", "S0", "S1"]


def test_expressions_are_exact() -> None:
    values = {"TILE_S1": 256, "CUBE_S1": 128, "CUBE_S0": 128, "VEC_CORES": 2}
    assert evaluate("{TILE_S1}/{CUBE_S1}", values) == 2
    assert evaluate("CUBE_S0*CUBE_S1/TILE_S1/VEC_CORES", values) == 32
    assert evaluate("4", values) == 4
    with pytest.raises(QueryError, match="1/2 with CUBE_S1=128, TILE_S1=64"):
        evaluate("{TILE_S1}/{CUBE_S1}", {**values, "TILE_S1": 64})
    with pytest.raises(QueryError, match="no value for NOPE"):
        evaluate("{NOPE}", values)
    with pytest.raises(QueryError, match="joined by"):
        evaluate("TILE_S1 + 1", values)


def test_a_step_repeats_its_query() -> None:
    plan = Plan((Step("TMATMUL half half float --m {M} --k 128 --n {C}", "{T}/{C}"),
                 Step("TEXP float -r {M} -c {T}")), "{M}*{T}", "test", ("T",), {"C": 128})
    (mm, n_mm), (exp, n_exp) = step_queries(plan, {"M": 64, "T": 512})
    assert mm.label.endswith("64x128x128") and n_mm == 4
    assert n_exp == 1 and "64x512" in exp.label


def test_the_real_flash_attention_shape_is_read_as_sub_tiled() -> None:
    plan = attention_plan(SUBTILED, NAMES, "float16")
    assert plan is not None
    assert plan.constants == {"CUBE_S1": 128, "VEC_CORES": 2}  # the NPU branch, not the sketch
    assert "sub-tiled" in plan.source and "fa_performance_kernel.h:1" in plan.source
    assert all(s.repeat == "{TILE_S1}/{CUBE_S1}" for s in plan.steps)
    base = {"CUBE_S0": 128, "TILE_S1": 256, "HEAD_SIZE": 128}
    options = {v: (qs, work, problem) for v, qs, work, problem in
               candidate_values(plan, "TILE_S1", [64, 256, 512], base)}
    qs, work, problem = options[256]
    assert problem == "" and work == 128 * 256
    keys = [(q.label, n) for q, n in qs]
    # two 128-column chunks of the matmuls; softmax slices of 128/2/2 = 32 rows x 256
    assert ("TMATMUL.float<half,half>_128x128x128", 2) in keys
    assert ("TROWMAX.float_32x256", 2) in keys
    assert "divide evenly" in options[64][2] and options[64][1] == 0
    assert ("TEXP.float_16x512", 4) in [(q.label, n) for q, n in options[512][0]]


def test_without_the_chunk_division_the_whole_tile_plan_stays() -> None:
    plain = {k: v for k, v in SUBTILED.items() if k.endswith(("matmul.hpp", "softmax.hpp"))}
    plan = attention_plan(plain, NAMES, "float16")
    assert plan is not None and plan.constants == {}
    assert all(s.repeat == "1" for s in plan.steps)


def test_a_declared_step_repeats_in_the_ranking(tmp_path: Path, stub_root: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, capsys)
    marker = root / "workspace" / "kernel" / "pto-operator.toml"
    marker.write_text(marker.read_text().split("[costmodel]")[0] + (
        '[costmodel]\nconstants = {CHUNK = 64}\nwork = "{CUBE_S0}*{TILE_S1}"\nqueries = [\n'
        '  {query = "TMATMUL half half float --m {CUBE_S0} --k {HEAD_SIZE} --n {CHUNK}",'
        ' repeat = "{TILE_S1}/{CHUNK}"},\n  "TEXP float -r {CUBE_S0} -c {TILE_S1}",\n]\n'))
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json",
                 "--knob", "TILE_S1"]) == 0
    (tile,) = json.loads(capsys.readouterr().out)["suggestions"]
    assert tile["knob"] == "TILE_S1"
    for c in tile["ranking"]:
        mm, exp = c["queries"]
        assert mm["repeat"] == c["value"] // 64 and exp["repeat"] == 1
        if c["cycles"] is not None:  # the cube and the vector cores overlap: the longer sum
            assert c["cube_cycles"] == mm["cycles"] * mm["repeat"]
            assert c["vector_cycles"] == exp["cycles"]
            assert c["cycles"] == max(c["cube_cycles"], c["vector_cycles"]) and c["overlap"]
    assert "x {TILE_S1}/{CHUNK}" in tile["evidence"]
    assert "longer of the cube and vector sums" in tile["evidence"]
    marker.write_text(marker.read_text().replace("[costmodel]\n", "[costmodel]\noverlap = false\n"))
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json",
                 "--knob", "TILE_S1"]) == 0
    (tile,) = json.loads(capsys.readouterr().out)["suggestions"]
    for c in tile["ranking"]:
        if c["cycles"] is not None:  # declared not overlapped: added
            assert c["cycles"] == c["cube_cycles"] + c["vector_cycles"] and not c["overlap"]
    assert "added (not overlapped)" in tile["evidence"]
    marker.write_text(marker.read_text().replace("overlap = false", "overlap = 'no'"))
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root)]) == 2
    assert "overlap must be true or false" in capsys.readouterr().err
    marker.write_text(marker.read_text().replace("overlap = 'no'\n", ""))
    marker.write_text(marker.read_text().replace("constants = {CHUNK = 64}", "constants = {CHUNK = 'x'}"))
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root)]) == 2
    assert "constants must map names to whole numbers" in capsys.readouterr().err
