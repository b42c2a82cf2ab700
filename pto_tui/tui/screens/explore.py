"""An explore group's drafted rounds, shown once to confirm (`pto-tui explore` asks the
same question): each round's title, hypothesis, evidence and scope, what makes a value
high-risk with a field for its justification; y starts them, n or esc does nothing."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pto_tui.core.campaign.explore import Prepared
from pto_tui.tui.format import iter_name


def drafts_text(ready: Prepared, slots: int) -> Text:
    """The question: the rounds drafted, what they are based on, where they run."""
    text = Text()
    text.append(f"{ready.group}: {len(ready.drafts)} rounds based on {iter_name(ready.base.number)}",
                style="bold")
    text.append(f", measured {min(slots, len(ready.drafts))} at a time, each closed in order "
                "against it\n\n", style="dim")
    for index, (title, pre) in enumerate(ready.drafts, 1):
        first = pre.evidence.strip().splitlines()[0] if pre.evidence.strip() else "-"
        text.append(f"{index}. {title}\n", style="bold")
        text.append(f"   hypothesis: {pre.hypothesis}\n   evidence: {first}\n"
                    f"   scope: {', '.join(pre.scope)}\n")
    if ready.risks:
        text.append("\nhigh-risk: " + "; ".join(ready.risks) + "\n", style="yellow")
    return text


class ExploreScreen(ModalScreen[str | None]):
    """Dismissed with the justification given ("" when none is needed) on y, None on n."""

    DEFAULT_CSS = """
    ExploreScreen { align: center middle; }
    #explore-body {
        width: 90%; max-width: 100; height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """
    AUTO_FOCUS = "#explore-justify"  # the justification first, when asked: enter starts them
    BINDINGS = [
        Binding("y", "choose(True)", "Start them", id="explore.yes"),
        Binding("escape,n", "choose(False)", "Cancel", id="explore.cancel"),
    ]

    def __init__(self, ready: Prepared, slots: int) -> None:
        super().__init__()
        self.ready = ready
        self.slots = slots

    def compose(self) -> ComposeResult:
        with Vertical(id="explore-body"):
            with VerticalScroll():
                yield Static(drafts_text(self.ready, self.slots), id="explore-drafts")
            if self.ready.risks:  # asked only then (focused: y would be typed into it)
                yield Input(placeholder="why the high-risk values are safe to try (enter: start them)",
                            id="explore-justify")
            yield Static(Text("y starts these rounds and measures them at once, n or esc does nothing",
                              style="dim"))

    def on_mount(self) -> None:
        if self.ready.risks:  # after the first layout too: the scroll area may have taken it
            self.call_after_refresh(self.query_one("#explore-justify", Input).focus)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_choose(self, start: bool) -> None:
        fields = self.query("#explore-justify").results(Input)
        self.dismiss(next((f.value.strip() for f in fields), "") if start else None)
