"""Two prompts a client may offer its user: "next_round" (start a round from the last one:
the campaign's state, the Pre-Edit answers drafted from the last closed round and the calls
that open, edit, run and close it) and "review_campaign" (the round table, what the rules
flagged and what needs the user's word). Both read the project as it is now."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.prefill import LEFT_FOR_THE_USER, prefill
from pto_tui.core.errors import PtoError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS
from pto_tui.mcp.projects import Projects
from pto_tui.mcp.wording import for_agent

NEXT_ROUND_STEPS = """\
Then, with the tools of the pto-tui server:
1. `gates` with your answers and prefill=true until may_start is true (read every finding's fix);
2. `round_start` with the same answers, prefill=true (one hypothesis; scope = the files or
   parameters it changes);
3. edit only the files and parameters in the scope, in the project's workspace/;
4. `round_changes` (parameters as {NAME: value}; a high-risk change needs justify);
5. `round_run`: build, correctness, the repeated benchmark and the verdict. Read `warnings`:
   a round held for review is a success that needs the user's word (`round_confirm`).
"""


def _state(campaign: Campaign, rounds: list[Round]) -> list[str]:
    st = campaign.status(rounds)
    lines = [f"Project: {campaign.config.operator.name} ({campaign.config.case.describe()}), "
             f"target {campaign.config.target.mode.value}."]
    lines.append("Environment round: " + ("passed." if st.environment_passed else
                                          "NOT passed: run `env` until it passes."))
    if st.frontier_round is not None:
        lines.append(f"Frontier: {round_name(st.frontier_round)} {format_duration(st.frontier_us)}.")
    lines += [f"Not the frontier: {for_agent(line)}" for line in st.frontier_passed_over]
    if st.three_round_rule:
        lines.append("The three-round rule applies: give pre_edit.bottleneck_recheck and new_direction.")
    return lines


def register(server: MCPServer, projects: Projects) -> None:
    @server.prompt(name="next_round", title="Start a round from the last one")
    def next_round(project: str = "") -> str:
        """The next round's Pre-Edit answers drafted from the last closed round, the
        campaign's state, and the calls that run the round."""
        with projects.campaign(project, write=False, command="prompt next_round") as campaign:
            rounds = campaign.current_rounds()
            lines = _state(campaign, rounds)
            try:
                drafted = prefill(rounds)
            except PtoError as error:
                lines.append(f"Nothing to draft from: {error.message}.")
            else:
                last = next(r for r in rounds if r.number == drafted.source)
                lines.append(f"Last closed round: {round_name(last.number)} "
                             f"({last.verdict.value if last.verdict else 'no verdict'}); its next step: "
                             f"{last.next.strip() or '-'}")
                lines.append(f"Drafted from {round_name(drafted.source)} (prefill=true gives these):")
                pre = drafted.pre_edit
                lines += [f"- {label}: {pre.field_value(key)}" for key, label in PRE_EDIT_FIELDS
                          if key in drafted.filled and pre.field_value(key)]
        lines.append("Yours to write (never copied): " + ", ".join(LEFT_FOR_THE_USER) + ".")
        return "\n".join(lines) + "\n\n" + NEXT_ROUND_STEPS

    @server.prompt(name="review_campaign", title="Review the campaign")
    def review_campaign(project: str = "") -> str:
        """The round table, what the rules flagged, and what needs the user's word."""
        with projects.campaign(project, write=False, command="prompt review_campaign") as campaign:
            rounds = campaign.current_rounds()
            lines = _state(campaign, rounds)
            lines.append("")
            lines.append("| round | hypothesis | verdict | median | flags |")
            lines.append("|---|---|---|---|---|")
            for r in rounds:
                verdict = r.effective_verdict()
                shown = "baseline" if r.is_baseline else (verdict.value if verdict else r.status)
                held = " (held for review)" if r.held_for_review else ""
                lines.append(f"| {round_name(r.number)} | {r.short_hypothesis()} | {shown}{held} | "
                             f"{format_duration(r.measurement.median_us, r.sample_unit)} | {len(r.flags)} |")
        lines += [
            "",
            "Review it: is every kept round's gain beyond the noise, repeated, and correct? Which "
            "flags (`show` N) need a look? A round held for review, or an imported one that should "
            "lead, is confirmed only with the user's word (`round_confirm`); a correction of a closed "
            "round is `amend` (a verdict amended up to kept is held for review unless its own numbers "
            "keep it). An inconclusive round is measured again with `round_rerun`. Then `chart` and "
            "`report`.",
        ]
        return "\n".join(lines)
