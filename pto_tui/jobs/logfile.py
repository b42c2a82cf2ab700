"""The per-job log file: one record per line, tagged with its stream and time-stamped.

Format of a record: b"<unix time with 6 decimals> <stream> <raw bytes>\\n", where the
raw bytes are the line exactly as the job wrote it, minus its b"\\n". Bytes are kept
raw (invalid UTF-8 included); readers decode with errors="replace".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from pto_tui.jobs.model import LogLine, Stream

_STREAMS: tuple[Stream, ...] = ("stdout", "stderr", "meta")
_STREAM_NAMES: dict[bytes, Stream] = {name.encode(): name for name in _STREAMS}


class LineSplitter:
    """Turns chunks of bytes into complete lines; keeps the unfinished tail for later."""

    def __init__(self) -> None:
        self._tail = b""

    def feed_block(self, chunk: bytes) -> bytes:
        """The lines that chunk completes as one block, each ending in b"\\n" (b"" when none
        did). One block per chunk, never a bytes object per line: output at 1M lines is
        written and decoded in a handful of calls per 64 KiB."""
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            self._tail += chunk
            return b""
        block = self._tail + chunk[:cut] if self._tail else chunk[:cut]
        self._tail = chunk[cut:]
        return block

    def flush(self) -> list[bytes]:
        """The last line when the stream ended without a newline."""
        tail, self._tail = self._tail, b""
        return [tail] if tail else []


def lines_block(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""


def decode_line(raw: bytes) -> str:
    # a PTY ends lines with \r\n; the \r means nothing to a reader of lines
    return raw.removesuffix(b"\r").decode("utf-8", errors="replace")


def decode_block(block: bytes) -> list[str]:
    """decode_line of every line of a block, in one decode: b"\\n" is never part of a
    UTF-8 sequence, so decoding the block and splitting it gives the same text."""
    if not block:
        return []
    text = block[:-1].decode("utf-8", errors="replace")
    lines = text.split("\n")
    if "\r" in text:
        lines = [line.removesuffix("\r") for line in lines]
    return lines


class LogWriter:
    """Appends records to a job's log file; one write (and flush) per block of lines, so a
    line a subscriber has been given is already in the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: BinaryIO | None = path.open("ab")

    def write(self, stream: Stream, lines: list[bytes], when: float) -> None:
        self.write_block(stream, lines_block(lines), when)

    def write_block(self, stream: Stream, block: bytes, when: float) -> None:
        if not block or self._file is None:
            return
        prefix = b"%.6f %s " % (when, stream.encode())
        self._file.write(prefix + block[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _parse(record: bytes) -> tuple[float, Stream, bytes] | None:
    parts = record.split(b" ", 2)
    if len(parts) < 2:
        return None
    try:
        when = float(parts[0])
    except ValueError:
        return None
    stream = _STREAM_NAMES.get(parts[1])
    if stream is None:
        return None
    return when, stream, parts[2] if len(parts) == 3 else b""


def read_log_raw(path: Path) -> Iterator[tuple[float, Stream, bytes]]:
    """(time, stream, raw bytes) of every complete record; a torn last record is skipped."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        for record in handle:
            if not record.endswith(b"\n"):
                break  # the writer died mid-record
            parsed = _parse(record[:-1])
            if parsed is not None:
                yield parsed


def read_log(path: Path) -> Iterator[LogLine]:
    """The log file as LogLines (decoded with replacement)."""
    for when, stream, raw in read_log_raw(path):
        yield LogLine(stream, decode_line(raw), when)


def repair_and_count(path: Path) -> dict[Stream, int]:
    """Cut a torn last record, then count the bytes each stream has delivered so far.

    A re-attached job resumes its remote output from these offsets, so the log continues
    exactly where it stopped: no line lost, none repeated.
    """
    counts: dict[Stream, int] = {"stdout": 0, "stderr": 0, "meta": 0}
    if not path.exists():
        return counts
    good = 0
    with path.open("rb") as handle:
        for record in handle:
            if not record.endswith(b"\n"):
                break
            good += len(record)
            parsed = _parse(record[:-1])
            if parsed is not None:
                counts[parsed[1]] += len(parsed[2]) + 1
    if good != path.stat().st_size:
        with path.open("r+b") as handle:
            handle.truncate(good)
    return counts
