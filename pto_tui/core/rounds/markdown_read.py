"""Reading the workflow's Markdown as a person or an agent writes it (docs/formats.md §8, §9):
the round table of ITERATIONS.md (its header in English or Chinese, `markdown_labels`) and
the durations and TFLOPS written in it; the torch_npu section is `markdown_torch`'s, a
round's notes.md `markdown_notes`'.

Every value keeps the line it came from, so whatever cannot be read, and every conflict
between the files, is named by file and line. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import InputError, read_regular_bytes
from pto_tui.core.numbers import duration_problem, tflops_problem
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.markdown_labels import COLUMNS, column_of

HEADER = [key for key, _words in COLUMNS]  # iter, hypothesis, changes, baseline, pto, correct, result
# a duration, optionally marked as simulated: "12.5 us (sim)"
_DURATION = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(us|µs|μs|ms|s)?\s*(?:\((?:sim|simulated)\))?\s*$"
)
_DURATION_IN_TEXT = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(us|µs|μs|ms)\b")
_TFLOPS = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*TFLOPS", re.IGNORECASE)
# "0", "iter-000", "iter 3", "Iter-12", "iter_004": the round number of a table row
_ITER = re.compile(r"^(?:iter[-_ ]?)?(\d{1,9})$", re.IGNORECASE)  # no 20-digit folder numbers
_UNITS = {"us": 1.0, "µs": 1.0, "μs": 1.0, "ms": 1000.0, "s": 1e6}


@dataclass
class TableRow:
    line: int
    number: int
    hypothesis: str
    changes: str
    baseline: str
    pto: str
    correct: str
    result: str
    iter_cell: str = ""  # the round's cell as written ("iter-003", "3"): the table's style


def round_number(cell: str) -> int | None:
    match = _ITER.match(cell.strip())
    return int(match.group(1)) if match else None


def parse_duration_us(text: str) -> float | None:
    """'1.234 ms', '812.5 us', '812.5us', '0.9 s' -> microseconds; None for '-' or blank.
    A number without a unit raises ValueError (it would be a guess)."""
    text = text.strip()
    if text in ("", "-", "—", "n/a", "N/A", "NA"):
        return None
    match = _DURATION.match(_TFLOPS.sub("", text).replace("()", "").strip())
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    value, unit = float(match.group(1)), match.group(2)
    if unit is None:
        raise ValueError(f"duration {text!r} has no unit (us or ms)")
    problem = duration_problem(f"duration {text!r}", value * _UNITS[unit])  # 0 us, 1e400 ms
    if problem:
        raise ValueError(problem)
    return value * _UNITS[unit]


def durations_in(text: str) -> list[float]:
    """Every duration with a unit in free text ('3.21 ms → 4.90 ms'), in microseconds;
    those that cannot be measurements (0 us, a thousand digits) are no durations."""
    found = [float(v) * _UNITS[u] for v, u in _DURATION_IN_TEXT.findall(text)]
    return [us for us in found if duration_problem("duration", us) is None]


def tflops_in(text: str) -> float | None:
    match = _TFLOPS.search(text)
    value = float(match.group(1)) if match else None
    return value if value is not None and tflops_problem("TFLOPS", value) is None else None


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_text(path: Path, what: str) -> str:
    try:
        return read_regular_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} not found", file=path) from None
    except UnicodeDecodeError:
        raise InputError(f"{what} is not UTF-8 text", file=path) from None


def parse_iterations_table(path: Path) -> tuple[list[TableRow], list[str]]:
    """Rows of the round table. No table at all is an InputError naming the file."""
    rows: list[TableRow] = []
    problems: list[str] = []
    seen: dict[int, int] = {}  # round -> the line of its row
    header_line = None
    for number, line in enumerate(read_text(path, "ITERATIONS.md").splitlines(), start=1):
        stripped = line.strip()
        if not stripped.startswith("|"):
            continue
        row = cells(stripped)
        if header_line is None:
            header_line = number if [column_of(c) for c in row] == HEADER else None
            continue
        if set(stripped) <= set("|-: ") or not row or not row[0]:
            continue  # the rule under the header, or an empty row
        iteration = round_number(row[0])
        if iteration is None:
            problems.append(f"{path}:{number}: row does not start with a round number: {row[0]!r}")
        elif len(row) != len(HEADER):
            problems.append(
                f"{path}:{number}: expected {len(HEADER)} columns, found {len(row)}; row skipped"
            )
        elif iteration in seen:
            problems.append(
                f"{path}:{number}: {round_name(iteration)} has a row already (line {seen[iteration]}); "
                "this one is not used"
            )
        else:
            seen[iteration] = number
            hypothesis, changes, baseline, pto, correct, result = row[1:]
            rows.append(
                TableRow(number, iteration, hypothesis, changes, baseline, pto, correct, result, row[0])
            )
    if header_line is None:
        raise InputError(
            "no round table found; expected the header "
            "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |",
            file=path,
        )
    return rows, problems
