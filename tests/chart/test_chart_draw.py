"""The drawn chart: content of the figure (not pixels), and the files written."""

from __future__ import annotations

import logging
import struct
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.summary.chart import DPI, draw, figure_width, write_chart
from pto_tui.core.summary.chart_fonts import ChartFonts, clean_text, find_chart_fonts
from pto_tui.core.summary.chart_model import build_model
from pto_tui.core.summary.chart_style import (
    COLOURS,
    FRONTIER_COLOUR,
    SPEEDUP_COLOUR,
    TORCH_COLOUR,
    WIDE_AXIS,
)
from pto_tui.core.vocabulary import Verdict
from tests.chart.builders import (
    PHASES,
    TORCH,
    F,
    K,
    N,
    baseline,
    eight_rounds,
    forty_rounds,
    make_round,
    many_rounds,
)
from tests.chart.conftest import find, find_one


def figure(
    rounds: Sequence[Round], torch: TorchBaseline | None = TORCH, fonts: ChartFonts | None = None
) -> Figure:
    return draw(build_model(rounds, torch, PHASES, "fa_tilelib"), fonts)


def axes(fig: Figure) -> tuple[Axes, Axes]:
    top, bottom = fig.axes[:2]
    return top, bottom


def tick_labels(fig: Figure) -> list[str]:
    _top, bottom = axes(fig)
    fig.canvas.draw()
    return [t.get_text() for t in bottom.get_xticklabels()]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def scatter_x(fig: Figure, gid: str) -> list[float]:
    return [float(x) for x, _y in find_one(fig, gid).get_offsets()]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- files


def test_zero_rounds_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "summary_chart.png"
    with pytest.raises(InputError, match="nothing to chart"):
        write_chart([], TORCH, PHASES, "fa", out, svg=True)
    assert list(tmp_path.iterdir()) == []


def test_png_and_svg_are_written_and_non_trivial(tmp_path: Path, plain_fonts: ChartFonts) -> None:
    out = tmp_path / "summary_chart.png"
    result = write_chart(eight_rounds(), TORCH, PHASES, "fa", out, svg=True, fonts=plain_fonts)
    assert result.png == out and result.svg == tmp_path / "summary_chart.svg"
    width, height = png_size(out)
    assert width >= 1200 and height >= 1000
    assert out.stat().st_size > 40_000
    svg = result.svg.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert 'id="torch-line"' in svg


