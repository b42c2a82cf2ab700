"""project.toml's configuration as frozen dataclasses.

The file's shape is declared in `sections.py`, read by `parse.py`, and kept on disk
by `file.py` (`ProjectFile`); the workload fingerprint that makes rounds comparable
is computed here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.modes import DEFAULT_MODE, mode_spec
from pto_tui.core.vocabulary import OperatorKind, TargetKind, TargetMode

PROJECT_FILE = "project.toml"
SCHEMA_VERSION = 1

# A value that may appear in a shape, a parameter or a case option.
Scalar = int | float | str | bool


@dataclass(frozen=True)
class OperatorConfig:
    name: str
    kind: OperatorKind
    source: str = ""  # where the operator was copied from
    entry: str = ""  # entry point: kernel spec path (DSL) or entry template (tile-lib)
    family: str = ""  # pto-kernels bench family (DSL runner specs)
    demo: bool = False  # a CPU demo operator, not PTO code
    # An operator inside a repository (pto-kernels): the workspace holds the repository and
    # commands run from its root, because the runner imports the operator from its package.
    repository: str = ""  # the repository root the workspace was copied from
    path: str = ""  # the operator folder, relative to the repository root
    pythonpath: str = ""  # folder put on PYTHONPATH, relative to the repository root
    related: tuple[str, ...] = ()  # further editable files, relative to the repository root

    @property
    def in_repository(self) -> bool:
        return bool(self.path)


@dataclass(frozen=True)
class CaseConfig:
    """The workload: fixed for the whole campaign (docs/workflow.md §2)."""

    name: str = ""
    shape: Mapping[str, Scalar] = field(default_factory=dict)
    dtype: str = "float16"
    causal: bool = False
    spec: str = ""  # the operator's own case string, e.g. "128,128,1024,128"
    options: Mapping[str, Scalar] = field(default_factory=dict)
    # shape knobs: env knobs that set the workload (the adapter derives them from the
    # variant), so they are part of the workload, never tunables
    knobs: Mapping[str, Scalar] = field(default_factory=dict)

    def describe(self, shape: Mapping[str, Scalar] | None = None) -> str:
        """The case once, as its fields: `shape` (the fields the case string gives, see
        case_strings.case_text) or [case.shape]; the string itself only when no field is
        known."""
        fields = {**(self.shape if shape is None else shape), **self.knobs}
        text = ", ".join(f"{k}={v}" for k, v in fields.items())
        # the name says which case it is when no shape or case string does (a bench spec)
        name = self.name if self.name and not text and not self.spec else ""
        parts = [p for p in (name, text, self.dtype, "causal" if self.causal else "") if p]
        if self.spec and not text:
            parts.append(f"case {self.spec}")
        return "; ".join(parts) or "(no case set)"


@dataclass(frozen=True)
class Tunable:
    """A parameter a round may change: env knob, constexpr, template argument or case field."""

    name: str
    value: Scalar
    kind: str = "env"  # env | constexpr | template | case
    default: Scalar | None = None
    allowed: tuple[Scalar, ...] = ()
    where: str = ""  # file:line it was found at


# Where a Slurm target builds: on the login node, or in a job of its own (no NPU asked).
SLURM_BUILD_PLACES = ("login", "job")


@dataclass(frozen=True)
class SlurmSettings:
    """[target.slurm]: how a Slurm target's jobs are asked for (docs/remote.md §14)."""

    partition: str = ""  # sbatch --partition; "" the cluster's default partition
    gres: str = "npu:1"  # sbatch --gres of a step that needs an NPU
    time_limit: str = ""  # sbatch --time, e.g. "30" (minutes) or "1:00:00"; "" the partition's
    account: str = ""  # sbatch --account
    options: tuple[str, ...] = ()  # further sbatch options, one argument each (e.g. "--qos=high")
    build: str = "login"  # where builds run: the login node, or a job without an NPU
    same_node: bool = False  # every NPU step on the node the baseline ran on

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))


