"""Streaming many lines: one block per read chunk (split, logged and decoded at once) must
give exactly what one line at a time gave, and a subscriber sees every line, in order,
only once it is in the log file."""

from __future__ import annotations

from pathlib import Path

from pto_tui.jobs.logfile import (
    LineSplitter,
    LogWriter,
    decode_block,
    decode_line,
    read_log_raw,
)
from pto_tui.jobs.model import JobSpec, JobState, LogLine
from pto_tui.jobs.output import Batch
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh import LIVE_WINDOW, SshExecutor, SshProcess
from pto_tui.jobs.ssh_pool import BULK_WINDOW
from tests.jobs.conftest import Place
from tests.plugins.sshd import SshTestTarget

# lines that a per-block decode could get wrong: invalid and cut UTF-8 at a line's end,
# before \r\n and at the very end, a \r inside a line, empty lines, multi-byte text
TRICKY = [b"plain", b"cut \xe2\x82", b"pty \xe2\x82\r", b"a\rb", b"", b"\xff\xfe",
          "caf\u00e9 \u2713".encode(), b"\r", b"\xe2\x82\xac end", b"tail \xf0\x9f"]


def block_lines(block: bytes) -> list[bytes]:
    """The lines of a block (each ended by b"\\n"), without their b"\\n": what the
    decode and the log writer must agree with."""
    return block[:-1].split(b"\n") if block else []


def test_block_decode_is_line_by_line_decode() -> None:
    block = b"\n".join(TRICKY) + b"\n"
    assert block_lines(block) == TRICKY
    assert decode_block(block) == [decode_line(raw) for raw in TRICKY]
    assert decode_block(b"") == [] and block_lines(b"") == []


def test_feed_block_keeps_the_tail_across_chunks() -> None:
    data = b"\n".join(TRICKY) + b"\nunfinished"
    for size in (1, 2, 3, 7, 64):
        splitter = LineSplitter()
        got: list[bytes] = []
        for at in range(0, len(data), size):
            block = splitter.feed_block(data[at:at + size])
            assert block == b"" or block.endswith(b"\n")
            got += block_lines(block)
        assert got == TRICKY, size
        assert splitter.flush() == [b"unfinished"]


def test_a_block_is_written_as_one_record_per_line(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "output.log")
    writer.write_block("stdout", b"\n".join(TRICKY) + b"\n", 12.5)
    writer.write("stderr", [b"e1", b"e2 \r"], 13.0)
    writer.close()
    expected = b"".join(b"12.500000 stdout " + raw + b"\n" for raw in TRICKY)
    expected += b"13.000000 stderr e1\n13.000000 stderr e2 \r\n"
    assert (tmp_path / "output.log").read_bytes() == expected


def test_batch_lines_are_log_lines() -> None:
    lines = list(Batch("stderr", ["a", "b"], 3.0).lines())
    assert lines == [LogLine("stderr", "a", 3.0), LogLine("stderr", "b", 3.0)]
    assert all(type(line) is LogLine for line in lines)
    assert lines[1].stream == "stderr" and lines[1].text == "b" and lines[1].time == 3.0


async def test_a_subscriber_gets_every_line_once_it_is_logged(
    place: Place, runner: JobRunner
) -> None:
    count = 200_000
    # both streams, a \r\n line and an invalid byte among many lines of ~80 bytes
    command = (f"seq -f '%07g {'x' * 72}' 1 {count}; printf 'pty\\r\\nbad\\xff\\n'; "
               "seq 1 3 >&2")
    job = await runner.submit(place.target, JobSpec(command))
    log = job.job_dir / "output.log"
    seen: list[LogLine] = []
    async for line in job.subscribe():
        seen.append(line)
        if len(seen) % 20_000 == 0:  # what a subscriber was given is in the file already
            assert log.read_bytes().endswith(b"\n")
            logged = sum(1 for _t, stream, _raw in read_log_raw(log) if stream == line.stream)
            assert logged >= sum(1 for s in seen if s.stream == line.stream)
    assert (await job.wait()).state is JobState.SUCCEEDED
    out = [line.text for line in seen if line.stream == "stdout"]
    assert out[:count] == [f"{i:07d} {'x' * 72}" for i in range(1, count + 1)]
    assert out[count:] == ["pty", "bad\ufffd"]
    assert [line.text for line in seen if line.stream == "stderr"] == ["1", "2", "3"]
    raw = [data for _t, stream, data in read_log_raw(log) if stream == "stdout"]
    assert raw[count:] == [b"pty\r", b"bad\xff"] and len(raw) == count + 2


async def test_batches_give_the_same_lines_a_block_at_a_time(
    place: Place, runner: JobRunner
) -> None:
    count = 100_000
    command = f"seq 1 {count}; echo oops >&2; seq 1 2"
    job = await runner.submit(place.target, JobSpec(command))
    blocks = [(batch.stream, list(batch.texts)) async for batch in job.subscribe().batches()]
    assert (await job.wait()).state is JobState.SUCCEEDED
    assert len(blocks) < count / 10  # many lines to a block, not one
    out = [text for stream, texts in blocks if stream == "stdout" for text in texts]
    assert out == [str(i) for i in range(1, count + 1)] + ["1", "2"]
    assert [texts for stream, texts in blocks if stream == "stderr"] == [["oops"]]
    ended = [texts for stream, texts in blocks if stream == "meta"]
    assert ended, "the job's own lines (how it ended) come as blocks too"


async def test_live_jobs_open_their_channel_with_the_live_window(
    ssh_target: SshTestTarget, runner: JobRunner
) -> None:
    executor = SshExecutor(ssh_target.target, runner.pool)
    for line_buffered, window in ((True, LIVE_WINDOW), (False, BULK_WINDOW)):
        process = await executor.start("echo hi", line_buffered=line_buffered)
        assert isinstance(process, SshProcess)
        try:
            assert process.proc.channel.get_recv_window() == window
            assert await process.read("stdout") == b"hi\n"
        finally:
            process.close()
    assert LIVE_WINDOW < BULK_WINDOW