def test_output_must_be_png(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\.png"):
        write_chart(eight_rounds(), TORCH, PHASES, "fa", tmp_path / "chart.jpg")


# ---------------------------------------------------------------- content


def test_one_round_baseline_only(tmp_path: Path, plain_fonts: ChartFonts) -> None:
    result = write_chart([baseline(1000.0)], TORCH, PHASES, "fa", tmp_path / "c.png", fonts=plain_fonts)
    fig = draw(result.model, plain_fonts)
    assert tick_labels(fig) == ["0"]
    bar = find_one(fig, "bar-0")
    assert to_hex(bar.get_facecolor()) == COLOURS["baseline"]  # type: ignore[attr-defined]
    assert scatter_x(fig, "markers-baseline") == [0.0]
    assert find(fig, "markers-kept") == []
    assert find(fig, "milestone-0") == []
    header = find_one(fig, "header").get_text()  # type: ignore[attr-defined]
    assert header.startswith("0 rounds after the baseline") and "final speedup 1.00x" in header
    assert "no round beat the initial PTO version" in find_one(fig, "conclusion").get_text()  # type: ignore[attr-defined]
    assert png_size(tmp_path / "c.png")[0] > 1000


def test_eight_rounds_every_round_on_the_axis_with_verdict_colours(
    plain_fonts: ChartFonts,
) -> None:
    fig = figure(eight_rounds(), fonts=plain_fonts)
    top, bottom = axes(fig)
    assert tick_labels(fig) == [str(n) for n in range(8)]
    # markers by verdict, at the rounds' x positions
    assert scatter_x(fig, "markers-baseline") == [0]
    assert scatter_x(fig, "markers-kept") == [1, 4, 7]
    assert scatter_x(fig, "markers-neutral") == [2]
    assert scatter_x(fig, "markers-inconclusive") == [5]
    assert scatter_x(fig, "markers-failure-nodata") == [3, 6]  # red crosses, no number
    kept = find_one(fig, "markers-kept")
    assert to_hex(kept.get_facecolors()[0]) == COLOURS["kept"]  # type: ignore[attr-defined]
    neutral = find_one(fig, "markers-neutral")
    assert to_hex(neutral.get_facecolors()[0]) == COLOURS["neutral"]  # type: ignore[attr-defined]
    failure = find_one(fig, "markers-failure-nodata")
    assert to_hex(failure.get_edgecolors()[0]) == COLOURS["failure"]  # type: ignore[attr-defined]
    assert failure.get_paths()  # type: ignore[attr-defined]
    inconclusive = find_one(fig, "markers-inconclusive")
    assert len(inconclusive.get_facecolors()) == 0  # type: ignore[attr-defined]  # hollow
    # lines: green speedup over measured rounds, orange frontier over every slot
    speed = find_one(fig, "speedup-line")
    assert speed.get_color() == SPEEDUP_COLOUR  # type: ignore[attr-defined]
    assert list(speed.get_xdata()) == [0, 1, 2, 4, 5, 7]  # type: ignore[attr-defined]
    frontier = find_one(fig, "frontier-line")
    assert frontier.get_color() == FRONTIER_COLOUR  # type: ignore[attr-defined]
    assert max(frontier.get_ydata()) == pytest.approx(2.5)  # type: ignore[attr-defined]
    # bars: colour per verdict, each labelled; failures without numbers get a stub
    expected = {0: "baseline", 1: "kept", 2: "neutral", 4: "kept", 7: "kept"}
    for n, verdict in expected.items():
        bar = find_one(fig, f"bar-{n}")
        assert to_hex(bar.get_facecolor()) == COLOURS[verdict]  # type: ignore[attr-defined]
    assert find_one(fig, "bar-5").get_hatch() == "///"  # type: ignore[attr-defined]
    assert find_one(fig, "bar-7").get_height() == pytest.approx(400.0)  # type: ignore[attr-defined]
    labels = {n: find_one(fig, f"bar-label-{n}").get_text() for n in (0, 1, 2, 4, 5, 7)}  # type: ignore[attr-defined]
    assert labels == {0: "1000.0", 1: "700.0", 2: "705.0", 4: "450.0", 5: "440.0", 7: "400.0"}
    assert find(fig, "bar-3") == [] and find(fig, "bar-6") == []
    assert find_one(fig, "stub-label-3").get_text() == "build failed"  # type: ignore[attr-defined]
    assert find_one(fig, "stub-label-6").get_text() == "incorrect"  # type: ignore[attr-defined]
    # the torch_npu reference: purple dashed at its average
    torch = find_one(fig, "torch-line")
    assert torch.get_color() == TORCH_COLOUR and torch.get_linestyle() == "--"  # type: ignore[attr-defined]
    assert list(torch.get_ydata()) == [180.0, 180.0]  # type: ignore[attr-defined]
    # scales, units, phases, milestones, header, footer
    assert bottom.get_yscale() == "linear"
    assert bottom.get_ylabel() == "duration (us)"
    assert "speedup" in top.get_ylabel()
    for phase in ("baseline", "costmodel-guided", "parameter validation", "fine-tune"):
        assert find(fig, f"phase-band-{phase}")
        assert find_one(fig, f"phase-label-{phase}").get_text() == phase  # type: ignore[attr-defined]
    assert {a.get_gid() for a in fig.findobj() if str(a.get_gid()).startswith("milestone-")} == {
        "milestone-1",
        "milestone-4",
        "milestone-7",
    }
    assert "BLOCK_DIM 8" in find_one(fig, "milestone-7").get_text()  # type: ignore[attr-defined]
    header = find_one(fig, "header").get_text()  # type: ignore[attr-defined]
    assert "7 rounds" in header and "kept 3, neutral 1, failure 2, inconclusive 1" in header
    assert "final speedup 2.50x" in header and "torch_npu" in header
    footer = find_one(fig, "footer").get_text()  # type: ignore[attr-defined]
    assert "torch_npu: avg 180.0 us" in footer and "PTO best (iter-007): 400.0 us" in footer
    assert "Conclusion:" in find_one(fig, "conclusion").get_text()  # type: ignore[attr-defined]


def test_forty_rounds_show_key_rounds_and_fold_the_rest(plain_fonts: ChartFonts) -> None:
    fig = figure(forty_rounds(), fonts=plain_fonts)
    labels = tick_labels(fig)
    first_lines = [label.split("\n")[0] for label in labels]
    for key in ("0", "3", "9", "10", "18", "27", "35"):
        assert key in first_lines
    assert len(labels) < 20
    folded = [label for label in labels if "folded" in label]
    assert "20\nof 19-26\n(8 folded)" in folded
    assert all(find(fig, f"bar-{n}") == [] for n in (22, 23, 24))  # folded away
    assert scatter_x(fig, "markers-kept") == [first_lines.index(str(n)) for n in (3, 9, 10, 18, 27, 35)]
    _top, bottom = axes(fig)
    assert "folded" in bottom.get_xlabel()
    assert find_one(fig, "milestone-35")
    assert "39 rounds" in find_one(fig, "header").get_text()  # type: ignore[attr-defined]


def test_no_torch_baseline(plain_fonts: ChartFonts) -> None:
    fig = figure(eight_rounds(), torch=None, fonts=plain_fonts)
    assert find(fig, "torch-line") == []
    assert "torch_npu not measured" in find_one(fig, "header").get_text()  # type: ignore[attr-defined]
    assert "torch_npu: not measured" in find_one(fig, "footer").get_text()  # type: ignore[attr-defined]


def test_only_failures(plain_fonts: ChartFonts) -> None:
    rounds = [baseline(1000.0)] + [make_round(n, F, None, build="failed") for n in range(1, 5)]
    fig = figure(rounds, fonts=plain_fonts)
    assert tick_labels(fig) == ["0", "1", "2", "3", "4"]
    assert scatter_x(fig, "markers-failure-nodata") == [1, 2, 3, 4]
    assert [a.get_gid() for a in fig.findobj() if str(a.get_gid()).startswith("bar-")] == [
        "bar-0",
        "bar-label-0",
    ]
    assert all(find_one(fig, f"stub-{n}") for n in range(1, 5))
    header = find_one(fig, "header").get_text()  # type: ignore[attr-defined]
    assert "kept 0, neutral 0, failure 4" in header and "final speedup 1.00x" in header


def test_log_scale_and_milliseconds_when_needed(plain_fonts: ChartFonts) -> None:
    rounds = [
        baseline(250_000.0),
        make_round(1, K, 40_000.0),
        make_round(2, N, 41_000.0),
        make_round(3, K, 12_000.0),
    ]
    torch = TorchBaseline(avg_us=20_000.0, min_us=19_000.0, max_us=21_000.0)
    fig = figure(rounds, torch=torch, fonts=plain_fonts)
    _top, bottom = axes(fig)
    assert bottom.get_yscale() == "log"
    assert bottom.get_ylabel() == "duration (ms, log scale)"
    assert find_one(fig, "bar-label-0").get_text() == "250.0"  # type: ignore[attr-defined]
    assert list(find_one(fig, "torch-line").get_ydata()) == [20.0, 20.0]  # type: ignore[attr-defined]
    bar = find_one(fig, "bar-3")
    top_of_bar = bar.get_y() + bar.get_height()  # type: ignore[attr-defined]
    assert top_of_bar == pytest.approx(12.0)


# ---------------------------------------------------------------- CJK text


CJK_ROUNDS = [
    baseline(1000.0),
    make_round(1, K, 600.0, title="增大 tile BASE_M 到 128"),
    make_round(2, K, 500.0, title="合并小搬运", params={"kFaTileS1": (256, 512)}),
    make_round(3, N, 520.0, title="流水线 overlap"),
]


def _draw_quietly(
    rounds: list, fonts: ChartFonts, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> Figure:
    caplog.set_level(logging.WARNING, logger="matplotlib")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = tmp_path / "c.png"
        result = write_chart(rounds, TORCH, ["基线", *PHASES], "注意力", out, svg=True, fonts=fonts)
        fig = draw(result.model, fonts)
        fig.canvas.draw()
    assert [r.getMessage() for r in caplog.records] == []
    return fig


def test_cjk_without_a_cjk_font_draws_clean_text_and_no_warning(
    plain_fonts: ChartFonts, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fig = _draw_quietly(CJK_ROUNDS, plain_fonts, tmp_path, caplog)
    # every artist with a text of its own (Text, Annotation, an offset box's TextArea)
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]  # type: ignore[attr-defined]
    assert all(plain_fonts.can_render(c) for text in texts for c in text)
    # mixed text keeps its readable part; all-CJK text falls back to the change made
    assert "#1 … tile BASE_M … 128" in find_one(fig, "milestone-1").get_text()  # type: ignore[attr-defined]
    assert "kFaTileS1=512" in find_one(fig, "milestone-2").get_text()  # type: ignore[attr-defined]


@pytest.mark.skipif(not find_chart_fonts().has_cjk, reason="no CJK font installed")
def test_cjk_with_a_cjk_font_keeps_the_text(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    fonts = find_chart_fonts()
    fig = _draw_quietly(CJK_ROUNDS, fonts, tmp_path, caplog)
    assert "增大 tile BASE_M 到 128" in find_one(fig, "milestone-1").get_text()  # type: ignore[attr-defined]
    assert "合并小搬运" in find_one(fig, "milestone-2").get_text()  # type: ignore[attr-defined]


def test_clean_text(plain_fonts: ChartFonts) -> None:
    assert clean_text("BASE_M 64→128", plain_fonts) == "BASE_M 64→128"
    assert clean_text("tile 增大", plain_fonts) == "tile …"
    assert clean_text("全部中文", plain_fonts, fallback="iter-003") == "iter-003"
    assert clean_text("cost $5 and $6", plain_fonts) == r"cost \$5 and \$6"


def test_bold_text_never_asks_for_a_missing_bold_face(plain_fonts: ChartFonts) -> None:
    with_cjk = ChartFonts(
        families=("DejaVu Sans", "Some CJK"),
        covered=plain_fonts.covered | {ord("中")},
        cjk_file="/fonts/cjk.ttc",
        cjk_bold=False,
        base_covered=plain_fonts.covered,
    )
    assert with_cjk.bold("fa: PTO summary") == {"fontfamily": ["DejaVu Sans"], "fontweight": "bold"}
    assert with_cjk.bold("中 summary") == {
        "fontfamily": ["DejaVu Sans", "Some CJK"],
        "fontweight": "normal",
    }
    assert plain_fonts.bold("anything")["fontweight"] == "bold"


def test_every_kept_round_of_a_long_campaign_has_its_slot(plain_fonts: ChartFonts,
                                                            tmp_path: Path) -> None:
    """300 rounds, 75 of them kept (the workflow: every kept round on the axis): each kept
    round has a slot of its own, only the runs of other rounds between them fold, every
    round stands in exactly one group; the picture widens with its slots (narrower ones
    past WIDE_AXIS, their labels on their side, their bars unlabelled)."""
    rounds = many_rounds(300, kept_every=4)
    model = build_model(rounds, TORCH, PHASES, "fa")
    kept = [r.number for r in rounds if r.verdict is Verdict.KEPT]
    own = {s.shown for s in model.slots if s.covers == (s.shown,)}
    assert len(kept) == 75 and set(kept) <= own
    assert not any(set(s.covers) & set(kept) for s in model.slots if s.folded)
    assert {0, model.best.number, *model.milestones} <= own
    groups = {s.covers for s in model.slots}  # the two slots of one folded run share it
    covered = [n for covers in groups for n in covers]
    assert sorted(covered) == list(range(301))  # every round in exactly one group
    assert len(model.slots) > WIDE_AXIS
    result = write_chart(rounds, TORCH, PHASES, "fa", tmp_path / "c.png", fonts=plain_fonts)
    assert png_size(result.png)[0] == pytest.approx(figure_width(len(model.slots)) * DPI, abs=2)
    fig = draw(model, plain_fonts)
    assert find(fig, f"bar-{kept[-1]}") and not find(fig, f"bar-label-{kept[-1]}")
