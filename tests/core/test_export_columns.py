"""The export's CSV columns are typed from the annotations' text (evaluating the type
hints costs start-up): the same kinds typing.get_type_hints gives, for every column."""

from __future__ import annotations

import statistics
import types
import typing

from pto_tui.core.rounds.export import COLUMNS, ExportRow, _kind
from pto_tui.core.rounds.records import median


def _kind_from_hints(hint: object) -> str:
    origin = typing.get_origin(hint)
    if origin in (list, dict):
        return "json"
    if origin in (typing.Union, types.UnionType):
        inner = next(a for a in typing.get_args(hint) if a is not type(None))
        return f"{inner.__name__}?"
    return hint.__name__  # type: ignore[attr-defined]


def test_every_column_has_the_kind_its_type_hint_gives() -> None:
    hints = typing.get_type_hints(ExportRow)
    assert {name: _kind(name) for name in COLUMNS} == {
        name: _kind_from_hints(hints[name]) for name in COLUMNS
    }


def test_the_median_is_the_statistics_median() -> None:
    cases: list[list[float]] = [[3.0], [2.0, 1.0], [5, 1, 3], [1, 2], [99.9, 100.1, 100.0, 98.7], [1e-9, 1e9]]
    for values in cases:
        assert median(values) == statistics.median(values)
        assert type(median(values)) is type(statistics.median(values))
