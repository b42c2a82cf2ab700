"""Creating a project on one of the built-in CPU demo operators."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.planning import case_from_choice
from pto_tui.core.campaign.scaffold import create_project
from pto_tui.core.errors import InputError
from pto_tui.core.operators.operator_knobs import merge_tunables
from pto_tui.core.operators.scan import classify
from pto_tui.core.operators.tunables import discover
from pto_tui.core.project.config import CostmodelConfig, OperatorConfig, Target
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.modes import DEMO_MODE
from pto_tui.core.vocabulary import TargetKind
from pto_tui.demo import demo_operator_dir

# the demo kinds people type, and the demo operator behind each
DEMO_KINDS = {"dsl": "demo_attention", "tile-lib": "demo_fa"}
DEMO_DISCIPLINE = {"repeats": 7, "max_repeats": 15, "warmup": 2, "noise_floor": 0.05, "max_spread": 0.35}


def create_demo_project(which: str, projects_root: Path, *, overwrite: bool = False) -> Path:
    """Scaffold projects/<demo operator>/ with its first listed case and a local target."""
    if which not in DEMO_KINDS:
        raise InputError(f"unknown demo {which!r}; choose one of: {', '.join(DEMO_KINDS)}")
    source = demo_operator_dir(DEMO_KINDS[which])
    candidate = classify(source)
    if candidate is None or candidate.kind is None or not candidate.cases:
        raise InputError(f"the demo operator at {source} is not declared properly", file=source)
    spec = NewProject(
        operator=OperatorConfig(
            name=candidate.name, kind=candidate.kind, source=str(source), demo=True
        ),
        source=source,
        case=case_from_choice(candidate.cases[0]),
        tunables=merge_tunables(discover(source), candidate),
        target=Target(kind=TargetKind.LOCAL, mode=DEMO_MODE),
        costmodel=CostmodelConfig(),
        requirements=candidate.description + ". Runs on the CPU: timings are real but not NPU timings.",
        commands=dict(candidate.commands),
    )
    root = create_project(spec, projects_root, overwrite=overwrite)
    # CPU timings on a shared machine swing more than NPU timings: the demo's discipline
    # says so openly (a wider noise floor and spread); the demo's runs are short, so two
    # warm-ups suffice and an undecided round may take up to 15 runs
    project = ProjectFile(root / "project.toml")
    for key, value in DEMO_DISCIPLINE.items():
        project.set(f"discipline.{key}", value)
    project.save()
    return root
