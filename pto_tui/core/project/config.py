"""projects/<op>/project.toml: the project's configuration and structured state.

Read with tomllib into frozen dataclasses (validated, every error naming file,
line and key); rewritten through tomlkit so a person's comments and key order
survive. The file is the source of truth; nothing here caches it across calls.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import ConfigError
from pto_tui.core.vocabulary import DEFAULT_PHASES, OperatorKind

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


@dataclass(frozen=True)
class CaseConfig:
    """The workload: fixed for the whole campaign (WORKFLOW.md step 2)."""

    name: str = ""
    shape: Mapping[str, Scalar] = field(default_factory=dict)
    dtype: str = "float16"
    causal: bool = False
    spec: str = ""  # the operator's own case string, e.g. "128,128,1024,128"
    options: Mapping[str, Scalar] = field(default_factory=dict)

    def describe(self) -> str:
        shape = ", ".join(f"{k}={v}" for k, v in self.shape.items())
        parts = [p for p in (shape, self.dtype, "causal" if self.causal else "") if p]
        if self.spec:
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


@dataclass(frozen=True)
class Commands:
    """Shell command templates. {name} placeholders are filled with quoted values."""

    build: str
    correctness: str
    benchmark: str
    reference: str = ""  # torch_npu (or CPU stand-in) reference benchmark
    # where results appear, relative to the operator folder: the runner's results folder
    # (DSL: the newest report.json written by this run) or the tile-lib report.csv
    results: str = ""


@dataclass(frozen=True)
class Target:
    """Where jobs run: this machine, or an SSH host named by an alias of the SSH config."""

    kind: str = "local"  # local | ssh
    host: str = ""  # SSH alias (HostName, User, Port, IdentityFile, ProxyJump come from config)
    work_dir: str = ""  # remote work dir; for local, empty means the project's workspace/
    env_setup: str = ""  # prefixed to every command, e.g. "source .../set_env.sh"
    npu_id: int = 0
    ssh_config: str = ""  # an SSH config file to use instead of ~/.ssh/config

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    @property
    def label(self) -> str:
        return "local" if self.is_local else f"ssh:{self.host}"


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
    """Benchmark discipline (WORKFLOW.md): how measurements become a verdict."""

    repeats: int = 5  # benchmark runs per round
    warmup: int = 5
    noise_floor: float = 0.02  # relative gain below this is noise, whatever the samples say
    max_spread: float = 0.10  # (max-min)/median above this marks the round inconclusive
    review_gain: float = 10.0  # a speedup over the frontier above this is flagged for review


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
    protected: tuple[str, ...]  # glob patterns of protected files, relative to workspace/
    tolerances: Mapping[str, float]  # correctness tolerances (atol, rtol, ...)


# ---------------------------------------------------------------- defaults


def default_commands(kind: OperatorKind) -> Commands:
    """Per-kind defaults (WORKFLOW.md build/run flow). Placeholders: {case}, {npu}, {family},
    {name}, {soc}, {binary}; every value is shell-quoted when filled in."""
    if kind is OperatorKind.PTO_DSL:
        return Commands(
            build="python3 -c 'import kernel; kernel.build_jit_wrapper(output_dir=\"build\")._build()'",
            correctness="",  # read from the benchmark's report.json
            benchmark="python3 -m pto_kernels.bench.runner bench/specs/{family}/{name}.yaml",
            reference="",
            results="bench/results",
        )
    return Commands(
        build=(
            "rm -rf build && mkdir build && cd build"
            " && python3 ../scripts/generate_cases.py --cases {case}"
            " && cmake -DRUN_MODE=npu -DSOC_VERSION={soc} .. && make -j16"
        ),
        correctness="",  # read from the binary's output ("test success")
        benchmark=(
            "cd build && python3 ../scripts/gen_data.py --cases {case}"
            " && ./{binary} --npu={npu} --cases {case}"
        ),
        reference="",
        results="build/report.csv",
    )


def default_protected(kind: OperatorKind) -> tuple[str, ...]:
    """Files a round may not change unless it is a declared bug fix (WORKFLOW.md scope)."""
    common = ("**/bench*.py", "**/bench/**", "**/test*.py", "**/tests/**", "**/*.yaml")
    if kind is OperatorKind.PTO_DSL:
        return common
    return (*common, "**/main.cpp", "**/scripts/**", "**/run.sh", "**/CMakeLists.txt")


# ---------------------------------------------------------------- schema

_SECTIONS: dict[str, set[str]] = {
    "operator": {"name", "kind", "source", "entry", "family", "demo"},
    "case": {"name", "shape", "dtype", "causal", "spec", "options"},
    "commands": {"build", "correctness", "benchmark", "reference", "results"},
    "target": {"kind", "host", "work_dir", "env_setup", "npu_id", "ssh_config"},
    "costmodel": {"enabled", "engine", "pto_isa", "tool", "compiler", "on_target"},
    "discipline": {"repeats", "warmup", "noise_floor", "max_spread", "review_gain"},
    "phases": {"names", "current"},
    "scope": {"protected"},
    "tolerances": set(),  # free names, float values
    "tunables": set(),  # free names, tables
    "state": set(),  # structured state written by pto-tui (free form)
}
_TOP_LEVEL = {"schema", *_SECTIONS}
_TUNABLE_KEYS = {"value", "kind", "default", "allowed", "where"}
_TUNABLE_KINDS = {"env", "constexpr", "template", "case"}
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def locate_key(text: str, dotted: str) -> int | None:
    """Best-effort line number (1-based) of a dotted key in TOML text.

    Tracks [table] headers and matches `key =` lines; good enough to point a person
    at the right line of a hand-edited file.
    """
    parts = dotted.split(".")
    table: list[str] = []
    header_re = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    key_re = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")
    best: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = header_re.match(line)
        if header:
            table = [p.strip().strip("\"'") for p in header.group(1).split(".")]
            if table == parts:
                best = number
            continue
        key = key_re.match(line)
        if key:
            full = table + [p.strip().strip("\"'") for p in key.group(1).split(".")]
            if full == parts:
                return number
            if best is None and full[: len(parts)] == parts:
                best = number
    return best


class _Reader:
    """Pulls typed values out of the parsed TOML, raising errors that name file, line, key."""

    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.text = text
        self.data = data

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(message, file=self.path, line=locate_key(self.text, key), key=key)

    def section(self, name: str, required: bool = False) -> dict[str, Any]:
        value = self.data.get(name)
        if value is None:
            if required:
                raise ConfigError(f"missing section [{name}]", file=self.path, key=name, line=None)
            return {}
        if not isinstance(value, dict):
            raise self.fail(name, f"'{name}' must be a table, got {type(value).__name__}")
        allowed = _SECTIONS[name]
        if allowed:
            for key in value:
                if key not in allowed:
                    raise self.fail(
                        f"{name}.{key}",
                        f"unknown key '{key}' in [{name}]; known keys: {', '.join(sorted(allowed))}",
                    )
        return value

    def get(
        self,
        table: dict[str, Any],
        prefix: str,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = None,
        required: bool = False,
    ) -> Any:
        full = f"{prefix}.{key}"
        if key not in table:
            if required:
                raise ConfigError(
                    f"missing required key '{key}'",
                    file=self.path,
                    line=locate_key(self.text, prefix),
                    key=full,
                )
            return default
        value = table[key]
        # bool is an int in Python; never accept it where a number is meant
        if isinstance(value, bool) and bool not in _as_tuple(kind):
            raise self.fail(full, f"expected {_type_names(kind)}, got a boolean")
        if not isinstance(value, kind):
            raise self.fail(full, f"expected {_type_names(kind)}, got {type(value).__name__}")
        return value

    def scalar_map(self, table: dict[str, Any], prefix: str) -> dict[str, Scalar]:
        if not isinstance(table, dict):
            raise self.fail(prefix, f"'{prefix}' must be a table")
        out: dict[str, Scalar] = {}
        for key, value in table.items():
            if not isinstance(value, int | float | str | bool):
                raise self.fail(
                    f"{prefix}.{key}",
                    f"expected a number, string or boolean, got {type(value).__name__}",
                )
            out[key] = value
        return out


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _type_names(kind: type | tuple[type, ...]) -> str:
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "a boolean",
        list: "a list",
    }
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def parse_config(path: Path, text: str) -> ProjectConfig:
    """Validate project.toml text into a ProjectConfig, or raise ConfigError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = None
        match = re.search(r"line (\d+)", str(error))
        if match:
            line = int(match.group(1))
        raise ConfigError(f"invalid TOML: {error}", file=path, line=line) from None
    r = _Reader(path, text, data)
    for key in data:
        if key not in _TOP_LEVEL:
            raise r.fail(
                key, f"unknown top-level key '{key}'; known: {', '.join(sorted(_TOP_LEVEL))}"
            )
    schema = data.get("schema", SCHEMA_VERSION)
    if schema != SCHEMA_VERSION:
        raise r.fail(
            "schema", f"unsupported schema {schema!r}; this pto-tui reads schema {SCHEMA_VERSION}"
        )

    op = r.section("operator", required=True)
    name = r.get(op, "operator", "name", str, required=True)
    if not valid_operator_name(name):
        raise r.fail(
            "operator.name", f"invalid operator name {name!r} (letters, digits, _ . - only)"
        )
    kind_text = r.get(op, "operator", "kind", str, required=True)
    try:
        kind = OperatorKind(kind_text)
    except ValueError:
        raise r.fail(
            "operator.kind", f"unknown kind {kind_text!r}; expected one of: pto-dsl, pto-tile-lib"
        ) from None
    operator = OperatorConfig(
        name=name,
        kind=kind,
        source=r.get(op, "operator", "source", str, ""),
        entry=r.get(op, "operator", "entry", str, ""),
        family=r.get(op, "operator", "family", str, ""),
        demo=r.get(op, "operator", "demo", bool, False),
    )

    c = r.section("case")
    case = CaseConfig(
        name=r.get(c, "case", "name", str, ""),
        shape=r.scalar_map(c.get("shape", {}), "case.shape"),
        dtype=r.get(c, "case", "dtype", str, "float16"),
        causal=r.get(c, "case", "causal", bool, False),
        spec=r.get(c, "case", "spec", str, ""),
        options=r.scalar_map(c.get("options", {}), "case.options"),
    )

    tunables: dict[str, Tunable] = {}
    for tname, entry in r.section("tunables").items():
        prefix = f"tunables.{tname}"
        if not _NAME_RE.match(tname):
            raise r.fail(prefix, f"invalid parameter name {tname!r}")
        if not isinstance(entry, dict):
            raise r.fail(prefix, "a tunable must be a table with at least 'value'")
        for key in entry:
            if key not in _TUNABLE_KEYS:
                raise r.fail(
                    f"{prefix}.{key}",
                    f"unknown key '{key}'; known: {', '.join(sorted(_TUNABLE_KEYS))}",
                )
        scalar = (int, float, str, bool)
        tkind = r.get(entry, prefix, "kind", str, "env")
        if tkind not in _TUNABLE_KINDS:
            raise r.fail(
                f"{prefix}.kind",
                f"unknown kind {tkind!r}; expected one of {sorted(_TUNABLE_KINDS)}",
            )
        allowed = r.get(entry, prefix, "allowed", list, [])
        value = r.get(entry, prefix, "value", scalar, required=True)
        if allowed and value not in allowed:
            raise r.fail(f"{prefix}.value", f"{value!r} is not one of the allowed values {allowed}")
        tunables[tname] = Tunable(
            name=tname,
            value=value,
            kind=tkind,
            default=r.get(entry, prefix, "default", scalar, None),
            allowed=tuple(allowed),
            where=r.get(entry, prefix, "where", str, ""),
        )

    defaults = default_commands(kind)
    cm = r.section("commands")
    commands = Commands(
        build=r.get(cm, "commands", "build", str, defaults.build),
        correctness=r.get(cm, "commands", "correctness", str, defaults.correctness),
        benchmark=r.get(cm, "commands", "benchmark", str, defaults.benchmark),
        reference=r.get(cm, "commands", "reference", str, defaults.reference),
        results=r.get(cm, "commands", "results", str, defaults.results),
    )

    t = r.section("target")
    tkind = r.get(t, "target", "kind", str, "local")
    if tkind not in ("local", "ssh"):
        raise r.fail("target.kind", f"unknown target kind {tkind!r}; expected 'local' or 'ssh'")
    target = Target(
        kind=tkind,
        host=r.get(t, "target", "host", str, ""),
        work_dir=r.get(t, "target", "work_dir", str, ""),
        env_setup=r.get(t, "target", "env_setup", str, ""),
        npu_id=r.get(t, "target", "npu_id", int, 0),
        ssh_config=r.get(t, "target", "ssh_config", str, ""),
    )
    if target.kind == "ssh":
        if not target.host:
            raise r.fail(
                "target.host", "an ssh target needs 'host' (an alias from your SSH config)"
            )
        if not target.work_dir:
            raise r.fail(
                "target.work_dir", "an ssh target needs 'work_dir' (the remote work directory)"
            )
    if target.npu_id < 0:
        raise r.fail("target.npu_id", "npu_id must be 0 or more")

    cmo = r.section("costmodel")
    costmodel = CostmodelConfig(
        enabled=r.get(cmo, "costmodel", "enabled", bool, False),
        engine=r.get(cmo, "costmodel", "engine", str, "builtin"),
        pto_isa=r.get(cmo, "costmodel", "pto_isa", str, ""),
        tool=r.get(cmo, "costmodel", "tool", str, ""),
        compiler=r.get(cmo, "costmodel", "compiler", str, "g++"),
        on_target=r.get(cmo, "costmodel", "on_target", bool, False),
    )
    if costmodel.engine not in ("builtin", "external"):
        raise r.fail(
            "costmodel.engine", f"unknown engine {costmodel.engine!r}; expected builtin or external"
        )

    d = r.section("discipline")
    discipline = Discipline(
        repeats=r.get(d, "discipline", "repeats", int, 5),
        warmup=r.get(d, "discipline", "warmup", int, 5),
        noise_floor=float(r.get(d, "discipline", "noise_floor", (int, float), 0.02)),
        max_spread=float(r.get(d, "discipline", "max_spread", (int, float), 0.10)),
        review_gain=float(r.get(d, "discipline", "review_gain", (int, float), 10.0)),
    )
    if discipline.repeats < 1:
        raise r.fail("discipline.repeats", "repeats must be at least 1")
    if discipline.warmup < 0:
        raise r.fail("discipline.warmup", "warmup must be 0 or more")
    if not 0 <= discipline.noise_floor < 1:
        raise r.fail("discipline.noise_floor", "noise_floor is a fraction: expected 0 <= value < 1")
    if not discipline.max_spread > 0:
        # (max - min) / median can exceed 1 on a noisy machine, so no upper bound here
        raise r.fail("discipline.max_spread", "max_spread is a fraction of the median: expected > 0")
    if discipline.review_gain <= 1:
        raise r.fail("discipline.review_gain", "review_gain must be greater than 1")

    ph = r.section("phases")
    names = r.get(ph, "phases", "names", list, list(DEFAULT_PHASES))
    if not names or not all(isinstance(n, str) and n for n in names):
        raise r.fail("phases.names", "phases.names must be a non-empty list of strings")

    scope = r.section("scope")
    protected = r.get(scope, "scope", "protected", list, list(default_protected(kind)))
    if not all(isinstance(p, str) for p in protected):
        raise r.fail("scope.protected", "scope.protected must be a list of glob patterns")

    tolerances: dict[str, float] = {}
    for key, value in r.section("tolerances").items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise r.fail(f"tolerances.{key}", "a tolerance must be a number >= 0")
        tolerances[key] = float(value)

    r.section("state")
    return ProjectConfig(
        operator=operator,
        case=case,
        tunables=tunables,
        commands=commands,
        target=target,
        costmodel=costmodel,
        discipline=discipline,
        phases=tuple(names),
        protected=tuple(protected),
        tolerances=tolerances,
    )


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


