"""Which frontier runs a verdict compares with: those taken interleaved with the round when
they are of the frontier it is judged against, else the frontier's stored runs."""

from __future__ import annotations

from pto_tui.core.rounds.interleaved import frontier_runs, interleaved_text
from pto_tui.core.rounds.records import Measurement, Round

STORED = [250.0, 251.0, 249.0]
FRESH = [300.0, 301.0, 299.0]


def frontier(number: int) -> Round:
    return Round(number, measurement=Measurement(build="ok", correctness="pass", samples_us=list(STORED)))


def test_the_interleaved_runs_of_the_frontier_are_compared_and_said() -> None:
    m = Measurement(samples_us=[280.0], frontier_samples_us=list(FRESH), frontier_round=3)
    runs, note = frontier_runs(m, frontier(3))
    assert runs == FRESH
    assert note == ("interleaved: against 3 runs of iter-003 taken alternately with this round's on the "
                    "same target")
    assert interleaved_text(m) == (
        "iter-003 re-measured alternately with this round on the same target: median 300.0 us over 3 runs "
        "(299.0 us to 301.0 us)")


def test_runs_of_another_round_give_way_to_the_frontier_s_stored_ones() -> None:
    # the frontier changed after the round was measured (an amendment, a confirmation)
    m = Measurement(samples_us=[280.0], frontier_samples_us=list(FRESH), frontier_round=2)
    runs, note = frontier_runs(m, frontier(4))
    assert runs == STORED
    assert note == ("the interleaved runs were of iter-002, the frontier is iter-004 now: compared with "
                    "iter-004's stored runs")


def test_a_round_measured_without_them_compares_with_the_stored_runs() -> None:
    m = Measurement(samples_us=[280.0])
    assert frontier_runs(m, frontier(1)) == (STORED, "")
    assert frontier_runs(m, None) == ([], "")
    assert interleaved_text(m) == ""
