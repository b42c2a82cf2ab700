"""Pane 1: the project context: who, what, where, how far, and the rules' state."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Label, OptionList, Static
from textual.widgets.option_list import Option

from pto_tui.tui.format import duration, iter_name, speed
from pto_tui.tui.session import Session, Snapshot


def _ok(flag: bool) -> Text:
    return Text("ok", style="green") if flag else Text("FAILED", style="bold red")


class ContextPane(VerticalScroll):
    """Status, environment round, baseline, frontier, documents and tunables."""

    BINDINGS = [
        Binding("t", "test_target", "Test target", id="context.test_target"),
        Binding("j", "scroll_down", "Down", show=False, id="context.down"),
        Binding("k", "scroll_up", "Up", show=False, id="context.up"),
    ]

    def __init__(self, session: Session, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.connection = "not checked (t to test)"

    def compose(self) -> ComposeResult:
        yield Static(id="ctx-summary")
        yield Label("Documents (enter opens)", classes="section")
        yield OptionList(id="ctx-docs")
        yield Label("Tunable parameters", classes="section")
        table: DataTable[str] = DataTable(id="ctx-tunables", cursor_type="row")
        table.add_columns("name", "value", "kind", "allowed", "where")
        yield table

    def focus_default(self) -> None:
        self.query_one("#ctx-docs").focus()

    def refresh_from(self, snap: Snapshot) -> None:
        self.query_one("#ctx-summary", Static).update(self._summary(snap))
        docs = self.query_one("#ctx-docs", OptionList)
        docs.clear_options()
        for path in self._documents():
            rel = path.relative_to(self.session.root)
            docs.add_option(Option(str(rel), id=str(path)))
        table = self.query_one("#ctx-tunables", DataTable)
        table.clear()
        for name, t in self.session.campaign.config.tunables.items():
            allowed = ", ".join(str(v) for v in t.allowed) or "any"
            table.add_row(name, str(t.value), t.kind, allowed, t.where, key=name)

    def _documents(self) -> list[Path]:
        layout = self.session.layout
        docs = [layout.requirements] if layout.requirements.is_file() else []
        if layout.context.is_dir():
            docs += sorted(p for p in layout.context.rglob("*") if p.is_file())
        if layout.iterations.is_file():
            docs.append(layout.iterations)
        return docs

    def _summary(self, snap: Snapshot) -> Group:
        st = snap.status
        config = self.session.campaign.config
        t = Table(box=None, show_header=False, padding=(0, 1), expand=True)
        t.add_column("what", style="bold", no_wrap=True, width=14)
        t.add_column("value", ratio=1)
        t.add_row("operator", f"{st.operator} ({st.kind})")
        t.add_row("case", st.case or "-")
        target = config.target
        where = target.label + (f" {target.work_dir}" if target.work_dir else "")
        t.add_row("target", Text.assemble(where, "  connection: ", self.connection))
        baseline = snap.round(0)
        env = baseline.environment if baseline else None
        if env is None:
            t.add_row("environment", Text("not run: tuning is locked", style="bold red"))
        else:
            probes = Text()
            for name, passed in env.probes.items():
                probes.append(f"{name} ")
                probes.append_text(_ok(passed))
                probes.append("  ")
            state = Text("passed", style="green") if env.passed else Text(
                "NOT passed: tuning is locked", style="bold red"
            )
            t.add_row("environment", Text.assemble(state, "  ", probes))
            if env.versions:
                t.add_row("", ", ".join(f"{k} {v}" for k, v in env.versions.items()))
            for problem in env.problems:
                t.add_row("", Text(f"problem: {problem}", style="yellow"))
        t.add_row("baseline", f"iter-000 {duration(st.baseline_us)}")
        if st.torch:
            t.add_row(
                "torch_npu",
                f"{st.torch.label}: avg {duration(st.torch.avg_us)} "
                f"(min {duration(st.torch.min_us)}, max {duration(st.torch.max_us)})"
                + (f", {st.torch.tflops:.2f} TFLOPS" if st.torch.tflops else ""),
            )
        else:
            t.add_row("torch_npu", Text("not measured", style="yellow"))
        t.add_row(
            "frontier",
            f"{iter_name(st.frontier_round)} {duration(st.frontier_us)}  "
            f"{speed(st.speedup_vs_initial)} vs initial, "
            f"{speed(st.speedup_vs_torch)} vs torch_npu",
        )
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
        except Exception as error:  # noqa: BLE001 - shown to the person, not hidden
            self.connection = f"failed: {error}"
        else:
            ok = record.state.value == "succeeded"
            self.connection = "ok" if ok else f"{record.state.value} {record.error}".strip()
        self._redraw()

    def _redraw(self) -> None:
        if self.session.snapshot is not None:
            self.query_one("#ctx-summary", Static).update(self._summary(self.session.snapshot))
