"""A job's output: each line goes to its log file and to live subscribers.

Lines are split from the raw chunks of the job's streams; the bytes read per stream
are counted so that a detached job's follow can resume without a lost or repeated line.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from pto_tui.jobs.executor import OutStream, Process
from pto_tui.jobs.logfile import LineSplitter, LogWriter, decode_block, lines_block
from pto_tui.jobs.model import LogLine, Stream


@dataclass(frozen=True)
class Batch:
    """The lines of one block for the subscribers, made into LogLines only as each one
    takes them. Made all at once, the LogLines of up to 64 waiting batches outlived the
    garbage collector's young generation, and its collections then cost as much as making
    the lines (1M lines to a subscriber: 1.0 s of CPU, against 0.5 s made as taken)."""

    stream: Stream
    texts: list[str]
    when: float

    def lines(self) -> Iterator[LogLine]:
        # what LogLine._make does, without a Python call per line (half the cost)
        fields = zip(repeat(self.stream), self.texts, repeat(self.when))
        return map(tuple.__new__, repeat(LogLine), fields)


class Subscription:
    """Live lines of one job. Bounded: a slow reader slows the job (back-pressure)."""

    def __init__(self, subscribers: set[Subscription], max_batches: int) -> None:
        self._subscribers = subscribers  # the set this subscription is registered in
        self._queue: asyncio.Queue[Batch | None] = asyncio.Queue(max_batches)
        self._lines: Iterator[LogLine] = iter(())
        self._ended = False

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> LogLine:
        line = next(self._lines, None)
        while line is None:
            if self._ended and self._queue.empty():
                raise StopAsyncIteration
            batch = await self._queue.get()
            if batch is None:
                self._ended = True
                raise StopAsyncIteration
            self._lines = batch.lines()
            line = next(self._lines, None)
        return line

    async def batches(self) -> AsyncIterator[Batch]:
        """The same lines a block at a time (one read's worth, up to 64 KiB), for a reader
        that takes many lines at once: no Python work per line. Read a subscription one way
        or the other, not both."""
        while not (self._ended and self._queue.empty()):
            batch = await self._queue.get()
            if batch is None:
                self._ended = True
                return
            yield batch

    async def put(self, batch: Batch) -> None:
        await self._queue.put(batch)

    def end(self) -> None:
        try:
            self._queue.put_nowait(None)
        except asyncio.QueueFull:
            self._ended = True  # the reader stops once it has drained the queue

    def close(self) -> None:
        """Stop receiving lines; never blocks the job again."""
        self._ended = True
        self._subscribers.discard(self)
        while not self._queue.empty():
            self._queue.get_nowait()

    async def aclose(self) -> None:
        self.close()


class JobOutput:
    """The log file, the subscribers and the line splitting of one job."""

    def __init__(self, log_path: Path, offsets: Mapping[OutStream, int] | None = None) -> None:
        self._log = LogWriter(log_path)
        self._subscribers: set[Subscription] = set()
        self._ended = False
        self.offsets: dict[OutStream, int] = {"stdout": 0, "stderr": 0}
        self.offsets.update(offsets or {})
        self._splitters: dict[OutStream, LineSplitter] = {
            "stdout": LineSplitter(),
            "stderr": LineSplitter(),
        }

    def subscribe(self, max_batches: int) -> Subscription:
        subscription = Subscription(self._subscribers, max_batches)
        if self._ended:
            subscription.end()
        else:
            self._subscribers.add(subscription)
        return subscription

    async def emit(self, stream: Stream, lines: list[bytes], when: float) -> None:
        await self.emit_block(stream, lines_block(lines), when)

    async def emit_block(self, stream: Stream, block: bytes, when: float) -> None:
        """Lines (each ending in b"\\n") to the log file first, then to the subscribers."""
        self._log.write_block(stream, block, when)
        if self._subscribers and block:
            batch = Batch(stream, decode_block(block), when)
            for subscription in list(self._subscribers):
                await subscription.put(batch)

    async def meta(self, text: str) -> None:
        """A line of our own about the job (its progress, how it ended)."""
        await self.emit("meta", [text.encode()], time.time())

    async def pump(self, process: Process, stream: OutStream) -> None:
        """Read one stream of a process until it ends."""
        splitter = self._splitters[stream]
        while True:
            chunk = await process.read(stream)
            if not chunk:
                return
            self.offsets[stream] += len(chunk)
            block = splitter.feed_block(chunk)
            if block:
                await self.emit_block(stream, block, time.time())

    async def flush_tails(self) -> None:
        """The last lines of streams that ended without a newline."""
        for stream, splitter in self._splitters.items():
            tail = splitter.flush()
            if tail:
                await self.emit(stream, tail, time.time())

    def end(self) -> None:
        """No more lines: subscribers stop, the log file is closed."""
        self._ended = True
        for subscription in list(self._subscribers):
            subscription.end()
        self._subscribers.clear()
        self._log.close()
