"""The round table as CSV, JSON or Markdown, with each round's reproducibility record.

One `ExportRow` per round (open rounds included, their status says so): what the
table shows (hypothesis, verdict, durations, speedups) and what is needed to
reproduce the round (parameter changes, full parameter snapshot, files changed,
workload fingerprint, workspace snapshot, result files, toolchain versions when
known). CSV and JSON read back into rows equal to the ones written
(`read_csv` / `read_json`); in CSV, lists and tables are JSON text in their cell and
an empty cell is None for the optional numbers.

Toolchain versions are only recorded by the environment round (iter-000); other
rounds show "unknown" in CSV and Markdown (an empty table in JSON).
"""

from __future__ import annotations

import csv
import functools
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import Any

from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.project.modes import CYCLES, MICROSECONDS
from pto_tui.core.rounds.durations import format_duration, unit_label
from pto_tui.core.rounds.prediction import predicted_change
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.rounds.render import changes_summary

FORMATS = ("csv", "md", "json")
UNKNOWN = "unknown"
JSON_SCHEMA = "pto-tui.rounds/1"

Scalar = int | float | str | bool


@dataclass
class ExportRow:
    # the table (same names as `pto-tui rounds --json`)
    round: int
    status: str
    phase: str
    title: str
    hypothesis: str
    bottleneck: str
    verdict: str | None  # "baseline", a verdict, or None while the round is open
    reason: str
    build: str
    correctness: str
    stability: str
    median_us: float | None
    samples_us: list[float]
    reference_us: list[float]
    tflops: float | None
    speedup_vs_initial: float | None
    speedup_vs_torch: float | None
    flags: list[str]
    amended: bool
    # the reproducibility record
    change_kind: str
    changes: str  # one-line summary, as in ITERATIONS.md
    parameters: list[dict[str, Scalar | None]]  # [{"name", "old", "new"}]
    snapshot: dict[str, Scalar]  # full parameter snapshot
    files: list[str]
    based_on: int | None
    fingerprint: str
    workspace_snapshot: str
    reports: list[str]
    problem: str
    toolchain: dict[str, str] = field(default_factory=dict)
    opened_at: str = ""
    closed_at: str = ""
    target_mode: str = ""  # npu | cpu-sim | demo when measured
    simulated: bool = False  # timings from a CPU simulation, not an NPU
    rerun_of: int | None = None  # the inconclusive round this one measures again
    # [discipline] interleave: the frontier's runs taken alternately with this round's
    frontier_samples_us: list[float] = field(default_factory=list)
    frontier_round: int | None = None  # the round those runs are of
    # the history does not vouch for its verdict (runs/closed.log): counted apart, not a result
    unverified: bool = False
    # what median_us, samples_us and frontier_samples_us count: "us" or "cycles" (perf-sim)
    unit: str = "us"
    # [target] predict: perf_sim's cycles, their change and the medians' (against the round's base)
    predicted_cycles: int | None = None
    predicted_change: float | None = None
    measured_change: float | None = None


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ExportRow))
# columns an export written before they existed lacks (read as their default)
LATER_COLUMNS = frozenset({"unit", "predicted_cycles", "predicted_change", "measured_change"})


def export_row(record: Round, baseline_us: float | None, torch: TorchBaseline | None,
               based: Round | None = None) -> ExportRow:
    """The row of `record`; `based`, the round it was based on, is its predicted change's reference."""
    m = record.measurement
    change = predicted_change(record, based) if based is not None else None
    median = m.median_us
    torch = None if m.in_cycles else torch  # cycles never compare with torch_npu's microseconds
    verdict = record.effective_verdict()
    return ExportRow(
        round=record.number,
        status=record.status,
        phase=record.phase,
        title=record.title,
        hypothesis=record.pre_edit.hypothesis,
        bottleneck=record.pre_edit.bottleneck,
        verdict="baseline" if record.is_baseline else (verdict.value if verdict else None),
        reason=record.verdict_reason,
        build=m.build,
        correctness=m.correctness,
        stability=record.stability,
        median_us=median,
        samples_us=list(m.samples_us),
        reference_us=list(m.reference_us),
        tflops=m.tflops,
        speedup_vs_initial=(baseline_us / median) if baseline_us and median else None,
        speedup_vs_torch=(torch.avg_us / median) if torch and median else None,
        flags=list(record.flags),
        amended=bool(record.amendments),
        change_kind=record.changes.kind.value if record.changes.kind else "",
        changes=changes_summary(record),
        parameters=[{"name": p.name, "old": p.old, "new": p.new} for p in record.changes.parameters],
        snapshot=dict(record.changes.parameter_values),
        files=list(record.changes.files),
        based_on=record.changes.based_on,
        fingerprint=m.fingerprint,
        workspace_snapshot=record.snapshot,
        reports=list(m.reports),
        problem=m.problem,
        toolchain=dict(record.environment.versions) if record.environment else {},
        opened_at=record.opened_at,
        closed_at=record.closed_at,
        target_mode=m.target_mode,
        simulated=record.simulated,
        rerun_of=record.rerun_of,
        frontier_samples_us=list(m.frontier_samples_us),
        frontier_round=m.frontier_round,
        unverified=record.unverified and record.is_closed,
        unit=unit_label(m.unit),
        predicted_cycles=m.predicted_cycles,
        predicted_change=change.predicted if change else None,
        measured_change=change.measured if change else None,
    )


