"""The loop's steps the Run pane runs: their keys and labels, why one cannot run now, how
each is listed, and the backend service each starts (the same calls the CLI makes).
Functions of the records, as Rich text where they are shown: no Textual."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text

from pto_tui.core.rounds.records import Round
from pto_tui.jobs.model import JobRecord
from pto_tui.tui.format import duration, iter_name, round_duration
from pto_tui.tui.session import LoadedProject
from pto_tui.tui.widgets.left_running import unfinished_of_open_round

# loop step -> (key, label); the order is the order of the campaign
LOOP_STEPS: dict[str, tuple[str, str]] = {
    "environment": ("E", "Environment round"),
    "reference": ("T", "torch_npu baseline"),
    "baseline": ("B", "iter-000 baseline"),
    "round": ("r", "Run the open round"),
    "explore": ("G", "Explore group"),
}

Service = Callable[..., Awaitable[Any]]


def step_blocker(step: str, loaded: LoadedProject | None, read_only: bool) -> str:
    """Why the loop step cannot run now ("" when it can)."""
    if read_only:
        return "the project is open read-only (its folder is not writable by you)"
    if loaded is None:
        return "the project is still loading"
    passed = loaded.status.environment_passed
    baseline = loaded.round(0)
    recorded = baseline is not None and baseline.is_closed
    if step in ("reference", "baseline") and not passed:
        return "needs a passed environment round (E)"
    if step == "baseline" and recorded:
        return "recorded: never measured again"
    if step == "round":
        if not recorded:
            return "needs the iter-000 baseline (B)"
        if loaded.open_round is None:
            return "no open round: answer the Pre-Edit form in Round (3)"
    if step == "explore" and not open_group_of(loaded):
        return "no open explore group: ctrl+n in the Pre-Edit form explores the costmodel's ranking"
    return ""


def open_group_of(loaded: LoadedProject) -> list[Round]:
    """The open rounds of the newest explore group that has some, in order."""
    open_rounds = [r for r in loaded.rounds if r.group and not r.is_closed]
    newest = open_rounds[-1].group if open_rounds else ""
    return [r for r in open_rounds if r.group == newest]


def measured_already(step: str, loaded: LoadedProject | None) -> Round | None:
    """The open round when the step is its run and a run of it ended and was recorded (no
    run of it left unfinished): running it again replaces that measurement."""
    record = loaded.open_round if loaded is not None and step == "round" else None
    if record is None or not record.measurement.build or unfinished_of_open_round(loaded):
        return None
    return record


def step_title(step: str, loaded: LoadedProject | None) -> str:
    """The step as a run of it is titled: "iter-004 round" for the open round."""
    if step == "round" and loaded is not None and loaded.open_round is not None:
        return f"{iter_name(loaded.open_round.number)} round"
    if step == "explore" and loaded is not None and (group := open_group_of(loaded)):
        return f"{group[0].group} ({', '.join(iter_name(r.number) for r in group)})"
    return LOOP_STEPS[step][1]


def loop_service(step: str, loaded: LoadedProject | None,
                 kept: JobRecord | None) -> tuple[Service, bool]:
    """(the service to call with (campaign, runner, on_event), whether it resumes a run):
    a round run goes on from an earlier one (a job of it kept running, or its sample
    journal) instead of starting over."""
    from pto_tui.backends.environment import run_environment
    from pto_tui.backends.explore import run_group
    from pto_tui.backends.loop import run_baseline, run_round
    from pto_tui.backends.reference import run_reference
    from pto_tui.backends.resume import resume_round

    if step == "round" and (kept is not None or unfinished_of_open_round(loaded) is not None):
        # what the earlier run measured is kept, the job left running adopted: the rest runs
        return functools.partial(resume_round, kept=kept, close=False), True
    if step == "round":  # measured, then closed only once its Post-Run is written
        return functools.partial(run_round, close=False), False
    services: dict[str, Service] = {"environment": run_environment, "reference": run_reference,
                                    "baseline": run_baseline, "explore": run_group}
    return services[step], False


def step_state(step: str, loaded: LoadedProject) -> Text:
    """What the campaign holds for the loop step."""
    st = loaded.status
    baseline = loaded.round(0)
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
    if step == "explore":
        group = open_group_of(loaded)
        return Text(f"{group[0].group}: {len(group)} open" if group else "", style="magenta")
    open_round = loaded.open_round
    if open_round is None:
        return Text("")
    return Text(f"{iter_name(open_round.number)} {open_round.short_hypothesis(40)}",
                style="magenta")


def step_line(step: str, loaded: LoadedProject | None, reason: str, running: bool, width: int) -> Text:
    """One loop step in the pane's list: key, label, state or why it cannot run now."""
    key, label = LOOP_STEPS[step]
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{key} ", style="bold")
    text.append(f"{label:<19}")
    if running:
        text.append("running… (x cancels)", style="cyan")
    elif loaded is not None:
        text.append_text(step_state(step, loaded))
    if reason and not running:
        text.append(f"  · {reason}", style="dim")
    text.truncate(width, overflow="ellipsis")
    return text


def run_hint(target: str) -> Text:
    return Text.assemble(
        "on ", (target, "bold"), ": ", ("enter", "bold"), "/key runs a step, ",
        ("x", "bold"), " cancels, ", ("l", "bold"), " log, ", ("!", "bold"), " any command",
    )
