"""What a rule of the workflow is, what it finds, and the one way a step refuses.

A rule is declared once, in the module of `core/rules` that checks it: its id (shown to
people and agents), what it refuses, the steps that enforce it and what answers it. Its
checks are pure functions of that module returning findings; a step of the campaign
calls them and refuses with `refuse(findings)`. `registry.RULES` lists every rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import RuleViolation

# The steps a rule is enforced at (`Rule.steps`), as docs/rules.md names them.
STEPS: dict[str, str] = {
    "env": "recording the environment round (`pto-tui env`)",
    "baseline": "recording the baseline, iter-000 (`pto-tui baseline`)",
    "start": "starting a round (`round start`; the Pre-Edit form shows the findings live)",
    "changes": "recording a round's changes (`round changes`)",
    "measure": "recording a measurement (`round measure`)",
    "run": "`round run`, before it builds (and as it records and closes)",
    "close": "closing a round (`round close`)",
    "amend": "amending a closed round (`amend`)",
    "confirm": "confirming a round held for review (`round confirm`)",
    "rerun": "rerunning a round (`round rerun`)",
    "delete": "deleting a round",
    "report": "reading a result file given by hand (`--report`)",
    "write": "any write to a round (or the workspace) while another owner runs it",
}


@dataclass(frozen=True)
class Finding:
    """One thing a rule refuses: the rule's id, what is wrong (with its fix, where the
    message can name it), and a hint for the fix when it is long."""

    rule: str
    message: str
    hint: str = ""
    files: tuple[str, ...] = ()  # the files it is about (workspace-relative), when it names some

    def render(self) -> str:
        return f"[{self.rule}] {self.message}"


@dataclass(frozen=True)
class Rule:
    """A rule of the workflow. `fix` says what answers it in words every front end can
    show (the record field or the action); `cli`, `mcp` and `tui` name the command,
    option, tool, argument, field or key that gives that answer on the command line, over
    MCP and in the terminal application."""

    id: str
    refuses: str
    fix: str
    steps: tuple[str, ...]
    cli: str = ""
    mcp: str = ""
    tui: str = ""

    def finding(self, message: str, hint: str = "", files: tuple[str, ...] = ()) -> Finding:
        return Finding(self.id, message, hint, files)

    def finding_with_fix(self, message: str, hint: str = "", files: tuple[str, ...] = ()) -> Finding:
        """A finding whose message ends with the command-line piece that answers it, in
        parentheses: each other front end shows its own piece there (`for_front`)."""
        return Finding(self.id, f"{message} ({self.cli})" if self.cli else message, hint, files)

    def piece(self, front: str) -> str:
        """What answers the rule in front end `front` ("cli", "mcp" or "tui"), "" if none."""
        return {"cli": self.cli, "mcp": self.mcp, "tui": self.tui}.get(front, "")

    def fix_for(self, front: str) -> str:
        """The fix with the piece front end `front` needs, when it has one."""
        piece = self.piece(front)
        return f"{self.fix} ({piece})" if piece else self.fix


def refuse(findings: Sequence[Finding], *, file: str | Path | None = None) -> None:
    """Raise the first finding as a RuleViolation, the others listed after it (and each
    one kept, with its files, for the front ends that show them apart); nothing when there
    is none. `file`: the file the refusal is about, else the first one a finding names."""
    if findings:
        first = findings[0]
        rest = "".join(f"\n  also [{f.rule}] {f.message}" for f in findings[1:])
        named = next((f.files[0] for f in findings if f.files), None)
        raise RuleViolation(
            first.rule,
            first.message + rest,
            file=file if file is not None else named,
            hint=first.hint or None,
            findings=[(f.rule, f.message, f.hint, f.files) for f in findings],
        )
