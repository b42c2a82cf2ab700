"""Entry point of `pto-tui`.

Each sub-command group lives in its own module exposing `register(subparsers)`;
handlers take the parsed arguments and return an exit code:
0 ok, 2 usage or bad input, 1 any other failure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence

from pto_tui import __version__
from pto_tui.cli.commands import COMMANDS
from pto_tui.core.errors import PtoError, RuleViolation

DESCRIPTION = """\
pto-tui: a workbench for optimising PTO operators on Ascend NPUs.

Run without a sub-command to open the terminal application. The sub-commands
below do the same work headless, for scripts and coding agents; most accept
--json. A project is found from --project, else $PTO_TUI_PROJECT, else by
walking up from the current directory to the folder holding project.toml.

The loop, in order:
  scan -> new -> env (the environment round) -> torch-baseline -> baseline
  -> round start -> edit the source -> round run (changes, build, correctness,
     benchmark, verdict) -> round close -> ... -> chart / report
  (round changes / measure / close record a round step by step instead of run)

Examples:
  pto-tui demo --run                  the whole loop on a built-in CPU demo
  pto-tui new ../pto-isa/kernels/manual/common/flash_atten --case-spec 128,128,1024 \\
      --mode cpu-sim && cd projects/flash_atten && pto-tui env && pto-tui baseline

Exit codes: 0 done; 1 failed or refused by a rule (the message names the rule and
its fix); 2 bad input or usage; 130 interrupted; 141 the output pipe closed.
Documents: pto-tui docs.
"""

class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and a short message (the CLI contract), suggesting the
    closest sub-command or option for a misspelt one."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        hint = did_you_mean(message, self._choices_and_options())
        self.exit(2, f"{self.prog}: error: {message}\n" + (f"  did you mean: {hint}?\n" if hint else ""))

    def _choices_and_options(self) -> list[str]:
        """Sub-command names and options here and in every sub-command below (argparse
        reports a sub-command's unknown option from the top parser)."""
        words: list[str] = []
        for action in self._actions:
            words += action.option_strings
            if isinstance(action, argparse._SubParsersAction):
                words += list(action.choices)
                for parser in action.choices.values():
                    if isinstance(parser, _Parser):
                        words += parser._choices_and_options()
        return words


def did_you_mean(message: str, words: Sequence[str]) -> str:
    """The known word closest to the one argparse could not use ("" when none is close):
    an invalid choice ("invalid choice: 'stauts'") or an unrecognised option."""
    if "invalid choice: " in message:
        typed = message.split("invalid choice: ", 1)[1].split("'")[1:2]
    elif message.startswith("unrecognized arguments: "):
        typed = [w.split("=", 1)[0] for w in message.split(": ", 1)[1].split()
                 if w.startswith("-")][:1]
    else:
        return ""
    import difflib  # only for a mistyped command

    close = difflib.get_close_matches(typed[0], words, n=1, cutoff=0.6) if typed else []
    return close[0] if close else ""


def build_parser(
    commands: Iterable[str] | None = None, *, stand_ins: bool = True
) -> argparse.ArgumentParser:
    """The parser with the modules of `commands` loaded (None: every module). Any other
    sub-command is a stand-in with its help line that takes the rest of the line, so
    `--help` and finding the sub-command asked for import nothing else; without
    `stand_ins` the other sub-commands are left out (the sub-command is known by then)."""
    parser = _Parser(
        prog="pto-tui",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pto-tui {__version__}")
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project folder (holding project.toml); default: found from the current directory",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = {c.name for c in COMMANDS} if commands is None else set(commands)
    modules = dict.fromkeys(c.module for c in COMMANDS if c.name in wanted)
    for module in modules:
        importlib.import_module(module).register(sub)
    for command in COMMANDS if stand_ins else ():
        if command.name not in sub.choices:
            stand_in = sub.add_parser(command.name, help=command.help, add_help=False)
            stand_in.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def _plainly_asked(argv: Sequence[str]) -> str | None:
    """The sub-command of a line that names it after `--project DIR` at most, as argparse
    reads it; None for any other line (the stand-ins' parser finds it then)."""
    at = 0
    while at < len(argv) and argv[at] != "--" and argv[at].startswith("--project"):
        at += 2 if argv[at] == "--project" else 1 if argv[at].startswith("--project=") else len(argv)
    word = argv[at] if at < len(argv) else ""
    return word if word in _NAMES else None


_NAMES = frozenset(c.name for c in COMMANDS)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Which sub-command, plainly named or from the stand-ins; then the full parse with its
    module only (the stand-ins' parser costs as much as a read command's own work)."""
    words = sys.argv[1:] if argv is None else list(argv)
    asked = _plainly_asked(words) or build_parser(()).parse_known_args(words)[0].command
    if not asked:
        return build_parser(()).parse_args(words)
    return build_parser((asked,), stand_ins=False).parse_args(words)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    handler = getattr(args, "handler", None)
    try:
        if handler is None:
            return _open_tui(args)
        code = int(handler(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except PtoError as error:
        print(f"pto-tui: error: {error.render()}", file=sys.stderr)
        if isinstance(error, RuleViolation):
            from pto_tui.core.rules.registry import fixes_of  # the rules load only for a refusal

            for fix in fixes_of(error, "cli"):
                print(f"  fix: {fix}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("pto-tui: interrupted", file=sys.stderr)
        return 130


def _reader_went_away() -> int:
    """The reader of stdout closed it (`pto-tui show 5 | head`): stop quietly, as CLIs do.

    stdout is pointed at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE, the status a shell shows for a closed pipe


def _open_tui(args: argparse.Namespace) -> int:
    from pto_tui.tui.app import run  # Textual loads only when the application is wanted

    return int(run(args) or 0)

if __name__ == "__main__":
    sys.exit(main())
