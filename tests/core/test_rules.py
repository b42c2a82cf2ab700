"""Rule functions: the declared scope, high-risk detection, tolerances, the three-round rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.rounds.records import ChecklistItem, EnvironmentNotes, PreEdit, Round
from pto_tui.core.rules.pre_edit import pre_edit_findings
from pto_tui.core.rules.protected import loosened_tolerances, protected_findings
from pto_tui.core.rules.registry import for_front
from pto_tui.core.rules.risk import diff_risks, parameter_risks, risk_findings, tile_knobs
from pto_tui.core.rules.scope import outside_scope
from pto_tui.core.rules.sequence import (
    BASELINE_FIRST,
    ENVIRONMENT_ROUND,
    ONE_ROUND_AT_A_TIME,
    THREE_ROUND_RULE,
    rounds_without_gain,
    start_findings,
)
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, Verdict
from tests.core.helpers import cli, pre_edit_args, ready_project


def test_outside_scope_forms() -> None:
    files = ["workspace/kernel/fa_kernel.h", "workspace/kernel/main.cpp"]
    assert outside_scope(files, [], ["fa_kernel.h"]) == ["workspace/kernel/main.cpp"]
    assert outside_scope(files, [], ["kernel/*"]) == []
    assert outside_scope(files, ["TILE_S1"], ["workspace/**"]) == ["TILE_S1"]
    assert outside_scope([], ["TILE_S1"], ["TILE_S1"]) == []


def test_parameter_risks() -> None:
    found = parameter_risks([("TILE_S1", 256, 512), ("kFaCvFifoSize", 8, 4), ("TILE_S1", 512, 256)])
    assert len(found) == 2
    assert "bigger tile TILE_S1" in found[0] and "FIFO size change kFaCvFifoSize" in found[1]
    assert parameter_risks([("PTO_ATTENTION_QK_BASE_M", 64, 32)]) == []
    assert parameter_risks([("PTO_ATTENTION_QK_BASE_M", 32, 64)])


DEMO = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators"


def _sources(folder: Path, suffixes: tuple[str, ...]) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*"))
            if p.suffix in suffixes}


def test_tile_knobs_are_found_by_what_the_kernel_does_with_them() -> None:
    """DEMO_ATTN_BLOCK_Q steps the query loop through a parameter defaulting to it: a tile
    dimension whatever its name; a knob the kernel never sizes a tile with is not."""
    dsl = _sources(DEMO / "demo_attention", (".py",))
    assert tile_knobs(dsl, ["DEMO_ATTN_BLOCK_Q", "DEMO_ATTN_BLOCK_KV"]) == {
        "DEMO_ATTN_BLOCK_Q", "DEMO_ATTN_BLOCK_KV"}
    tilelib = _sources(DEMO / "demo_fa", (".h", ".cpp"))
    assert tile_knobs(tilelib, ["CUBE_S0", "TILE_S1", "S1"]) == {"CUBE_S0", "TILE_S1"}
    cpp = {"k.cpp": "template <int ROWS> void K() { Tile<TileType::Vec, float, ROWS, 64> t; }"}
    assert tile_knobs(cpp, ["ROWS", "PRELOAD"]) == {"ROWS"}
    renamed = {"k.py": 'WIDE = tuned_int("MY_KNOB", 4, valid_values=(4, 8))\n'
                       "def run(x, step=WIDE):\n    return [x[i : i + step] for i in range(0, 9, step)]\n"}
    assert tile_knobs(renamed, ["MY_KNOB"]) == {"MY_KNOB"}
    assert tile_knobs({"k.py": 'N = tuned_int("MY_KNOB", 4)\nprint(N)\n'}, ["MY_KNOB"]) == set()
    # a PTO-DSL operator's tile buffers shaped by a config field read from a knob, and the
    # demo tile-lib's head-dim step (kFaHeadUnroll: `d0 += kFaHeadUnroll`)
    pto_dsl = {"kernel.py": (
        "@dataclass\nclass Cfg:\n    base_m: int\n    base_k: int\n    cores: int\n"
        'cfg = Cfg(base_m=tuned_int("X_BASE_M", 64), base_k=tuned_int("X_BASE_K", 32),\n'
        '          cores=tuned_int("X_CORES", 8))\n'
        'a = pto.TileBufType(shape=[cfg.base_m, cfg.base_k], dtype=f16, memory_space="LEFT")\n'
        "launch(blocks=cfg.cores)\n")}
    assert tile_knobs(pto_dsl, ["X_BASE_M", "X_BASE_K", "X_CORES"]) == {"X_BASE_M", "X_BASE_K"}
    assert tile_knobs(tilelib, ["kFaHeadUnroll"]) == {"kFaHeadUnroll"}
    # a bigger tile is high risk by its use; the name pattern (BLOCK_[MNK]) misses BLOCK_Q
    assert parameter_risks([("DEMO_ATTN_BLOCK_Q", 64, 128)]) == []
    found = parameter_risks([("DEMO_ATTN_BLOCK_Q", 64, 128)], {"DEMO_ATTN_BLOCK_Q"})
    assert found and "bigger tile DEMO_ATTN_BLOCK_Q 64->128" in found[0]
    assert parameter_risks([("DEMO_ATTN_BLOCK_Q", 128, 64)], {"DEMO_ATTN_BLOCK_Q"}) == []


def test_a_rules_fix_is_named_for_each_front_end() -> None:
    """The command-line option in a refusal is the CLI's; the terminal application says
    which field answers it."""
    [finding] = risk_findings(["bigger tile X 1->2"], "")
    assert "(`round changes --justify REASON`)" in finding.message
    tui = for_front(finding.message, "tui")
    assert "--justify" not in tui and "(the Round pane's justification field" in tui
    [protected] = protected_findings(["workspace/kernel/main.cpp"], "")
    assert "--bug-fix" not in for_front(protected.message, "tui")
    assert "bug-fix reason field" in for_front(protected.message, "tui")
    assert for_front(protected.message, "cli") == protected.message


def test_diff_risks() -> None:
    removed_barrier = "--- a/k.cpp\n+++ b/k.cpp\n@@\n TLOAD(a, b);\n-    pipe_barrier(PIPE_ALL);\n"
    assert "barrier/sync removed" in diff_risks(removed_barrier)[0]
    moved_barrier = removed_barrier + "+    pipe_barrier(PIPE_ALL);\n"
    assert diff_risks(moved_barrier) == []
    reordered = "@@\n-    TEXP(a, b);\n     TADD(c, d, e);\n+    TEXP(a, b);\n"
    assert "instructions reordered" in diff_risks(reordered)[0]
    fifo = "@@\n-constexpr int kFaCvFifoSize = 8;\n+constexpr int kFaCvFifoSize = 4;\n"
    assert any("FIFO" in f for f in diff_risks(fifo))
    assert diff_risks("@@\n-int a = 1;\n+int a = 2;\n") == []


def test_loosened_tolerances() -> None:
    assert loosened_tolerances({"atol": 1e-3}, {"atol": 1e-2}) == ["atol 0.001 -> 0.01"]
    assert loosened_tolerances({"atol": 1e-3}, {"atol": 1e-4}) == []
    assert loosened_tolerances({"atol": 1e-3}, {}) == ["atol removed (was 0.001)"]


def full_pre_edit() -> PreEdit:
    return PreEdit(
        kernel="k",
        bottleneck="bad tile shape",
        evidence="e",
        hypothesis="h",
        why_ascend="w",
        expected_metric="m",
        main_risk="r",
        correctness_plan="c",
        scope=["workspace/**"],
        checklist={k: ChecklistItem(True, "n") for k in HARDWARE_CHECKLIST},
    )


def test_complete_form_passes_and_blank_notes_do_not() -> None:
    pre = full_pre_edit()
    assert pre_edit_findings(pre) == []
    pre.checklist["ub_pressure"] = ChecklistItem(True, "  ")
    assert [f.rule for f in pre_edit_findings(pre)] == ["hardware-checklist"]


def closed(number: int, verdict: Verdict | None) -> Round:
    return Round(number=number, status="closed", verdict=verdict)


def test_three_round_rule_counts_rounds_since_the_last_kept() -> None:
    history = [
        closed(0, None),
        closed(1, Verdict.KEPT),
        closed(2, Verdict.NEUTRAL),
        closed(3, Verdict.FAILURE),
    ]
    assert rounds_without_gain(history) == 2
    history.append(closed(4, Verdict.INCONCLUSIVE))
    assert rounds_without_gain(history) == 3
    pre = full_pre_edit()
    assert THREE_ROUND_RULE.id in [f.rule for f in start_findings(pre, history)]
    pre.bottleneck_recheck = "the bottleneck is GM traffic, not the tile shape"
    pre.new_direction = "fuse the two loads"
    assert THREE_ROUND_RULE.id not in [f.rule for f in start_findings(pre, history)]


def test_start_follows_the_order_of_the_loop() -> None:
    """The environment round passes, then the baseline closes, then one round at a time."""
    pre = full_pre_edit()
    assert [f.rule for f in start_findings(pre, [])] == [ENVIRONMENT_ROUND.id, BASELINE_FIRST.id]
    iter_000 = Round(number=0, environment=EnvironmentNotes(passed=True))
    assert [f.rule for f in start_findings(pre, [iter_000])] == [BASELINE_FIRST.id]
    iter_000.status = "closed"
    assert start_findings(pre, [iter_000]) == []
    assert [f.rule for f in start_findings(pre, [iter_000, Round(number=1)])] == [ONE_ROUND_AT_A_TIME.id]


def test_three_round_rule_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path, "attention_dsl")
    for _ in range(3):
        assert cli("--project", root, "round", "start", "--restore", *pre_edit_args()) == 0
        assert cli("--project", root, "round", "changes") == 0
        assert (
            cli(
                "--project",
                root,
                "round",
                "measure",
                "--build",
                "ok",
                "--correctness",
                "pass",
                "--samples",
                "100,100.5,101",
            )
            == 0
        )
        assert cli("--project", root, "round", "close") == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 1
    assert "three-round-rule" in capsys.readouterr().err
    assert (
        cli(
            "--project",
            root,
            "round",
            "start",
            *pre_edit_args(),
            "--recheck",
            "GM traffic, not tiles",
            "--new-direction",
            "fuse Q and K loads",
        )
        == 0
    )
