"""The workflow's rules as pure functions. Each finding names the rule it applies.

The CLI refuses an action when a rule finds a violation; the TUI shows the same
findings next to the disabled step. Nothing here reads or writes files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

from pto_tui.core.errors import RuleViolation
from pto_tui.core.operators.workload_reads import WorkloadRead
from pto_tui.core.rounds.records import CLOSED, PreEdit, Round, checklist_complete
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, PRE_EDIT_FIELDS, Verdict

# Rule ids, as shown to people.
FOUR_QUESTIONS = "four-questions"
PRE_EDIT_COMPLETE = "pre-edit-complete"
BOTTLENECK_CLASS = "bottleneck-class"
HARDWARE_CHECKLIST = "hardware-checklist"
ENVIRONMENT_ROUND = "environment-round"
BASELINE_FIRST = "baseline-first"
ONE_ROUND_AT_A_TIME = "one-round-at-a-time"
THREE_ROUND_RULE = "three-round-rule"
CORRECTNESS_FIRST = "correctness-before-performance"
SAME_WORKLOAD = "same-workload"
HONEST_HISTORY = "honest-history"
VALID_BASELINE = "valid-baseline"
EDITABLE_SCOPE = "editable-scope"
HIGH_RISK = "high-risk-justification"
ONE_HYPOTHESIS = "one-hypothesis"
TOLERANCE_PROTECTED = "tolerance-protected"
HONEST_VERDICT = "honest-verdict"
REVIEW_LARGE_GAIN = "review-large-gain"
DISCIPLINE_PROTECTED = "discipline-protected"
ONE_OWNER_PER_ROUND = "one-owner-per-round"
VALID_RECORD = "valid-record"


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str

    def render(self) -> str:
        return f"[{self.rule}] {self.message}"


def refuse(findings: list[Finding]) -> None:
    """Raise the first finding as a RuleViolation, the others listed after it."""
    if findings:
        first = findings[0]
        rest = "".join(f"\n  also [{f.rule}] {f.message}" for f in findings[1:])
        raise RuleViolation(first.rule, first.message + rest)


# The four questions (docs/workflow.md §10.1) and the Pre-Edit fields that answer them.
FOUR_QUESTION_FIELDS: tuple[tuple[str, str], ...] = (
    ("bottleneck", "what is the bottleneck"),
    ("why_ascend", "why this change helps on Ascend"),
    ("expected_metric", "which metric should improve"),
    ("correctness_plan", "how correctness is assured"),
)


def pre_edit_findings(pre: PreEdit) -> list[Finding]:
    """Gates on the Pre-Edit form alone: the four questions, every field, class, checklist."""
    findings: list[Finding] = []
    for key, question in FOUR_QUESTION_FIELDS:
        if not getattr(pre, key).strip():
            findings.append(Finding(FOUR_QUESTIONS, f"not answered: {question}"))
    labels = dict(PRE_EDIT_FIELDS)
    for key, label in labels.items():
        if key in ("bottleneck", "why_ascend", "expected_metric"):
            continue  # reported under the four questions
        if not pre.field_value(key).strip():
            findings.append(Finding(PRE_EDIT_COMPLETE, f"Pre-Edit field '{label}' is empty"))
    if pre.bottleneck.strip() and pre.bottleneck not in BOTTLENECK_CLASSES:
        findings.append(
            Finding(
                BOTTLENECK_CLASS,
                f"'{pre.bottleneck}' is not a bottleneck class; choose one of: "
                + "; ".join(BOTTLENECK_CLASSES),
            )
        )
    if not [item for item in pre.scope if item.strip()]:
        findings.append(
            Finding(
                ONE_HYPOTHESIS,
                "declare the files or parameters this hypothesis will change (scope); "
                "changes outside it are refused",
            )
        )
    catch_all = [item for item in pre.scope if is_catch_all(item)]
    if catch_all:
        findings.append(
            Finding(
                ONE_HYPOTHESIS,
                f"scope {', '.join(repr(i) for i in catch_all)} covers the whole project: "
                "declare the files or parameters this hypothesis changes",
            )
        )
    missing = checklist_complete(pre)
    if missing:
        findings.append(
            Finding(
                HARDWARE_CHECKLIST,
                "hardware checklist items not ticked with a note: " + ", ".join(missing),
            )
        )
    return findings


def is_catch_all(pattern: str) -> bool:
    """A scope item that matches every file of the project ("**", "*", "./**/*", "/")."""
    text = pattern.strip()
    return bool(text) and set(text) <= set("*/.") and ".." not in text.replace("*", "")


def rounds_without_gain(rounds: Sequence[Round]) -> int:
    """Consecutive closed tuning rounds, newest first, without a kept verdict (a kept the
    history does not vouch for, `unverified`, is none)."""
    count = 0
    for record in sorted(rounds, key=attrgetter("number"), reverse=True):
        if record.number == 0 or record.status != CLOSED:
            continue
        if record.effective_verdict() is Verdict.KEPT and not record.unverified:
            break
        count += 1
    return count


def three_round_rule_applies(rounds: Sequence[Round]) -> bool:
    return rounds_without_gain(rounds) >= 3


def start_findings(pre: PreEdit, rounds: Sequence[Round]) -> list[Finding]:
    """Everything that must hold before a tuning round may start (and its edit begin)."""
    findings = pre_edit_findings(pre)
    baseline = next((r for r in rounds if r.is_baseline), None)
    env = baseline.environment if baseline else None
    if env is None or not env.passed:
        findings.append(
            Finding(ENVIRONMENT_ROUND, "the environment round has not passed: tuning is locked")
        )
    if baseline is None or not baseline.is_closed:
        findings.append(Finding(BASELINE_FIRST, "record the baseline (iter-000) before round 1"))
    open_rounds = [r.number for r in rounds if r.status != CLOSED and r.number != 0]
    if open_rounds:
        findings.append(
            Finding(ONE_ROUND_AT_A_TIME, f"round {open_rounds[0]} is still open: close it first")
        )
    answered = pre.bottleneck_recheck.strip() and pre.new_direction.strip()
    if three_round_rule_applies(rounds) and not answered:
        findings.append(
            Finding(
                THREE_ROUND_RULE,
                f"{rounds_without_gain(rounds)} rounds in a row without a kept verdict: "
                "re-check the bottleneck class and state a new direction",
            )
        )
    return findings


def measurement_findings(build: str, correctness: str, samples: Sequence[float]) -> list[Finding]:
    """Correctness before performance: numbers are only recorded after a passing check."""
    findings: list[Finding] = []
    if samples and build != "ok":
        findings.append(
            Finding(CORRECTNESS_FIRST, "performance recorded without a successful build")
        )
    if samples and correctness != "pass":
        findings.append(
            Finding(CORRECTNESS_FIRST, "performance recorded without a passing correctness step")
        )
    return findings


def scope_findings(stray: Sequence[str], scope: Sequence[str]) -> list[Finding]:
    """One hypothesis per round: every change must fall inside the declared scope."""
    if not stray:
        return []
    return [
        Finding(
            ONE_HYPOTHESIS,
            f"changes outside the declared scope ({', '.join(scope) or 'none'}): "
            + ", ".join(stray)
            + "; revert them, or test them in a round of their own",
        )
    ]


# A reason (bug fix, review confirmation, discipline change) must say something: a single
# character or a row of dots unlocked protected files before.
REASON_MIN_CHARS = 12
REASON_MIN_WORDS = 2


def reason_problem(reason: str) -> str | None:
    """Why `reason` is no reason (too short, fewer than two words, no letters), or None."""
    text = " ".join(reason.split())
    words = [w for w in text.split(" ") if any(c.isalnum() for c in w)]
    if not text:
        return "no reason given"
    if len(text) < REASON_MIN_CHARS or len(words) < REASON_MIN_WORDS:
        return (
            f"the reason {text!r} says nothing: write at least {REASON_MIN_WORDS} words and "
            f"{REASON_MIN_CHARS} characters"
        )
    return None


def declared_environment_findings(declared_by: str, passed: bool, reason: str) -> list[Finding]:
    """Probes given by hand are no evidence: nothing was built or run on the target. Such an
    environment round passes only when declared so with a reason that says something."""
    if not declared_by or not passed:
        return []
    if not reason.strip():
        return [
            Finding(
                ENVIRONMENT_ROUND,
                f"the probes were given by hand ({declared_by}), not run: nothing was built or "
                "measured on the target; run `pto-tui env` to probe it, or declare the "
                "environment with a reason (--declare-environment REASON; over MCP "
                "declare_environment)",
            )
        ]
    problem = reason_problem(reason)
    return [Finding(ENVIRONMENT_ROUND, f"declared environment: {problem}")] if problem else []


def bug_fix_findings(bug_fix: str) -> list[Finding]:
    """A declared bug fix needs a reason that says something."""
    problem = reason_problem(bug_fix) if bug_fix.strip() else None
    return [Finding(EDITABLE_SCOPE, f"bug fix: {problem}")] if problem else []


def protected_findings(changed: Sequence[str], bug_fix: str) -> list[Finding]:
    """Editable scope: protected files change only in a declared bug fix with a reason."""
    if not changed:
        return []
    if bug_fix.strip():
        return bug_fix_findings(bug_fix)
    return [
        Finding(
            EDITABLE_SCOPE,
            "protected file(s) changed: "
            + ", ".join(changed)
            + " (benchmark, harness, test logic, thresholds or workload); "
            "only a declared bug fix with a reason may change them (--bug-fix REASON)",
        )
    ]


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
    if not loosened or approval.strip():
        return []
    return [
        Finding(
            TOLERANCE_PROTECTED,
            "correctness tolerance loosened: "
            + ", ".join(loosened)
            + "; this needs the user's explicit approval with a reason (--approve-tolerance)",
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
    problem = reason_problem(approval) if approval.strip() else "no reason given"
    if problem is None:
        return []
    return [
        Finding(
            DISCIPLINE_PROTECTED,
            f"[discipline] changed since iter-{since:03d} closed: " + ", ".join(changed)
            + f" ({problem}); justify the change with --approve-discipline REASON, "
            "or restore the values",
        )
    ]


def risk_findings(high_risk: Sequence[str], justification: str) -> list[Finding]:
    if not high_risk or justification.strip():
        return []
    return [
        Finding(
            HIGH_RISK,
            "high-risk change: " + "; ".join(high_risk) + " — write a justification (--justify)",
        )
    ]


def workload_knob_findings(requested: Mapping[str, object], knobs: Mapping[str, object]) -> list[Finding]:
    """A round may not set a shape knob: it is the workload (the adapter sets it from each
    variant), and a different workload makes the comparison with the baseline meaningless."""
    return [
        Finding(
            SAME_WORKLOAD,
            f"{name} is a shape knob of the workload ([case] knobs: {name} = {knobs[name]!r}), "
            f"not a tuning knob; setting it to {value!r} would change the workload",
        )
        for name, value in requested.items()
        if name in knobs
    ]



def workload_read_findings(
    baseline: Sequence[WorkloadRead], current: Sequence[WorkloadRead], folder: str
) -> list[Finding]:
    """Same workload inside the kernel: every read of the workload the baseline's source
    made (a shape knob's env read, a case field passed to the kernel) is still made, in the
    same file. A read replaced by a literal measures another workload. `folder` is the
    operator folder the reads' files are relative to, for the message."""
    now = Counter((r.name, r.file) for r in current)
    lost: list[WorkloadRead] = []
    for read in baseline:
        key = (read.name, read.file)
        if now[key] > 0:
            now[key] -= 1
        else:
            lost.append(read)
    return [
        Finding(
            SAME_WORKLOAD,
            f"{folder}/{read.where} read the workload's {read.name} at the baseline "
            f"({read.text or 'its read'}); this round removed or replaced that read (a literal "
            "there is another workload inside the kernel): restore it",
        )
        for read in lost
    ]
