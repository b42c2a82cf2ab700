"""One unit for several durations (a table column, the numbers of one sentence)."""

from __future__ import annotations

import pytest

from pto_tui.core.rounds.durations import duration_in, duration_unit
from pto_tui.core.rounds.durations import format_durations as durations


@pytest.mark.parametrize(
    ("values", "unit"),
    [
        ([23987.0, 9060.3], "ms"),  # median 16.5 ms
        ([100.0, 23987.0, 9060.3], "us"),  # median 9060 us
        ([100.0, None, 12000.0, 15000.0], "ms"),  # unknowns do not count
        ([None, None], "us"),
        ([], "us"),
        ([10_000.0], "ms"),
    ],
)
def test_unit_from_the_median(values: list[float | None], unit: str) -> None:
    assert duration_unit(values) == unit


def test_durations_share_one_unit() -> None:
    assert durations([23987.0, 9060.3]) == ["23.987 ms", "9.060 ms"]
    assert durations([100.0, 23987.0, 9060.3, None]) == ["100.0 us", "23987.0 us", "9060.3 us", "-"]
    assert duration_in(1234.56, "ms") == "1.235 ms"
