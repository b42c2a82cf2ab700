"""What a repository offers a new project: its cases, its commands and its tolerances,
each with the place it came from (so project.toml can say so in a comment).

Cases: the bench specs that name the operator (the runner benchmarks every variant the
runtime lists) and each of the runtime's VARIANTS (the shape the campaign targets: the
shape knobs take its values). Commands: the kind's defaults, replaced by what the
repository implies (the spec's runner command, the package's kernel module), the
operator's marker, then the user. Tolerances: the case's bench spec's correctness ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pto_tui.core.operators.bench_specs import DEFAULT_FLAGS, SpecTolerances, spec_tolerances
from pto_tui.core.operators.operator_sources import variant_dtype
from pto_tui.core.operators.repository import OperatorInRepository
from pto_tui.core.project.command_table import command_texts
from pto_tui.core.project.config import CaseConfig, Scalar, Tunable, default_commands
from pto_tui.core.project.modes import DEFAULT_MODE
from pto_tui.core.project.sections import MAX_DIMENSION
from pto_tui.core.vocabulary import OperatorKind, TargetMode


@dataclass(frozen=True)
class RepositoryCase:
    """A case the repository lists: a bench spec, or one of the runtime's variants."""

    name: str
    source: str  # "bench spec" or "variant"
    where: str  # the spec file, or runtime.py:line
    shape: dict[str, Scalar] = field(default_factory=dict)

    def describe(self) -> str:
        shape = ", ".join(f"{k}={v}" for k, v in self.shape.items())
        return f"{self.name} ({self.source}, {self.where}{': ' + shape if shape else ''})"


def repository_cases(repo: OperatorInRepository) -> tuple[RepositoryCase, ...]:
    specs = [RepositoryCase(s.name, "bench spec", s.path) for s in repo.specs]
    variants = [RepositoryCase(v.label, "variant", v.where, dict(v.fields)) for v in repo.variants]
    return tuple(specs + variants)


def case_config(
    repo: OperatorInRepository, chosen: RepositoryCase, workload: list[Tunable]
) -> CaseConfig:
    """The project's case: the chosen spec or variant, with the shape knobs' values (a
    variant's own fields, else the knob's default in the kernel)."""
    spec = repo.spec_for(chosen.name if chosen.source == "bench spec" else "")
    variant_fields = chosen.shape if chosen.source == "variant" else {}
    fields_of = {k.name: k.field for k in repo.shape_knobs}
    knobs: dict[str, Scalar] = {}
    for tunable in workload:
        from_variant = variant_fields.get(fields_of.get(tunable.name, ""))
        knobs[tunable.name] = from_variant if from_variant is not None else tunable.value
    options: dict[str, Scalar] = {"bench_spec": spec.path} if spec else {}
    if chosen.source == "variant":
        options["variant"] = chosen.name
    shape, settings = split_variant(variant_fields)
    options.update(settings)
    return CaseConfig(
        name=chosen.name,
        shape=shape,
        dtype=case_dtype(repo, variant_fields if chosen.source == "variant" else None),
        options=options,
        knobs=knobs,
    )


def case_dtype(repo: OperatorInRepository, fields: dict[str, Scalar] | None) -> str:
    """The case's data type: its variant's (`dtype`, else `input_dtype`); for a bench spec
    (every variant runs) the one its variants share; float16 when none says."""
    if fields is not None:
        return variant_dtype(fields) or "float16"
    dtypes = {variant_dtype(v.fields) for v in repo.variants}
    return dtypes.pop() if len(dtypes) == 1 and "" not in dtypes else "float16"


def split_variant(fields: dict[str, Scalar]) -> tuple[dict[str, Scalar], dict[str, Scalar]]:
    """(shape, options) of a variant's fields: dimensions are whole numbers of at least 1;
    the rest (a seed of 0, a scale, a layout name, a probability) are the case's options."""
    shape: dict[str, Scalar] = {}
    options: dict[str, Scalar] = {}
    for key, value in fields.items():
        if key in ("dtype", "input_dtype"):
            continue
        is_dimension = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_DIMENSION
        (shape if is_dimension else options)[key] = value
    return shape, options


def repository_tolerances(repo: OperatorInRepository | None, case: CaseConfig) -> SpecTolerances:
    """The correctness tolerances of the case's bench spec, for [tolerances]: the values a
    later round may not loosen without an approval (the spec itself is only a protected
    file, which a bug fix may change)."""
    bench_spec = str(case.options.get("bench_spec", ""))
    if repo is None or not bench_spec:
        return SpecTolerances()
    origin = f"{bench_spec} ({DEFAULT_FLAGS} for what it leaves out)"
    return SpecTolerances(spec_tolerances(repo.root, bench_spec), origin)


@dataclass(frozen=True)
class EffectiveCommands:
    """The commands a new project runs with, and where each came from."""

    values: dict[str, str]
    origins: dict[str, str]


def repository_commands(repo: OperatorInRepository, case_name: str) -> dict[str, tuple[str, str]]:
    """Commands the repository implies: (command, origin) by key."""
    out: dict[str, tuple[str, str]] = {}
    build = (
        f"python3 -c 'import {repo.module} as kernel; "
        f'kernel.build_jit_wrapper(output_dir="build/{repo.name}")._build()\''
    )
    out["build"] = (build, f"repository: the kernel module {repo.module}")
    spec = repo.spec_for(case_name)
    runner = repo.package.rsplit("/", 1)[-1] + ".bench.runner"
    if spec is not None and (repo.root / repo.package / "bench" / "runner.py").is_file():
        out["benchmark"] = (f"python3 -m {runner} {spec.path}", f"repository spec {spec.path}")
        out["results"] = ("bench/results", f"repository runner {repo.package}/bench/runner.py")
    return out


def effective_commands(
    kind: OperatorKind,
    repository: Mapping[str, tuple[str, str]],
    marker: Mapping[str, str],
    user: Mapping[str, str],
    mode: TargetMode = DEFAULT_MODE,
) -> EffectiveCommands:
    """Kind (and target mode) defaults, then the repository, the operator marker, the
    user: later wins."""
    values = command_texts(default_commands(kind, mode))
    label = kind.value if mode is DEFAULT_MODE else f"{kind.value}, {mode.value}"
    origins = dict.fromkeys(values, f"kind default ({label})")
    for key, (value, origin) in repository.items():
        values[key], origins[key] = value, origin
    for key, value in marker.items():
        values[key], origins[key] = value, "operator marker (pto-operator.toml)"
    for key, value in user.items():
        values[key], origins[key] = value, "user (new --command)"
    return EffectiveCommands(values, origins)
