"""`pto-tui verdict`: what the verdict rule says of a set of durations against a
frontier's, without a round: to try the rule, or to judge many pairs from a script."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, print_json
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.config import Discipline
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout, find_project_root, is_project_dir
from pto_tui.core.rules.verdict import MARGIN, RULE, VerdictResult, decide
from pto_tui.core.schemas import version

DEFAULTS = "defaults"
# the discipline keys `decide` reads: the values a verdict depends on
USED = ("noise_floor", "max_spread", "review_gain", "confidence")

DESCRIPTION = f"""\
The verdict the verdict rule gives a candidate's durations against the frontier's: the
same decision a round's close makes, with the build, correctness and workload taken as
passed. Every candidate run is compared with every frontier run on a log scale: the gain
is the Hodges-Lehmann estimate with Mann-Whitney bounds, each holding at the discipline's
confidence. It is kept when the estimate is above the noise floor and the lower bound
above {1 - MARGIN:g} floors, neutral when the estimate is at or below the floor and the upper
bound below {1 + MARGIN:g} floors, and otherwise inconclusive and undecided. "settled" says
whether a round's loop would stop here: an undecided round measures on up to max_repeats,
and one kept at the confidence but not at the stricter early-stop confidence too.

  pto-tui verdict --samples 94,95,96,95,94 --frontier 100,101,99,100,102
  pto-tui verdict --samples 94,95,96 --frontier 100,101,99 --json
  pto-tui verdict --pairs pairs.jsonl
  generate-pairs | pto-tui verdict --pairs -

Durations are in microseconds. With --pairs each line of FILE ('-': standard input) is
one JSON object, {{"samples": [94, 95, 96], "frontier": [100, 101, 99]}}; each gives one
JSON line on standard output, with its "line" number (blank lines are skipped). A
malformed line (bad JSON, a missing key, an empty list, a value that is not a number)
does not stop the rest: its output line is {{"line": N, "error": "..."}}, the error is
also said on standard error with the file and line, and the command exits 1 at the end.
A zero, negative, infinite or NaN duration is a broken benchmark, not bad input: the
verdict is then a failure, as for a round.

The discipline (noise_floor, max_spread, review_gain, confidence) is the project's
[discipline] in project.toml when run inside a project or with `pto-tui --project DIR
verdict ...`, else pto-tui's defaults; the output says which. An invalid project.toml is
reported, never replaced by the defaults.

Exit status: 0 when every verdict was given (whatever it is), 1 when a --pairs line was
malformed, 2 for bad options or numbers, a missing FILE or an invalid project.toml.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verdict",
        help=HELP["verdict"],
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument(
        "--samples",
        type=durations,
        metavar="US,US,...",
        help="the candidate's durations in microseconds, comma separated (needs --frontier)",
    )
    given.add_argument(
        "--pairs",
        metavar="FILE",
        help="judge many pairs: JSON lines of {\"samples\": [...], \"frontier\": [...]} "
        "('-': standard input); prints one JSON line per pair",
    )
    p.add_argument(
        "--frontier",
        type=durations,
        metavar="US,US,...",
        help="the frontier's durations in microseconds, comma separated (with --samples)",
    )
    add_json_flag(p)
    p.set_defaults(handler=cmd_verdict)


def durations(text: str) -> list[float]:
    """A comma-separated list of numbers, for argparse (which names the option)."""
    values = []
    for position, part in enumerate(text.split(","), start=1):
        if not part.strip():
            raise argparse.ArgumentTypeError(
                f"value {position} of {text!r} is empty (comma-separated durations: 95,96,94)"
            )
        try:
            values.append(float(part))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a number (comma-separated durations: 95,96,94)"
            ) from None
    return values


def cmd_verdict(args: argparse.Namespace) -> int:
    if args.pairs is not None:
        if args.frontier is not None:
            raise InputError("--frontier goes with --samples; with --pairs each line gives its own")
        discipline, _ = discipline_of(args)
        return judge_pairs(args.pairs, discipline)
    if args.frontier is None:
        raise InputError("--samples needs --frontier (the frontier's durations to compare with)")
    discipline, source = discipline_of(args)
    result = judge(args.samples, args.frontier, discipline)
    data = {
        **result_json(result, args.samples, args.frontier, discipline),
        "discipline": {key: float(getattr(discipline, key)) for key in USED},
        "source": source,
    }
    if args.json:
        print_json(data, schema="verdict")
    else:
        print(render(data, result))
    return 0


def discipline_of(args: argparse.Namespace) -> tuple[Discipline, str]:
    """The discipline in force and where it comes from: the project's project.toml, or
    the defaults when no project is found (an invalid project.toml is an error)."""
    explicit = getattr(args, "project", None)
    try:
        root = find_project_root(explicit)
    except InputError:
        if explicit or os.environ.get("PTO_TUI_PROJECT") or _several_projects_here():
            raise  # a project was asked for, or which one is meant is unclear: say so
        return Discipline(), DEFAULTS
    layout = ProjectLayout(root)
    if not layout.project_file.is_file():  # a hand-written project, not imported yet
        return Discipline(), f"{DEFAULTS} ({root} has no project.toml)"
    return ProjectFile(layout.project_file).config.discipline, str(layout.project_file)


def _several_projects_here() -> bool:
    projects = Path.cwd() / "projects"
    return projects.is_dir() and sum(is_project_dir(p) for p in projects.iterdir()) > 1


