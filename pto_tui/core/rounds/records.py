"""The structured record of one round (runs/iter-XXX/round.toml) as dataclasses.

The Markdown files (notes.md, ITERATIONS.md) are rendered from these records, so
nothing depends on parsing prose. round.toml is written by pto-tui only.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.project.modes import CYCLES, simulated_mode
from pto_tui.core.rounds.sealed import SharedEmptyDict, SharedEmptyList
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, ChangeKind, Verdict

if TYPE_CHECKING:  # types only: reading rounds loads neither the configuration nor perf_sim
    from pto_tui.core.project.config import Scalar
    from pto_tui.core.reports.perf_sim import PipeBusy

OPEN = "open"
CLOSED = "closed"


def _deepcopy(record: Any, _memo: dict[int, Any]) -> Any:
    """copy.deepcopy of a record is copy_record: each of a sealed record's shared empty
    fields becomes a list or table of its own (deepcopy's memo would make them one)."""
    return _copy(record)


@dataclass(slots=True)
class ChecklistItem:
    ticked: bool = False
    note: str = ""


@dataclass(slots=True)
class PreEdit:
    __deepcopy__ = _deepcopy

    kernel: str = ""
    bottleneck: str = ""  # one of BOTTLENECK_CLASSES
    evidence: str = ""
    hypothesis: str = ""
    why_ascend: str = ""
    expected_metric: str = ""
    main_risk: str = ""
    correctness_plan: str = ""  # the fourth question: how correctness is assured
    checklist: dict[str, ChecklistItem] = field(default_factory=dict)
    scope: list[str] = field(default_factory=list)  # files/parameters the hypothesis declares
    bottleneck_recheck: str = ""  # three-round rule: the re-checked bottleneck reasoning
    new_direction: str = ""  # three-round rule: the new direction taken

    def field_value(self, key: str) -> str:
        return str(getattr(self, key))


@dataclass(slots=True)
class ParamChange:
    name: str
    old: Scalar | None
    new: Scalar


@dataclass(slots=True)
class Changes:
    __deepcopy__ = _deepcopy

    kind: ChangeKind | None = None
    files: list[str] = field(default_factory=list)  # relative to the project root
    description: str = ""
    parameters: list[ParamChange] = field(default_factory=list)
    # every tunable's value in this round (本轮完整参数快照; round.toml's changes.snapshot)
    parameter_values: dict[str, Scalar] = field(default_factory=dict)
    based_on: int | None = None
    bug_fix: str = ""  # reason, when a protected file is changed as a declared bug fix
    risk_justification: str = ""  # written justification for a high-risk change
    high_risk: list[str] = field(default_factory=list)  # what the detector found
    tolerance_approval: str = ""  # explicit approval (who, why) of a loosened tolerance
    discipline_approval: str = ""  # the reason the verdict rules ([discipline]) changed


@dataclass(slots=True)
class Measurement:
    __deepcopy__ = _deepcopy

    build: str = ""  # ok | failed | "" (not run)
    correctness: str = ""  # pass | fail | "" (not run)
    samples_us: list[float] = field(default_factory=list)  # PTO duration per repeat
    reference_us: list[float] = field(default_factory=list)  # the report's baseline column
    tflops: float | None = None
    reports: list[str] = field(default_factory=list)  # result files the numbers came from
    problem: str = ""  # why the build/correctness/benchmark failed
    fingerprint: str = ""  # workload fingerprint at measurement time
    target_mode: str = ""  # the target's mode when measured: npu | cpu-sim | demo ("" = before modes)
    # where the kernel read the workload (the baseline's): each must still be read later
    workload_reads: list[WorkloadRead] = field(default_factory=list)
    # [discipline] interleave: the frontier's own build run alternately with this round's
    # on the same target (its durations), and which round that frontier was
    frontier_samples_us: list[float] = field(default_factory=list)
    frontier_round: int | None = None
    # what the samples count: "" microseconds (every record before perf-sim), or CYCLES
    # (pto-isa's perf_sim cycle model: then samples_us holds cycles, whatever its name)
    unit: str = ""
    # a perf-sim run's per-pipe busy cycles and shares (core/reports/perf_sim.py)
    pipes: list[PipeBusy] = field(default_factory=list)
    # [target] predict = "perf-sim" (an npu or cpu-sim round): perf_sim's Total cycles of the
    # round's configuration, a prediction beside the samples (its pipes are `pipes`), or why
    # there is none; never a sample
    predicted_cycles: int | None = None
    prediction_problem: str = ""
    # where each timed run ran, when a scheduler said ("node17 npu 3"; a Slurm target's)
    placements: list[str] = field(default_factory=list)

    @property
    def nodes(self) -> list[str]:
        """The nodes its runs ran on, each once, in order of first use."""
        return list(dict.fromkeys(p.split(" ", 1)[0] for p in self.placements if p))

    @property
    def in_cycles(self) -> bool:
        return self.unit == CYCLES

    @property
    def median_us(self) -> float | None:
        valid = valid_samples(self.samples_us)
        return median(valid) if valid else None

    @property
    def reference_median_us(self) -> float | None:
        valid = valid_samples(self.reference_us)
        return median(valid) if valid else None


@dataclass
class Amendment:
    """A correction kept beside the original record: who, when, why, what."""

    who: str
    when: str
    why: str
    field: str
    old: str
    new: str


@dataclass(frozen=True)
class TorchBaseline:
    """The torch_npu reference (or its CPU stand-in on the demo), durations in microseconds."""

    avg_us: float
    min_us: float
    max_us: float
    tflops: float | None = None
    label: str = "torch_npu"  # e.g. "CPU reference (numpy) standing in for torch_npu"
    warmup: int = 0
    runs: int = 0
    measured_at: str = ""
    note: str = ""  # an imported section's text as written by hand (pto-tui writes none)


@dataclass
class EnvironmentNotes:
    """The environment round's extra record (docs/workflow.md §6), kept on iter-000."""

    __deepcopy__ = _deepcopy

    versions: dict[str, str] = field(default_factory=dict)
    build_outcome: str = ""
    first_valid_result: str = ""
    problems: list[str] = field(default_factory=list)
    probes: dict[str, bool] = field(default_factory=dict)  # probe name -> passed
    passed: bool = False
    at: str = ""  # when the attempt was recorded
    # probes given by hand, not run: the surface that recorded them (cli | mcp | tui; "" = run)
    declared_by: str = ""
    # why declared probes alone are accepted as the environment round (nothing was built or run)
    declared_reason: str = ""


# the verdict rule of rounds closed before pto-tui recorded one: the spread against
# max_spread (the rule itself is core/rules/verdict.py, its name there RULE)
RANGE_RULE = "range 0"


@dataclass(slots=True)
class Round:
    __deepcopy__ = _deepcopy

    number: int
    status: str = OPEN
    phase: str = ""
    opened_at: str = ""
    closed_at: str = ""
    title: str = ""  # short hypothesis title for tables and charts
    pre_edit: PreEdit = field(default_factory=PreEdit)
    changes: Changes = field(default_factory=Changes)
    measurement: Measurement = field(default_factory=Measurement)
    stability: str = ""  # stable | noisy
    verdict: Verdict | None = None
    verdict_reason: str = ""
    verdict_rule: str = ""  # the verdict rule it was closed with ("" before pto-tui recorded it)
    flags: list[str] = field(default_factory=list)  # e.g. "review: gain above 10x"
    held_for_review: bool = False  # the numbers keep it, the speedup needs a person's word
    review_confirmation: str = ""  # who, when and why the held round was confirmed
    analysis: str = ""
    next: str = ""
    rerun_of: int | None = None  # the inconclusive round this one measures again
    # an explore group's name: rounds started together, one knob value each, all judged
    # against the round they are based on (core/campaign/explore.py)
    group: str = ""
    base_snapshot: str = ""  # workspace snapshot the round's diff is taken against
    snapshot: str = ""  # workspace snapshot at close (what was measured)
    environment: EnvironmentNotes | None = None  # the latest environment round
    environment_attempts: list[EnvironmentNotes] = field(default_factory=list)  # earlier ones, oldest first
    amendments: list[Amendment] = field(default_factory=list)
    imported: bool = False  # read from hand-written Markdown
    # an imported round's words pto-tui keeps verbatim beside the fields it read from them
    # (the Post-Run performance line, the row's result word, prose in files.txt, a label or
    # section no field takes), by where they stood: nothing the Markdown said is lost
    as_written: dict[str, str] = field(default_factory=dict)
    notes_sha: str = ""  # sha256 of the notes.md pto-tui last wrote ("" = never wrote it)
    # protected files' hashes this round accepted (baseline, or a declared bug fix)
    protected_hashes: dict[str, str] = field(default_factory=dict)
    tolerances: dict[str, float] = field(default_factory=dict)  # in force when measured
    discipline: dict[str, float] = field(default_factory=dict)  # [discipline] in force at close
    # not written to round.toml: set on reading when the record no longer matches
    # runs/closed.log (what differs); the record then is the round as it was closed
    tampered: list[str] = field(default_factory=list)
    # not written either: a closed round.toml that pto-tui never closed (not in the log)
    unlogged: bool = False
    # not written either: no line of runs/closed.log the chain vouches for backs its
    # verdict (unlogged, the log gone, the chain rewritten): counted apart as unverified
    # (core/rounds/counts.py), and after the baseline never the frontier
    unverified: bool = False

    @property
    def is_baseline(self) -> bool:
        return self.number == 0

    @property
    def is_closed(self) -> bool:
        return self.status == CLOSED

    @property
    def simulated(self) -> bool:
        """Its timings come from a simulation, not an NPU."""
        return simulated_mode(self.measurement.target_mode)

    @property
    def sample_unit(self) -> str:
        """What its samples count: "" (microseconds) or CYCLES."""
        return self.measurement.unit

    @property
    def leads(self) -> bool:
        """May be the frontier: measured by pto-tui, or adopted by a recorded confirmation
        (a round imported or written by hand never leads by itself); never a round whose
        verdict the history does not vouch for (the baseline stays the reference)."""
        if self.unlogged or (self.unverified and not self.is_baseline):
            return False
        return not self.imported or bool(self.review_confirmation)

    def short_hypothesis(self, limit: int = 60) -> str:
        text = self.title or self.pre_edit.hypothesis or ("baseline" if self.is_baseline else "")
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def effective_verdict(self) -> Verdict | None:
        """The verdict after amendments (the original stays in `verdict`)."""
        verdict = self.verdict
        for amendment in self.amendments:
            if amendment.field == "verdict":
                verdict = Verdict(amendment.new)
        return verdict


def verdict_rule_of(record: Round) -> str:
    """The rule a closed round's verdict was decided with, in words."""
    if record.verdict is None:
        return ""
    if record.verdict_rule:
        return record.verdict_rule
    if record.imported:
        return "none: imported, the verdict as written by hand"
    return f"{RANGE_RULE} (closed before pto-tui recorded the rule)"


def verdict_label(record: Round) -> str:
    """The verdict as shown and written: a kept verdict from simulated timings says so."""
    verdict = record.effective_verdict()
    if verdict is None:
        return ""
    return f"{verdict.value} (simulated)" if verdict is Verdict.KEPT and record.simulated else verdict.value


def median(values: list[float]) -> float:
    """statistics.median of a non-empty list (here: the statistics module, with fractions
    and decimal, costs a read command's start-up more than all its medians)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def valid_samples(samples: list[float]) -> list[float]:
    """Durations that can be measurements: finite and positive."""
    return [s for s in samples if isinstance(s, int | float) and math.isfinite(s) and s > 0]


def checklist_complete(pre: PreEdit) -> list[str]:
    """Checklist keys that are not ticked with a note."""
    return [
        key
        for key in HARDWARE_CHECKLIST
        if not (
            pre.checklist.get(key) and pre.checklist[key].ticked and pre.checklist[key].note.strip()
        )
    ]


T = TypeVar("T")
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_ATOMS = frozenset({str, int, float, bool, type(None)})


def copy_record(value: T) -> T:
    """A deep copy of a record (dataclasses, lists, dicts, scalars, enums), as
    copy.deepcopy makes it but at half the cost: the read model hands a copy of every
    round to each read, and a thousand rounds are 130,000 objects."""
    copied: T = _copy(value)
    return copied


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_copy(item) for item in value]
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is SharedEmptyList:
        return []
    if kind is SharedEmptyDict:
        return {}
    if isinstance(value, Enum):
        return value
    if is_dataclass(value) and hasattr(value, "__dict__"):
        new = object.__new__(kind)
        new.__dict__.update({name: _copy(item) for name, item in value.__dict__.items()})
        return new
    if is_dataclass(value) and not isinstance(value, type):
        # the records' own classes keep their fields in __slots__ (10,000 rounds in memory)
        new = object.__new__(kind)
        names = _FIELD_NAMES.get(kind)
        if names is None:
            names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
        for name in names:
            object.__setattr__(new, name, _copy(getattr(value, name)))
        return new
    return copy.deepcopy(value)


def newest_reference(rounds: list[Round]) -> Round | None:
    """The newest closed round of `rounds` (in order) with protected hashes, or the baseline."""
    return next(
        (r for r in reversed(rounds) if r.status == CLOSED and (r.protected_hashes or r.number == 0)),
        None,
    )
