"""What the Run pane says, as Rich text: the loop's steps and their state, why a step
cannot run now, and what a run recorded. Pure functions of the records: no Textual."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.project.layout import round_dir_name
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.interleaved import interleaved_text
from pto_tui.core.rounds.records import EnvironmentNotes, Round
from pto_tui.core.rounds.render import TorchBaseline
from pto_tui.core.rules.verdict import invalid_sample_reason, sample_stats
from pto_tui.jobs.model import JobRecord, JobState
from pto_tui.tui.format import duration, iter_name, round_duration, verdict_text
from pto_tui.tui.session import Snapshot

# loop step -> (key, label); the order is the order of the campaign
LOOP_STEPS: dict[str, tuple[str, str]] = {
    "environment": ("E", "Environment round"),
    "reference": ("T", "torch_npu baseline"),
    "baseline": ("B", "iter-000 baseline"),
    "round": ("r", "Run the open round"),
}


def spread_text(samples: list[float]) -> str:
    if invalid_sample_reason(samples):
        return "-"
    return f"{sample_stats(samples).spread:.1%}"


def step_blocker(step: str, snap: Snapshot | None, read_only: bool) -> str:
    """Why the loop step cannot run now ("" when it can)."""
    if read_only:
        return "the project is open read-only (its folder is not writable by you)"
    if snap is None:
        return "the project is still loading"
    passed = snap.status.environment_passed
    baseline = snap.round(0)
    recorded = baseline is not None and baseline.is_closed
    if step in ("reference", "baseline") and not passed:
        return "needs a passed environment round (E)"
    if step == "baseline" and recorded:
        return "recorded: never measured again"
    if step == "round":
        if not recorded:
            return "needs the iter-000 baseline (B)"
        if snap.open_round is None:
            return "no open round: answer the Pre-Edit form in Round (3)"
    return ""


def step_state(step: str, snap: Snapshot) -> Text:
    """What the campaign holds for the loop step."""
    st = snap.status
    baseline = snap.round(0)
    if step == "environment":
        env = baseline.environment if baseline else None
        if env is None:
            return Text("not run: tuning is locked", style="bold red")
        ok = sum(env.probes.values())
        if env.passed:
            return Text(f"passed ({ok}/{len(env.probes)} probes)", style="green")
        return Text(f"NOT passed ({ok}/{len(env.probes)} probes ok)", style="bold red")
    if step == "reference":
        if st.torch is None:
            return Text("not measured", style="yellow")
        return Text(f"avg {duration(st.torch.avg_us)} ({st.torch.label})")
    if step == "baseline":
        if baseline is None or not baseline.is_closed:
            return Text("not recorded", style="yellow")
        return Text(f"{round_duration(baseline)}, "
                    f"{len(baseline.measurement.samples_us)} samples")
    open_round = snap.open_round
    if open_round is None:
        return Text("")
    return Text(f"{iter_name(open_round.number)} {open_round.short_hypothesis(40)}",
                style="magenta")


def step_line(step: str, snap: Snapshot | None, reason: str, running: bool, width: int) -> Text:
    """One loop step in the pane's list: key, label, state or why it cannot run now."""
    key, label = LOOP_STEPS[step]
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{key} ", style="bold")
    text.append(f"{label:<19}")
    if running:
        text.append("running… (x cancels)", style="cyan")
    elif snap is not None:
        text.append_text(step_state(step, snap))
    if reason and not running:
        text.append(f"  · {reason}", style="dim")
    text.truncate(width, overflow="ellipsis")
    return text


def run_hint(target: str) -> Text:
    return Text.assemble(
        "on ", (target, "bold"), ": ", ("enter", "bold"), "/key runs a step, ",
        ("x", "bold"), " cancels, ", ("l", "bold"), " log, ", ("!", "bold"), " any command",
    )


def interrupted_text(step: str, title: str, how: str) -> Text:
    if step == "round":
        return Text(f"{title} {how}: the round stays open and nothing was recorded;"
                    " r runs it again.", style="yellow")
    return Text(f"{LOOP_STEPS[step][1]} {how}: nothing was recorded.", style="yellow")


def failure_text(step: str, title: str, state: str, message: str) -> Text:
    text = Text(f"{title} {state}: ", style="bold red")
    text.append(message, style="")
    if step == "round":
        text.append("\nThe round stays open: fix it and press r again.", style="yellow")
    return text


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
        median, frontier = format_durations([m.median_us, frontier_us])  # one unit
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


def with_last_line(shown: Text, line: Text) -> Text:
    """The text with its last line replaced (the Post-Run hint, once the round is closed)."""
    lines = shown.split("\n")
    return Text("\n").join([*lines[:-1], line])


def unfinished_of_open_round(snap: Snapshot | None) -> dict[str, Any] | None:
    """The open round's journal of a run that did not finish (its own file, not the older
    ones kept beside it), None when there is none."""
    if snap is None or snap.open_round is None:
        return None
    name = f"{round_dir_name(snap.open_round.number)}.json"
    return next((j for j in snap.journals if j["file"].endswith(f"/{name}")), None)


def left_over_text(snap: Snapshot | None, following: list[JobRecord], running: bool) -> Text | None:
    """What pto-tui left when it last closed: jobs kept running (re-attached now) and a
    round run that did not finish, with the key that acts on each. None: nothing left."""
    text = Text()
    for record in following:
        text.append(f"job {record.name or record.id} ({record.id}) still running on "
                    f"{record.target}: re-attached", style="cyan")
        text.append(" (x stops it)\n", style="dim")
    journal = unfinished_of_open_round(snap)
    if journal is not None and not running and snap is not None and snap.open_round is not None:
        label = round_dir_name(snap.open_round.number)
        ours = [j for j in snap.jobs if j.name.startswith(f"{label} ")]
        last = max(ours, key=lambda j: j.submitted_at, default=None)
        why = (f"lost: job {last.name} ({last.id}) is gone"
               if last is not None and last.state is JobState.LOST else "its run did not finish")
        text.append(f"{label} {why}; {len(journal['samples_us'])} of {journal['planned_runs']} "
                    "samples recorded (journal)", style="yellow")
        text.append(" — r runs the rest, d discards them\n", style="bold")
    text.rstrip()
    return text if text.plain else None
