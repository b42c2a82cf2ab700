"""The tables of project.toml about the campaign's discipline: how measurements become
verdicts, how long a step may run, the phases, the editable scope, tolerances and pto-tui's own state.

Declared like the tables in `sections.py`, which lists them in file order.
"""

from __future__ import annotations

from typing import Any

from pto_tui.core.numbers import MAX_US
from pto_tui.core.paths.patterns import pattern_problem
from pto_tui.core.project.config import Discipline, default_protected
from pto_tui.core.project.layout import MAX_ROUND
from pto_tui.core.project.limits import BENCHMARK, BUILD, CORRECTNESS, LIMIT_FACTOR, MAX_LIMIT, derived_text
from pto_tui.core.project.schema import (
    ANY,
    BOOLEAN,
    INTEGER,
    NUMBER,
    STRING,
    STRINGS,
    TABLE,
    Condition,
    Entries,
    Key,
    Range,
    Section,
    Written,
)
from pto_tui.core.vocabulary import DEFAULT_PHASES


def _non_empty_strings(names: list[Any]) -> bool:
    return bool(names) and all(isinstance(n, str) and n for n in names)


def _all_patterns(patterns: list[Any]) -> bool:
    return all(isinstance(p, str) and pattern_problem(p) is None for p in patterns)


# The most benchmark runs (or warm-up runs) a round may ask for.
MAX_RUNS = 1000


def _duration(name: str, help: str, required: bool = False) -> Key:
    return Key(
        name,
        NUMBER,
        help,
        required=required,
        range=Range(low=0, high=MAX_US, message=f"{name} must be a duration in us, 0 to {MAX_US:g}"),
    )


TORCH_BASELINE_KEYS = (
    _duration("avg_us", "mean duration", required=True),
    _duration("min_us", "fastest run", required=True),
    _duration("max_us", "slowest run", required=True),
    Key("tflops", NUMBER, "throughput", range=Range(low=0, high=1e9, message="tflops must be 0 to 1e9")),
    Key("label", STRING, "what was measured", ""),
    Key("warmup", INTEGER, "warm-up runs", 0, range=Range(low=0, message="warmup must be 0 or more")),
    Key("runs", INTEGER, "measured runs", 0, range=Range(low=0, message="runs must be 0 or more")),
    Key("measured_at", STRING, "when", ""),
    Key("note", STRING, "the section's text as written by hand (an imported project)", ""),
)

DISCIPLINE = Section(
    "discipline",
    "How measurements become verdicts; fractions are relative to the median.",
    keys=(
        Key(
            "repeats",
            INTEGER,
            "benchmark runs per round, at least (more while the verdict is undecided)",
            Discipline.repeats,
            # a round runs every repeat: past a thousand the round never ends
            range=Range(low=1, high=MAX_RUNS, high_open=False, message=f"repeats must be 1 to {MAX_RUNS}"),
        ),
        Key(
            "warmup",
            INTEGER,
            "untimed benchmark runs before the timed ones (or {warmup} in the benchmark command)",
            Discipline.warmup,
            range=Range(low=0, high=MAX_RUNS, high_open=False, message=f"warmup must be 0 to {MAX_RUNS}"),
        ),
        Key(
            "noise_floor",
            NUMBER,
            "relative gain below this is noise, whatever the samples say",
            Discipline.noise_floor,
            range=Range(low=0, high=1, message="noise_floor is a fraction: expected 0 <= value < 1"),
        ),
        Key(
            "max_spread",
            NUMBER,
            "(max-min)/median above this marks the round noisy (information only)",
            Discipline.max_spread,
            # (max - min) / median can exceed 1 on a noisy machine; above 5 (500%) no set of
            # samples is ever noisy, which switches the rule off
            range=Range(
                low=0,
                low_open=True,
                high=5,
                high_open=False,
                message="max_spread is a finite fraction of the median: expected 0 < value <= 5",
            ),
        ),
        Key(
            "review_gain",
            NUMBER,
            "a speedup over the frontier above this is flagged for review",
            Discipline.review_gain,
            # above 1000x nothing is ever held for review, which switches the rule off
            range=Range(
                low=1,
                low_open=True,
                high=1000,
                high_open=False,
                message="review_gain must be a finite speedup: expected 1 < value <= 1000",
            ),
        ),
        Key(
            "confidence",
            NUMBER,
            "confidence of each bound on the gain a verdict decides from",
            Discipline.confidence,
            range=Range(low=0.5, high=1, message="confidence must be a fraction: expected 0.5 <= value < 1"),
        ),
        Key(
            "max_repeats",
            INTEGER,
            "benchmark runs a round may take while its verdict is undecided",
            Discipline.max_repeats,
            range=Range(
                low=1, high=MAX_RUNS, high_open=False, message=f"max_repeats must be 1 to {MAX_RUNS}"
            ),
        ),
        Key(
            "interleave",
            BOOLEAN,
            "run the frontier's own build alternately with the round's on the same target (frontier, "
            "round, frontier, ...) and judge the round against those runs, not the frontier's stored "
            "ones: for a host whose speed drifts between rounds (costs a frontier build per new "
            "frontier and twice the runs)",
            Discipline.interleave,
        ),
    ),
    commented=True,
)



