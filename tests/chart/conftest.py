"""Fixtures of the chart, export and report tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from pto_tui.core.summary.chart_fonts import ChartFonts, base_fonts


@pytest.fixture(scope="session")
def plain_fonts() -> ChartFonts:
    """DejaVu Sans only: the machine without a CJK font."""
    return base_fonts()


def find(fig: Figure, gid: str) -> list[Artist]:
    return fig.findobj(lambda a: a.get_gid() == gid)


def find_one(fig: Figure, gid: str) -> Artist:
    found = find(fig, gid)
    assert len(found) == 1, f"{gid}: {len(found)} artists"
    return found[0]


@pytest.fixture
def gid() -> Callable[[Figure, str], Artist]:
    return find_one
