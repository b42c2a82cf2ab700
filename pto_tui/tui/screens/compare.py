"""Two rounds side by side, showing only what differs."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS
from pto_tui.tui.format import duration, iter_name, verdict_word


def _samples(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values) or "-"


def round_facts(r: Round) -> list[tuple[str, str, str]]:
    """(section, field, value) of everything worth comparing."""
    m = r.measurement
    facts = [
        ("round", "verdict", verdict_word(r)),
        ("round", "reason", r.verdict_reason or "-"),
        ("round", "phase", r.phase or "-"),
        ("round", "based on", iter_name(r.changes.based_on)),
        ("round", "stability", r.stability or "-"),
    ]
    labels = dict(PRE_EDIT_FIELDS)
    for key, label in labels.items():
        facts.append(("pre-edit", label, r.pre_edit.field_value(key) or "-"))
    facts.append(("changes", "kind", r.changes.kind.value if r.changes.kind else "-"))
    facts.append(("changes", "description", r.changes.description or "-"))
    for name, value in sorted(r.changes.snapshot.items()):
        facts.append(("parameters", name, str(value)))
    facts += [
        ("measurement", "build", m.build or "-"),
        ("measurement", "correctness", m.correctness or "-"),
        ("measurement", "median", duration(m.median_us)),
        ("measurement", "samples (us)", _samples(m.samples_us)),
        ("measurement", "TFLOPS", f"{m.tflops:.2f}" if m.tflops is not None else "-"),
        ("measurement", "problem", m.problem or "-"),
    ]
    for path in r.changes.files:
        facts.append(("files", path, "changed"))
    return facts


def differences(a: Round, b: Round) -> list[tuple[str, str, str, str]]:
    """(section, field, a value, b value) where the two rounds differ."""
    fa = {(s, f): v for s, f, v in round_facts(a)}
    fb = {(s, f): v for s, f, v in round_facts(b)}
    keys = list(dict.fromkeys([*fa, *fb]))
    missing = {"files": "-", "parameters": "(unset)"}
    out = []
    for section, field in keys:
        va = fa.get((section, field), missing.get(section, "-"))
        vb = fb.get((section, field), missing.get(section, "-"))
        if va != vb:
            out.append((section, field, va, vb))
    return out


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="compare.back"),
        Binding("j", "scroll('down')", "Down", show=False, id="compare.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="compare.up"),
    ]

    def __init__(self, a: Round, b: Round) -> None:
        super().__init__()
        self.a = a
        self.b = b

    def compose(self) -> ComposeResult:
        title = f"compare {iter_name(self.a.number)} ↔ {iter_name(self.b.number)}: only what differs"
        yield Static(Text(title, style="bold"), classes="topbar")
        diffs = differences(self.a, self.b)
        table = Table(expand=True, show_lines=False, box=None, padding=(0, 1))
        table.add_column("field", style="bold", ratio=2)
        table.add_column(iter_name(self.a.number), ratio=3)
        table.add_column(iter_name(self.b.number), ratio=3)
        section = ""
        for sec, field, va, vb in diffs:
            if sec != section:
                table.add_row(Text(sec, style="underline"), "", "")
                section = sec
            table.add_row(field, va, vb)
        with VerticalScroll(id="compare-body"):
            yield Static(table if diffs else Text("the two rounds do not differ"))
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#compare-body").focus()

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#compare-body", VerticalScroll)
        body.scroll_down() if where == "down" else body.scroll_up()
