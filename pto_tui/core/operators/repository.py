"""A PTO-DSL operator inside its repository, as pto-kernels lays it out.

An operator is a folder `python/pto_kernels/ops/<family>/<op>/` (kernel.py, meta.py,
runtime.py) inside a package inside a repository. Its shared code sits beside it
(`ops/<family>/common.py`, `ops/common.py`), its benchmark spec elsewhere
(`bench/specs/<family>/<name>.yaml`), its adapter in `bench/adapters/ptodsl/...`. The
runner imports the operator from the repository's package, so what gets built and
benchmarked is the repository, never the operator folder alone.

Pure: this reads files, never imports or runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.operators.bench_specs import BenchSpec, specs_naming
from pto_tui.core.operators.knob_report import KnobReport, LeftOut, unique
from pto_tui.core.operators.operator_sources import (
    ShapeKnob,
    Variant,
    environment_writes,
    meta_keywords,
    read_variants,
    shape_knobs,
)
from pto_tui.core.operators.python_imports import imported_modules, kernel_home
from pto_tui.core.operators.tunables import discover, dsl_knobs
from pto_tui.core.project.config import Tunable

OPS_FOLDER = "ops"  # <package>/ops/<family>/<op>


@dataclass(frozen=True)
class OperatorInRepository:
    """Where an operator sits in its repository and what the repository says about it."""

    root: Path  # the repository root (the runner's working directory)
    path: str  # the operator folder, relative to root
    name: str
    family: str
    family_from: str  # "meta.py" or "path"
    package: str  # the package holding ops/, relative to root (python/pto_kernels)
    python_path: str  # the folder to put on PYTHONPATH, relative to root ("" = root)
    specs: tuple[BenchSpec, ...] = ()
    variants: tuple[Variant, ...] = ()
    adapter: str = ""  # relative to root; "" when there is none
    shape_knobs: tuple[ShapeKnob, ...] = ()
    shared: tuple[str, ...] = ()  # shared code the operator imports from, relative to root
    # the repository's modules the operator's kernel imports (transitively), relative to root:
    # another operator's kernel (the local matmul of an mc2 operator), the family's common.py
    imports: tuple[str, ...] = ()
    # the shared file its kernel is really built in (the family's common.py), relative to root;
    # "" when it is built in the operator folder
    kernel_home: str = ""

    @property
    def module(self) -> str:
        """The kernel's dotted module name, as the repository's package imports it."""
        inner = self.path[len(self.python_path) :].strip("/") if self.python_path else self.path
        return inner.replace("/", ".") + ".kernel"

    def spec_for(self, case_name: str) -> BenchSpec | None:
        """The spec a case names, else the one named like the operator, else the first."""
        for wanted in (case_name, self.name):
            for spec in self.specs:
                if spec.name == wanted:
                    return spec
        return self.specs[0] if self.specs else None


def _ops_folder(operator: Path) -> Path | None:
    """The `ops` package folder two levels above the operator folder, if it is one."""
    ops = operator.parent.parent
    if ops.name == OPS_FOLDER and (ops / "__init__.py").is_file():
        return ops
    return None


def _top_package(folder: Path) -> Path:
    """The outermost folder of the package chain (each with __init__.py) holding folder."""
    top = folder
    while (top.parent / "__init__.py").is_file():
        top = top.parent
    return top


def find_root(operator: Path, package: Path) -> Path:
    """The repository root: the nearest folder above the package with `.git`, or with
    `pyproject.toml` and `bench/specs`; else the package root (its parent, or the parent
    of a `python/` source folder)."""
    for folder in package.parents:
        if (folder / ".git").exists():
            return folder
        if (folder / "pyproject.toml").is_file() and (folder / "bench" / "specs").is_dir():
            return folder
    source_root = package.parent
    return source_root.parent if source_root.name == "python" else source_root


def _shared_files(root: Path, operator: Path, ops: Path) -> tuple[str, ...]:
    candidates = (operator.parent / "common.py", ops / "common.py")
    return tuple(p.relative_to(root).as_posix() for p in candidates if p.is_file())


def _adapter(root: Path, specs: tuple[BenchSpec, ...], family: str, name: str) -> str:
    for spec in specs:
        if spec.adapter and (root / spec.adapter).is_file():
            return spec.adapter
    guess = f"bench/adapters/ptodsl/{family}/{name}.py"
    return guess if (root / guess).is_file() else ""


def _kernel_home(root: Path, operator: Path, source_root: Path) -> str:
    home = kernel_home(operator / "kernel.py", source_root)
    if home is None or not home.is_relative_to(root) or home.is_relative_to(operator):
        return ""
    return home.relative_to(root).as_posix()


def find_operator_repository(operator: Path) -> OperatorInRepository | None:
    """The repository model of an operator folder, or None when it is not a pto-kernels
    style operator (`<package>/ops/<family>/<op>/` inside a Python package)."""
    operator = operator.expanduser().resolve()
    ops = _ops_folder(operator) if operator.is_dir() else None
    if ops is None:
        return None
    package = _top_package(ops)
    root = find_root(operator, package)
    path = operator.relative_to(root).as_posix()
    meta = meta_keywords(operator / "meta.py")
    family = meta.get("family") or operator.parent.name
    name = meta.get("name") or operator.name
    specs = specs_naming(root, path, name, family)
    adapter = _adapter(root, specs, family, name)
    source_root = package.parent
    imports = imported_modules(operator, source_root, ops)
    knob_names = {t.name for t in discover(operator) if t.kind == "env"}
    knob_names |= {t.name for module in imports for t in dsl_knobs(module, module.name)}
    knobs = shape_knobs(root / adapter, adapter, knob_names) if adapter else ()
    return OperatorInRepository(
        root=root,
        path=path,
        name=name,
        family=family,
        family_from="meta.py" if meta.get("family") else "path",
        package=package.relative_to(root).as_posix(),
        python_path="" if source_root == root else source_root.relative_to(root).as_posix(),
        specs=specs,
        variants=read_variants(operator / "runtime.py", f"{path}/runtime.py"),
        adapter=adapter,
        shape_knobs=knobs,
        shared=_shared_files(root, operator, ops),
        imports=tuple(p.relative_to(root).as_posix() for p in imports),
        kernel_home=_kernel_home(root, operator, source_root),
    )


def repository_report(repo: OperatorInRepository) -> KnobReport:
    """The operator's knobs, `where` relative to the repository root: those of its own folder
    and of the kernel modules it imports (an env knob is set by name, whichever file reads
    it); the shape knobs the adapter takes from the variant are the workload; a knob the
    runtime sets itself at run time (a rank, a device id) is left out, never tunable."""
    shape = {k.name for k in repo.shape_knobs}
    found = [
        Tunable(t.name, t.value, t.kind, t.default, t.allowed, f"{repo.path}/{t.where}" if t.where else "")
        for t in discover(repo.root / repo.path)
    ]
    found += [t for rel in repo.imports for t in dsl_knobs(repo.root / rel, rel)]
    runtime = environment_writes(repo.root / repo.path / "runtime.py", f"{repo.path}/runtime.py")
    tuning: list[Tunable] = []
    workload: list[Tunable] = []
    left_out: list[LeftOut] = []
    for tunable in unique(found):
        if tunable.name in shape:
            workload.append(tunable)
        elif tunable.name in runtime:
            reason = f"set at run time by {runtime[tunable.name]} (each process sets its own), never tunable"
            left_out.append(LeftOut(tunable.name, reason, tunable.where))
        else:
            tuning.append(tunable)
    return KnobReport(tuple(tuning), (), tuple(left_out), tuple(workload))


def repository_tunables(repo: OperatorInRepository) -> tuple[list[Tunable], list[Tunable]]:
    """(tuning knobs, shape knobs) of the operator (repository_report's)."""
    report = repository_report(repo)
    return list(report.tunables), list(report.workload)
