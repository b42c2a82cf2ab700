"""The Markdown campaign report."""

from __future__ import annotations

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.summary.campaign_report import ReportContext, render_report
from tests.chart.builders import PHASES, TORCH, F, baseline, eight_rounds, make_round, open_round

CTX = ReportContext(operator="fa", kind="pto-tile-lib", case="S=1024; float16", target="local")


def section(text: str, title: str) -> str:
    """The body of one '## ' section."""
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_report_contents() -> None:
    text = render_report([*eight_rounds(), open_round(8)], TORCH, CTX, PHASES, "summary_chart.png")
    assert text.startswith("# fa: PTO optimisation campaign report")
    assert "![Summary chart](summary_chart.png)" in text
    assert "- **Rounds**: 7 after the baseline (kept 3, neutral 1, failure 2, inconclusive 1)" in text
    assert "open, not reported: iter-008" in text
    assert "- **Best PTO (iter-007)**: 400.0 us, 2.50x over the initial version" in text

    conclusion = section(text, "Conclusion")
    assert "iter-007 (BLOCK_DIM 8) brings PTO from 1000.0 us to 400.0 us" in conclusion

    torch = section(text, "Comparison with torch_npu")
    assert "| torch_npu (avg; min 175.0 us, max 190.0 us) | 180.0 us | 95.500 | 1.00x |" in torch
    assert "| PTO best (iter-007) | 400.0 us | - | 0.45x |" in torch
    assert "5 warm-up and 10 timed runs" in torch

    table = section(text, "Rounds")
    assert "| 4 | parameter validation | 合并小搬运 |" in table
    assert "| 8 |" not in table  # open rounds are not part of the campaign's result

    kept = section(text, "Kept rounds")
    for n in (1, 4, 7):
        assert f"### iter-{n:03d}:" in kept
        assert f"full hypothesis of round {n}" in kept
        assert f"evidence {n}" in kept
        assert f"analysis of round {n}" in kept
    assert "### iter-002" not in kept
    assert "- **Bottleneck**: bad tile shape" in kept
    assert "- **Changes**: BASE_M 64→128" in kept
    assert "700.0 us, 1.43x over the initial version, 1.43x over the frontier before it" in kept
    assert "- **Why it should help on Ascend**: fills the cube unit" in kept

    failures = section(text, "Failures and what was learned")
    assert "### iter-003: bigger UB tile" in failures
    assert "build failed; reason 3; error: undefined symbol" in failures
    assert "- **What was learned**: analysis of round 3" in failures
    assert "### iter-006: reorder" in failures and "correctness failed" in failures
    assert "- **Next**: next after 6" in failures

    without_gain = section(text, "Rounds without gain")
    assert "**iter-002** (neutral, 705.0 us)" in without_gain
    assert "**iter-005** (inconclusive, 440.0 us)" in without_gain

    repro = section(text, "Reproducibility")
    assert "Best round: iter-007" in repro
    assert "- **Parameter snapshot**: BASE_M=64, BASE_N=128, BLOCK_DIM=8" in repro
    assert "- **Workload fingerprint**: fp-abc123" in repro
    assert "- cann: 8.0.RC3" in repro
    assert "| unknown |" in repro


def test_report_without_torch_and_only_failures() -> None:
    rounds = [baseline(1000.0), make_round(1, F, None, build="failed")]
    text = render_report(rounds, None, CTX, PHASES)
    assert "![" not in text
    assert "- **torch_npu**: not measured" in text
    assert "cannot be compared with it" in section(text, "Comparison with torch_npu")
    assert "No round beat the initial PTO version." in section(text, "Kept rounds")
    assert "Best round: iter-000 (the baseline)" in text
    assert "None." in section(text, "Rounds without gain")


def test_report_without_rounds_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no closed rounds"):
        render_report([], TORCH, CTX, PHASES)
