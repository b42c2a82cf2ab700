"""Malformed input through the real CLI entry: one error line (a hint may follow), a
non-zero exit, never a traceback; a reader closing stdout early ends it quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.core.project.layout import PROJECT_FILE
from tests.core.helpers import FIXTURES, cli
from tests.malformed import MINIMUM
from tests.malformed.project_inputs import Mutation, schema_mutations

REPO = Path(__file__).resolve().parents[2]
BAD_NAMES = ("a" * 300, "..", "a/b", "a b", "-x", ".hidden", "é", "a\nb", "a" * 101)
BAD_SPECS = ("zz", "0,0,0", "-1,128,1024", "128,128", "1,2,3,4,5,6", "128,128,1024\n", "nan,1,1", "1,,1")
BAD_DIMENSIONS = ("x", "-1", "0", "nan", "inf", "true", "2.5", "99999999999")


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.count = 0

    def refused(self, *args: object) -> None:
        self.capsys.readouterr()
        code = cli(*(str(a) for a in args))
        err = self.capsys.readouterr().err
        lines = err.splitlines()
        assert code in (1, 2), (args, code, err)
        assert lines and lines[0].startswith("pto-tui: error: "), (args, err)
        assert all(not line.startswith("Traceback") for line in lines), err
        self.count += 1


def test_new_refuses_bad_names_cases_shapes_and_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Cli(capsys)
    source = FIXTURES / "fa_tilelib"
    new = ("new", source, "--projects-root", tmp_path / "projects")
    for name in BAD_NAMES:
        run.refused(*new, f"--name={name}")
    for spec in BAD_SPECS:
        run.refused(*new, f"--case-spec={spec}")
    for value in BAD_DIMENSIONS:
        run.refused(*new, "--shape", f"S1={value}")
    run.refused(*new, "--case", "")
    run.refused(*new, "--case-spec", "")
    for command in ("build=", "benchmark=", "build=   "):
        run.refused(*new, f"--command={command}")
    assert not (tmp_path / "projects").exists() or not any((tmp_path / "projects").iterdir())
    assert run.count >= MINIMUM["cli new"], run.count


def test_reading_a_malformed_project_is_one_error_line(
    started_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Cli(capsys)
    path = started_project / PROJECT_FILE
    good = path.read_text()
    mutations = list(schema_mutations())[::6] + [Mutation("state.last_round", "9223372036854775807")]
    try:
        for mutation in mutations:
            path.write_text(mutation.apply(good))
            for command in (("status",), ("rounds", "--json")):
                run.refused("--project", started_project, *command)
    finally:
        path.write_text(good)
    run.refused("--project", started_project, "show", "999")
    assert run.count >= MINIMUM["cli reading"], run.count


@pytest.mark.parametrize(
    "command", [("show", "0"), ("rounds", "--json"), ("status", "--json"), ("config", "docs")]
)
def test_a_closed_pipe_ends_quietly(started_project: Path, command: tuple[str, ...]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    reader = subprocess.Popen(["sh", "-c", "exec 0<&-; sleep 2"], stdin=subprocess.PIPE)
    assert reader.stdin is not None
    writer = subprocess.run(
        [sys.executable, "-m", "pto_tui.cli.main", "--project", str(started_project), *command],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    reader.stdin.close()
    reader.wait()
    assert "Traceback" not in writer.stderr and "BrokenPipe" not in writer.stderr, writer.stderr
    assert writer.returncode != 0 or writer.stderr == ""