@dataclass(frozen=True)
class Target:
    """Where jobs run: this machine, or an SSH host named by an alias of the SSH config."""

    kind: TargetKind = TargetKind.LOCAL
    host: str = ""  # SSH alias (HostName, User, Port, IdentityFile, ProxyJump come from config)
    work_dir: str = ""  # remote work dir; for local, empty means the project's workspace/
    env_setup: str = ""  # prefixed to every command, e.g. "source .../set_env.sh"
    npu_id: int = 0
    # the NPUs of this host that `explore` measures candidates on at once (empty: npu_id alone)
    npu_ids: tuple[int, ...] = ()
    ssh_config: str = ""  # an SSH config file to use instead of ~/.ssh/config
    # What the target runs: the NPU, pto-isa's CPU simulation (timings are the host's
    # wall-clock time of the simulation, not NPU time) or the built-in CPU demo operators
    # (modes.py says what each changes).
    mode: TargetMode = DEFAULT_MODE
    compiler: str = "c++"  # the C++ compiler of a cpu-sim build ({compiler})
    cxx_flags: str = ""  # compile and link flags of a cpu-sim build ({cxx_flags})
    perf_sim_compiler: str = "g++"  # the C++ compiler of a perf-sim build's perf_sim driver
    # "perf-sim": each round of an npu or cpu-sim target also records the perf_sim cycles of
    # its configuration beside its measurement (a prediction, never its sample); "" none
    predict: str = ""
    # SSH agent forwarding for jobs (off: the NPU host never reaches the user's ssh-agent,
    # whatever ForwardAgent says in the SSH config); X11 forwarding is always off
    forward_agent: bool = False
    # [target.slurm]: a Slurm target's job options (its login node is `host`, or this machine)
    slurm: SlurmSettings = SlurmSettings()

    def __post_init__(self) -> None:
        # the enums also when built from text (a front end's answer, a job record's JSON);
        # an unknown value is a ValueError naming it
        object.__setattr__(self, "kind", TargetKind(self.kind))
        object.__setattr__(self, "mode", TargetMode(self.mode))
        if isinstance(self.slurm, Mapping):  # the table as read from project.toml
            object.__setattr__(self, "slurm", SlurmSettings(**self.slurm))
        object.__setattr__(self, "npu_ids", tuple(self.npu_ids))

    @property
    def is_local(self) -> bool:
        """This machine, reached without a host (jobs/targets.py says how each kind runs jobs)."""
        return self.kind is TargetKind.LOCAL or (self.kind is TargetKind.SLURM and not self.host)

    @property
    def label(self) -> str:
        """How job records and screens name it: "local", or the kind and its host ("ssh:npu-box",
        "slurm:login-1"; "slurm" for a cluster whose login node is this machine)."""
        return self.kind.value if not self.host else f"{self.kind.value}:{self.host}"

    @property
    def simulated(self) -> bool:
        """Timings on this target come from a simulation, not from an NPU."""
        return mode_spec(self.mode).simulated


@dataclass(frozen=True)
class CostmodelConfig:
    enabled: bool = False
    engine: str = "builtin"  # builtin | external
    pto_isa: str = ""  # path to a pto-isa checkout (builtin engine)
    tool: str = ""  # path to query_pto_cycles.py (external engine)
    compiler: str = "g++"
    on_target: bool = False  # run the external tool on the target instead of locally


@dataclass(frozen=True)
class Discipline:
    """Benchmark discipline (docs/workflow.md §13, §14): how measurements become a verdict."""

    repeats: int = 5  # benchmark runs per round, at least
    warmup: int = 5  # untimed benchmark runs before the timed ones
    noise_floor: float = 0.02  # relative gain below this is noise, whatever the samples say
    max_spread: float = 0.10  # (max-min)/median above this marks the round noisy
    review_gain: float = 10.0  # a speedup over the frontier above this is flagged for review
    confidence: float = 0.95  # of each bound on the gain the verdict decides from
    max_repeats: int = 20  # a round still undecided measures on, up to this many runs
    interleave: bool = False  # the frontier's build run alternately with the round's, judged against


@dataclass(frozen=True)
class StepLimits:
    """[limits]: the seconds each kind of step may run; 0 derives the limit from the
    baseline's own time (`limits.py` says how)."""

    build: float = 0.0
    correctness: float = 0.0
    benchmark: float = 0.0  # each benchmark run (and warm-up run)

    def configured(self, kind: str) -> float:
        """The seconds set for `kind` (a name of limits.STEP_KINDS); 0 when derived."""
        return float(getattr(self, kind))


