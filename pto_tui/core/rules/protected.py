"""What a round may not change without a reason: the protected files (benchmark,
harness, test logic, thresholds, workload; changed only in a declared bug fix), the
correctness tolerances (loosened only with the user's approval) and the [discipline]
the verdicts are decided under (changed only with a reason)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pto_tui.core.project.layout import round_name
from pto_tui.core.rules.reasons import reason_findings, reason_problem
from pto_tui.core.rules.rule import Finding, Rule

# checked against the reference hashes when changes are recorded, measured and closed
_STEPS = ("changes", "measure", "run", "close")

EDITABLE_SCOPE = Rule(
    "editable-scope",
    refuses="a change to a protected file (benchmark, harness, test logic, thresholds, "
    "workload) outside a declared bug fix, and a bug fix whose reason says nothing",
    fix="undo the change to the protected file, or declare the round a bug fix with a reason",
    steps=_STEPS,
    cli="`round changes --bug-fix REASON`",
    mcp="`round_changes` bug_fix",
    tui="the Round pane's bug-fix reason field, then Record changes",
)
TOLERANCE_PROTECTED = Rule(
    "tolerance-protected",
    refuses="a correctness tolerance loosened ([tolerances], or the bench spec the runner "
    "judges by) without the user's explicit approval with a reason",
    fix="restore the tolerance, or record the user's explicit approval (who and why)",
    steps=_STEPS,
    cli="`round changes --approve-tolerance REASON`",
    mcp="`round_changes` approve_tolerance",
    tui="the Round pane's tolerance approval field, then Record changes",
)
DISCIPLINE_PROTECTED = Rule(
    "discipline-protected",
    refuses="a change of [discipline] (the verdict rules' limits) since the newest closed "
    "round without a reason",
    fix="restore the [discipline] values in project.toml, or justify the change with a reason",
    steps=_STEPS,
    cli="`round changes --approve-discipline REASON`",
    mcp="`round_changes` approve_discipline",
    tui="the Round pane's [discipline] reason field, then Record changes",
)


def bug_fix_findings(bug_fix: str) -> list[Finding]:
    """A declared bug fix needs a reason that says something."""
    return reason_findings(EDITABLE_SCOPE, "bug fix", bug_fix) if bug_fix.strip() else []


def protected_findings(
    changed: Sequence[str], bug_fix: str, kernel_files: Sequence[str] = ()
) -> list[Finding]:
    """Editable scope: protected files change only in a declared bug fix with a reason. A
    shared file the operator's kernel is built in (`kernel_files`) is kernel code, not a
    harness: the way to edit it is to name it related when the project is made."""
    if not changed:
        return []
    if bug_fix.strip():
        return bug_fix_findings(bug_fix)
    kernel = [path for path in changed if path in kernel_files]
    harness = [path for path in changed if path not in kernel_files]
    findings = []
    if harness:
        findings.append(EDITABLE_SCOPE.finding_with_fix(
            "protected file(s) changed: "
            + ", ".join(harness)
            + " (benchmark, harness, test logic, thresholds or workload); "
            "only a declared bug fix with a reason may change them",
            files=tuple(f"workspace/{path}" for path in harness),
        ))
    if kernel:
        related = " ".join(f"--related {path.split('/', 1)[-1]}" for path in kernel)
        findings.append(EDITABLE_SCOPE.finding(
            "kernel code outside the operator folder changed: " + ", ".join(kernel) + " (shared with "
            "its family; the operator's kernel is built there), which this project does not name "
            f"related; to tune it, make the project with it related (pto-tui new SOURCE {related}), "
            "or undo the change",
            # the way is --related, not a bug fix: said as the refusal's hint
            hint=f"pto-tui new SOURCE {related} makes it editable in rounds; this is no bug fix",
            files=tuple(f"workspace/{path}" for path in kernel),
        ))
    return findings


def loosened_tolerances(reference: Mapping[str, float], current: Mapping[str, float]) -> list[str]:
    """Tolerances that are larger than, or missing from, what the baseline used."""
    out = []
    for key, value in reference.items():
        if key not in current:
            out.append(f"{key} removed (was {value:g})")
        elif current[key] > value:
            out.append(f"{key} {value:g} -> {current[key]:g}")
    return out


def tolerance_findings(loosened: Sequence[str], approval: str) -> list[Finding]:
    """A loosened tolerance needs the user's explicit approval, with a reason."""
    if not loosened:
        return []
    if approval.strip():
        return reason_findings(
            TOLERANCE_PROTECTED, "correctness tolerance loosened: " + ", ".join(loosened)
            + "; its approval", approval,
        )
    return [
        TOLERANCE_PROTECTED.finding_with_fix(
            "correctness tolerance loosened: "
            + ", ".join(loosened)
            + "; this needs the user's explicit approval with a reason"
        )
    ]


def discipline_changes(reference: Mapping[str, float], current: Mapping[str, float]) -> list[str]:
    """[discipline] keys whose value differs from what the reference round closed under."""
    return [
        f"{key} {value:g} -> {current[key]:g}" if key in current else f"{key} removed"
        for key, value in reference.items()
        if current.get(key) != value
    ]


def discipline_findings(changed: Sequence[str], since: int, approval: str) -> list[Finding]:
    """A change of the verdict rules after the baseline is an event with a reason: a
    refused verdict must not turn into kept by raising a limit."""
    if not changed:
        return []
    problem = reason_problem(approval)
    if problem is None:
        return []
    return [
        DISCIPLINE_PROTECTED.finding_with_fix(
            f"[discipline] changed since {round_name(since)} closed: " + ", ".join(changed)
            + f" ({problem}); restore the values, or justify the change with a reason"
        )
    ]
