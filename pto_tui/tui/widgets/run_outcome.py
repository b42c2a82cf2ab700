"""What a run of a loop step recorded, as the Run pane says it: the environment round's
probes, the torch_npu baseline, iter-000, a round's verdict with the numbers behind it, or
why nothing was recorded (cancelled, failed, refused). Rich text from the records: no
Textual."""

from __future__ import annotations

from rich.text import Text

from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.interleaved import interleaved_text
from pto_tui.core.rounds.records import EnvironmentNotes, Round, TorchBaseline
from pto_tui.core.rules.verdict import invalid_sample_reason, sample_stats
from pto_tui.tui.format import duration, iter_name, verdict_text
from pto_tui.tui.widgets.loop_steps import LOOP_STEPS


def spread_text(samples: list[float]) -> str:
    if invalid_sample_reason(samples):
        return "-"
    return f"{sample_stats(samples).spread:.1%}"


def recorded_text(result: EnvironmentNotes | TorchBaseline | Round) -> Text:
    """What the environment round, the torch_npu baseline or iter-000 recorded."""
    if isinstance(result, EnvironmentNotes):
        return environment_text(result)
    if isinstance(result, TorchBaseline):
        avg, low, high = format_durations([result.avg_us, result.min_us, result.max_us])
        return Text.assemble(
            ("torch_npu baseline recorded: ", "bold green"),
            f"{result.label}: avg {avg} (min {low}, max {high}, {result.runs} runs)",
        )
    m = result.measurement
    return Text.assemble(
        ("iter-000 baseline recorded: ", "bold green"),
        f"median {duration(m.median_us)}, {len(m.samples_us)} samples, "
        f"spread {spread_text(m.samples_us)}",
    )


def environment_text(notes: EnvironmentNotes) -> Text:
    ok = sum(notes.probes.values())
    if notes.passed:
        text = Text(f"environment round passed: {ok}/{len(notes.probes)} probes ok",
                    style="bold green")
    else:
        text = Text(f"environment round NOT passed: {ok}/{len(notes.probes)} probes ok",
                    style="bold red")
    if notes.declared_by:
        text.append(f"\nDECLARED by hand via {notes.declared_by}: {notes.declared_reason}",
                    style="bold yellow")
    for problem in notes.problems[:3]:
        text.append(f"\n{problem}", style="yellow")
    text.append("\nEach probe and its log: Context (1).", style="dim")
    return text


def round_verdict_text(r: Round, before: CampaignStatus | None) -> Text:
    """The verdict with the numbers behind it (before: the status the round ran against)."""
    m = r.measurement
    text = Text.assemble((iter_name(r.number), "bold"), " ", verdict_text(r), "  ")
    if m.samples_us:
        frontier_us = before.frontier_us if before is not None else None
        median, frontier = format_durations([m.median_us, frontier_us], m.unit)  # one unit
        text.append(f"median {median} · {len(m.samples_us)} samples · "
                    f"spread {spread_text(m.samples_us)}")
        if before is not None and frontier_us and m.median_us:
            text.append(f" · {frontier_us / m.median_us:.2f}x vs frontier "
                        f"{iter_name(before.frontier_round)} ({frontier})")
    else:
        text.append(f"build {m.build or '-'}, correctness {m.correctness or '-'}")
    text.append(f"\n{r.verdict_reason}")
    if interleaved := interleaved_text(m):
        text.append(f"\ninterleaved frontier: {interleaved}", style="dim")
    if m.problem:
        text.append(f"\nproblem: {m.problem}", style="yellow")
    for flag in r.flags:
        text.append(f"\nflag: {flag}", style="bold yellow")
    if not r.is_closed:
        text.append("\nPost-Run: a writes Analysis, then Next; ctrl+s closes the round with them",
                    style="dim")
    return text


def interrupted_text(step: str, title: str, how: str) -> Text:
    if step == "round":  # its samples so far are in its journal: never "nothing recorded"
        return Text(f"{title} {how}: the round stays open; every sample already measured "
                    "is kept (r runs the rest, d discards them).", style="yellow")
    return Text(f"{LOOP_STEPS[step][1]} {how}: nothing was recorded.", style="yellow")


def failure_text(step: str, title: str, state: str, message: str) -> Text:
    text = Text(f"{title} {state}: ", style="bold red")
    text.append(message, style="")
    if step == "round":
        text.append("\nThe round stays open: fix it and press r again.", style="yellow")
    return text


def with_last_line(shown: Text, line: Text) -> Text:
    """The text with its last line replaced (the Post-Run hint, once the round is closed)."""
    lines = shown.split("\n")
    return Text("\n").join([*lines[:-1], line])


def group_text(closed: list[Round], interrupted: dict[int, str]) -> Text:
    """An explore group's end: each round closed with its verdict, each left open and why."""
    text = Text()
    for record in closed:
        text.append(f"{iter_name(record.number)} ", style="bold")
        text.append(f"{record.title}: ")
        text.append_text(verdict_text(record))
        text.append(f" — {record.verdict_reason}\n", style="dim")
    for number, why in sorted(interrupted.items()):
        text.append(f"{iter_name(number)} ", style="bold")
        text.append(f"left open: {why}\n", style="yellow")
    return text
