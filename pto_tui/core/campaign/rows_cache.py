"""The round table's rows as `rounds --json` prints them, kept beside the snapshot
(`.pto-tui/rounds-rows.txt`), so the whole table of ten thousand rounds is written out
line by line from one file, in constant memory, without a record decoded.

One line per round: its number, its median, whether it counts cycles, and its row's JSON
text around the three fields that depend on the rest of the campaign (the speedups
against the baseline and torch_npu, and the marks), which are put in as it is written.
Writes append the rows of the rounds they wrote; a line `#` then names the snapshot the
file is in step with (its token) and where the first, sorted part ends. A file that does
not end in the current snapshot's token is built again from the records.

A row's predicted and measured change ([target] predict) depend on the round it was based
on: a file holding a round that predicts says so in its `#` line, and the table is then
written from the records (`predicting`).

Like the snapshot, pto-tui's own cache, never the source of truth.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import DiskFullError
from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.export import ExportRow, export_row
from pto_tui.core.rounds.prediction import predicts
from pto_tui.core.rounds.records import Round, TorchBaseline

ROWS_FILE = "rounds-rows.txt"
_NAMES = [f.name for f in fields(ExportRow)]
_BEFORE = _NAMES[: _NAMES.index("speedup_vs_initial")]
_AFTER = _NAMES[_NAMES.index("speedup_vs_torch") + 1 :]
# as cli/common.py's print_json_table writes a row
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str, allow_nan=False).encode
_TAIL = 4096  # bytes read from the end for the last line


def row_line(record: Round) -> str:
    """The line of a round (without its newline)."""
    row = export_row(record, None, None)
    values = {n: getattr(row, n) for n in _NAMES}
    prefix = _ENCODE({n: values[n] for n in _BEFORE})[:-1]
    middle = _ENCODE({n: values[n] for n in _AFTER})[1:-1]
    median = "" if row.median_us is None else repr(row.median_us)
    return "\t".join((str(record.number), median, "1" if record.measurement.unit == CYCLES else "",
                      prefix, middle))


def row_text(line: str, baseline_us: float | None, torch: TorchBaseline | None,
             tampered: dict[int, list[str]] | None) -> str:
    """The row's JSON text from its line, with the campaign's speedups and marks (without
    the marks when `tampered` is None: the export's row, which has no such column)."""
    number, median_text, cycles, prefix, middle = line.rstrip("\n").split("\t")
    median = float(median_text) if median_text else None
    initial = baseline_us / median if baseline_us and median else None
    against = torch.avg_us / median if torch and median and not cycles else None
    text = (f"{prefix}, \"speedup_vs_initial\": {_number(initial)}, \"speedup_vs_torch\": "
            f"{_number(against)}, {middle}")
    if tampered is None:
        return text + "}"
    marks = tampered.get(int(number))
    return text + f", \"tampered\": {_ENCODE(marks) if marks else '[]'}}}"


def export_rows_of(lines: Iterable[str], baseline_us: float | None,
                   torch: TorchBaseline | None) -> list[ExportRow]:
    """The export's rows from the lines (as export_rows gives them from the records): a
    CSV or JSON export of ten thousand rounds decodes no record."""
    return [ExportRow(**json.loads(row_text(line, baseline_us, torch, None))) for line in lines]


def _number(value: float | None) -> str:
    """As _ENCODE writes a speedup (10,000 rows: the encoder's call is most of the time)."""
    if value is None:
        return "null"
    return repr(value) if math.isfinite(value) else _ENCODE(value)  # refuses NaN and infinity


def _last_line(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - _TAIL))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return tail.rstrip("\n").rsplit("\n", 1)[-1]


def _checkpoint(path: Path) -> dict[str, Any] | None:
    line = _last_line(path)
    if not line.startswith("#\t"):
        return None
    try:
        data = json.loads(line[2:])
        return {"token": str(data["token"]), "base_end": int(data["base_end"]),
                "predicts": bool(data.get("predicts", False))}
    except (ValueError, KeyError, TypeError):
        return None


def in_step(state_dir: Path, token: str) -> bool:
    found = _checkpoint(state_dir / ROWS_FILE)
    return found is not None and found["token"] == token


def predicting(state_dir: Path) -> bool:
    """A round in the file predicts: its rows are not written from the file."""
    found = _checkpoint(state_dir / ROWS_FILE)
    return found is not None and found["predicts"]


def build(state_dir: Path, records: Iterable[Round], token: str) -> None:
    """The file made again, from every round in order (a failure only costs speed)."""
    records = list(records)
    text = "".join(row_line(r) + "\n" for r in records)
    checkpoint = json.dumps({"token": token, "base_end": len(text.encode("utf-8")),
                             "predicts": any(predicts(r.measurement) for r in records)})
    with contextlib.suppress(OSError, DiskFullError):  # a full disk too: only speed lost
        atomic_write_text(state_dir / ROWS_FILE, text + f"#\t{checkpoint}\n")


def append(state_dir: Path, records: Iterable[Round], before: str, token: str) -> None:
    """The rows of the rounds a write changed, when the file is in step with the snapshot
    before it (`before`); it is then in step with `token`."""
    path = state_dir / ROWS_FILE
    found = _checkpoint(path)
    if found is None or found["token"] != before:
        return
    records = list(records)
    checkpoint = json.dumps({"token": token, "base_end": found["base_end"],
                             "predicts": found["predicts"] or any(predicts(r.measurement) for r in records)})
    text = "".join(row_line(r) + "\n" for r in records) + f"#\t{checkpoint}\n"
    try:
        with path.open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError:
        pass


def lines(state_dir: Path) -> Iterator[str]:
    """The rounds' lines in order, the later rows of a round in place of its first: the
    sorted part read a line at a time, the appended rows (a few) held."""
    path = state_dir / ROWS_FILE
    found = _checkpoint(path)
    if found is None:
        return
    base_end = found["base_end"]
    with path.open("rb") as handle:
        handle.seek(base_end)
        later = {int(raw.split(b"\t", 1)[0]): raw.decode("utf-8") for raw in handle
                 if not raw.startswith(b"#\t")}
        handle.seek(0)
        pending = sorted(later)
        at = consumed = 0
        for raw in handle:
            consumed += len(raw)
            if consumed > base_end:
                break
            number = int(raw.split(b"\t", 1)[0])
            while at < len(pending) and pending[at] < number:
                yield later[pending[at]]
                at += 1
            if at < len(pending) and pending[at] == number:
                at += 1
                yield later[number]
            else:
                yield raw.decode("utf-8")
        for number in pending[at:]:
            yield later[number]
