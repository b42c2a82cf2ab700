"""`pto-tui suggest`: tile knobs ranked by the costmodel, on the demo operator and on a
kernel whose attention step is read from its source."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pto_tui.cli.main import main
from pto_tui.core.cycles.guidance import attention_plan

DEMO_FA = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators" / "demo_fa"


def _project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    shutil.copytree(DEMO_FA, tmp_path / "src")
    assert main(["new", str(tmp_path / "src"), "--projects-root", str(tmp_path / "projects"),
                 "--case", "case_float_H_128_S0_128_S1_1024"]) == 0
    capsys.readouterr()
    return tmp_path / "projects" / "demo_fa"


def test_suggest_ranks_the_demo_s_tile_knobs(tmp_path: Path, stub_root: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, capsys)
    code = main(["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    by_knob = {s["knob"]: s for s in json.loads(out)["suggestions"]}
    assert set(by_knob) == {"CUBE_S0", "TILE_S1"}
    tile = by_knob["TILE_S1"]
    assert tile["plan"] == "declared in pto-operator.toml"
    assert tile["costmodel"].startswith("builtin sha256:")
    values = [c["value"] for c in tile["ranking"]]
    assert sorted(values) == [128, 256, 512]
    big = next(c for c in tile["ranking"] if c["value"] == 512)
    # B of the first matmul is 128 x 512 half = 128 KiB: over L0B, so refused and last
    assert big["cycles"] is None and "L0B" in big["refused"] and values[-1] == 512
    fits = [c for c in tile["ranking"] if c["cycles"] is not None]
    per_unit = [c["cycles_per_unit"] for c in fits]
    assert per_unit == sorted(per_unit) and tile["suggested"] == fits[0]["value"]
    for c in fits:  # the evidence: every query with its cycles
        assert len(c["queries"]) == 5 and all(q["cycles"] for q in c["queries"])
        cube = sum(q["cycles"] for q in c["queries"] if q["label"].startswith("TMATMUL"))
        vector = sum(q["cycles"] for q in c["queries"]) - cube
        assert (c["cube_cycles"], c["vector_cycles"]) == (cube, vector)
        assert c["cycles"] == max(cube, vector)  # the cube and vector cores overlap
        assert c["work"] == 2 * c["value"]  # CUBE_S0 (2) x TILE_S1 scores per step
    assert "Costmodel ranking of TILE_S1" in tile["evidence"]
    cube = by_knob["CUBE_S0"]
    assert any(c["refused"] for c in cube["ranking"])  # 256-row tiles overflow L0A / UB
    code = main(["--project", str(root), "suggest", "--pto-isa", str(stub_root)])
    text = capsys.readouterr().out
    assert code == 0 and "1. TILE_S1=" in text and "refused: " in text


def test_the_attention_step_is_read_from_the_source() -> None:
    sources = {
        "kernel/pto_macro_matmul.hpp": "TMATMUL(accTile, leftTile, rightTile);",
        "kernel/pto_macro_fa_softmax.hpp": "TROWMAX(maxTile, sTile, tmp); TEXP(p, p);",
        "kernel/other.cpp": "int main() {}",
    }
    plan = attention_plan(sources, ["CUBE_S0", "TILE_S1", "HEAD_SIZE", "S0"], "float16")
    assert plan is not None
    assert plan.knobs == ("CUBE_S0", "TILE_S1")
    assert plan.templates[0] == "TMATMUL half half float --m {CUBE_S0} --k {HEAD_SIZE} --n {TILE_S1}"
    assert "pto_macro_fa_softmax.hpp" in plan.source and "pto_macro_matmul.hpp" in plan.source
    # no softmax: not an attention step
    assert attention_plan({"a.cpp": "TMATMUL(c, a, b);"}, ["CUBE_S0", "TILE_S1", "HEAD_SIZE"],
                          "float16") is None


def test_no_plan_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  stub_root: Path) -> None:
    root = _project(tmp_path, capsys)
    marker = root / "workspace" / "kernel" / "pto-operator.toml"
    marker.write_text(marker.read_text().split("[costmodel]")[0])
    code = main(["--project", str(root), "suggest", "--pto-isa", str(stub_root)])
    err = capsys.readouterr().err
    assert code == 2 and "no costmodel plan" in err and "Traceback" not in err


def test_without_allowed_values_powers_of_two_around_the_current_tile() -> None:
    from pto_tui.costmodel.suggest import around

    assert around(128) == [32, 64, 128, 256, 512]
    assert around(16) == [16, 32, 64]
    assert around(96) == [] and around(None) == []


def test_a_second_suggest_reuses_the_ranking_and_an_edited_source_ranks_again(
    tmp_path: Path, stub_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranking is kept per the sources read and the costmodel's version: unchanged,
    a second run prints it without ranking; an edited source or marker ranks again."""
    import pto_tui.cli.suggest_cmd as suggest_cmd
    from pto_tui.costmodel.ranking_cache import RANKING_FILE

    root = _project(tmp_path, capsys)
    ranked: list[str] = []
    real = suggest_cmd.suggest

    async def counted(*args: Any, **kwargs: Any) -> Any:
        ranked.append("ranked")
        return await real(*args, **kwargs)

    monkeypatch.setattr(suggest_cmd, "suggest", counted)

    def run(*extra: str) -> dict[str, Any]:
        argv = ["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json", *extra]
        assert main(argv) == 0
        out: dict[str, Any] = json.loads(capsys.readouterr().out)
        return out

    first = run()
    assert len(ranked) == 1 and (root / ".pto-tui" / "cache" / RANKING_FILE).is_file()
    assert run() == first and len(ranked) == 1  # kept: not ranked again
    assert run("--no-cache") == first and len(ranked) == 2  # --no-cache ranks
    kernel = root / "workspace" / "kernel" / "fa_kernel.h"
    kernel.write_text(kernel.read_text() + "\n// edited by a round\n")
    assert run() == first and len(ranked) == 3  # an edited source: ranked again
    assert run() == first and len(ranked) == 3
    marker = root / "workspace" / "kernel" / "pto-operator.toml"
    marker.write_text(marker.read_text().replace('"{CUBE_S0}*{TILE_S1}"', '"{CUBE_S0}*{TILE_S1}*2"'))
    again = run()
    assert len(ranked) == 4 and again != first  # the work per step doubled: other numbers