def valid_operator_name(name: str) -> bool:
    """An operator name is one path component inside projects/: no '..', no '/', not empty."""
    return bool(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*", name)) and ".." not in name


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
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- the file


class ProjectFile:
    """project.toml on disk: parsed config plus the tomlkit document for faithful rewrites."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError("no project.toml here", file=path) from None
        except UnicodeDecodeError as error:
            raise ConfigError(f"not UTF-8 text ({error.reason})", file=path) from None
        except OSError as error:
            raise ConfigError(f"cannot read: {error.strerror}", file=path) from None
        self.config = parse_config(path, self.text)
        try:
            self.document = tomlkit.parse(self.text)
        except tomlkit.exceptions.ParseError as error:  # tomllib accepted it; be safe anyway
            raise ConfigError(f"invalid TOML: {error}", file=path, line=error.line) from None

    def set(self, dotted: str, value: Any) -> None:
        """Set a dotted key in the document (creating tables as needed); call save() after."""
        parts = dotted.split(".")
        table: Any = self.document
        for part in parts[:-1]:
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[parts[-1]] = value

    def get_state(self, key: str, default: Any = None) -> Any:
        state = self.document.get("state", {})
        return state.get(key, default)

    def save(self) -> None:
        """Validate the edited document, then write it atomically."""
        text = tomlkit.dumps(self.document)
        self.config = parse_config(self.path, text)
        atomic_write_text(self.path, text)
        self.text = text
