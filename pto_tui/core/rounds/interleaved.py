"""A round measured interleaved with the frontier ([discipline] interleave).

The frontier's own build ran alternately with the round's on the same target (frontier
run, round run, frontier run, ...), so both sets of runs saw the host in the same state:
the verdict compares the round with those runs, not with the frontier's stored ones,
which a host that drifts between rounds would make unfair. The frontier's record is
never changed: the runs are kept on the round that took them. Pure functions.
"""

from __future__ import annotations

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.records import Measurement, Round, median, valid_samples


def frontier_runs(m: Measurement, frontier: Round | None) -> tuple[list[float], str]:
    """The frontier durations a verdict on `m` compares with, and a note for its reason:
    the runs taken interleaved with `m` when they are of `frontier`, else the frontier's
    stored runs (the note "" when `m` was not interleaved)."""
    if frontier is None:
        return [], ""
    stored = list(frontier.measurement.samples_us)
    if not m.frontier_samples_us:
        return stored, ""
    name = round_name(frontier.number)
    if m.frontier_round != frontier.number:
        were = round_name(m.frontier_round) if m.frontier_round is not None else "no round named"
        return stored, (
            f"the interleaved runs were of {were}, the frontier is {name} now: "
            f"compared with {name}'s stored runs"
        )
    runs = len(m.frontier_samples_us)
    return list(m.frontier_samples_us), (
        f"interleaved: against {runs} run{'s' if runs != 1 else ''} of {name} taken "
        "alternately with this round's on the same target"
    )


def interleaved_text(m: Measurement) -> str:
    """The interleaved frontier runs in words (notes.md, the Run pane); "" when none."""
    valid = valid_samples(m.frontier_samples_us)
    if not valid or m.frontier_round is None:
        return ""
    middle, low, high = format_durations([median(valid), min(valid), max(valid)], m.unit)
    return (
        f"{round_name(m.frontier_round)} re-measured alternately with this round on the "
        f"same target: median {middle} over {len(valid)} runs ({low} to {high})"
    )
