"""What the project screen's top bar and side summary say: the project at a glance, from
its configuration and its status (pure text; the screen draws it)."""

from __future__ import annotations

from rich.text import Text

from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.project.modes import mode_spec
from pto_tui.tui.format import duration, iter_name, speed


def topbar_text(config: ProjectConfig, *, read_only: bool) -> Text:
    """One row whatever the width: what must be seen first, the case (the longest part)
    last, cut with an ellipsis."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if read_only:
        text.append("READ-ONLY (the folder is not writable) · ", style="bold red")
    if config.target.simulated:
        perf_sim = mode_spec(config.target.mode).perf_sim
        what = "CYCLES (perf_sim)" if perf_sim else "SIMULATED timings (cpu-sim)"
        text.append(f"{what} · ", style="bold")
    text.append(config.operator.name, style="bold")
    text.append(f" · {config.operator.kind.value} · {config.target.label}"
                f" · {case_text(config.case, config.operator) or 'no case'}")
    return text


def side_text(st: CampaignStatus) -> Text:
    """The frontier, the verdict counts, the environment, the open round, the three-round
    rule and the recent failures."""
    text = Text()
    text.append("Frontier\n", style="bold")
    text.append(f" {iter_name(st.frontier_round)} {duration(st.frontier_us, st.sample_unit)}\n")
    if st.simulated:
        text.append(f" simulated ({st.target_mode.value})\n", style="bold")
    text.append(f" {speed(st.speedup_vs_initial)} vs initial\n")
    text.append(f" {speed(st.speedup_vs_torch)} vs torch_npu\n\n")
    text.append("Verdicts\n", style="bold")
    for verdict, count in st.counts.items():
        text.append(f" {verdict:<13}{count:>3}\n")
    text.append("\n")
    text.append("Environment ", style="bold")
    text.append("passed\n" if st.environment_passed else "NOT passed\n",
                style="green" if st.environment_passed else "bold red")
    if st.open_round is not None:
        text.append(f"Open round {iter_name(st.open_round)}\n", style="magenta")
    if st.three_round_rule:
        text.append("\nThree-round rule applies\n", style="bold yellow")
    if st.recent_failures:
        text.append("\nRecent failures\n", style="bold")
        for number, hypothesis, _reason in st.recent_failures[:3]:
            text.append(f" {iter_name(number)} {hypothesis[:24]}\n", style="dim")
    return text
