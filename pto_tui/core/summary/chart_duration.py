"""The summary chart's lower panel: a duration bar per round, stubs for rounds without a
valid measurement, the torch_npu line and the round axis (folded ticks in grey italics)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.counts import UNVERIFIED
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.summary.chart_fonts import ChartFonts, clean_text
from pto_tui.core.summary.chart_model import BASELINE, ChartModel, ChartRound
from pto_tui.core.summary.chart_scales import format_value
from pto_tui.core.summary.chart_style import (
    COLOURS,
    FAILURE,
    HATCHES,
    INCONCLUSIVE,
    KEPT,
    NEUTRAL,
    TORCH_COLOUR,
    WIDE_AXIS,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def duration_panel(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    shown = [model.round(s.shown) for s in model.slots]
    floor = _duration_limits(ax, model, shown)
    _bars(ax, model, shown, floor)
    _failure_stubs(ax, shown)
    _torch_line(ax, model)
    _duration_legend(ax, model, shown, fonts)
    scale_note = ", log scale" if model.log_scale else ""
    simulated = ", simulated" if model.simulated else ""
    if model.sample_unit == CYCLES:  # perf_sim's cycles: no duration, nothing else simulated
        ax.set_ylabel(f"cycles (perf_sim{scale_note})", **fonts.regular())
    else:
        ax.set_ylabel(f"duration ({model.units.name}{scale_note}{simulated})", **fonts.regular())
    ax.grid(axis="y", color="#dddddd", linewidth=0.6, zorder=0)
    _round_axis(ax, model, fonts)


def _duration_limits(ax: Axes, model: ChartModel, shown: Sequence[ChartRound]) -> float:
    """Set the y scale and limits; returns the value bars start from (the log axis floor, or 0)."""
    scale = model.units.scale
    values = [(r.median_us or 0.0) / scale for r in shown if r.median_us is not None]
    if model.torch is not None:
        values.append(model.torch.avg_us / scale)
    top = max(values)
    bottom_log = min(values) / 2.2
    if model.log_scale:
        ax.set_yscale("log")
        ax.set_ylim(bottom_log, top * 3.0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))  # 100, not 10^2
        return bottom_log  # log bars start at the axis floor
    ax.set_ylim(0, top * 1.22)
    return 0.0


def _bars(ax: Axes, model: ChartModel, shown: Sequence[ChartRound], floor: float) -> None:
    """A bar per measured round in its verdict's colour (hatched when inconclusive or
    unverified), valued on top while the axis has room for the values (each kept round
    has its slot: past WIDE_AXIS slots the axis is read for them). One call for all bars."""
    measured = [(i, r) for i, r in enumerate(shown) if r.median_us is not None]
    if not measured:
        return
    heights = [(r.median_us or 0.0) / model.units.scale for _i, r in measured]
    hatches = [HATCHES.get(r.verdict) for _i, r in measured]
    edges = [COLOURS[r.verdict] for _i, r in measured]
    bars = ax.bar(
        [i for i, _r in measured],
        [height - floor for height in heights],
        width=0.62,
        bottom=floor,
        color=["white" if hatch else edge for hatch, edge in zip(hatches, edges, strict=True)],
        edgecolor=edges,
        linewidth=1.0,
        zorder=3,
    )
    rotate = len(shown) > 14
    for bar, hatch, height, (i, r) in zip(bars, hatches, heights, measured, strict=True):
        bar.set_gid(f"bar-{r.number}")
        if hatch:
            bar.set_hatch(hatch)
        if len(shown) > WIDE_AXIS:
            continue
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


def _failure_stubs(ax: Axes, shown: Sequence[ChartRound]) -> None:
    """A short red hatched stub, labelled with the reason, for each round without a valid number."""
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


def _torch_line(ax: Axes, model: ChartModel) -> None:
    if model.torch is not None:
        ax.axhline(
            model.torch.avg_us / model.units.scale,
            color=TORCH_COLOUR,
            linestyle="--",
            linewidth=1.6,
            zorder=4,
            gid="torch-line",
        )


def _duration_legend(ax: Axes, model: ChartModel, shown: Sequence[ChartRound], fonts: ChartFonts) -> None:
    handles: list[Patch | Line2D] = [
        Patch(facecolor=COLOURS[v], edgecolor=COLOURS[v], label=v)
        for v in (BASELINE, KEPT, NEUTRAL, FAILURE)
        if any(r.verdict == v for r in shown)
    ]
    for verdict, label in ((INCONCLUSIVE, "inconcl."), (UNVERIFIED, "unverified")):
        if any(r.verdict == verdict for r in shown):
            handles.append(
                Patch(facecolor="white", edgecolor=COLOURS[verdict], hatch=HATCHES[verdict], label=label)
            )
    if model.torch is not None:
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


def _round_axis(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    """One tick per slot; folded slots' ticks in grey italics, the folded count in the label."""
    ax.set_xticks(range(len(model.slots)))
    narrow = len(model.slots) > WIDE_AXIS  # 0.3 in a slot: labels on their side, one line
    ax.set_xticklabels([s.label.replace("\n", " ") if narrow else s.label for s in model.slots],
                       rotation=90 if narrow else 0)
    ax.tick_params(axis="x", labelsize=8 if len(model.slots) <= 14 else 7)
    ax.tick_params(labelfontfamily=list(fonts.families))
    for tick, slot in zip(ax.get_xticklabels(), model.slots, strict=True):
        if slot.folded:
            tick.set_fontstyle("italic")
            tick.set_color("#666666")
    hidden = len({n for s in model.slots for n in s.covers}) - len(model.slots)
    note = f"   ({hidden} rounds folded into the representatives shown)" if hidden else ""
    ax.set_xlabel(f"round (iter){note}", **fonts.regular())
    ax.set_xlim(-0.6, len(model.slots) - 0.4)
