"""The checklist-driven Pre-Edit form, with the gates shown live beside "start".

The gates are core's own (`rules.start_findings`, what `campaign.gates` returns), run on
the rounds already loaded, so typing never touches the disk.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from pto_tui.core.campaign.prefill import draft_answers, prefill_source
from pto_tui.core.campaign.requests import StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.drafts import FieldValue
from pto_tui.core.rounds.records import ChecklistItem, PreEdit
from pto_tui.core.rules.rule import Finding
from pto_tui.core.rules.sequence import start_findings
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST, OPTIMISATION_PRIORITIES
from pto_tui.tui.drafts import DraftKeeper, form_values, set_form_values
from pto_tui.tui.forms import FORM
from pto_tui.tui.messages import StartRequested
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.tick import Tick

# (key, label, placeholder) of the one-line fields, in notes.md order
LINE_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("kernel", "Kernel", "target operator and its current configuration"),
    ("hypothesis", "Hypothesis", "the one hypothesis this round tests"),
    ("why_ascend", "Why it should help on Ascend", "the hardware reason"),
    ("expected_metric", "Expected improved metric", "e.g. duration_us down 5%"),
    ("main_risk", "Main risk", "what could go wrong"),
    ("correctness_plan", "How correctness is assured", "e.g. same correctness check, tolerances"),
)


def _split(description: str) -> tuple[str, str]:
    head, _sep, rest = description.partition(":")
    return head.strip(), rest.strip()


def first_missing(pre: PreEdit, three_round: bool) -> str:
    """The id of the first field, in the form's order, a start gate finds missing."""
    fields = [("pe-bottleneck", pre.bottleneck), ("pe-evidence", pre.evidence)]
    fields += [(f"pe-{key}", pre.field_value(key)) for key, _label, _hint in LINE_FIELDS]
    fields.append(("pe-scope", ",".join(pre.scope)))
    for key in HARDWARE_CHECKLIST:
        item = pre.checklist.get(key)
        fields += [(f"pe-tick-{key}", "x" if item and item.ticked else ""),
                   (f"pe-note-{key}", item.note if item else "")]
    if three_round:
        fields += [("pe-recheck", pre.bottleneck_recheck), ("pe-new_direction", pre.new_direction)]
    return next((widget_id for widget_id, value in fields if not value.strip()), "")


