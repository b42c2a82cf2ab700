"""Reading the workflow's Markdown as a person or an agent writes it (docs/formats.md §8, §9):
the round table and the torch_npu section of ITERATIONS.md, and a round's notes.md.

Every value keeps the line it came from, so whatever cannot be read, and every conflict
between the files, is named by file and line. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError, read_regular_bytes
from pto_tui.core.numbers import duration_problem, tflops_problem
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import TorchBaseline

HEADER = ["iter", "hypothesis", "changes", "baseline", "pto", "correct", "result"]
# a duration, optionally marked as simulated: "12.5 us (sim)"
_DURATION = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(us|µs|μs|ms|s)?\s*(?:\((?:sim|simulated)\))?\s*$"
)
_DURATION_IN_TEXT = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(us|µs|μs|ms)\b")
_TFLOPS = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*TFLOPS", re.IGNORECASE)
_BULLET = re.compile(r"^\s*[-*]\s*\*\*(.+?)\*\*\s*[:：]\s*(.*)$")
_SECTION = re.compile(r"^##\s+(.+?)\s*$")
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


@dataclass
class Bullet:
    value: str
    line: int


@dataclass
class Notes:
    """notes.md: {section: {label: Bullet}} and each section's free text."""

    path: Path
    sections: dict[str, dict[str, Bullet]] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)

    def value(self, section: str, *needles: str) -> Bullet | None:
        """The first bullet of `section` whose label contains one of the needles."""
        for label, bullet in self.sections.get(section, {}).items():
            if any(n.lower() in label.lower() for n in needles):
                return bullet
        return None


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


def _cells(line: str) -> list[str]:
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
        cells = _cells(stripped)
        if header_line is None:
            header_line = number if [c.lower() for c in cells] == HEADER else None
            continue
        if set(stripped) <= set("|-: ") or not cells or not cells[0]:
            continue  # the rule under the header, or an empty row
        iteration = round_number(cells[0])
        if iteration is None:
            problems.append(f"{path}:{number}: row does not start with a round number: {cells[0]!r}")
        elif len(cells) != len(HEADER):
            problems.append(
                f"{path}:{number}: expected {len(HEADER)} columns, found {len(cells)}; row skipped"
            )
        elif iteration in seen:
            problems.append(
                f"{path}:{number}: {round_name(iteration)} has a row already (line {seen[iteration]}); "
                "this one is not used"
            )
        else:
            seen[iteration] = number
            rows.append(TableRow(number, iteration, *cells[1:]))
    if header_line is None:
        raise InputError(
            "no round table found; expected the header "
            "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |",
            file=path,
        )
    return rows, problems


_WARMUP = re.compile(r"(?:warm-?up\D{0,3}(\d+)|(\d+)\s*(?:次)?\s*warm-?up)", re.IGNORECASE)
_TIMED = re.compile(r"(?:(\d+)\s*(?:次)?\s*(?:timed|计时)|(?:timed|计时)\D{0,3}(\d+))", re.IGNORECASE)


def _count(pattern: re.Pattern[str], text: str) -> int:
    match = pattern.search(text)
    return int(next(g for g in match.groups() if g)) if match else 0


def parse_torch_section(path: Path) -> tuple[TorchBaseline | None, list[str]]:
    """The `## torch_npu baseline` section: its avg | min | max | TFLOPS table, the
    warm-up and timed-run counts and the reference named in its text."""
    lines = read_text(path, "ITERATIONS.md").splitlines()
    start = next(
        (i for i, line in enumerate(lines) if _SECTION.match(line) and "torch" in line.lower()), None
    )
    if start is None:
        return None, []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = lines[start + 1 : end]
    prose = " ".join(line.strip() for line in body if line.strip() and not line.strip().startswith("|"))
    header: list[str] | None = None
    for offset, line in enumerate(body, start=start + 2):
        if not line.strip().startswith("|") or set(line.strip()) <= set("|-: "):
            continue
        cells = [c.lower() for c in _cells(line)]
        if header is None:
            header = cells if {"avg", "min", "max"} <= set(cells) else None
            continue
        values = dict(zip(header, _cells(line), strict=False))
        try:
            avg, low, high = (parse_duration_us(values[k]) for k in ("avg", "min", "max"))
        except ValueError as error:
            return None, [f"{path}:{offset}: torch_npu baseline: {error}; not imported"]
        if avg is None or low is None or high is None:
            return None, [f"{path}:{offset}: torch_npu baseline: avg, min and max are all needed"]
        tflops_text = values.get("tflops", "").strip()
        tflops = float(tflops_text) if re.fullmatch(r"[0-9.]+", tflops_text) else None
        label = "torch_npu" if "torch" not in prose.lower() else _reference_label(prose)
        return TorchBaseline(avg, low, high, tflops, label, _count(_WARMUP, prose), _count(_TIMED, prose)), []
    if "not measured" in prose.lower():
        return None, []
    return None, [f"{path}:{start + 1}: torch_npu section without an avg | min | max table; not imported"]


def _reference_label(prose: str) -> str:
    """The reference the section names (pto-tui writes 'Reference: <label> (...)')."""
    text = prose.removeprefix("Reference:").strip()
    text = re.split(r"\s\(\d+ warm-up|[:：]\s|\s\d+\s*(?:次)?\s*warm|warm-?up", text, maxsplit=1)[0]
    return text.strip(" ,.:") or "torch_npu"


def parse_notes(path: Path) -> Notes:
    """notes.md -> sections of bullets (continuation lines joined) and free text."""
    notes = Notes(path)
    current: dict[str, Bullet] | None = None
    section = ""
    last: Bullet | None = None
    for number, line in enumerate(read_regular_bytes(path).decode("utf-8", errors="replace").splitlines(), 1):
        heading = _SECTION.match(line)
        if heading:
            section = heading.group(1).strip()
            current, last = notes.sections.setdefault(section, {}), None
            continue
        if current is None:
            continue
        bullet = _BULLET.match(line)
        if bullet:
            last = current[bullet.group(1).strip()] = Bullet(bullet.group(2).strip(), number)
        elif last is not None and line.startswith("  ") and line.strip():
            last.value = (last.value + "\n" + line.strip()).strip()
        elif line.strip() and last is None:
            notes.text[section] = (notes.text.get(section, "") + "\n" + line.strip()).strip()
    return notes
