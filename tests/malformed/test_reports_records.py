"""Malformed case strings, report.json, report.csv and round records: each raises the
project's own error (a PtoError naming the file), never anything else, never a value."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pto_tui.core.errors import PtoError
from pto_tui.core.operators.case_strings import FLASH_ATTENTION_TILE_LIB, parse_case_string
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.reports.parsers import parse_report_csv, parse_report_json, sample_row
from pto_tui.core.rounds.ledger import Ledger
from tests.malformed import MINIMUM

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runner_reports"
SETTINGS = settings(max_examples=120, deadline=None, database=None, derandomize=True)
BAD_FIELDS = ("x", "-1", "0", "nan", "inf", "true", "1.5", "", " ", "1e3", "0x10", "١٢")
CSV_HEADER = "case,duration_us,TFLOPS,result"
CASE = "case_float_H_128_S0_128_S1_1024"


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def refused(self, call: Callable[[], object], what: object) -> None:
        try:
            result = call()
        except PtoError as error:
            assert error.render(), what
        else:
            raise AssertionError(f"accepted {what!r}: {result!r}")
        self.count += 1


def test_case_strings_out_of_format_are_refused() -> None:
    counter = Counter()
    fields = st.lists(st.integers(min_value=1, max_value=4096).map(str), min_size=3, max_size=5)

    @SETTINGS
    @given(fields, st.integers(min_value=0, max_value=4), st.sampled_from(BAD_FIELDS))
    def one_bad_field(values: list[str], where: int, bad: str) -> None:
        values[where % len(values)] = bad
        text = ",".join(values)
        counter.refused(lambda: parse_case_string(text, FLASH_ATTENTION_TILE_LIB), text)

    @SETTINGS
    @given(st.integers(min_value=0, max_value=2) | st.integers(min_value=6, max_value=20))
    def wrong_count(count: int) -> None:
        text = ",".join(["128"] * count)
        counter.refused(lambda: parse_case_string(text, FLASH_ATTENTION_TILE_LIB), text)

    one_bad_field()
    wrong_count()
    for text in ("", ";", " ; ; ", "case_float_H_0_S0_128_S1_1024", "128,128,1024;x"):
        counter.refused(partial(parse_case_string, text, FLASH_ATTENTION_TILE_LIB), text)
    assert counter.count >= MINIMUM["case strings"], counter.count


def _report_texts() -> list[str]:
    flat = '{"correctness": {"passes": true}, "duration_ms": 1.5}'
    texts = ["", " ", "[]", "1", '"x"', "null", "{}", '{"pto": 1}', '{"pto": {}}']
    for bad in ('"x"', "-1", "0", "true", "null", "[1]", "1e999", "NaN", "Infinity", "9" * 5000):
        texts.append(flat.replace("1.5", bad))
    for bad in ('"yes"', "1", "null"):
        texts.append(flat.replace("true", bad))
    texts += ["[" * depth + "]" * depth for depth in (2000, 100_000)]
    texts += ['{"a":' * depth + "1" + "}" * depth for depth in (2000, 100_000)]
    return texts


def test_malformed_report_json_is_refused() -> None:
    counter = Counter()
    for text in _report_texts():
        counter.refused(partial(parse_report_json, text, "report.json"), text[:80])
    real = (FIXTURES / "grouped_matmul_planned_ok.json").read_text().strip()
    json.loads(real)  # the fixture itself is good JSON

    @SETTINGS
    @given(st.integers(min_value=0, max_value=len(real) - 1))
    def truncated(offset: int) -> None:
        counter.refused(lambda: parse_report_json(real[:offset], "report.json"), offset)

    truncated()
    assert counter.count >= MINIMUM["report.json"], counter.count


def _csv_texts() -> list[str]:
    good_row = f"{CASE},100.5,1.2,OK"
    texts = ["", "\n", "a,b\n1,2\n", "case,duration_us\nx,1\n", f"{CSV_HEADER}\n\0\n"]
    durations = ("x", "-1", "0", "nan", "inf", "-inf", "true", "", " ", "0x10", "1" * 200_000)
    for column, bads in ((1, durations), (2, ("x", "1,5")), (3, ("ok", "", "1"))):
        for bad in bads:
            cells = good_row.split(",")
            cells[column] = bad
            texts.append(f"{CSV_HEADER}\n{','.join(cells)}\n")
    texts += [f"{CSV_HEADER}\n{good_row},extra\n", f"{CSV_HEADER}\n{good_row[:20]}\n"]
    return texts


def test_malformed_report_csv_is_refused() -> None:
    counter = Counter()
    for text in _csv_texts():

        def parse(t: str = text) -> object:  # read, then taken as the run's sample
            return sample_row(parse_report_csv(t, "report.csv"), None, CASE, "report.csv")

        counter.refused(parse, text[:80])
    assert counter.count >= MINIMUM["report.csv"], counter.count


def test_malformed_round_records_are_refused(started_project: Path) -> None:
    ledger = Ledger(ProjectLayout(started_project))
    path = started_project / "runs" / "iter-000" / "round.toml"
    good = path.read_bytes()
    counter = Counter()
    texts = [
        b"number = 0\n" + good,  # a key twice
        good + b"\n= =\n",
        good.replace(b"number = 0", b"number = 7"),  # the record names another round
        b"number = " + b"9" * 5000,
        b"a = " + b"[" * 5000 + b"]" * 5000,
        b"",
    ]
    texts += [
        good[:offset] + b"\xff" + good[offset:] for offset in range(0, len(good), max(1, len(good) // 40))
    ]
    try:
        for data in texts:
            path.write_bytes(data)
            counter.refused(lambda: ledger.load(0), data[-60:])
    finally:
        path.write_bytes(good)
    assert ledger.load(0).number == 0
    assert counter.count >= MINIMUM["round records"], counter.count
