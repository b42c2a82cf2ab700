"""One owner per running round: while a run (of one pto-tui: the terminal application,
a CLI command, an MCP server) holds the workspace and its round, another owner's writes
to that round, and its changes or builds of the workspace, wait for it to end."""

from __future__ import annotations

from pto_tui.core.project.layout import round_name
from pto_tui.core.project.run_claim import RunClaim
from pto_tui.core.rules.rule import Finding, Rule

ONE_OWNER_PER_ROUND = Rule(
    "one-owner-per-round",
    refuses="a write to a round, or a change or build of the workspace, while another "
    "owner's run holds it",
    fix="wait for that run to end, or cancel it; a run whose pto-tui died is taken over by "
    "the next one",
    steps=("write",),
    cli="`pto-tui round run --resume` takes over a dead run",
)


def owner_findings(
    claim: RunClaim | None, number: int | None, *, workspace: bool = False, doing: str = ""
) -> list[Finding]:
    """Another owner's run `claim` against a write to round `number`; with `workspace`,
    against any write that changes or builds the workspace."""
    if claim is None or not (workspace or claim.round == number):
        return []
    what = doing or (f"writing {round_name(number)}" if number is not None else "this write")
    return [
        ONE_OWNER_PER_ROUND.finding(
            f"{claim.describe()} is in progress; {what} waits until it ends "
            "(one owner per running round)",
            hint="cancel that run, or wait for it to finish; a run whose pto-tui died is "
            "taken over by the next one (`pto-tui round run --resume`)",
        )
    ]