def judge(samples: Sequence[float], frontier: Sequence[float], discipline: Discipline) -> VerdictResult:
    """The verdict as a round's close decides it (closing.py), for numbers that passed
    the build, correctness and workload checks."""
    return decide(
        build_ok=True,
        correct=True,
        same_workload=True,
        samples=samples,
        frontier=frontier,
        noise_floor=discipline.noise_floor,
        max_spread=discipline.max_spread,
        review_gain=discipline.review_gain,
        confidence=discipline.confidence,
    )


def result_json(
    result: VerdictResult, samples: Sequence[float], frontier: Sequence[float], discipline: Discipline
) -> dict[str, Any]:
    c = result.comparison
    return {
        "verdict": result.verdict.value,
        "gain": _finite(result.gain),
        "low": c.low if c else None,
        "high": c.high if c else None,
        "confidence": c.confidence if c else float(discipline.confidence),
        "settled": result.settled,
        "pending": result.pending,
        "reason": result.reason,
        "stability": result.stability,
        "held": result.held,
        "flags": list(result.flags),
        "runs": len(samples),
        "frontier_runs": len(frontier),
        "rule": RULE,
    }


def _finite(value: float | None) -> float | None:
    # JSON has no NaN: a value that is not a number is said as null
    return value if value is not None and math.isfinite(value) else None


def render(data: dict[str, Any], result: VerdictResult) -> str:
    verdict = data["verdict"] + (" (held for review)" if result.held else "")
    gain = "-" if data["gain"] is None else f"{data['gain']:+.1%}"
    runs = f"{data['runs']} against {data['frontier_runs']} runs"
    if data["low"] is not None and data["high"] is not None:
        bounds = f"{data['low']:+.1%} to {data['high']:+.1%} (each at {data['confidence']:.0%}; {runs})"
    elif result.comparison is not None:
        bounds = f"too few runs for {data['confidence']:.0%} bounds ({runs})"
    else:
        bounds = "-"
    settled = "yes" if data["settled"] else f"no, a round would measure on: {data['pending']}"
    d = data["discipline"]
    used = (f"noise_floor {d['noise_floor']:g}, max_spread {d['max_spread']:g}, "
            f"review_gain {d['review_gain']:g}, confidence {d['confidence']:g}")
    lines = [
        f"verdict:    {verdict}",
        f"settled:    {settled}",
        f"gain:       {gain}",
        f"bounds:     {bounds}",
        f"reason:     {data['reason']}",
        f"stability:  {data['stability'] or '-'}",
    ]
    lines += [f"flag:       {flag}" for flag in data["flags"]]
    lines += [f"discipline: {used} (from {data['source']})", f"rule:       {data['rule']}"]
    return "\n".join(lines)


# ---------------------------------------------------------------- --pairs


def judge_pairs(name: str, discipline: Discipline) -> int:
    """One JSON line out per pair in; a malformed line is said and skipped (exit 1)."""
    shown = "stdin" if name == "-" else name
    failed = False
    for number, raw in _lines(name):
        try:
            samples, frontier = parse_pair(raw)
        except ValueError as error:
            failed = True
            problem = PtoError(str(error), file=shown, line=number)
            print(f"pto-tui: error: {problem.render()}", file=sys.stderr)
            out: dict[str, Any] = {"schema_version": version("verdict"), "line": number, "error": str(error)}
        else:
            result = judge(samples, frontier, discipline)
            out = {"schema_version": version("verdict"), "line": number,
                   **result_json(result, samples, frontier, discipline)}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, allow_nan=False) + "\n")
    return 1 if failed else 0


def _lines(name: str) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of FILE (or standard input) with their numbers, read as they
    come: a generator piping pairs in sees each verdict as soon as its line is read."""
    if name == "-":
        yield from _numbered(sys.stdin.buffer)
        return
    path = Path(name).expanduser()
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise InputError("no such file", file=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=path) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", file=path) from None
    with handle:
        yield from _numbered(handle)


def _numbered(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(handle, start=1):
        if raw.strip():
            yield number, raw


def parse_pair(raw: bytes) -> tuple[list[float], list[float]]:
    """The two duration lists of one --pairs line; a ValueError saying what is wrong."""
    try:
        # NaN and Infinity are read (Python's JSON reads them): such a duration is a
        # broken benchmark, which the verdict says (failure), not a malformed line
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deep") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON: {error.msg} (column {error.colno})") from None
    if not isinstance(value, dict):
        raise ValueError('expected a JSON object {"samples": [...], "frontier": [...]}')
    return _durations_at(value, "samples"), _durations_at(value, "frontier")


def _durations_at(value: dict[str, Any], key: str) -> list[float]:
    if key not in value:
        raise ValueError(f'missing key "{key}" (a list of durations in microseconds)')
    items = value[key]
    if not isinstance(items, list) or not items:
        raise ValueError(f'"{key}" must be a non-empty list of durations in microseconds')
    out = []
    for position, item in enumerate(items, start=1):
        if isinstance(item, bool) or not isinstance(item, int | float):
            shown = json.dumps(item, ensure_ascii=False)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise ValueError(f'"{key}" value {position} is {shown}, not a number')
        try:
            out.append(float(item))
        except OverflowError:
            raise ValueError(f'"{key}" value {position} is too large for a duration') from None
    return out

