"""Asked before `r` measures again a round that was measured already (and is not closed):
the run starts from the build and its measurement replaces the one recorded, so the
question says what that one is before anything is thrown away.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.tui.format import duration, iter_name


def measured_summary(m: Measurement) -> str:
    """e.g. '7 samples, median 3.30 ms' or 'build ok, correctness pass, no samples: <problem>'."""
    if m.samples_us:
        return f"{len(m.samples_us)} samples, median {duration(m.median_us, m.unit)}"
    text = f"build {m.build or '-'}, correctness {m.correctness or '-'}, no samples"
    return f"{text}: {m.problem}" if m.problem else text


def measure_again_question(record: Round) -> Text:
    name = iter_name(record.number)
    text = Text()
    text.append(f"{name} was measured already", style="bold")
    text.append(f": {measured_summary(record.measurement)}.\n\n")
    text.append("Measuring again runs it from its build; once that run ends, its measurement "
                "replaces this one (the jobs' logs stay).\n")
    text.append(f"To keep this one, write its Post-Run instead (a, then ctrl+s closes {name}).",
                style="dim")
    return text


class MeasureAgainScreen(ModalScreen[bool]):
    """y measures again, n or esc keeps the measurement."""

    DEFAULT_CSS = """
    MeasureAgainScreen { align: center middle; }
    #again-body {
        width: 90%; max-width: 76; height: auto;
        border: round $warning; background: $surface; padding: 0 1;
    }
    #again-buttons { height: auto; }
    #again-buttons Button { min-width: 0; margin-right: 2; }
    """
    BINDINGS = [
        Binding("y", "choose(True)", "Measure again", id="again.yes"),
        Binding("escape,n,q", "choose(False)", "Keep it", id="again.cancel"),
    ]

    def __init__(self, record: Round) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        with Vertical(id="again-body"):
            yield Static(Text(f"Measure {iter_name(self.record.number)} again?", style="bold"))
            yield Static(measure_again_question(self.record), id="again-text")
            with Horizontal(id="again-buttons"):
                yield Button("y measure again", id="again-yes", compact=True)
                yield Button("n / esc keep it", id="again-no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#again-no", Button).focus()  # enter on its own discards nothing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "again-yes")

    def action_choose(self, yes: bool) -> None:
        self.dismiss(yes)
