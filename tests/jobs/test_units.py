"""Small pure pieces: line splitting, the log format, records, shell text."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded, iter_workspace_files
from pto_tui.jobs.logfile import LineSplitter, LogWriter, read_log, repair_and_count
from pto_tui.jobs.model import JobRecord, JobSpec, JobState, load_record, save_record
from pto_tui.jobs.shell import inner_script, quote_path
from pto_tui.jobs.sync import scan_local


def test_line_splitter_keeps_partial_lines() -> None:
    splitter = LineSplitter()
    assert splitter.feed_block(b"ab") == b""
    block = splitter.feed_block(b"c\nde\n\nf")
    assert block == b"abc\nde\n\n"  # one block for the chunk, not a bytes object a line
    assert splitter.flush() == [b"f"]
    assert splitter.flush() == []


def test_log_round_trip_and_torn_record(tmp_path: Path) -> None:
    log = tmp_path / "output.log"
    writer = LogWriter(log)
    writer.write("stdout", [b"one", b"tw\xffo"], 100.5)
    writer.write("stderr", [b"err \r"], 101.0)
    writer.close()
    with log.open("ab") as handle:
        handle.write(b"102.000000 stdout torn-without-newl")
    lines = list(read_log(log))
    assert [(x.stream, x.text, x.time) for x in lines] == [
        ("stdout", "one", 100.5), ("stdout", "tw\ufffdo", 100.5), ("stderr", "err ", 101.0)
    ]
    counts = repair_and_count(log)
    assert counts["stdout"] == len(b"one\n") + len(b"tw\xffo\n")
    assert counts["stderr"] == len(b"err \r\n")
    assert log.read_bytes().endswith(b"err \r\n")  # the torn record was cut


def test_record_json_round_trip() -> None:
    record = JobRecord(id="x", command="c", target="local", state=JobState.LOST,
                       env={"A": "1"}, fetched=("a",))
    again = JobRecord.from_json(record.to_json())
    assert again == record
    assert again.evolve(state=JobState.FAILED).state is JobState.FAILED


def test_a_record_keeps_the_round_its_job_ran_for(tmp_path: Path) -> None:
    record = JobRecord(id="x", command="c", target="local", name="iter-003 build", round_number=3)
    save_record(tmp_path / "x", record)
    assert load_record(tmp_path / "x") == record
    # a job of no round, whatever its name says
    other = JobRecord(id="y", command="c", target="local", name="iter-004 by hand")
    assert JobRecord.from_json(other.to_json()).round_number is None


def test_a_record_from_before_round_number_is_matched_by_its_name() -> None:
    def legacy(name: str) -> int | None:
        data = JobRecord(id="x", command="c", target="local", name=name).to_json()
        del data["round_number"]  # as an older pto-tui wrote it
        return JobRecord.from_json(data).round_number

    assert legacy("iter-003 benchmark 2/7") == 3
    assert legacy("iter-000 environment probe: python") == 0
    assert legacy("torch_npu baseline") == 0  # the reference before it was named after iter-000
    assert legacy("iter-1000 build") == 1000
    for name in ("command", "connection test", "iter-003", "iter-3 build", "iter-abc build", ""):
        assert legacy(name) is None, name


def test_inner_script_quotes_everything() -> None:
    target = Target(kind=TargetKind.SSH, host="h", work_dir="~/w d", env_setup="export S=1")
    spec = JobSpec('printf "%s|%s|%s\\n" "$X" "$S" "$PWD"', env={"X": "it's $(rm -rf /)"})
    script = inner_script(target, spec, "/tmp")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == "it's $(rm -rf /)|1|/tmp\n"
    assert quote_path("~/w d") == "\"$HOME\"/'w d'"


def test_sync_walk_agrees_with_core_workspace_files(tmp_path: Path) -> None:
    patterns = (*DEFAULT_EXCLUDES, "docs/*.tmp", "[ab]*.log", "*.keep", "!x.keep")
    paths = [
        "a.py", "build/x.o", "src/build/y", "build-arm/z", "x/__pycache__/m.pyc", "m.pyc",
        "docs/a.tmp", "docs/sub/a.tmp", "src/docs/a.tmp", "a1.log", "c.log", "dir/b.log",
        ".git/HEAD", "kernel/.gitignore", "lib.so", "lib.so.1", "pkg.egg-info/PKG-INFO",
        "node_modules", "x/.venv/bin/python", "plain/file.cpp", "y.keep", "d/x.keep",
    ]
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(path)
    kept = set(iter_workspace_files(tmp_path, patterns))
    assert set(scan_local(tmp_path, patterns)) == kept
    assert kept == {p for p in paths if not is_excluded(p, patterns)}
    assert kept == {
        "a.py", "docs/sub/a.tmp", "src/docs/a.tmp", "c.log", "kernel/.gitignore", "lib.so.1",
        "plain/file.cpp", "d/x.keep",
    }
