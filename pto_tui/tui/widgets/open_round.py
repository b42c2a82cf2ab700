"""The open round's form in the Round pane: its steps' fields and buttons."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Static

from pto_tui.core.errors import InputError
from pto_tui.core.vocabulary import ChangeKind


def parse_samples(text: str) -> list[float]:
    values = []
    for part in text.replace(";", ",").replace(" ", ",").split(","):
        if part.strip():
            try:
                values.append(float(part))
            except ValueError:
                raise InputError(f"samples: {part.strip()!r} is not a number") from None
    return values


class OpenRoundView(VerticalScroll):
    """The open round's steps: edit, changes, a measurement entered by hand, close.
    The Round pane does the work; e and p ask it by message."""

    class EditSource(Message):
        """e: pick a source file to edit."""

    class ChangeParameters(Message):
        """p: change the tunables' values."""

    BINDINGS = [
        Binding("e", "edit", "Edit source", id="round.edit"),
        Binding("p", "params", "Parameters", id="round.params"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="or-summary")
        yield Label("1  Edit (the hypothesis' change only)", classes="step")
        with Horizontal(classes="buttons"):
            yield Button("Edit a source file (e)", id="or-edit")
            yield Button("Change parameters (p)", id="or-params")
        yield Label("2  Changes (files and diff are detected)", classes="step")
        yield Select([(k.value, k.value) for k in ChangeKind], id="or-kind",
                     prompt="change kind: detected", allow_blank=True)
        yield Input(id="or-describe", placeholder="what was changed, briefly")
        yield Input(id="or-bugfix",
                    placeholder="bug-fix reason (only when a protected file must change)")
        yield Input(id="or-justify", placeholder="justification of a high-risk change")
        yield Input(id="or-approve",
                    placeholder="approval of a loosened tolerance (who, why): only if approved")
        yield Input(id="or-discipline",
                    placeholder="reason for a change of [discipline] in project.toml, if any")
        yield Button("Record changes", id="or-record")
        yield Static(id="or-changes")
        yield Label("3  Run: r in the Run pane (4) (build → correctness → benchmark)",
                    classes="step")
        yield Static(Text("The run records the changes, measures and closes the round with its "
                          "verdict; Analysis and Next are written there after it. Numbers "
                          "measured elsewhere can be entered below instead.", style="dim"))
        with Horizontal(classes="measure-row"):
            yield Select([("build ok", "ok"), ("build failed", "failed")], id="or-build",
                         prompt="build", allow_blank=True)
            yield Select([("correctness pass", "pass"), ("correctness fail", "fail")],
                         id="or-correct", prompt="correctness", allow_blank=True)
        yield Input(id="or-samples", placeholder="benchmark durations in us, comma separated")
        yield Input(id="or-tflops", placeholder="TFLOPS (optional)")
        yield Input(id="or-problem", placeholder="what went wrong, if anything")
        yield Button("Record measurement", id="or-measure")
        yield Label("4  Close (the verdict is decided from the samples)", classes="step")
        yield Input(id="or-analysis", placeholder="Analysis: why it worked or failed")
        yield Input(id="or-next", placeholder="Next: what to try next")
        yield Button("Close the round", id="or-close", variant="warning")

    def action_edit(self) -> None:
        self.post_message(self.EditSource())

    def action_params(self) -> None:
        self.post_message(self.ChangeParameters())
