"""Pane 1: the project context: who, what, where, how far, and the rules' state.

The environment round's probes are listed one a row with their evidence; enter opens the
probe's job log. E, T and B run the environment round, the torch_npu baseline and the
iter-000 baseline in the Run pane (4), where their logs stream live.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, OptionList, Static
from textual.widgets.option_list import Option

from pto_tui.backends.environment_checks import check_evidence, check_job_name, check_problem
from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.records import EnvironmentNotes
from pto_tui.jobs.model import JobRecord
from pto_tui.tui.format import duration, iter_name, speed
from pto_tui.tui.messages import RunLoopStep
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.pane import ProjectPane


def _ok(flag: bool) -> Text:
    return Text("ok", style="green") if flag else Text("FAILED", style="bold red")


def probe_job(check: str, jobs: list[JobRecord]) -> JobRecord | None:
    """The latest job of an environment check (jobs are listed oldest first)."""
    name = check_job_name(check)
    return next((job for job in reversed(jobs) if job.name == name), None)


def probe_evidence(check: str, passed: bool, notes: EnvironmentNotes) -> str:
    """What backs a check's state: its problem when it failed, else what it recorded."""
    if not passed:
        return check_problem(check, notes) or "failed (enter shows the log)"
    return check_evidence(check, notes)


class ContextPane(VerticalScroll, ProjectPane):
    """Status, environment round, baseline, frontier, documents and tunables."""

    BINDINGS = [
        Binding("t", "test_target", "Test target", id="context.test_target"),
        Binding("E", "loop('environment')", "Environment round", id="context.environment"),
        Binding("T", "loop('reference')", "torch_npu baseline", show=False,
                id="context.reference"),
        Binding("B", "loop('baseline')", "Baseline", show=False, id="context.baseline"),
        Binding("j", "scroll_down", "Down", show=False, id="context.down"),
        Binding("k", "scroll_up", "Up", show=False, id="context.up"),
    ]

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.connection = "not checked (t to test)"
        self.probe_jobs: dict[str, JobRecord] = {}  # the job of each check listed

    def compose(self) -> ComposeResult:
        yield Static(id="ctx-summary")
        yield Label("Environment round: probes (enter shows a probe's log)", classes="section")
        probes: DataTable[str | Text] = DataTable(id="ctx-probes", cursor_type="row")
        probes.add_columns("probe", "state", "evidence")
        yield probes
        yield Static(id="ctx-loop-hint", classes="hint")
        yield Label("Documents (enter opens)", classes="section")
        yield OptionList(id="ctx-docs")
        yield Label("Tunable parameters", classes="section")
        table: DataTable[str] = DataTable(id="ctx-tunables", cursor_type="row")
        table.add_columns("name", "value", "kind", "allowed", "where")
        yield table

    def focus_default(self) -> None:
        self.query_one("#ctx-probes").focus()

    def show_loaded(self, loaded: LoadedProject) -> None:
        self.query_one("#ctx-summary", Static).update(self._summary(loaded))
        self._probes(loaded)
        docs = self.query_one("#ctx-docs", OptionList)
        docs.clear_options()
        for path in self._documents():
            rel = path.relative_to(self.session.root)
            docs.add_option(Option(Text(str(rel)), id=str(path)))
        if docs.option_count:
            docs.highlighted = 0  # enter opens the first without a key before it
        table = self.query_one("#ctx-tunables", DataTable)
        table.clear()
        for name, t in self.session.campaign.config.tunables.items():
            allowed = ", ".join(str(v) for v in t.allowed) or "any"
            table.add_row(name, str(t.value), t.kind, allowed, t.where, key=name)

    def _probes(self, loaded: LoadedProject) -> None:
        table = self.query_one("#ctx-probes", DataTable)
        table.clear()
        self.probe_jobs = {}
        baseline = loaded.round(0)
        notes = baseline.environment if baseline else None
        hint = Text.assemble(("E", "bold"), " runs the environment round, ", ("T", "bold"),
                             " the torch_npu baseline, ", ("B", "bold"),
                             " the iter-000 baseline (live logs in Run, 4)")
        self.query_one("#ctx-loop-hint", Static).update(hint)
        if notes is None:
            table.add_row(Text("not run yet: E runs it", style="yellow"), "", "", key="-")
            return
        for name, passed in notes.probes.items():
            job = probe_job(name, loaded.jobs)
            if job is not None:
                self.probe_jobs[name] = job
            table.add_row(name, _ok(passed), probe_evidence(name, passed, notes), key=name)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "ctx-probes":
            return
        event.stop()
        from pto_tui.tui.screens.job_log import JobLogScreen

        name = str(event.row_key.value)
        job = self.probe_jobs.get(name)
        if job is None:
            self.app.notify(f"no job log is kept for {name!r}", title="environment")
            return
        self.app.push_screen(JobLogScreen(job))

    def action_loop(self, step: str) -> None:
        self.post_message(RunLoopStep(step))

    def _documents(self) -> list[Path]:
        layout = self.session.layout
        docs = [layout.requirements] if layout.requirements.is_file() else []
        if layout.context.is_dir():
            docs += sorted(p for p in layout.context.rglob("*") if p.is_file())
        if layout.iterations.is_file():
            docs.append(layout.iterations)
        return docs

    def _summary(self, loaded: LoadedProject) -> Group:
        st = loaded.status
        t = Table(box=None, show_header=False, padding=(0, 1), expand=True)
        t.add_column("what", style="bold", no_wrap=True, width=14)
        t.add_column("value", ratio=1)
        t.add_row("operator", f"{st.operator} ({st.kind})")
        t.add_row("case", st.case or "-")
        target = self.session.campaign.config.target
        where = target.label + (f" {target.work_dir}" if target.work_dir else "")
        t.add_row("target", Text.assemble(where, "  connection: ", self.connection))
        baseline = loaded.round(0)
        _environment_rows(t, baseline.environment if baseline else None)
        _reference_rows(t, st)
        _progress_rows(t, st)
        return Group(t)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        from pto_tui.tui.screens.document import DocumentScreen

        if event.option.id:
            self.app.push_screen(DocumentScreen(Path(event.option.id)))

    @work(exclusive=True, group="target-test", exit_on_error=False)
    async def action_test_target(self) -> None:
        """Run `true` on the target through the job layer: the connection state, for real."""
        from pto_tui.jobs.model import JobSpec

        self.connection = "checking…"
        self._redraw()
        target = self.session.campaign.config.target
        try:
            job = await self.session.runner().submit(
                target, JobSpec(command="true", name="connection test", timeout=30)
            )
            record = await job.wait()
        except Exception as error:
            self.connection = f"failed: {error}"
        else:
            ok = record.state.value == "succeeded"
            self.connection = "ok" if ok else f"{record.state.value} {record.error}".strip()
        self._redraw()

    def _redraw(self) -> None:
        if self.loaded is not None:
            self.query_one("#ctx-summary", Static).update(self._summary(self.loaded))