def _limit(name: str, what: str) -> Key:
    return Key(
        name,
        NUMBER,
        f"seconds {what} may run; 0: {derived_text(name)}",
        0,
        range=Range(
            low=0,
            high=MAX_LIMIT,
            high_open=False,
            message=f"limits.{name} must be a number of seconds, 0 (derived) to {MAX_LIMIT:g}",
        ),
    )


LIMITS = Section(
    "limits",
    "Seconds a step may run before it is stopped (its process tree killed) and fails as "
    f"'timed out after N s'; 0: a floor, or {LIMIT_FACTOR:g}x the baseline's own time if longer.",
    keys=(
        _limit(BUILD, "a build"),
        _limit(CORRECTNESS, "the correctness command"),
        _limit(BENCHMARK, "each benchmark run (a warm-up run too)"),
    ),
    commented=True,
)

PHASES = Section(
    "phases",
    "The campaign's phases, in order; the first is the baseline phase.",
    keys=(
        Key(
            "names",
            STRINGS,
            "the phase names",
            DEFAULT_PHASES,
            condition=Condition(
                _non_empty_strings,
                "phases.names must be a non-empty list of strings",
                "not empty",
            ),
        ),
        Key(
            "current",
            STRING,
            "the phase the campaign is in (pto-tui moves it)",
            DEFAULT_PHASES[0],
            validated=False,
        ),
    ),
)

_PATTERNS_MESSAGE = (
    "scope.{key} must be a list of path patterns (.gitignore's rules); one of {{value!r}} "
    "is not a string or cannot be read (a lone '!', a trailing '\\')"
)

SCOPE = Section(
    "scope",
    "What a round may change.",
    keys=(
        Key(
            "protected",
            STRINGS,
            "path patterns (see Path patterns below), relative to workspace/, of files a round "
            "may change only as a declared bug fix",
            default_by_kind=default_protected,
            condition=Condition(_all_patterns, _PATTERNS_MESSAGE.format(key="protected"), "path patterns"),
            written=Written.NEVER,
        ),
        Key(
            "editable",
            STRINGS,
            "path patterns (see Path patterns below), relative to workspace/, of the files a "
            "round may edit; when set, every other workspace file is protected too (an "
            "operator inside a repository: its folder and related files)",
            (),
            condition=Condition(_all_patterns, _PATTERNS_MESSAGE.format(key="editable"), "path patterns"),
            written=Written.IF_SET,
        ),
        Key(
            "generated",
            STRINGS,
            "path patterns (see Path patterns below), relative to workspace/, of the files the "
            "build writes beside the sources (an example's compile.sh writing its IR there): "
            "never snapshot, so never part of a round's changes",
            (),
            condition=Condition(_all_patterns, _PATTERNS_MESSAGE.format(key="generated"), "path patterns"),
            written=Written.IF_SET,
        ),
    ),
)

TOLERANCES = Section(
    "tolerances",
    "Correctness tolerances (atol, rtol, ...); loosening one needs an approval.",
    entries=Entries(
        "tolerance name",
        value=Key(
            "<name>",
            NUMBER,
            "the tolerance",
            range=Range(low=0),
            error="a tolerance must be a number >= 0",
        ),
    ),
)

STATE = Section(
    "state",
    "Structured state written by pto-tui (free form); not for editing by hand.",
    entries=Entries(
        "state key",
        value=Key("<name>", ANY, "pto-tui's record", validated=False),
        known=(
            Key(
                "last_round",
                INTEGER,
                "the highest round number handed out",
                range=Range(
                    low=0,
                    high=MAX_ROUND,
                    high_open=False,
                    message=f"last_round must be a round number, 0 to {MAX_ROUND}",
                ),
            ),
            Key("torch_baseline", TABLE, "the torch_npu reference measured", table=TORCH_BASELINE_KEYS),
        ),
    ),
)