def export_rows(rounds: Sequence[Round], torch: TorchBaseline | None) -> list[ExportRow]:
    ordered = sorted(rounds, key=lambda r: r.number)
    base = next((r for r in ordered if r.is_baseline and r.is_closed), None)
    baseline_us = base.measurement.median_us if base else None
    by_number: dict[int | None, Round] = {r.number: r for r in ordered}
    return [export_row(r, baseline_us, torch, by_number.get(r.changes.based_on)) for r in ordered]


# ---------------------------------------------------------------- JSON


def to_json(rows: Sequence[ExportRow], operator: str = "", case: str = "",
            torch: TorchBaseline | None = None) -> str:
    """The export as JSON: its fields one to a line, the rounds one to a line (each written
    by the C encoder: an indented 1,000-round table takes several times as long)."""
    encode = _CELL_JSON.encode
    # the fields' values are plain values, lists and tables: no copies needed to encode them
    texts = [encode(dict(zip(COLUMNS, _ROW_VALUES(r), strict=True))) for r in rows]
    return json_text(texts, operator, case, torch)


def json_text(row_texts: Sequence[str], operator: str = "", case: str = "",
              torch: TorchBaseline | None = None) -> str:
    """The JSON export around its rows' texts (each a row as the C encoder writes it)."""
    encode = _CELL_JSON.encode
    head = {"schema_version": 1, "schema": JSON_SCHEMA,  # docs/json/export.schema.json's
            "operator": operator, "case": case, "torch_baseline": asdict(torch) if torch else None}
    parts = [f"  {encode(key)}: {encode(value)}" for key, value in head.items()]
    lines = ",\n    ".join(row_texts)
    parts.append(f'  "rounds": [\n    {lines}\n  ]' if row_texts else '  "rounds": []')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def read_json(text: str) -> list[ExportRow]:
    try:
        data = json.loads(text)
        return [ExportRow(**row) for row in data["rounds"]]
    except (ValueError, KeyError, TypeError) as error:
        raise InputError(f"not a pto-tui JSON export: {error}") from None


# ---------------------------------------------------------------- CSV

_HINTS = {f.name: str(f.type) for f in fields(ExportRow)}  # as written: "float | None", ...


@functools.cache  # asked for every cell: the annotations do not change
def _kind(name: str) -> str:
    """How a column is written in CSV: 'json', 'float?', 'int?', 'str?', 'bool', 'int', 'str'
    (read from the annotation's text: evaluating the hints costs a command's start-up)."""
    hint = _HINTS[name]
    if hint.startswith(("list[", "dict[")):
        return "json"
    if hint.endswith(" | None"):
        return hint.removesuffix(" | None") + "?"
    return hint


# json.dumps(v, ensure_ascii=False), made once; a record's values never refer to themselves
_CELL_JSON = json.JSONEncoder(ensure_ascii=False, check_circular=False)
_ROW_VALUES = attrgetter(*COLUMNS)  # a row's values in column order, in one call


def _converter(name: str) -> Callable[[Any], str]:
    """How the column's values are written in a CSV cell (chosen once per column)."""
    kind = _kind(name)
    if kind == "json":
        if name == "toolchain":
            return lambda value: _CELL_JSON.encode(value) if value else UNKNOWN
        return _CELL_JSON.encode
    if kind in ("float?", "float"):
        # repr is the shortest text that reads back exactly
        return lambda value: "" if value is None else repr(float(value))
    if kind == "bool":
        return lambda value: "" if value is None else ("true" if value else "false")
    return lambda value: "" if value is None else str(value)


_CONVERTERS: dict[str, Callable[[Any], str]] = {name: _converter(name) for name in COLUMNS}
_AS_IS = ("str", "str?", "int", "int?")  # kinds the csv writer writes as their converter does


def _value(name: str, text: str) -> Any:
    kind = _kind(name)
    if kind == "json":
        if name == "toolchain" and text == UNKNOWN:
            return {}
        return json.loads(text)
    if kind.endswith("?") and text == "":
        return None
    if kind.startswith("float"):
        return float(text)
    if kind.startswith("int"):
        return int(text)
    if kind == "bool":
        return text == "true"
    return text


