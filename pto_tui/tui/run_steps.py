"""The steps of a round run, from project.toml's [commands], until the round runner lands.

Temporary by design: the lead's round runner (issue 6) will own running a round
(build → correctness → benchmark repeats) and reading the reports. Until then the Run
pane runs the configured commands as jobs and fills only the placeholders it knows;
a command with any other placeholder is refused, never guessed.
"""

from __future__ import annotations

import shlex
import string
from dataclasses import dataclass

from pto_tui.core.project import ProjectConfig


@dataclass(frozen=True)
class Step:
    name: str
    command: str  # filled; "" when it cannot be run
    missing: tuple[str, ...] = ()  # placeholders nobody can fill yet


def known_values(config: ProjectConfig) -> dict[str, str]:
    values = {
        "case": config.case.spec or config.case.name,
        "npu": str(config.target.npu_id),
        "name": config.operator.name,
        "family": config.operator.family,
    }
    return {k: v for k, v in values.items() if v}


def fill(template: str, values: dict[str, str]) -> Step:
    try:
        fields = [f for _t, f, _s, _c in string.Formatter().parse(template) if f]
    except ValueError as error:
        return Step("", "", (f"unreadable template: {error}",))
    missing = tuple(dict.fromkeys(f for f in fields if f not in values))
    if missing:
        return Step("", "", missing)
    return Step("", template.format(**{k: shlex.quote(v) for k, v in values.items()}))


def round_steps(config: ProjectConfig) -> list[Step]:
    values = known_values(config)
    steps = []
    plan = [("build", config.commands.build), ("correctness", config.commands.correctness)]
    plan += [(f"benchmark {i}/{config.discipline.repeats}", config.commands.benchmark)
             for i in range(1, config.discipline.repeats + 1)]
    for name, template in plan:
        if not template.strip():
            continue  # e.g. correctness read from the benchmark's own output
        filled = fill(template, values)
        steps.append(Step(name, filled.command, filled.missing))
    return steps