def _environment_rows(t: Table, env: EnvironmentNotes | None) -> None:
    if env is None:
        t.add_row("environment", Text("not run: tuning is locked (E runs it)", style="bold red"))
        return
    ok = sum(env.probes.values())
    state = Text("passed", style="green") if env.passed else Text(
        "NOT passed: tuning is locked", style="bold red"
    )
    t.add_row("environment", Text.assemble(
        state, f"  {ok}/{len(env.probes)} probes ok (listed below)"))
    if env.declared_by:
        reason = env.declared_reason or "no reason given"
        t.add_row("", Text.assemble(
            ("DECLARED", "bold yellow"),
            f": probes given by hand via {env.declared_by}, not run on the target; "
            f"reason: {reason}"))
    for problem in env.problems:
        t.add_row("", Text(f"problem: {problem}", style="yellow"))


def _reference_rows(t: Table, st: CampaignStatus) -> None:
    """The two fixed points every speedup is measured against: iter-000 and torch_npu."""
    t.add_row("baseline", f"iter-000 {duration(st.baseline_us, st.sample_unit)}" if st.baseline_us
              else Text("not recorded (B measures it)", style="yellow"))
    if st.torch:
        avg, low, high = format_durations([st.torch.avg_us, st.torch.min_us, st.torch.max_us])
        t.add_row(
            "torch_npu",
            f"{st.torch.label}: avg {avg} (min {low}, max {high})"
            + (f", {st.torch.tflops:.2f} TFLOPS" if st.torch.tflops else ""),
        )
    else:
        t.add_row("torch_npu", Text("not measured (T measures it)", style="yellow"))


def _progress_rows(t: Table, st: CampaignStatus) -> None:
    """How far the campaign got, and what the rules and the records on disk say of it."""
    t.add_row(
        "frontier",
        f"{iter_name(st.frontier_round)} {duration(st.frontier_us, st.sample_unit)}  "
        f"{speed(st.speedup_vs_initial)} vs initial, "
        f"{speed(st.speedup_vs_torch)} vs torch_npu",
    )
    for why in st.frontier_passed_over:
        t.add_row("passed over", Text(why, style="yellow"))
    t.add_row("verdicts", "  ".join(f"{k} {v}" for k, v in st.counts.items()))
    if st.open_round is not None:
        t.add_row("open round", Text(iter_name(st.open_round), style="magenta"))
    rule = (
        Text(
            f"APPLIES: {st.rounds_without_gain} rounds without gain: re-check the "
            "bottleneck and state a new direction",
            style="bold yellow",
        )
        if st.three_round_rule
        else Text(f"{st.rounds_without_gain} round(s) without gain (rule at 3)")
    )
    t.add_row("3-round rule", rule)
    for number, hypothesis, reason in st.recent_failures:
        t.add_row("recent fail", f"{iter_name(number)} {hypothesis} - {reason}")
    for missing in st.problems.missing:
        t.add_row("missing", Text(f"runs/{iter_name(missing)} is missing", style="red"))
    for problem in st.problems.unreadable:
        t.add_row("unreadable", Text(str(problem), style="red"))
    for number, marks in st.tampered.items():
        counted = "counted as unverified" if number in st.unverified else "counted as it was closed"
        t.add_row("!tampered", Text(f"{iter_name(number)} ({counted}): " + "; ".join(marks), style="red"))
