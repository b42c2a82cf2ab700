"""Operator scan and classification, with evidence; tunable discovery."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.operators.marker import MARKER_FILE
from pto_tui.core.operators.scan import classify, scan
from pto_tui.core.operators.tunables import apply_parameter, discover
from pto_tui.core.vocabulary import OperatorKind
from tests.core.helpers import FIXTURES, cli, cli_json


def test_fixture_tree_is_classified_with_evidence() -> None:
    result = scan(FIXTURES)
    by_name = {c.name: c for c in result.candidates}
    assert set(by_name) == {
        "attention_dsl",
        "fa_tilelib",
        "mixed_op",
    }  # plain_python is no operator
    dsl = by_name["attention_dsl"]
    assert dsl.kind is OperatorKind.PTO_DSL and dsl.status == "detected"
    assert "attention_kernel.py:3: imports ptodsl" in dsl.evidence
    assert "attention_kernel.py:4: imports mlir.dialects.pto" in dsl.evidence
    assert [c.name for c in dsl.cases] == ["attention_s1024", "attention_s4096"]
    tile = by_name["fa_tilelib"]
    assert tile.kind is OperatorKind.PTO_TILE_LIB
    assert "fa_kernel.h:2: includes pto/pto-inst.hpp" in tile.evidence
    assert any("uses tile type Tile<TileType::Vec" in e for e in tile.evidence)
    mixed = by_name["mixed_op"]
    assert mixed.kind is None and mixed.status == "mixed"


def test_marker_overrides_the_heuristics(tmp_path: Path) -> None:
    folder = tmp_path / "op"
    folder.mkdir()
    (folder / "k.py").write_text("from ptodsl import jit\n")
    (folder / MARKER_FILE).write_text(
        'name = "demo_gemm"\nkind = "pto-tile-lib"\ndemo = true\n'
        '[[cases]]\nname = "small"\nspec = "64,64,64"\n'
    )
    candidate = classify(folder)
    assert candidate is not None
    assert candidate.kind is OperatorKind.PTO_TILE_LIB and candidate.status == "declared"
    assert candidate.evidence[0] == f"{MARKER_FILE}: declares kind = pto-tile-lib"
    assert candidate.demo and candidate.cases[0].spec == "64,64,64"


def test_broken_marker_is_reported_and_scan_goes_on(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir()
    (good / "k.py").write_text("import ptodsl\n\n\n@ptodsl.jit(block_dim=1)\ndef k(x):\n    pass\n")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / MARKER_FILE).write_text('kind = "cuda"\n')
    result = scan(tmp_path)
    assert [c.name for c in result.candidates] == ["good"]
    assert any(MARKER_FILE in w and "unknown kind" in w for w in result.warnings)


def test_scan_errors_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="directory is empty"):
        scan(tmp_path)
    with pytest.raises(InputError, match="no such directory"):
        scan(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        scan(tmp_path / "f")
    # root can read anything, so unreadability is injected
    monkeypatch.setattr(os, "access", lambda *_a, **_k: False)
    with pytest.raises(InputError, match="permission denied"):
        scan(tmp_path)


def test_scan_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = cli_json(capsys, "scan", FIXTURES)
    assert {c["name"] for c in data["candidates"]} == {"attention_dsl", "fa_tilelib", "mixed_op"}
    capsys.readouterr()
    assert cli("scan", tmp_path) == 2
    assert "directory is empty" in capsys.readouterr().err


def test_discover_tunables() -> None:
    dsl = {t.name: t for t in discover(FIXTURES / "attention_dsl")}
    assert dsl["PTO_ATTENTION_QK_BLOCK_DIM"].allowed == (1, 2, 4, 8, 16, 20)
    assert dsl["PTO_ATTENTION_QK_BLOCK_DIM"].value == 8
    assert dsl["PTO_ATTENTION_QK_BASE_M"].where == "attention_kernel.py:6"
    tile = {t.name: t for t in discover(FIXTURES / "fa_tilelib")}
    assert tile["kFaTileS1"].value == 256 and tile["kFaTileS1"].kind == "constexpr"
    assert tile["kFaCvFifoSize"].where == "fa_kernel.h:4"
    assert tile["TILE_S1"].kind == "template" and tile["TILE_S1"].value == 256
    assert tile["CV_FIFO_SIZE"].value == 8
    assert tile["QK_PRELOAD"].kind == "case" and tile["QK_PRELOAD"].value == 4


def test_apply_parameter_edits_the_source(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "k"
    shutil.copytree(FIXTURES / "fa_tilelib", root)
    tile = {t.name: t for t in discover(root)}
    assert apply_parameter(root, tile["kFaCvFifoSize"], 16) == "fa_kernel.h"
    assert "constexpr int kFaCvFifoSize = 16;" in (root / "fa_kernel.h").read_text()
    assert apply_parameter(root, tile["CUBE_S0"], 64) == "fa_kernel.cpp"
    assert "LaunchTFA<128, 128, 1024, 64, 128, 256, 4, 8>" in (root / "fa_kernel.cpp").read_text()
    assert apply_parameter(root, tile["QK_PRELOAD"], 2) is None  # a case field: no source edit
    assert {t.name: t.value for t in discover(root)}["kFaCvFifoSize"] == 16