def refusal_text(findings: list[Finding]) -> Text:
    """Every failing gate, one line each, so all of them fit at 80x24."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"Start refused: {len(findings)} gate(s) fail; the first missing field has "
                "the focus", style="bold red")
    for finding in findings:
        text.append(f"\n✗ {finding.message}")
    return text


class PreEditForm(VerticalScroll, can_focus=False):
    """No focus stop of its own: tab walks its fields only (keys typed go into them)."""

    # the refusal stays at the top while the form scrolls to the first missing field
    DEFAULT_CSS = """
    PreEditForm > #pe-refusal {
        dock: top;
        height: auto;
        max-height: 14;
        border: round $error;
        padding: 0 1;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS = [
        Binding("ctrl+s", "start", "Start round", id="preedit.start"),
        Binding("ctrl+g", "suggest", "Costmodel ranking", id="preedit.suggest"),
        Binding("ctrl+o", "prefill", "Pre-fill from the last round", show=False,
                id="preedit.prefill"),
    ]

    class SuggestRequested(Message):
        """Rank the tile knobs by the costmodel and insert the chosen knob's evidence."""

        def __init__(self, scope: list[str]) -> None:
            super().__init__()
            self.scope = scope

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class(FORM)
        self.loaded: LoadedProject | None = None
        self.phases: tuple[str, ...] = ()
        self.findings: list[Finding] = []
        self.gates_drawn = False
        self.busy = False  # a start is being written: no second one
        self.prefilled_from: int | None = None  # the round this form was drafted from
        # what is typed, kept in the project as it is typed; the form as the program
        # filled it (blank, or pre-filled) is no draft
        self.draft = DraftKeeper(self, session, "pre-edit", self.draft_fields)
        self.draft.ready = False  # until restore_draft has looked for the kept one
        self.blank: dict[str, FieldValue] = {}  # the form as composed (its ticks' defaults)
        self.untouched: dict[str, FieldValue] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="pe-refusal", classes="hidden")
        guidance = Text("Priority order (guidance): ", style="bold")
        guidance.append(" > ".join(OPTIMISATION_PRIORITIES), style="dim")
        yield Static(guidance, id="pe-guidance")
        yield Static(id="pe-prefilled", classes="hidden")
        yield Label("Title (short, for tables and the chart)", classes="field")
        yield Input(id="pe-title", placeholder="e.g. bigger S1 tile")
        yield Label("Current bottleneck class", classes="field")
        yield Select([(f"{name} - {meaning}", name) for name, meaning in BOTTLENECK_CLASSES.items()],
            prompt="choose the bottleneck class",
            id="pe-bottleneck",
        )
        yield Static(id="pe-class-meaning", classes="hint")
        yield Label("Evidence (costmodel results attach here)", classes="field")
        yield TextArea(id="pe-evidence", soft_wrap=True, show_line_numbers=False)
        suggest = Button("Costmodel ranking of the tile knobs (ctrl+g)", id="pe-suggest")
        suggest.can_focus = False  # ctrl+g from any field: no extra stop between the text fields
        yield suggest
        for key, label, placeholder in LINE_FIELDS:
            yield Label(label, classes="field")
            yield Input(id=f"pe-{key}", placeholder=placeholder)
        yield Label("Scope: the files or parameters this hypothesis will change", classes="field")
        yield Input(id="pe-scope", placeholder="comma separated, e.g. kFaTileS1, fa_kernel.h")
        yield Label("Ascend hardware checklist: tick each item and write a note",
                    classes="field")
        for key, description in HARDWARE_CHECKLIST.items():
            head, rest = _split(description)
            with Horizontal(classes="check-row"):
                yield Tick(head, id=f"pe-tick-{key}", classes="check")
                yield Input(id=f"pe-note-{key}", placeholder=rest, classes="check-note")
        with VerticalScroll(id="pe-three-round", classes="hidden", can_focus=False):
            yield Label("Three-round rule: re-checked bottleneck reasoning", classes="field")
            yield Input(id="pe-recheck")
            yield Label("Three-round rule: the new (structural) direction", classes="field")
            yield Input(id="pe-new_direction")
        yield Label("Phase", classes="field")
        yield Select([], id="pe-phase", allow_blank=True, prompt="current phase")
        yield Tick("start from the best: restore the workspace to the frontier round",
                       value=True, id="pe-restore")
        yield Static(id="pe-gates")
        yield Button("Start round (ctrl+s)", id="pe-start", variant="success", disabled=True)

    # ------------------------------------------------------------ state

    def set_context(self, loaded: LoadedProject, phases: tuple[str, ...]) -> None:
        self.loaded = loaded
        if phases != self.phases:
            self.phases = phases
            self.query_one("#pe-phase", Select).set_options([(p, p) for p in phases])
        self.query_one("#pe-three-round").set_class(not loaded.status.three_round_rule, "hidden")
        if not self.draft.ready:
            self.restore_draft()
            self.draft.ready = True
        if self.prefilled_from is None and self.is_blank():
            self.prefill(announce=False)
        self.update_gates()

    def on_mount(self) -> None:
        self.blank = self.untouched = form_values(self)
        self.draft.start()

    def on_unmount(self) -> None:
        self.draft.stop()

    def draft_fields(self) -> dict[str, FieldValue]:
        """The form as typed; nothing when it is as the program filled it."""
        values = form_values(self)
        return {} if values in (self.untouched, self.blank) else values

    def restore_draft(self) -> None:
        """The draft kept when the project was last open, back in the form."""
        kept = self.draft.read()
        if kept is None:
            return
        set_form_values(self, kept.fields)
        self.untouched = self.blank  # a draft restored stays one until it is emptied
        line = self.query_one("#pe-prefilled", Static)
        line.update(Text.assemble(
            ("Draft restored", "bold"), f" (typed before, saved {kept.saved or '?'}). "
            "ctrl+o pre-fills from the last round instead."))
        line.remove_class("hidden")

    def is_blank(self) -> bool:
        return not self.title_text and self.pre_edit() == PreEdit(
            checklist={key: ChecklistItem() for key in HARDWARE_CHECKLIST})

    def prefill(self, announce: bool = True) -> None:
        """Fill the fields core drafts from the last closed round (kernel, class, evidence,
        correctness plan, checklist notes), whatever they hold now. The checklist boxes
        stay as they are: ticking each is the person's confirmation of its note."""
        rounds = self.loaded.rounds if self.loaded else []
        try:
            source = prefill_source(rounds)
        except InputError as error:
            if announce:
                self.app.notify(str(error), title="pre-fill", severity="warning")
            return
        draft = draft_answers(source)
        filled = []
        for key, label in (("kernel", "kernel"), ("correctness_plan", "correctness")):
            if getattr(draft, key):
                self.query_one(f"#pe-{key}", Input).value = getattr(draft, key)
                filled.append(label)
        if draft.bottleneck in BOTTLENECK_CLASSES:
            self.query_one("#pe-bottleneck", Select).value = draft.bottleneck
            filled.append("class")
        if draft.evidence:
            self.query_one("#pe-evidence", TextArea).load_text(draft.evidence)
            filled.append("evidence")
        notes = 0
        for key, item in draft.checklist.items():
            if item.note:
                self.query_one(f"#pe-note-{key}", Input).value = item.note
                notes += 1
        if notes:
            filled.append(f"{notes} checklist notes")
        self.prefilled_from = source.number
        self.untouched = form_values(self)
        line = self.query_one("#pe-prefilled", Static)
        line.update(Text.assemble(
            (f"Pre-filled from {round_name(source.number)}: ", "bold"),
            (", ".join(filled) or "nothing to fill") + ". Check each; tick the "
            "checklist items you confirm (space). ctrl+o fills them again."))
        line.remove_class("hidden")
        self.update_gates()

    def action_prefill(self) -> None:
        self.prefill()

    def pre_edit(self) -> PreEdit:
        def value(key: str) -> str:
            return self.query_one(f"#pe-{key}", Input).value.strip()

        bottleneck = self.query_one("#pe-bottleneck", Select).value
        checklist = {
            key: ChecklistItem(
                ticked=self.query_one(f"#pe-tick-{key}", Checkbox).value,
                note=self.query_one(f"#pe-note-{key}", Input).value.strip(),
            )
            for key in HARDWARE_CHECKLIST
        }
        return PreEdit(
            kernel=value("kernel"),
            bottleneck=bottleneck if isinstance(bottleneck, str) else "",
            evidence=self.query_one("#pe-evidence", TextArea).text.strip(),
            hypothesis=value("hypothesis"),
            why_ascend=value("why_ascend"),
            expected_metric=value("expected_metric"),
            main_risk=value("main_risk"),
            correctness_plan=value("correctness_plan"),
            checklist=checklist,
            scope=[item.strip() for item in value("scope").split(",") if item.strip()],
            bottleneck_recheck=value("recheck"),
            new_direction=value("new_direction"),
        )

    @property
    def title_text(self) -> str:
        return self.query_one("#pe-title", Input).value.strip()

    @property
    def phase(self) -> str | None:
        value = self.query_one("#pe-phase", Select).value
        return value if isinstance(value, str) else None

    @property
    def restore(self) -> bool:
        return self.query_one("#pe-restore", Checkbox).value

    def update_gates(self) -> None:
        """The gates beside Start, redrawn only when what they say changed: a redraw of
        a text sized to its lines lays the whole screen out again (per key typed)."""
        rounds = self.loaded.rounds if self.loaded else []
        findings = start_findings(self.pre_edit(), rounds)
        changed = findings != self.findings or not self.gates_drawn
        self.findings, self.gates_drawn = findings, True
        button = self.query_one("#pe-start", Button)
        button.disabled = bool(findings) or self.busy
        refusal = self.query_one("#pe-refusal", Static)
        if not changed:
            return
        gates = self.query_one("#pe-gates", Static)
        if findings:
            text = Text("Start is disabled until every gate passes:\n", style="bold red")
            for finding in findings:
                text.append(f" ✗ [{finding.rule}] {finding.message}\n", style="red")
            gates.update(text)
            if not refusal.has_class("hidden"):  # shown after a refused start: kept current
                refusal.update(refusal_text(findings))
        else:
            refusal.add_class("hidden")
            gates.update(Text("✓ every gate passes: the round may start", style="bold green"))

    def set_busy(self, busy: bool) -> None:
        """While the round is being started (off the event loop) Start is disabled."""
        self.busy = busy
        self.update_gates()

    def attach_evidence(self, text: str) -> None:
        area = self.query_one("#pe-evidence", TextArea)
        joined = (area.text.rstrip() + "\n\n" if area.text.strip() else "") + text.strip()
        area.load_text(joined)
        self.update_gates()

    def attach_suggestion(self, knob: str, text: str) -> None:
        """The ranking into the evidence, the knob into the scope."""
        scope = self.query_one("#pe-scope", Input)
        items = [item.strip() for item in scope.value.split(",") if item.strip()]
        if knob not in items:
            scope.value = ", ".join([*items, knob])
        self.attach_evidence(text)

    def clear(self) -> None:
        for widget in self.query(Input):
            widget.value = ""
        for box in self.query(Checkbox):
            box.value = box.id == "pe-restore"
        self.query_one("#pe-evidence", TextArea).load_text("")
        self.query_one("#pe-bottleneck", Select).clear()
        self.query_one("#pe-prefilled").add_class("hidden")
        self.prefilled_from = None  # the next form is drafted from the round just closed
        self.untouched = form_values(self)

    # ------------------------------------------------------------ events

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.update_gates()
        self.draft.changed()

    def on_checkbox_changed(self, _event: Checkbox.Changed) -> None:
        self.update_gates()
        self.draft.changed()

    def on_text_area_changed(self, _event: TextArea.Changed) -> None:
        self.update_gates()
        self.draft.changed()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "pe-bottleneck":
            value = event.value
            meaning = BOTTLENECK_CLASSES.get(value, "") if isinstance(value, str) else ""
            self.query_one("#pe-class-meaning", Static).update(Text(meaning, style="italic"))
        self.update_gates()
        self.draft.changed()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "pe-start":
            event.stop()
            self.action_start()
        elif event.button.id == "pe-suggest":
            event.stop()
            self.action_suggest()

    def action_suggest(self) -> None:
        self.app.notify("ranking the tile knobs by the costmodel...", title="costmodel")
        self.post_message(self.SuggestRequested(self.pre_edit().scope))

    def action_start(self) -> None:
        if self.busy:
            self.app.notify("the round is being started…", title="start round")
            return
        self.update_gates()
        if self.findings:
            refusal = self.query_one("#pe-refusal", Static)
            refusal.update(refusal_text(self.findings))
            refusal.remove_class("hidden")
            loaded = self.loaded
            field = first_missing(self.pre_edit(), bool(loaded and loaded.status.three_round_rule))
            if field:
                widget = self.query_one(f"#{field}")
                widget.focus()
                # once the box is laid out, so the field is not left under it
                self.call_after_refresh(self.scroll_to_widget, widget, animate=False)
            return
        self.post_message(
            StartRequested(StartRequest(
                self.pre_edit(), phase=self.phase, title=self.title_text, restore=self.restore
            ))
        )

