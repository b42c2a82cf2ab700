"""The summary chart's colours and markers, shared by both panels (the legend explains them)."""

from __future__ import annotations

from pto_tui.core.rounds.counts import UNVERIFIED
from pto_tui.core.summary.chart_model import BASELINE
from pto_tui.core.vocabulary import Verdict

KEPT, NEUTRAL, FAILURE, INCONCLUSIVE = (v.value for v in Verdict)

# Marker / bar colours per verdict (docs/workflow.md §19: green kept, blue neutral, red failure,
# grey baseline; inconclusive is ours: grey, hollow / hatched, so it never reads as a result;
# so is unverified, a verdict the history does not vouch for: pink, a plus, cross-hatched).
COLOURS: dict[str, str] = {
    BASELINE: "#8c8c8c",
    KEPT: "#2ca02c",
    NEUTRAL: "#1f77b4",
    FAILURE: "#d62728",
    INCONCLUSIVE: "#6e6e6e",
    UNVERIFIED: "#e377c2",
}
MARKERS: dict[str, str] = {
    BASELINE: "s",
    KEPT: "o",
    NEUTRAL: "o",
    FAILURE: "x",
    INCONCLUSIVE: "D",
    UNVERIFIED: "P",
}
# bars drawn white with their colour's hatch, so they never read as a result
HATCHES: dict[str, str] = {INCONCLUSIVE: "///", UNVERIFIED: "xx"}
SPEEDUP_COLOUR = "#2ca02c"
FRONTIER_COLOUR = "#ff7f0e"
TORCH_COLOUR = "#8e44ad"  # purple
PHASE_COLOURS = ("#eef3fb", "#eefaf0", "#fdf6e7", "#f7eefa", "#eef8f8", "#faf0ee")

# the first this many slots of the x axis are drawn 0.62 in wide, those beyond (many kept
# rounds: each has its own) 0.3 in, with their labels on their side
WIDE_AXIS = 40
