"""The demo operators as pto-tui sees them: packaged, declared demos, honest, with tunables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pto_tui.core.operators.scan import classify
from pto_tui.core.operators.tunables import discover, discover_report
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.demo import DEMO_OPERATORS, demo_operator_dir


def test_operator_dirs_exist() -> None:
    assert DEMO_OPERATORS == ("demo_attention", "demo_fa")
    for name in DEMO_OPERATORS:
        folder = demo_operator_dir(name)
        assert (folder / "pto-operator.toml").is_file()
        assert (folder / "README.md").is_file()
    with pytest.raises(ValueError, match="unknown demo operator"):
        demo_operator_dir("nope")


@pytest.mark.parametrize(
    ("name", "kind", "first_spec"),
    [
        ("demo_attention", OperatorKind.PTO_DSL, "B=1,H=2,S=512,D=64"),
        ("demo_fa", OperatorKind.PTO_TILE_LIB, "64,256,1024"),
    ],
)
def test_declared_as_demo_by_the_marker(name: str, kind: OperatorKind, first_spec: str) -> None:
    candidate = classify(demo_operator_dir(name))
    assert candidate is not None
    assert candidate.status == "declared" and candidate.kind is kind and candidate.demo
    assert "not PTO code" in candidate.description
    assert candidate.cases and candidate.cases[0].spec == first_spec
    # Honest: the only evidence is the marker, no PTO imports or headers were found.
    assert candidate.evidence == (f"pto-operator.toml: declares kind = {kind.value}",)


def test_no_pto_code_in_the_demos() -> None:
    for name in DEMO_OPERATORS:
        for path in demo_operator_dir(name).rglob("*"):
            if path.suffix not in (".py", ".cpp", ".h", ".txt"):
                continue
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"^\s*(from|import)\s+(ptodsl|pto_kernels|mlir)\b", text, re.M), path
            assert not re.search(r"#\s*include\s*[<\"]pto/", text), path


def test_tunables_are_discoverable(tmp_path: Path) -> None:
    dsl = {t.name: t for t in discover(demo_operator_dir("demo_attention"))}
    for knob in ("DEMO_ATTN_BLOCK_Q", "DEMO_ATTN_BLOCK_KV"):
        assert dsl[knob].kind == "env" and dsl[knob].default == 16
        assert dsl[knob].allowed == (8, 16, 32, 64, 128, 256)
        assert dsl[knob].where.startswith("attention_kernel.py:")
    report = discover_report(demo_operator_dir("demo_fa"))
    tile = {t.name: t for t in report.tunables}
    assert tile["kFaHeadUnroll"].kind == "constexpr" and tile["kFaHeadUnroll"].value == 4
    # kept to match the NPU kernel's constants, but the CPU code never reads it: no knob
    left_out = {item.name: item.reason for item in report.left_out}
    assert "kFaCvFifoSize" not in tile
    assert left_out["kFaCvFifoSize"] == "not used by the build"
    assert tile["QK_PRELOAD"].kind == "case" and tile["QK_PRELOAD"].value == 4
    assert tile["CAUSAL_MASK"].value == 0
