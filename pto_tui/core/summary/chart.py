"""Draw the final summary chart (docs/workflow.md §19) with matplotlib.

What is shown is decided in chart_model (pure, tested without drawing); this module
only draws it. It uses `matplotlib.figure.Figure` with the Agg canvas directly, never
pyplot, so no display is needed and no global backend is switched.

Visual vocabulary (also in the chart's legends):
- speedup panel: green line = speedup of each measured round over iter-000; orange
  step line = best frontier; markers: grey square baseline, green dot kept, blue dot
  neutral, red cross failure, grey hollow diamond inconclusive; a failure without a
  valid measurement sits as a red cross on the panel's bottom edge;
- duration panel: bars grey baseline, green kept, blue neutral, red failure, white
  with grey hatching inconclusive; a failure without a valid measurement is a short
  red hatched stub labelled with the reason (e.g. "build failed"); purple dashed line
  = torch_npu average;
- folded x ticks (italic, grey) read "<shown round> / <first>-<last> / (<n> folded)".

Every element a test may look for carries a gid (e.g. "bar-7", "markers-kept",
"torch-line", "milestone-12").
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from pto_tui.core.atomic import atomic_write_bytes
from pto_tui.core.errors import InputError
from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.summary.chart_duration import duration_panel
from pto_tui.core.summary.chart_fonts import ChartFonts, clean_text, find_chart_fonts
from pto_tui.core.summary.chart_model import ChartModel, build_model
from pto_tui.core.summary.chart_speedup import speedup_panel
from pto_tui.core.summary.chart_style import WIDE_AXIS

if TYPE_CHECKING:
    from pto_tui.core.campaign.campaign import Campaign

DPI = 120


@dataclass(frozen=True)
class ChartResult:
    png: Path
    svg: Path | None
    model: ChartModel


# ---------------------------------------------------------------- drawing


def _wrap(text: str, width_in: float, fontsize: float) -> str:
    """Wrap a figure-wide line so it stays inside the figure (about 0.6 em per character)."""
    chars = max(40, int(width_in * 72 / (fontsize * 0.6)) - 4)
    return "\n".join(textwrap.wrap(text, chars)) or text


def figure_width(slots: int) -> float:
    """Inches: room for every slot (each kept round has one), narrower past WIDE_AXIS."""
    return max(11.0, 0.62 * min(slots, WIDE_AXIS) + 0.3 * max(0, slots - WIDE_AXIS) + 5.0)


def draw(model: ChartModel, fonts: ChartFonts | None = None) -> Figure:
    """The two-panel figure of a chart model (Agg canvas attached, nothing saved)."""
    fonts = fonts or find_chart_fonts()
    n = len(model.slots)
    folded = any(s.folded for s in model.slots)
    fig = Figure(figsize=(figure_width(n), 10.0), dpi=DPI)
    FigureCanvasAgg(fig)
    # not a shared x axis: the top panel would make a tick (a few ms each) for every slot
    # too, only to hide its labels; it takes the bottom panel's limits instead
    top_ax, bottom_ax = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.15, 1.0], "hspace": 0.08})
    width = fig.get_figwidth()  # margins of a wide figure in inches, not its fractions
    fig.subplots_adjust(left=min(0.07, 0.8 / width), right=max(0.98, 1 - 0.25 / width), top=0.855,
                        bottom=0.21 if folded else 0.17)
    operator = clean_text(model.operator, fonts, fallback="operator")
    title = f"{operator}: PTO optimisation summary"
    if model.sample_unit == CYCLES:
        title += " (perf_sim cycles, not NPU timings)"
    elif model.simulated:
        title += " (simulated timings: CPU-simulation wall-clock, not NPU time)"
    fig.suptitle(title, fontsize=14, y=0.975, gid="title", **fonts.bold(title))
    width_in = fig.get_figwidth()
    fig.text(
        0.5,
        0.935,
        _wrap(clean_text(model.header, fonts), width_in, 9.5),
        ha="center",
        va="center",
        fontsize=9.5,
        gid="header",
        **fonts.regular(),
    )
    speedup_panel(top_ax, model, fonts)
    duration_panel(bottom_ax, model, fonts)
    top_ax.set_xlim(bottom_ax.get_xlim())
    top_ax.xaxis.set_major_locator(NullLocator())
    # footer and conclusion hang from fixed tops so wrapped lines never overlap
    fig.text(
        0.5,
        0.09,
        _wrap(clean_text(model.footer, fonts), width_in, 9),
        ha="center",
        va="top",
        fontsize=9,
        gid="footer",
        **fonts.regular(),
    )
    conclusion = _wrap(clean_text(model.conclusion, fonts), width_in, 10)  # bold is wider
    fig.text(
        0.5, 0.045, conclusion, ha="center", va="top", fontsize=9, gid="conclusion", **fonts.bold(conclusion)
    )
    return fig


# ---------------------------------------------------------------- writing


def _figure_bytes(fig: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=DPI, facecolor="white")
    return buffer.getvalue()


def write_chart(
    rounds: Sequence[Round],
    torch: TorchBaseline | None,
    phases: Sequence[str],
    operator: str,
    output: Path,
    *,
    svg: bool = False,
    fonts: ChartFonts | None = None,
) -> ChartResult:
    """Build the model, draw it and write `output` (PNG), plus an SVG beside it on request.

    Raises InputError (before anything is written) when there is nothing to chart.
    """
    if output.suffix.lower() != ".png":
        raise InputError(
            f"the chart is written as PNG: {output} must end in .png",
            hint="use --svg to also write an SVG beside the PNG",
        )
    model = build_model(rounds, torch, phases, operator)
    fig = draw(model, fonts)
    atomic_write_bytes(output, _figure_bytes(fig, "png"))
    svg_path = None
    if svg:
        svg_path = output.with_suffix(".svg")
        atomic_write_bytes(svg_path, _figure_bytes(fig, "svg"))
    return ChartResult(png=output, svg=svg_path, model=model)


def write_campaign_chart(campaign: Campaign, output: Path | None = None, *, svg: bool = False) -> ChartResult:
    """The project's summary chart (default projects/<op>/summary_chart.png)."""
    return write_chart(
        campaign.rounds(),
        campaign.torch_baseline(),
        campaign.config.phases,
        campaign.config.operator.name,
        output or campaign.layout.chart,
        svg=svg,
    )
