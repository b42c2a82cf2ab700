"""X: the round table exported (csv / md / json, asked in a small modal); R: the campaign
report. The same core calls as `pto-tui export` and `pto-tui report`, files in the project."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.rounds.export import FORMATS, export_rows, render_export

# (format, key, what it is)
CHOICES: tuple[tuple[str, str, str], ...] = (
    ("csv", "c", "one row a round, with its reproducibility record"),
    ("md", "m", "Markdown table and reproducibility record"),
    ("json", "j", "JSON (pto-tui.rounds/1)"),
)
assert tuple(fmt for fmt, _k, _w in CHOICES) == FORMATS


def export_path(campaign: Campaign, fmt: str) -> Path:
    """projects/<op>/rounds.<fmt>, beside REPORT.md and the summary chart."""
    return campaign.layout.root / f"rounds.{fmt}"


def write_export(campaign: Campaign, fmt: str) -> Path:
    """What `pto-tui export --format FMT --output projects/<op>/rounds.FMT` writes."""
    rounds = campaign.rounds()
    torch = campaign.torch_baseline()
    config = campaign.config
    text = render_export(fmt, export_rows(rounds, torch), operator=config.operator.name,
                         case=case_text(config.case, config.operator), torch=torch, records=rounds)
    path = export_path(campaign, fmt)
    atomic_write_text(path, text)
    return path


class ExportScreen(ModalScreen[str | None]):
    """Which format? c, m or j (or a button); esc writes nothing."""

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    #export-body {
        width: 80%; max-width: 76; height: auto;
        border: round $accent; background: $surface; padding: 0 1;
    }
    #export-buttons { height: auto; }
    #export-buttons Button { min-width: 0; margin-right: 2; }
    """
    BINDINGS = [
        *(Binding(key, f"choose('{fmt}')", fmt, id=f"export.{fmt}") for fmt, key, _w in CHOICES),
        Binding("escape,q", "choose('')", "Cancel", id="export.cancel"),
    ]

    def __init__(self, where: Path) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        text = Text()
        for fmt, key, what in CHOICES:
            text.append(f"  {key}", style="bold")
            text.append(f"  {fmt:<5}{what}\n")
        # the project's folder name only: the whole path is in the notice once written
        text.append(f"\nwritten to {self.where.name}/rounds.<format>, as `pto-tui export`",
                    style="dim")
        with Vertical(id="export-body"):
            yield Static(Text("Export the round table", style="bold"), id="export-title")
            yield Static(text, id="export-text")
            with Horizontal(id="export-buttons"):
                for fmt, key, _what in CHOICES:
                    yield Button(f"{key} {fmt}", id=f"export-{fmt}", compact=True)
                yield Button("esc", id="export-", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose((event.button.id or "export-").removeprefix("export-"))

    def action_choose(self, fmt: str) -> None:
        self.dismiss(fmt or None)
