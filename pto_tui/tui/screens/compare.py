"""Two rounds side by side, showing only what differs."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from pto_tui.core.rounds.durations import duration_in, duration_unit
from pto_tui.core.rounds.prediction import predicts
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import format_tflops
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS
from pto_tui.tui.format import iter_name, verdict_word


def _samples(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values) or "-"


def round_facts(r: Round, unit: str = "") -> list[tuple[str, str, str]]:
    """(section, field, value) of everything worth comparing (durations in `unit`,
    e.g. the one both compared rounds are shown in; by default the round's own)."""
    m = r.measurement
    unit = unit or duration_unit([m.median_us], m.unit)
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
    for name, value in sorted(r.changes.parameter_values.items()):
        facts.append(("parameters", name, str(value)))
    facts += [
        ("measurement", "build", m.build or "-"),
        ("measurement", "correctness", m.correctness or "-"),
        ("measurement", "median", duration_in(m.median_us, unit)),
        ("measurement", "samples (cycles)" if m.in_cycles else "samples (us)", _samples(m.samples_us)),
        ("measurement", "TFLOPS", format_tflops(m.tflops)),
        ("measurement", "problem", m.problem or "-"),
    ]
    if predicts(m):  # [target] predict: perf_sim's cycles of the configuration, or why none
        cycles = f"{m.predicted_cycles} cycles" if m.predicted_cycles is not None else m.prediction_problem
        facts.append(("measurement", "perf_sim prediction", cycles))
    for path in r.changes.files:
        facts.append(("files", path, "changed"))
    return facts


def compared_rows(a: Round, b: Round) -> list[tuple[str, str, str, str, bool]]:
    """(section, field, a value, b value, differs) of every fact of either round."""
    unit = duration_unit([a.measurement.median_us, b.measurement.median_us], a.measurement.unit)
    fa = {(s, f): v for s, f, v in round_facts(a, unit)}
    fb = {(s, f): v for s, f, v in round_facts(b, unit)}
    keys = list(dict.fromkeys([*fa, *fb]))
    missing = {"files": "-", "parameters": "(unset)"}
    out = []
    for section, field in keys:
        va = fa.get((section, field), missing.get(section, "-"))
        vb = fb.get((section, field), missing.get(section, "-"))
        out.append((section, field, va, vb, va != vb))
    return out


def differences(a: Round, b: Round) -> list[tuple[str, str, str, str]]:
    """(section, field, a value, b value) where the two rounds differ."""
    return [(s, f, va, vb) for s, f, va, vb, differs in compared_rows(a, b) if differs]


FIELD_WIDTH = 26  # the field column's widest (a longer name wraps)
DIFFERS = "≠"  # the mark of a differing row in the full view (readable without colour)


def compare_table(a: Round, b: Round, full: bool, pinned: bool = False) -> Table | Text:
    rows = [row for row in compared_rows(a, b) if full or row[4]]
    if not rows:
        return Text("the two rounds do not differ")
    table = Table(expand=True, show_lines=False, box=None, padding=(0, 1))
    table.add_column("", width=1, no_wrap=True)
    # the field column as wide as its longest name (a parameter's name is what differs
    # most often), up to a third of 80 columns; the values share the rest
    width = min(FIELD_WIDTH, max(len(field) for _s, field, *_rest in rows))
    table.add_column("field", style="bold", min_width=width, max_width=FIELD_WIDTH)
    table.add_column(iter_name(a.number) + (" (ref)" if pinned else ""), ratio=3)
    table.add_column(iter_name(b.number), ratio=3)
    section = ""
    for sec, field, va, vb, differs in rows:
        if sec != section:
            table.add_row("", Text(sec, style="underline"), "", "")
            section = sec
        style = "bold" if full and differs else ("dim" if full else "")
        table.add_row(Text(DIFFERS if full and differs else "", style="bold yellow"),
                      field, Text(va, style=style), Text(vb, style=style))
    return table


def compare_title(a: Round, b: Round, full: bool, pinned: bool) -> str:
    left = iter_name(a.number) + (" (reference)" if pinned else "")
    what = f"every fact, {DIFFERS} where they differ" if full else "only what differs"
    return f"compare {left} ↔ {iter_name(b.number)}: {what}"


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="compare.back"),
        Binding("d", "toggle_full", "Diff only / full", id="compare.full"),
        Binding("j", "scroll('down')", "Down", show=False, id="compare.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="compare.up"),
    ]

    def __init__(self, a: Round, b: Round, *, pinned: bool = False) -> None:
        super().__init__()
        self.a = a
        self.b = b
        self.pinned = pinned  # a is the pinned reference
        self.full = False

    def compose(self) -> ComposeResult:
        yield Static(id="compare-title", classes="topbar")
        with VerticalScroll(id="compare-body"):
            yield Static(id="compare-table")
        yield Footer()

    def on_mount(self) -> None:
        self._draw()
        self.query_one("#compare-body").focus()

    def _draw(self) -> None:
        title = compare_title(self.a, self.b, self.full, self.pinned)
        self.query_one("#compare-title", Static).update(Text(title, style="bold"))
        self.query_one("#compare-table", Static).update(
            compare_table(self.a, self.b, self.full, self.pinned))

    def action_toggle_full(self) -> None:
        self.full = not self.full
        self._draw()

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#compare-body", VerticalScroll)
        body.scroll_down() if where == "down" else body.scroll_up()
