"""Draw the final summary chart (WORKFLOW.md "The final summary chart") with matplotlib.

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
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from pto_tui.core.atomic import atomic_write_bytes
from pto_tui.core.errors import InputError
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import TorchBaseline, format_duration
from pto_tui.core.summary.chart_fonts import ChartFonts, clean_text, find_chart_fonts
from pto_tui.core.summary.chart_model import (
    BASELINE,
    ChartModel,
    ChartRound,
    build_model,
    format_value,
)
from pto_tui.core.vocabulary import Verdict

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from pto_tui.core.campaign.campaign import Campaign

KEPT, NEUTRAL, FAILURE, INCONCLUSIVE = (v.value for v in Verdict)

# Marker / bar colours per verdict (WORKFLOW.md: green kept, blue neutral, red failure,
# grey baseline; inconclusive is ours: grey, hollow / hatched, so it never reads as a result).
COLOURS: dict[str, str] = {
    BASELINE: "#8c8c8c",
    KEPT: "#2ca02c",
    NEUTRAL: "#1f77b4",
    FAILURE: "#d62728",
    INCONCLUSIVE: "#6e6e6e",
}
MARKERS: dict[str, str] = {
    BASELINE: "s",
    KEPT: "o",
    NEUTRAL: "o",
    FAILURE: "x",
    INCONCLUSIVE: "D",
}
SPEEDUP_COLOUR = "#2ca02c"
FRONTIER_COLOUR = "#ff7f0e"
TORCH_COLOUR = "#8e44ad"  # purple
PHASE_COLOURS = ("#eef3fb", "#eefaf0", "#fdf6e7", "#f7eefa", "#eef8f8", "#faf0ee")
DPI = 120


@dataclass(frozen=True)
class ChartResult:
    png: Path
    svg: Path | None
    model: ChartModel


# ---------------------------------------------------------------- drawing


def _font_kw(fonts: ChartFonts) -> dict[str, object]:
    return {"fontfamily": list(fonts.families)}


def _label(r: ChartRound, fonts: ChartFonts, width: int = 24) -> str:
    fallback = r.changes or f"iter-{r.number:03d}"
    text = clean_text(r.label, fonts, fallback=fallback)
    return "\n".join(textwrap.wrap(f"#{r.number} {text}", width)[:3])


def _phase_bands(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    """Background bands over contiguous slots of the same phase, named at the top."""
    spans: list[tuple[str, int, int]] = []
    for i, slot in enumerate(model.slots):
        phase = model.round(slot.shown).phase or "(no phase)"
        if spans and spans[-1][0] == phase:
            spans[-1] = (phase, spans[-1][1], i)
        else:
            spans.append((phase, i, i))
    for phase, first, last in spans:
        index = model.phases.index(phase) if phase in model.phases else len(model.phases)
        ax.axvspan(
            first - 0.5,
            last + 0.5,
            color=PHASE_COLOURS[index % len(PHASE_COLOURS)],
            zorder=0,
            gid=f"phase-band-{phase}",
        )
        # named just above the panel, where no milestone label or marker can cover it
        ax.text(
            (first + last) / 2,
            1.008,
            clean_text(phase, fonts, fallback=f"phase {index + 1}"),
            transform=blended_transform_factory(ax.transData, ax.transAxes),
            ha="center",
            va="bottom",
            fontsize=8,
            style="italic",
            color="#555555",
            gid=f"phase-label-{phase}",
            **_font_kw(fonts),
        )


def _speedup_panel(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    slots = model.slots
    shown = [model.round(s.shown) for s in slots]
    _phase_bands(ax, model, fonts)
    ax.axhline(1.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)

    measured = [(i, r.speedup) for i, r in enumerate(shown) if r.speedup is not None]
    ax.plot(
        [i for i, _ in measured],
        [s for _, s in measured],
        color=SPEEDUP_COLOUR,
        linewidth=1.6,
        alpha=0.8,
        zorder=2,
        gid="speedup-line",
        label="speedup per round",
    )
    ax.step(
        range(len(shown)),
        [r.frontier_speedup for r in shown],
        where="post",
        color=FRONTIER_COLOUR,
        linewidth=2.2,
        zorder=3,
        gid="frontier-line",
        label="best frontier",
    )
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    for verdict, colour in COLOURS.items():
        points = [(i, r.speedup) for i, r in enumerate(shown) if r.verdict == verdict]
        with_value = [(i, s) for i, s in points if s is not None]
        hollow = verdict == INCONCLUSIVE
        style = {
            "marker": MARKERS[verdict],
            "s": 70 if verdict == FAILURE else 46,
            "linewidths": 2.2 if verdict == FAILURE else 1.4,
            "zorder": 5,
        }
        if hollow:
            style |= {"facecolors": "none", "edgecolors": colour}
        else:
            style |= {"color": colour}
            if MARKERS[verdict] != "x":
                style["edgecolors"] = "white"
        if with_value:
            ax.scatter(
                [i for i, _ in with_value],
                [s for _, s in with_value],
                gid=f"markers-{verdict}",
                **style,  # type: ignore[arg-type]
            )
        no_value = [i for i, s in points if s is None]
        if no_value:
            # failures without a valid number: a red cross on the bottom edge
            ax.scatter(
                no_value,
                [0.03] * len(no_value),
                transform=edge,
                clip_on=False,
                gid=f"markers-{verdict}-nodata",
                **style,  # type: ignore[arg-type]
            )

    values = [r.speedup for r in shown if r.speedup is not None] + [r.frontier_speedup for r in shown]
    low, high = min(values + [1.0]), max(values + [1.0])
    span = max(high - low, 0.5)
    # a margin below the lowest point keeps the no-data crosses (at 3%) under every marker;
    # headroom above leaves space for the milestone labels
    ax.set_ylim(low - 0.1 * span, high + 0.35 * span)

    for k, number in enumerate(model.milestones):
        i = next(j for j, s in enumerate(slots) if s.shown == number)
        r = model.round(number)
        ax.annotate(
            _label(r, fonts),
            xy=(i, r.speedup or r.frontier_speedup),
            xytext=(-6, 26 + 22 * (k % 2)),
            textcoords="offset points",
            ha="right" if i > len(slots) / 2 else "left",
            va="bottom",
            fontsize=7.5,
            color="#1b5e20",
            bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#a5d6a7", "alpha": 0.9},
            arrowprops={"arrowstyle": "-", "color": "#66bb6a", "linewidth": 0.8},
            zorder=6,
            gid=f"milestone-{number}",
            **_font_kw(fonts),
        )
    ax.set_ylabel("speedup vs initial PTO (x)", **_font_kw(fonts))
    ax.grid(axis="y", color="#dddddd", linewidth=0.6, zorder=0)
    handles = [
        Line2D([], [], color=SPEEDUP_COLOUR, linewidth=1.6, label="speedup per round"),
        Line2D([], [], color=FRONTIER_COLOUR, linewidth=2.2, label="best frontier"),
    ] + [
        Line2D(
            [],
            [],
            linestyle="",
            marker=MARKERS[v],
            color=COLOURS[v],
            markerfacecolor="none" if v == INCONCLUSIVE else COLOURS[v],
            markeredgewidth=2 if v == FAILURE else 1.2,
            label=v,
        )
        for v in COLOURS
        if any(r.verdict == v for r in shown)
    ]
    # one row under the header: inside the panel it would hide points or labels
    ax.figure.legend(
        handles=handles,
        loc="center",
        bbox_to_anchor=(0.5, 0.9),
        ncol=len(handles),
        frameon=False,
        prop=FontProperties(family=list(fonts.families), size=8),
    )


def _duration_panel(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    scale, unit = model.units.scale, model.units.name
    shown = [model.round(s.shown) for s in model.slots]
    measured = [(i, r) for i, r in enumerate(shown) if r.median_us is not None]
    values = [(r.median_us or 0.0) / scale for _, r in measured]
    if model.torch is not None:
        values.append(model.torch.avg_us / scale)
    top = max(values)
    bottom_log = min(values) / 2.2
    if model.log_scale:
        ax.set_yscale("log")
        ax.set_ylim(bottom_log, top * 3.0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))  # 100, not 10^2
    else:
        ax.set_ylim(0, top * 1.22)

    rotate = len(shown) > 14
    for i, r in measured:
        height = (r.median_us or 0.0) / scale
        hatch = "///" if r.verdict == INCONCLUSIVE else None
        base = bottom_log if model.log_scale else 0.0  # log bars start at the axis floor
        (bar,) = ax.bar(
            [i],
            [height - base],
            width=0.62,
            bottom=base,
            color="white" if hatch else COLOURS[r.verdict],
            edgecolor=COLOURS[r.verdict],
            hatch=hatch,
            linewidth=1.0,
            zorder=3,
        )
        bar.set_gid(f"bar-{r.number}")
        ax.annotate(
            format_value(height),
            xy=(i, height),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=7 if rotate else 7.5,
            rotation=90 if rotate else 0,
            gid=f"bar-label-{r.number}",
        )
    blend = blended_transform_factory(ax.transData, ax.transAxes)
    for i, r in enumerate(shown):
        if r.median_us is not None:
            continue
        ax.add_patch(
            Rectangle(
                (i - 0.31, 0.0),
                0.62,
                0.07,
                transform=blend,
                fill=False,
                hatch="xxx",
                edgecolor=COLOURS[FAILURE],
                linewidth=1.0,
                zorder=3,
                gid=f"stub-{r.number}",
            )
        )
        ax.text(
            i,
            0.09,
            r.reason,
            transform=blend,
            ha="center",
            va="bottom",
            rotation=90,
            fontsize=7,
            color=COLOURS[FAILURE],
            gid=f"stub-label-{r.number}",
        )
    handles: list[Patch | Line2D] = [
        Patch(facecolor=COLOURS[v], edgecolor=COLOURS[v], label=v)
        for v in (BASELINE, KEPT, NEUTRAL, FAILURE)
        if any(r.verdict == v for r in shown)
    ]
    if any(r.verdict == INCONCLUSIVE for r in shown):
        handles.append(
            Patch(facecolor="white", edgecolor=COLOURS[INCONCLUSIVE], hatch="///", label="inconcl.")
        )
    if model.torch is not None:
        ax.axhline(
            model.torch.avg_us / scale,
            color=TORCH_COLOUR,
            linestyle="--",
            linewidth=1.6,
            zorder=4,
            gid="torch-line",
        )
        torch_label = clean_text(model.torch.label, fonts, fallback="torch_npu")
        handles.append(
            Line2D(
                [],
                [],
                color=TORCH_COLOUR,
                linestyle="--",
                label=f"{torch_label} avg {format_duration(model.torch.avg_us)}",
            )
        )
    ax.legend(
        handles=handles,
        loc="upper right",
        ncol=min(len(handles), 6),
        framealpha=0.9,
        prop=FontProperties(family=list(fonts.families), size=7.5),
    )
    scale_note = ", log scale" if model.log_scale else ""
    ax.set_ylabel(f"duration ({unit}{scale_note})", **_font_kw(fonts))
    ax.grid(axis="y", color="#dddddd", linewidth=0.6, zorder=0)

    ax.set_xticks(range(len(model.slots)))
    ax.set_xticklabels([s.label for s in model.slots])
    ax.tick_params(axis="x", labelsize=8 if len(model.slots) <= 14 else 7)
    ax.tick_params(labelfontfamily=list(fonts.families))
    for tick, slot in zip(ax.get_xticklabels(), model.slots, strict=True):
        if slot.folded:
            tick.set_style("italic")
            tick.set_color("#666666")
    hidden = len({n for s in model.slots for n in s.covers}) - len(model.slots)
    note = f"   ({hidden} rounds folded into the representatives shown)" if hidden else ""
    ax.set_xlabel(f"round (iter){note}", **_font_kw(fonts))
    ax.set_xlim(-0.6, len(model.slots) - 0.4)


def _wrap(text: str, width_in: float, fontsize: float) -> str:
    """Wrap a figure-wide line so it stays inside the figure (about 0.6 em per character)."""
    chars = max(40, int(width_in * 72 / (fontsize * 0.6)) - 4)
    return "\n".join(textwrap.wrap(text, chars)) or text


def draw(model: ChartModel, fonts: ChartFonts | None = None) -> Figure:
    """The two-panel figure of a chart model (Agg canvas attached, nothing saved)."""
    fonts = fonts or find_chart_fonts()
    n = len(model.slots)
    folded = any(s.folded for s in model.slots)
    fig = Figure(figsize=(max(11.0, 0.62 * n + 5.0), 10.0), dpi=DPI)
    FigureCanvasAgg(fig)
    top_ax, bottom_ax = fig.subplots(
        2, 1, sharex=True, gridspec_kw={"height_ratios": [1.15, 1.0], "hspace": 0.08}
    )
    fig.subplots_adjust(left=0.07, right=0.98, top=0.855, bottom=0.21 if folded else 0.17)
    operator = clean_text(model.operator, fonts, fallback="operator")
    title = f"{operator}: PTO optimisation summary"
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
        **_font_kw(fonts),
    )
    _speedup_panel(top_ax, model, fonts)
    _duration_panel(bottom_ax, model, fonts)
    # footer and conclusion hang from fixed tops so wrapped lines never overlap
    fig.text(
        0.5,
        0.09,
        _wrap(clean_text(model.footer, fonts), width_in, 9),
        ha="center",
        va="top",
        fontsize=9,
        gid="footer",
        **_font_kw(fonts),
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
