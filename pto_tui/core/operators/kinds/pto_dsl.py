"""PTO-DSL operators in source: a folder holding a Python file that defines a kernel
(evidence.py says what counts), its cases the pto-kernels bench specs beside it, its knobs
`tuned_int(...)`; inside a pto-kernels package, the repository's runner, specs and variants."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.operators.bench_specs import spec_tolerances
from pto_tui.core.operators.evidence import python_facts, read_head
from pto_tui.core.operators.kinds.spec import KindEvidence, KindSource, ResultChoice
from pto_tui.core.operators.marker import CaseChoice
from pto_tui.core.operators.repository import find_operator_repository
from pto_tui.core.operators.skip_rules import file_skip_reason
from pto_tui.core.operators.tunables import discover
from pto_tui.core.vocabulary import OperatorKind, TargetMode


def gather(folder: Path, files: list[Path]) -> KindEvidence:
    """The kernel definitions of the folder's own Python files (not its sub-folders')."""
    found = KindEvidence()
    for path in files:
        if path.suffix == ".py" and path.parent == folder:
            _add_python(found, path, path.relative_to(folder).as_posix())
    found.found = bool(found.lines)
    return found


def _add_python(found: KindEvidence, path: Path, rel: str) -> None:
    text = read_head(path)
    facts = python_facts(rel, text) if text else None
    if facts is None or not facts.kernels:
        return
    if facts.provides:
        found.not_counted.append(f"{rel}: defines the DSL's {facts.provides}(): a library")
    elif reason := file_skip_reason(path.name):
        found.not_counted.append(f"{rel}: {reason}")
    elif facts.defines_kernel:
        found.lines.extend(facts.imports + facts.kernels)
        found.files.append(rel)
        found.modules.update(facts.modules)


def bench_spec_cases(folder: Path) -> tuple[CaseChoice, ...]:
    """pto-kernels bench specs (bench/specs/<family>/<name>.yaml) are the DSL operator's cases."""
    specs = folder / "bench" / "specs"
    if not specs.is_dir():
        return ()
    return tuple(
        CaseChoice(name=p.stem, spec=p.relative_to(folder).as_posix())
        for p in sorted(specs.rglob("*.yaml"))
    )


def result_for(source: Path, _mode: TargetMode) -> ResultChoice:
    """A PTO-DSL folder outside a pto-kernels repository runs with the kind's defaults (`import
    kernel`, the pto_kernels runner on a bench spec beside it); one with neither a kernel.py
    nor a bench spec (pto-dsl's examples, built by their own compile.sh) has nothing they could
    run: named, with the scripts it does have."""
    if not source.is_dir() or (source / "kernel.py").is_file() or bench_spec_cases(source):
        return ResultChoice()
    own = sorted(p.name for p in source.iterdir() if p.suffix in (".sh", ".py") and p.is_file())
    problem = (
        f"{source}: no kernel.py and no bench/specs beside it, so the PTO-DSL defaults (`import "
        "kernel`, the pto_kernels runner) have nothing to run"
        + (f"; its own scripts: {', '.join(own)}" if own else "")
    )
    hint = (
        "declare its build and benchmark, how a run is read and what its build writes beside "
        "the sources, in a pto-operator.toml beside it ([commands], [result], generated; "
        "docs/pto-operator-toml.md), or give them: --command build=... --command benchmark=..."
    )
    return ResultChoice(problem=problem, hint=hint)


PTO_DSL = KindSource(
    kind=OperatorKind.PTO_DSL,
    gather=gather,
    tunables=discover,
    cases=bench_spec_cases,
    kernels_imported=True,
    package_repository=find_operator_repository,
    runner_tolerances=spec_tolerances,
    result_for=result_for,
)