def to_csv(rows: Sequence[ExportRow]) -> str:
    buffer = io.StringIO()
    # the csv module's default "\r\n" (RFC 4180): a cell holding a lone "\r" gets quoted
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    # the text and integer columns go to the writer as they are (it writes str(value), and
    # None as an empty cell: what their converters give); only the others are converted
    converted = [(i, _CONVERTERS[name]) for i, name in enumerate(COLUMNS) if _kind(name) not in _AS_IS]
    for row in rows:
        values = list(_ROW_VALUES(row))
        for index, convert in converted:
            values[index] = convert(values[index])
        writer.writerow(values)
    return buffer.getvalue()


def read_csv(text: str) -> list[ExportRow]:
    """Rows of a CSV export. Read the file with newline="" (as the csv module wants), so
    line breaks inside quoted cells survive exactly."""
    reader = csv.DictReader(io.StringIO(text))
    missing = set(COLUMNS) - set(reader.fieldnames or ()) - LATER_COLUMNS
    if missing:
        raise InputError(f"not a pto-tui CSV export: missing columns {', '.join(sorted(missing))}")
    rows = []
    for line, raw in enumerate(reader, start=2):
        try:
            rows.append(ExportRow(**{name: _value(name, raw[name]) for name in COLUMNS if name in raw}))
        except (ValueError, TypeError) as error:
            raise InputError(f"CSV export line {line}: {error}") from None
    return rows


# ---------------------------------------------------------------- Markdown


def _md(text: str) -> str:
    return " ".join(str(text).replace("|", "\\|").split()) or "-"


def _speed(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def _scalars(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "-"


def markdown_table(rows: Sequence[ExportRow]) -> str:
    """The round table: one line a round, what people paste into a review."""
    lines = [
        "| Iter | Phase | Hypothesis | Changes | PTO | vs initial | vs torch_npu | Correct | Result |",
        "|---:|---|---|---|---:|---:|---:|---|---|",
    ]
    for r in rows:
        result = r.verdict or r.status
        if r.unverified:
            result += " (unverified)"
        if r.flags:
            result += " (flagged)"
        if r.amended:
            result += " (amended)"
        lines.append(
            "| "
            + " | ".join(
                _md(c)
                for c in (
                    str(r.round),
                    r.phase,
                    r.title or r.hypothesis,
                    r.changes,
                    format_duration(r.median_us, r.unit if r.unit == CYCLES else MICROSECONDS),
                    _speed(r.speedup_vs_initial),
                    _speed(r.speedup_vs_torch),
                    r.correctness or "-",
                    result,
                )
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def markdown_reproducibility(rows: Sequence[ExportRow]) -> str:
    """Per round: what is needed to reproduce its numbers."""
    lines = [
        "| Iter | Kind | Parameter changes | Parameter snapshot | Files | Based on "
        "| Workload fingerprint | Workspace snapshot | Toolchain |",
        "|---:|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        params = ", ".join(f"{p['name']} {p['old']}→{p['new']}" for p in r.parameters)
        lines.append(
            "| "
            + " | ".join(
                _md(c)
                for c in (
                    str(r.round),
                    r.change_kind,
                    params,
                    _scalars(r.snapshot),
                    ", ".join(r.files),
                    round_name(r.based_on) if r.based_on is not None else "",
                    r.fingerprint,
                    r.workspace_snapshot,
                    _scalars(r.toolchain) if r.toolchain else UNKNOWN,
                )
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def to_markdown(
    rows: Sequence[ExportRow],
    operator: str = "",
    case: str = "",
    records: Sequence[Round] | None = None,
    torch: TorchBaseline | None = None,
) -> str:
    """The round table and the reproducibility table; given the records, also the torch_npu
    baseline and every field of every round (`export_details`)."""
    title = f"# Rounds of {operator}" if operator else "# Rounds"
    lines = [title, ""]
    if case:
        lines += [f"Case: {case}", ""]
    lines += [markdown_table(rows), "## Reproducibility", "", markdown_reproducibility(rows)]
    if records is not None:
        from pto_tui.core.rounds.export_details import details_markdown

        lines += [details_markdown(records, torch)]
    return "\n".join(lines)


def render_export(
    fmt: str,
    rows: Sequence[ExportRow],
    *,
    operator: str = "",
    case: str = "",
    torch: TorchBaseline | None = None,
    records: Sequence[Round] | None = None,
) -> str:
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "json":
        return to_json(rows, operator, case, torch)
    if fmt == "md":
        return to_markdown(rows, operator, case, records, torch)
    raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
