"""Lines of a live log: all on disk, an index of offsets, the newest few decoded in memory.

No Textual here: the log pane renders from this store only the lines it shows, so a
million-line build log costs a file, 9 bytes a line of index, and a bounded tail.
"""

from __future__ import annotations

import re
import tempfile
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict, deque
from itertools import accumulate
from pathlib import Path

STDOUT, STDERR, META = 0, 1, 2
STREAM_CODES = {"stdout": STDOUT, "stderr": STDERR, "meta": META}
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# matched on lower-cased text; a batch without any of the words skips the regex
ERROR_RE = re.compile(r"\b(error|failed|failure|fatal|traceback|test failed)\b")
ERROR_WORDS = ("error", "fail", "fatal", "traceback")
MAX_WIDTH = 2000  # horizontal scrolling stops here; longer lines are still searchable


def clean(text: str) -> str:
    """What a terminal can show: no escape sequences, tabs expanded."""
    if "\x1b" in text:
        text = ANSI_RE.sub("", text)
    if "\t" in text:
        text = text.expandtabs(4)
    return text


class LineStore:
    def __init__(self, memory_lines: int = 5000, directory: Path | None = None) -> None:
        # the file is private to this view and removed when closed
        self._file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 - lives with the view
        self._end = 0
        self.offsets = array("q")
        self.streams = bytearray()
        self.errors = array("l")  # indices of stderr/error lines, ascending
        self.tail: deque[str] = deque(maxlen=memory_lines)
        self._cache: OrderedDict[int, str] = OrderedDict()
        self.width = 0

    def __len__(self) -> int:
        return len(self.offsets)

    def close(self) -> None:
        self._file.close()

    def append(self, batch: list[tuple[str, str]]) -> list[int]:
        """Store a batch with one write; returns the indices of the new error lines.

        The work is done on the batch joined into one string (a million lines a
        few times a second): per-line Python only where a line needs it.
        """
        if not batch:
            return []
        start = len(self.offsets)
        texts = [text for _stream, text in batch]
        joined = "\n".join(texts)
        if "\x1b" in joined or "\t" in joined:
            texts = [clean(text) for text in texts]
            joined = "\n".join(texts)
        data = joined.encode("utf-8", errors="replace") + b"\n"
        if len(data) == len(joined) + 1:  # all ASCII: a character is a byte
            sizes = [len(text) + 1 for text in texts]
        else:
            sizes = [len(text.encode("utf-8", errors="replace")) + 1 for text in texts]
        starts = list(accumulate(sizes, initial=self._end))
        self._end = starts.pop()
        self.offsets.extend(starts)
        self._file.seek(starts[0])
        self._file.write(data)
        new_errors = self._errors(batch, texts, joined, start)
        self.errors.extend(new_errors)
        self.tail.extend(texts)
        longest = max(map(len, texts))
        if longest > self.width:
            self.width = min(MAX_WIDTH, longest)
        return new_errors

    def _errors(self, batch: list[tuple[str, str]], texts: list[str], joined: str,
                start: int) -> list[int]:
        """Record each line's stream; the indices of stderr lines and error lines."""
        streams = [stream for stream, _text in batch]
        if streams.count("stdout") == len(streams):
            self.streams.extend(bytes(len(streams)))  # STDOUT is 0
            found: set[int] = set()
        else:
            codes = bytes(STREAM_CODES.get(stream, STDOUT) for stream in streams)
            self.streams.extend(codes)
            found = {i for i, code in enumerate(codes) if code == STDERR}
        lowered = joined.lower()
        if len(lowered) != len(joined):  # lower-casing changed a length: line by line
            found.update(i for i, text in enumerate(texts) if ERROR_RE.search(text.lower()))
        elif any(word in lowered for word in ERROR_WORDS):
            line_starts = list(accumulate((len(text) + 1 for text in texts), initial=0))
            found.update(bisect_right(line_starts, match.start()) - 1
                         for match in ERROR_RE.finditer(lowered))
        return [start + i for i in sorted(found)]

    def line(self, index: int) -> str:
        """Text of a line: from the memory tail, else read back from the file."""
        total = len(self.offsets)
        first_in_memory = total - len(self.tail)
        if index >= first_in_memory:
            return self.tail[index - first_in_memory]
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        self._file.flush()
        self._file.seek(self.offsets[index])
        text = self._file.readline().rstrip(b"\n").decode("utf-8", errors="replace")
        self._file.seek(self._end)
        self._cache[index] = text
        if len(self._cache) > 4000:
            self._cache.popitem(last=False)
        return text

    def stream(self, index: int) -> int:
        return self.streams[index]

    def find_all(self, needle: str) -> list[int]:
        """Every line containing needle (case-insensitive), scanning the file (blocking)."""
        if not needle:
            return []
        target = needle.lower().encode("utf-8")
        self._file.flush()
        self._file.seek(0)
        found = []
        for index, raw in enumerate(self._file):
            if target in raw.lower():
                found.append(index)
        self._file.seek(self._end)
        return found


def next_index(indices: array | list[int], current: int, forward: bool) -> int | None:
    """The next (or previous) index after current, wrapping around."""
    if not indices:
        return None
    if forward:
        pos = bisect_right(indices, current)
        return indices[pos] if pos < len(indices) else indices[0]
    pos = bisect_left(indices, current) - 1
    return indices[pos] if pos >= 0 else indices[-1]
