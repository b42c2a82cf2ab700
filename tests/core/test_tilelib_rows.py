"""report.csv rows of one run: which rows are new, their count and case names, the sample."""

from __future__ import annotations

import pytest

from pto_tui.core.reports.parsers import (
    TILELIB_CSV_HEADER,
    ReportError,
    count_csv_rows,
    file_state,
    parse_tilelib_output,
    rows_after_state,
    rows_of_this_run,
    sample_row,
)

A = "case_float_H_128_S0_128_S1_1024"
B = "case_float_H_128_S0_512_S1_2048"


def row(name: str, duration: str = "9816.5", result: str = "OK") -> str:
    return f"{name},128,128,1024,128,128,256,1508216,492317358,{duration},{duration},67.1,NA,{result}"


def csv_text(*rows: str) -> str:
    return TILELIB_CSV_HEADER + "\n" + "".join(r + "\n" for r in rows)


def test_appended_rows_are_this_runs() -> None:
    before = csv_text(row(A, "1.0"))
    rows = rows_of_this_run(before, before + row(A, "2.0") + "\n", "report.csv")
    assert [r.duration_us for r in rows] == [2.0] and rows[0].line == 3
    assert [r.duration_us for r in rows_of_this_run(None, csv_text(row(A, "3.0")), "r")] == [3.0]


def test_a_replaced_file_is_all_this_runs() -> None:
    """run.sh starts from an empty build folder: the old file is gone, the new one is this run's."""
    before = csv_text(row(A, "1.0"), row(A, "1.5"))
    rows = rows_of_this_run(before, csv_text(row(A, "2.0")), "report.csv")
    assert [r.duration_us for r in rows] == [2.0]


def test_the_rows_after_a_state_kept_before_the_run() -> None:
    """A run resumed later knows the file only by its state before the run (kept in the
    job's record), read after more runs may have appended: the rows after that text."""
    before = csv_text(row(A, "1.0"))
    after = before + row(A, "2.0") + "\n"
    state = file_state(before)
    assert [r.duration_us for r in rows_after_state(state, after, "r")] == [2.0]
    assert [r.duration_us for r in rows_after_state(file_state(None), after, "r")] == [1.0, 2.0]
    assert file_state("") == ""
    # replaced since (a new build folder): its text no longer starts the file, all rows new
    assert [r.duration_us for r in rows_after_state(state, csv_text(row(A, "3.0")), "r")] == [3.0]
    longer = csv_text(row(A, "9.0"), row(A, "4.0"))  # as long as before, other text
    assert [r.duration_us for r in rows_after_state(state, longer, "r")] == [9.0, 4.0]
    assert [r.duration_us for r in rows_after_state("garbled", after, "r")] == [1.0, 2.0]


def test_repeated_header_is_no_data_row() -> None:
    text = csv_text(row(A)) + TILELIB_CSV_HEADER + "\n" + row(A) + "\n"
    assert count_csv_rows(text) == 2


def test_sample_is_the_case_under_tuning() -> None:
    rows = rows_of_this_run(None, csv_text(row(A, "1.0"), row(B, "2.0")), "r")
    assert sample_row(rows, [A, B], B, "r").duration_us == 2.0
    assert sample_row(rows, [B, A], A, "r").duration_us == 1.0  # order as compiled, not as asked
    one = rows_of_this_run(None, csv_text(row(A, "1.0")), "r")
    assert sample_row(one, None, "my label", "r").duration_us == 1.0  # unknown cases: the only row


@pytest.mark.parametrize(
    ("rows", "expected", "under", "message"),
    [
        ([row(A)], [B], B, f"wrote 1 row(s) ({A}); expected 1, one per case of the case string ({B})"),
        ([row(A), row(A)], [A], A, f"wrote 2 row(s) ({A}, {A}); expected 1"),
        ([row(A)], [A, B], A, f"wrote 1 row(s) ({A}); expected 2"),
        ([row(A), row(B)], None, "x", f"this run wrote 2 rows ({A}, {B}) and no row is for the case"),
        ([row(A, "0.000")], [A], A, f"duration_us of {A} is 0.0: no valid timing"),
    ],
)
def test_count_name_or_timing_mismatch(
    rows: list[str], expected: list[str] | None, under: str, message: str
) -> None:
    parsed = rows_of_this_run(None, csv_text(*rows), "build/report.csv")
    with pytest.raises(ReportError) as info:
        sample_row(parsed, expected, under, "build/report.csv")
    assert message in info.value.render() and info.value.render().startswith("build/report.csv")


def test_verdict_lines_are_counted() -> None:
    two = parse_tilelib_output("test success\n[SUMMARY] o_out status: OK\ntest success\n")
    assert two.correct is True and (two.successes, two.failures) == (2, 0)
    mixed = parse_tilelib_output("test success\ntest failed\n")
    assert mixed.correct is False and (mixed.successes, mixed.failures) == (1, 1)
