"""Exports of the round table: CSV and JSON read back equal, Markdown readable."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.export import (
    COLUMNS,
    ExportRow,
    export_rows,
    read_csv,
    read_json,
    render_export,
    to_csv,
    to_json,
    to_markdown,
)
from pto_tui.core.rounds.records import ParamChange
from tests.chart.builders import TORCH, K, eight_rounds, make_round, open_round


def awkward_rounds() -> list:
    """Every verdict, an open round, and text / values that are hard to keep in a CSV."""
    rounds = [*eight_rounds(), open_round(8)]
    tricky = make_round(9, K, 123.456789012345, title='comma, "quote" | pipe\nnew line 中文')
    tricky.changes.parameters = [
        ParamChange("A", None, 1),
        ParamChange("B", 1.5, 2.25),
        ParamChange("C", "x", "y,z"),
        ParamChange("D", False, True),
    ]
    tricky.changes.parameter_values = {"A": 1, "B": 2.25, "C": "y,z", "D": True}
    tricky.flags = ["review: gain above 10x"]
    tricky.measurement.tflops = None
    return [*rounds, tricky]


def test_rows_hold_the_table_and_the_reproducibility_record() -> None:
    rows = export_rows(awkward_rounds(), TORCH)
    by = {r.round: r for r in rows}
    assert [r.round for r in rows] == list(range(10))
    assert by[0].verdict == "baseline" and by[8].verdict is None and by[8].status == "open"
    assert by[1].speedup_vs_initial == pytest.approx(1000 / 700)
    assert by[1].speedup_vs_torch == pytest.approx(180 / 700)
    assert by[1].parameters == [{"name": "BASE_M", "old": 64, "new": 128}]
    assert by[1].snapshot == {"BASE_M": 128, "BASE_N": 128}
    assert by[2].files == ["workspace/kernel/fa.cpp"]
    assert by[2].fingerprint == "fp-abc123"
    assert by[0].toolchain == {"cann": "8.0.RC3", "bisheng": "1.2.3"}
    assert by[2].toolchain == {}
    assert by[3].median_us is None and by[3].build == "failed"
    assert by[6].verdict == "failure" and by[6].correctness == "fail"


def test_csv_round_trip() -> None:
    rows = export_rows(awkward_rounds(), TORCH)
    text = to_csv(rows)
    assert read_csv(text) == rows
    header = next(csv.reader(io.StringIO(text)))
    assert tuple(header) == COLUMNS
    for column in ("parameters", "snapshot", "files", "fingerprint", "toolchain"):
        assert column in header
    cells = list(csv.DictReader(io.StringIO(text)))
    assert cells[2]["toolchain"] == "unknown"
    assert json.loads(cells[0]["toolchain"]) == {"cann": "8.0.RC3", "bisheng": "1.2.3"}


def test_json_round_trip() -> None:
    rows = export_rows(awkward_rounds(), TORCH)
    text = to_json(rows, "fa", "S=1024", TORCH)
    assert read_json(text) == rows
    data = json.loads(text)
    assert data["operator"] == "fa" and data["torch_baseline"]["avg_us"] == 180.0
    assert data["rounds"][9]["parameters"][3] == {"name": "D", "old": False, "new": True}


def test_markdown_table_and_reproducibility() -> None:
    rows = export_rows(awkward_rounds(), TORCH)
    text = to_markdown(rows, "fa", "S=1024")
    assert text.startswith("# Rounds of fa\n\nCase: S=1024")
    assert "| 1 | costmodel-guided | 增大 tile BASE_M 到 128 | BASE_M 64→128 | 700.0 us | 1.43x |" in text
    assert "| 9 |" in text and 'comma, "quote" \\| pipe new line 中文' in text
    assert "(flagged)" in text
    assert "## Reproducibility" in text
    assert "cann=8.0.RC3, bisheng=1.2.3" in text
    assert "| unknown |" in text
    assert "BASE_M=128, BASE_N=128" in text
    assert "fp-abc123" in text


def test_bad_inputs_are_clear_errors() -> None:
    with pytest.raises(InputError, match="missing columns"):
        read_csv("round,status\n1,closed\n")
    with pytest.raises(InputError, match="not a pto-tui JSON export"):
        read_json("{}")
    with pytest.raises(InputError, match="unknown export format"):
        render_export("xlsx", [])


text_st = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
float_st = st.floats(min_value=1e-6, max_value=1e9, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    title=text_st,
    reason=text_st,
    median=st.none() | float_st,
    samples=st.lists(float_st, max_size=5),
    snapshot=st.dictionaries(
        st.text("ABCDEFGHIJK_", min_size=1, max_size=8),
        st.integers(-(2**40), 2**40) | float_st | text_st | st.booleans(),
        max_size=4,
    ),
)
def test_csv_and_json_round_trip_any_values(
    title: str, reason: str, median: float | None, samples: list[float], snapshot: dict
) -> None:
    row = export_rows([make_round(0, None, 100.0)], None)[0]
    row.title, row.reason, row.median_us, row.samples_us = title, reason, median, samples
    row.snapshot = snapshot
    row.based_on = None
    rows: list[ExportRow] = [row]
    assert read_csv(to_csv(rows)) == rows
    assert read_json(to_json(rows)) == rows
