"""The summary chart's upper panel: speedup per round, the best frontier, verdict markers,
phase bands and milestone labels (what is shown is decided in chart_model)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from pto_tui.core.project.layout import round_name
from pto_tui.core.summary.chart_fonts import ChartFonts, clean_text
from pto_tui.core.summary.chart_model import ChartModel, ChartRound
from pto_tui.core.summary.chart_style import (
    COLOURS,
    FAILURE,
    FRONTIER_COLOUR,
    INCONCLUSIVE,
    MARKERS,
    PHASE_COLOURS,
    SPEEDUP_COLOUR,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes


class MarkerStyle(TypedDict, total=False):
    """The scatter keywords of one verdict's markers."""

    marker: str
    s: float
    linewidths: float
    zorder: float
    facecolors: str
    edgecolors: str
    color: str


def speedup_panel(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    shown = [model.round(s.shown) for s in model.slots]
    _phase_bands(ax, model, fonts)
    _speedup_lines(ax, shown)
    _verdict_markers(ax, shown)
    _speedup_limits(ax, shown)
    _milestones(ax, model, fonts)
    ax.set_ylabel("speedup vs initial PTO (x)", **fonts.regular())
    ax.grid(axis="y", color="#dddddd", linewidth=0.6, zorder=0)
    _speedup_legend(ax, shown, fonts)


def _phase_spans(model: ChartModel) -> list[tuple[str, int, int]]:
    """(phase, first slot, last slot) of each run of contiguous slots in the same phase."""
    spans: list[tuple[str, int, int]] = []
    for i, slot in enumerate(model.slots):
        phase = model.round(slot.shown).phase or "(no phase)"
        if spans and spans[-1][0] == phase:
            spans[-1] = (phase, spans[-1][1], i)
        else:
            spans.append((phase, i, i))
    return spans


def _phase_bands(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    """Background bands over contiguous slots of the same phase, named at the top."""
    for phase, first, last in _phase_spans(model):
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
            **fonts.regular(),
        )


def _speedup_lines(ax: Axes, shown: Sequence[ChartRound]) -> None:
    """The 1x reference, the speedup of each measured round and the best frontier."""
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


def _marker_style(verdict: str) -> MarkerStyle:
    colour = COLOURS[verdict]
    style: MarkerStyle = {
        "marker": MARKERS[verdict],
        "s": 70 if verdict == FAILURE else 46,
        "linewidths": 2.2 if verdict == FAILURE else 1.4,
        "zorder": 5,
    }
    if verdict == INCONCLUSIVE:  # hollow
        style |= {"facecolors": "none", "edgecolors": colour}
    else:
        style |= {"color": colour}
        if MARKERS[verdict] != "x":
            style["edgecolors"] = "white"
    return style


def _verdict_markers(ax: Axes, shown: Sequence[ChartRound]) -> None:
    """One scatter per verdict; rounds without a valid number sit on the bottom edge."""
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    for verdict in COLOURS:
        points = [(i, r.speedup) for i, r in enumerate(shown) if r.verdict == verdict]
        with_value = [(i, s) for i, s in points if s is not None]
        style = _marker_style(verdict)
        if with_value:
            ax.scatter(
                [i for i, _ in with_value],
                [s for _, s in with_value],
                gid=f"markers-{verdict}",
                **style,
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
                **style,
            )


def _speedup_limits(ax: Axes, shown: Sequence[ChartRound]) -> None:
    values = [r.speedup for r in shown if r.speedup is not None] + [r.frontier_speedup for r in shown]
    low, high = min(values + [1.0]), max(values + [1.0])
    span = max(high - low, 0.5)
    # a margin below the lowest point keeps the no-data crosses (at 3%) under every marker;
    # headroom above leaves space for the milestone labels
    ax.set_ylim(low - 0.1 * span, high + 0.35 * span)


def _milestone_text(r: ChartRound, fonts: ChartFonts, width: int = 24) -> str:
    fallback = r.changes or round_name(r.number)
    text = clean_text(r.label, fonts, fallback=fallback)
    return "\n".join(textwrap.wrap(f"#{r.number} {text}", width)[:3])


def _milestones(ax: Axes, model: ChartModel, fonts: ChartFonts) -> None:
    """A boxed label over each milestone round, alternating heights so neighbours don't collide."""
    slots = model.slots
    for k, number in enumerate(model.milestones):
        i = next(j for j, s in enumerate(slots) if s.shown == number)
        r = model.round(number)
        ax.annotate(
            _milestone_text(r, fonts),
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
            **fonts.regular(),
        )


def _speedup_legend(ax: Axes, shown: Sequence[ChartRound], fonts: ChartFonts) -> None:
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
