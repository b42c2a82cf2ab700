"""Start-up: `--help` and `--version` load no sub-command's dependencies, a read command
loads neither SSH, the terminal application nor the charts, and the command table lists
exactly what the modules register."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.cli.commands import COMMANDS, HELP
from pto_tui.cli.main import build_parser
from tests.core.helpers import make_project

HEAVY = ("asyncssh", "textual", "matplotlib", "numpy", "rich", "tomlkit")


def _loaded(*argv: str, cwd: Path | None = None) -> set[str]:
    """The modules a real `pto-tui ARGV` process has imported when it exits."""
    probe = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
        "from pto_tui.cli.main import main\n"
        f"sys.exit(main({list(argv)!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, timeout=60)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [("--help",), ("--version",)])
def test_help_and_version_load_no_sub_command(argv: tuple[str, ...]) -> None:
    loaded = _loaded(*argv)
    modules = {c.module for c in COMMANDS}
    assert not loaded & modules
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not {m for m in loaded if m.startswith("pto_tui.core.campaign")}


def test_a_read_command_loads_neither_ssh_nor_the_application_nor_charts(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    loaded = _loaded("--project", str(root), "status", "--json")
    assert "pto_tui.cli.reading_cmds" in loaded and "pto_tui.cli.round_cmds" not in loaded
    for heavy in ("asyncssh", "textual", "matplotlib"):
        assert heavy not in loaded


def test_the_table_lists_what_the_modules_register_with_their_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    helps = {action.dest: action.help for action in sub._choices_actions}  # type: ignore[attr-defined]
    assert sorted(sub.choices) == sorted(c.name for c in COMMANDS)  # type: ignore[arg-type]
    assert helps == HELP


# what only a write, a status --json or a new project needs: a read command that loads
# none of these starts faster (each costs a few milliseconds, as much as Python's own start)
WRITE_ONLY = ("tomlkit", "socket", "statistics", "tempfile", "pto_tui.mcp", "pto_tui.core.campaign.scaffold")


@pytest.mark.parametrize(
    "argv",
    [("status",), ("rounds", "--json"), ("show", "0"), ("export", "--format", "csv"),
     ("export", "--format", "md"), ("export", "--format", "json")],
)
def test_a_read_command_loads_nothing_only_writes_need(tmp_path: Path, argv: tuple[str, ...]) -> None:
    root = make_project(tmp_path)
    _loaded("--project", str(root), "status")  # the index written once, as by any command
    loaded = _loaded("--project", str(root), *argv)
    assert "pto_tui.core.campaign.read_model" in loaded
    assert not {m for m in loaded if m.startswith(WRITE_ONLY)}


@pytest.mark.parametrize("command", ["exec", "jobs", "attach"])
def test_the_job_commands_load_no_campaign(command: str) -> None:
    """`exec` streams a command's output: its start-up is part of every run's time, and it
    reads project.toml only, never the rounds."""
    loaded = _loaded(command, "--help")
    assert "pto_tui.cli.exec_cmd" in loaded
    assert not {m for m in loaded if m.startswith(("pto_tui.core.campaign.", "pto_tui.core.rounds."))}


@pytest.mark.parametrize("argv", [
    ["status"], ["--project", "p", "status", "--json"], ["--project=p", "rounds", "--limit", "3"],
    ["--project", "status", "show", "1"], ["--project", "p", "--project", "q", "exec", "--", "ls"],
    ["--proj", "p", "status"], ["--projectx", "status"], ["--", "status"], ["--help"], [],
    ["--project", "p", "nonsense"], ["show", "--project", "p", "1"],
])
def test_a_plainly_named_sub_command_is_the_one_the_stand_ins_find(argv: list[str]) -> None:
    """The stand-ins' parser is skipped for a line that names its sub-command after
    `--project DIR` at most: the name read is the one the stand-ins' parser reads."""
    from pto_tui.cli.main import _plainly_asked

    plain = _plainly_asked(argv)
    if plain is not None:
        assert plain == build_parser(()).parse_known_args(argv)[0].command
    assert (plain is None) == (argv[:1] in (["--proj"], ["--projectx"], ["--"], ["--help"], [])
                               or "nonsense" in argv)
