"""A frontier plot in text: speedup vs the initial PTO result per round, and the best so far."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from pto_tui.tui.format import VERDICT_STYLES

GLYPHS = {"kept": "●", "neutral": "○", "failure": "✗", "inconclusive": "?", "baseline": "◆"}
FRONTIER_STYLE = "dark_orange"


@dataclass(frozen=True)
class PlotPoint:
    number: int
    speedup: float | None  # None: no valid duration (e.g. the build failed)
    verdict: str


def plot_text(points: list[PlotPoint], width: int, height: int) -> Text:
    """Points by verdict, the frontier as a line; rounds folded into columns when many."""
    points = [p for p in points if p.verdict != "open"]
    if not points:
        return Text("no closed rounds yet", style="dim")
    height = max(3, height)
    label_w = 7
    plot_w = max(8, width - label_w - 1)
    values = [p.speedup for p in points if p.speedup]
    lo = min([1.0, *values])
    hi = max([1.0, *values])
    if hi - lo < 1e-9:
        hi = lo + 0.1
    per_col = max(1, -(-len(points) // plot_w))
    columns = [points[i : i + per_col] for i in range(0, len(points), per_col)]
    step = max(1, min(6, plot_w // max(1, len(columns))))  # spread few rounds out
    grid: list[list[tuple[str, str]]] = [[(" ", "")] * (len(columns) * step) for _ in range(height)]

    def row_of(value: float) -> int:
        return height - 1 - round((value - lo) / (hi - lo) * (height - 1))

    best = 0.0
    for col, group in enumerate(columns):
        for p in group:
            if p.speedup and (p.verdict in ("kept", "baseline")):
                best = max(best, p.speedup)
        if best:  # the frontier runs through this round's columns
            for x in range(col * step, (col + 1) * step):
                grid[row_of(best)][x] = ("─", FRONTIER_STYLE)
        # one point per column: the most telling round of the group
        shown = max(group, key=lambda p: (p.verdict == "kept", p.speedup or 0.0))
        glyph = GLYPHS.get(shown.verdict, "·")
        y = row_of(shown.speedup) if shown.speedup else height - 1
        grid[y][col * step] = (glyph, VERDICT_STYLES.get(shown.verdict, ""))
    text = Text()
    for index, row in enumerate(grid):
        if index == 0:
            label = f"{hi:5.2f}x "
        elif index == height - 1:
            label = f"{lo:5.2f}x "
        else:
            label = "       "
        text.append(label, style="dim")
        text.append("│")
        for glyph, style in row:
            text.append(glyph, style=style)
        text.append("\n")
    first, last = points[0].number, points[-1].number
    axis = f"{'':{label_w}}└ iter {first}"
    tail = f"iter {last}" + (f" ({per_col} rounds/col)" if per_col > 1 else "")
    pad = max(1, label_w + 1 + len(columns) * step - len(axis) - len(tail))
    text.append(axis + " " * pad + tail, style="dim")
    text.append("\n")
    text.append("● kept ○ neutral ✗ failure ? inconclusive ", style="dim")
    text.append("─ frontier", style=FRONTIER_STYLE)
    return text


class FrontierPlot(Static):
    """Re-draws itself at its own size."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.points: list[PlotPoint] = []

    def set_points(self, points: list[PlotPoint]) -> None:
        self.points = points
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        width = self.size.width or 60
        height = (self.size.height or 10) - 2
        self.update(plot_text(self.points, width, height))
