"""Tools that correct the ledger or the campaign's settings (amendments of closed rounds,
the confirmation of a round held for review, the current phase), rerun an inconclusive
round, and show what changed in a round.

Each opens the campaign for the one call and calls the same Campaign method as the CLI
(`pto-tui amend`, `round confirm`, `phase`), which takes the project lock for the write:
the same rules refuse (a closed round is never rewritten, a held round is confirmed, not
amended, an unknown phase or field is named).
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from pto_tui.core import payloads
from pto_tui.core.campaign.requests import AmendRequest, RerunRequest
from pto_tui.core.campaign.what_changed import PREVIOUS, round_diff
from pto_tui.mcp.catalog import Answer, add
from pto_tui.mcp.projects import Projects


def register(server: MCPServer, projects: Projects) -> None:
    def amend(number: int, field: str, value: str, why: str, project: str = "",
              who: str = "") -> Answer:
        """Correct a closed round's verdict, analysis or next step (field): the correction
        is kept beside the original record with its reason (why), never over it. A verdict
        amended up to kept stands only when the round's own measurement keeps it under the
        verdict rule; otherwise the round is held for review (its verdict unchanged, a
        warning says so) until the user confirms it with round_confirm. A round without
        valid samples cannot be kept. Downgrades with a reason are allowed."""
        with projects.campaign(project, write=True, command="amend") as campaign:
            record = campaign.amend(AmendRequest(number, field, value, why, who))
            return Answer(payloads.round_json(record), campaign.warnings)

    def round_confirm(number: int, reason: str, project: str = "", who: str = "") -> Answer:
        """Keep a round held for review (a speedup above discipline.review_gain, or an
        amendment to kept its numbers do not support), or adopt a round pto-tui did not
        measure (imported, written by hand) so it may lead: the user's reason is recorded
        and shown. Only with the user's word."""
        with projects.campaign(project, write=True, command="round confirm") as campaign:
            record = campaign.confirm_review(number, reason, who)
            return Answer(payloads.round_json(record), campaign.warnings)

    def phase(project: str = "", name: str = "") -> Answer:
        """The campaign's phases and the current one; with name, new rounds fall in that
        phase from now on (the chart's background bands)."""
        with projects.campaign(project, write=bool(name), command="phase") as campaign:
            if name:
                campaign.set_phase(name)
            return Answer(payloads.phases(campaign), campaign.warnings)

    def round_rerun(
        number: int, project: str = "", bottleneck_recheck: str = "", new_direction: str = ""
    ) -> Answer:
        """Open the next round as a rerun of the inconclusive round `number`: its Pre-Edit
        answers, its base, its parameter values and files put back in the workspace
        (`pto-tui round rerun`). Then run it with round_run. Every start gate applies; when
        the three-round rule does, give bottleneck_recheck and new_direction."""
        with projects.campaign(project, write=True, command="round rerun") as campaign:
            record = campaign.rerun_round(
                RerunRequest(number, bottleneck_recheck=bottleneck_recheck, new_direction=new_direction)
            )
            return Answer(payloads.round_json(record), campaign.warnings)

    def diff(number: int, project: str = "", against: str = PREVIOUS) -> Answer:
        """What changed in round `number` against its base (previous), the frontier or a
        round number (`pto-tui diff`): parameters, the duration with each side's noise
        and the verdict's noise limit, TFLOPS, the patch."""
        with projects.campaign(project, write=False, command="diff") as campaign:
            return Answer(round_diff(campaign, number, against).to_json(), campaign.warnings)

    for tool in (amend, round_confirm, phase, round_rerun, diff):
        add(server, tool)