@dataclass(frozen=True)
class ResultConfig:
    """How a run's result is read from what the benchmark prints ([result]); format "" is
    the kind's own report (report.csv for tile-lib, report.json for the PTO-DSL runner)."""

    format: str = ""  # "" | report-csv | average-time | avg-us | pattern (sections_result.py)
    time: str = ""  # a regular expression whose first group is a run's time
    unit: str = "ms"  # the time's unit: s, ms, us or ns
    passed: str = ""  # a regular expression of a line saying the run passed ("": the known ones)
    failed: str = ""  # ... saying it failed ("": the known ones)
    label: str = ""  # read the first time after the line holding this text ("": every time, summed)

    @property
    def printed(self) -> bool:
        """Read from the benchmark's output rather than a report file."""
        return self.format not in ("", "report-csv")


@dataclass(frozen=True)
class ProjectConfig:
    operator: OperatorConfig
    case: CaseConfig
    tunables: Mapping[str, Tunable]
    commands: Commands
    target: Target
    costmodel: CostmodelConfig
    discipline: Discipline
    phases: tuple[str, ...]
    protected: tuple[str, ...]  # path patterns of protected files, relative to workspace/
    tolerances: Mapping[str, float]  # correctness tolerances (atol, rtol, ...)
    # path patterns (relative to workspace/) of the files a round may edit; when set, every
    # other workspace file is protected too
    editable: tuple[str, ...] = ()
    limits: StepLimits = StepLimits()
    # path patterns (relative to workspace/) of files the build writes there: never snapshot
    generated: tuple[str, ...] = ()
    result: ResultConfig = ResultConfig()


# ---------------------------------------------------------------- per-kind defaults


def default_commands(kind: OperatorKind, mode: TargetMode = DEFAULT_MODE) -> Commands:
    """The kind's default commands on a target of `mode` (core/project/kinds/). Placeholders:
    see `template_values`; every value is shell-quoted when filled in."""
    return project_kind(kind).commands_for(mode)


def default_protected(kind: OperatorKind) -> tuple[str, ...]:
    """Files a round may not change unless it is a declared bug fix (docs/workflow.md §11.2)."""
    return project_kind(kind).protected


def operator_folder(config: ProjectConfig) -> str:
    """The operator's folder relative to the workspace: where commands run, results are
    read and tunables are searched (a tile-lib operator copied with the repository
    folders it reaches sits at its path inside that copy; a PTO-DSL one runs from the
    repository's root)."""
    operator = config.operator
    spec = project_kind(operator.kind)
    if operator.path and not spec.commands_from_root:
        return f"{spec.workspace_subdir}/{operator.path}"
    return spec.workspace_subdir


def exec_folder(config: ProjectConfig, workspace: Path) -> str | None:
    """Where `exec` and the app's `!` run a command, relative to the work dir: the folder the
    project's own commands run from (the operator folder), when the workspace has it."""
    folder = operator_folder(config)
    return folder if (workspace / folder).is_dir() else None


def source_folder(config: ProjectConfig) -> str:
    """The operator's own source folder relative to the workspace (its path inside its
    repository's copy), whatever folder its commands run from."""
    operator = config.operator
    subdir = project_kind(operator.kind).workspace_subdir
    return f"{subdir}/{operator.path}" if operator.path else subdir


def parse_scalar(text: str) -> Scalar:
    """A value typed by a person: integer, number, true/false, else the text itself."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


# The longest operator name: a folder name with room for the staging prefix and suffix
# (file systems allow 255 bytes per name).
MAX_NAME = 100


def valid_operator_name(name: str) -> bool:
    """An operator name is one path component inside projects/: no '..', no '/', not empty."""
    pattern = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*"
    return bool(re.fullmatch(pattern, name)) and ".." not in name and len(name) <= MAX_NAME


def workload_fingerprint(config: ProjectConfig) -> str:
    """A hash of everything that defines the workload: case, shapes and benchmark settings.

    Two rounds are comparable only when their fingerprints are equal. Tolerances are
    not part of it: they have a rule of their own (loosening needs an approval).
    """
    case = config.case
    payload = {
        "shape": dict(case.shape),
        "dtype": case.dtype,
        "causal": case.causal,
        "spec": case.spec,
        "options": dict(case.options),
        "benchmark": config.commands.benchmark,
        "warmup": config.discipline.warmup,
    }
    if case.knobs:  # only when present, so the fingerprints of older projects stay the same
        payload["knobs"] = dict(case.knobs)
    if config.target.simulated:  # simulated timings never compare with an NPU's
        payload["target_mode"] = config.target.mode.value
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
