"""Where a round's runs ran, when a scheduler placed them (a Slurm target's nodes and
NPUs): a verdict that sets runs of one node against runs of another says so, since nodes
differ in clocks, firmware and cooling ([target.slurm] same_node avoids it). Pure."""

from __future__ import annotations

from collections import Counter

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Measurement, Round


def nodes_note(m: Measurement, frontier: Round | None) -> str:
    """"runs on node2, the frontier iter-001's on node1: different nodes", "" when both ran
    on the same node(s) or either does not say."""
    if frontier is None or not m.nodes or not frontier.measurement.nodes:
        return ""
    mine, theirs = m.nodes, frontier.measurement.nodes
    if set(mine) == set(theirs) and len(mine) == 1:
        return ""
    if set(mine) == set(theirs):
        return f"runs on {', '.join(mine)} on both sides: nodes mixed within each"
    return (f"runs on {', '.join(mine)}, the frontier {round_name(frontier.number)}'s on "
            f"{', '.join(theirs)}: different nodes")


def placements_text(m: Measurement) -> str:
    """"pto-node1 npu 0 (3 runs), pto-node1 npu 1 (2 runs)" for notes.md; "" when none."""
    counts = Counter(m.placements)
    return ", ".join(f"{where} ({n} run{'s' if n != 1 else ''})" for where, n in counts.items())
