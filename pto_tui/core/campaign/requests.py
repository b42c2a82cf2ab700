"""What a front end asks of a campaign step: one record per step that takes options.

The CLI, the MCP server and the terminal application each turn their own input (flags,
a tool's arguments, a form) into one of these and hand it to `Campaign`, whose step
reads it. A new option of a step is a field here, its use in the step, and a line in each
front end's parsing; `Campaign` and the steps' signatures do not change.

Recording a measurement takes no request: its input is already a record (`Measurement`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pto_tui.core.project.config import Scalar
from pto_tui.core.rounds.records import PreEdit
from pto_tui.core.vocabulary import ChangeKind, Verdict


@dataclass(frozen=True)
class StartRequest:
    """Open the next round with its Pre-Edit answers (`round start`)."""

    pre: PreEdit
    phase: str | None = None  # None: the project's current phase
    based_on: int | None = None  # None: the frontier
    title: str = ""
    restore: bool = False  # reset the workspace and tunables to the base round's first
    rerun_of: int | None = None  # the inconclusive round this one measures again
    group: str = ""  # an explore group it starts in: its open rounds do not block it


@dataclass(frozen=True)
class ChangesRequest:
    """Record the open round's changes (`round changes`); a blank text keeps the one
    recorded before."""

    number: int | None = None  # None: the open round
    kind: ChangeKind | None = None  # None: the kind given before, else inferred
    description: str = ""
    parameters: Mapping[str, Scalar] = field(default_factory=dict)  # tunables to set
    bug_fix: str = ""  # why a protected file was changed
    risk_justification: str = ""
    tolerance_approval: str = ""
    discipline_approval: str = ""


@dataclass(frozen=True)
class CloseRequest:
    """Close the open round with the verdict its measurements give (`round close`)."""

    number: int | None = None  # None: the open round
    analysis: str = ""
    next_step: str = ""
    claimed: Verdict | None = None  # refused when the numbers do not support it


@dataclass(frozen=True)
class RerunRequest:
    """Open the next round as a rerun of an inconclusive round (`round rerun`); the
    three-round rule's answers when it applies."""

    number: int
    bottleneck_recheck: str = ""
    new_direction: str = ""


@dataclass(frozen=True)
class AmendRequest:
    """A correction of a closed round's field, kept beside the original (`amend`)."""

    number: int
    field_name: str  # verdict, analysis or next
    value: str
    why: str
    who: str = ""  # blank: user@host
