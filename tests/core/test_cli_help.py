"""The CLI teaches: every sub-command and option has help text, the top-level help lists
the loop with `round run`, the exit codes and examples, a misspelt sub-command or option
gets the closest one, and the documents the help cites ship with the package."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from pto_tui.cli.docs_cmd import TOPICS, doc_path
from pto_tui.cli.main import build_parser
from tests.core.helpers import cli


def parsers(parser: argparse.ArgumentParser, path: str = "pto-tui"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                assert helps.get(name), f"{path} {name}: no help line"
                yield from parsers(sub, f"{path} {name}")


def test_every_option_and_argument_has_help() -> None:
    missing = [
        f"{path}: {'/'.join(action.option_strings) or action.dest}"
        for path, parser in parsers(build_parser())
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
        and (not action.help or action.help == argparse.SUPPRESS)
    ]
    assert not missing, "options without help:\n" + "\n".join(missing)


def test_top_level_help_has_the_loop_exit_codes_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli("--help")
    assert done.value.code == 0
    text = capsys.readouterr().out
    loop = text.split("The loop, in order:", 1)[1].split("Examples:", 1)[0]
    steps = ["scan", "new", "env", "baseline", "round start", "round run", "round close", "chart"]
    positions = [loop.index(step) for step in steps]
    assert positions == sorted(positions), loop
    assert "pto-tui demo --run" in text
    assert re.search(r"Exit codes: 0 .*1 .*2 ", text.replace("\n", " "))


@pytest.mark.parametrize(("argv", "suggestion"), [
    (["stauts"], "did you mean: status?"),
    (["round", "strat"], "did you mean: start?"),
    (["rounds", "--jsno"], "did you mean: --json?"),
    (["round", "start", "--titel", "x"], "did you mean: --title?"),
])
def test_a_misspelt_word_gets_the_closest(argv: list[str], suggestion: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pto_tui.cli.main", *argv],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert suggestion in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_nothing_close_suggests_nothing() -> None:
    done = subprocess.run([sys.executable, "-m", "pto_tui.cli.main", "xyzzyq"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "did you mean" not in done.stderr


def test_the_documents_ship_inside_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    for name in TOPICS:
        path = doc_path(name)
        assert "pto_tui" in path.parts and path.is_file(), path
    assert cli("docs") == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in TOPICS)
    assert cli("docs", "workflow") == 0
    assert capsys.readouterr().out.startswith("# ")


def test_help_cites_no_markdown_file_outside_the_package() -> None:
    cited: set[str] = set()
    for _path, parser in parsers(build_parser()):
        texts = [parser.description or ""] + [a.help or "" for a in parser._actions]
        for text in texts:
            cited.update(re.findall(r"\b(?:docs/)?([A-Za-z-]+)\.md\b", text.replace("\n", " ")))
    # the records a project holds, and the shipped documents
    known = {"ITERATIONS", "TASK_REQUIREMENTS", "notes", "REPORT", "SKILL", *TOPICS}
    assert cited <= known, cited - known


def test_hints_name_pto_tui_as_it_was_run(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from pto_tui.cli.common import invoked_as

    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    program = bin_dir / "pto-tui"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program), "demo"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # not on PATH: the path as typed
    assert invoked_as() == str(program)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin")  # on PATH: the plain name
    assert invoked_as() == "pto-tui"
    monkeypatch.setattr(sys, "argv", ["-m"])  # python -m pto_tui...
    assert invoked_as() == "pto-tui"
