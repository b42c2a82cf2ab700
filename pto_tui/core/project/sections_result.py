"""[result] of project.toml (and of the operator's marker): how a run's time and verdict are
read from what its benchmark prints, when it writes no report pto-tui reads by itself."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pto_tui.core.project.config import ResultConfig
from pto_tui.core.project.schema import STRING, Check, Condition, Key, Section, Written

# The readers pto-tui has (core/reports/printed.py), by name; "" is the kind's own report.
RESULT_FORMATS = {
    "": "the kind's own report (PTO-tile-lib: report.csv and `test success`; PTO-DSL: the "
    "runner's report.json)",
    "report-csv": "pto-isa's report.csv (the run's rows) with its `test success` / `test failed` line",
    "average-time": "`Average time: X ms` lines (pto-isa's fused_add_relu_mul) with a pass/fail line",
    "avg-us": "`<label>: avg=X us` lines (pto-isa's moe_combine) with a pass/fail line",
    "pattern": "your own regular expressions: `time` (required), `passed`, `failed`",
}
TIME_UNITS = ("s", "ms", "us", "ns")


def _compiles(value: str) -> bool:
    try:
        re.compile(value)
    except re.error:
        return False
    return True


def _time_has_a_group(value: str) -> bool:
    return not value or (_compiles(value) and re.compile(value).groups >= 1)


def _pattern_has_time(entry: Mapping[str, Any]) -> bool:
    return entry["format"] != "pattern" or bool(entry["time"])


_REGEX = Condition(_compiles, "{value!r} is not a regular expression Python reads", "a regular expression")

RESULT_KEYS = (
    Key(
        "format",
        STRING,
        "how a run's result is read: "
        + "; ".join(f"`{k or '(empty)'}`: {v}" for k, v in RESULT_FORMATS.items()),
        ResultConfig.format,
        choices=tuple(RESULT_FORMATS),
        choice_error="unknown result format {value!r}; expected one of: "
        + ", ".join(repr(k) for k in RESULT_FORMATS),
    ),
    Key(
        "time",
        STRING,
        "a regular expression matched on each output line; its first group is a run's time "
        "(overrides the format's own)",
        ResultConfig.time,
        condition=Condition(_time_has_a_group, "{value!r} is no regular expression with a group for the time",
                  "a regular expression with a group"),
        written=Written.IF_SET,
    ),
    Key("unit", STRING, "the unit of the time", ResultConfig.unit, choices=TIME_UNITS,
        choice_error="unknown unit {value!r}; expected one of: " + ", ".join(TIME_UNITS),
        written=Written.IF_SET),
    Key("passed", STRING, "a regular expression of a line saying the run passed (empty: the known "
        "lines: `test success`, `All tests PASSED`, `All tests passed!`, `[SUCCESS]`, `verify=PASS`)",
        ResultConfig.passed, condition=_REGEX, written=Written.IF_SET),
    Key("failed", STRING, "a regular expression of a line saying the run failed (empty: the known lines)",
        ResultConfig.failed, condition=_REGEX, written=Written.IF_SET),
    Key("label", STRING, "read the first time after the line holding this text (a benchmark's "
        "heading, e.g. `Benchmarking Basic Kernel`); empty: every time line, summed",
        ResultConfig.label, written=Written.IF_SET),
)

RESULT = Section(
    "result",
    "How a run's time and verdict are read from what the benchmark prints, when it writes no "
    "report pto-tui reads by itself (docs/pto-operator-toml.md).",
    keys=RESULT_KEYS,
    checks=(Check("time", _pattern_has_time, "format 'pattern' needs `time`, a regular expression"),),
    commented=True,
)
