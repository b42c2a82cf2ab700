"""The app's own messages between panes, screens and workers."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from pto_tui.core.campaign.requests import StartRequest


@dataclass
class ProjectChanged(Message):
    """Something was written through the campaign: every pane reloads what it shows."""

    reason: str = ""


@dataclass
class AttachEvidence(Message):
    """Costmodel results formatted for a round's Pre-Edit Evidence field."""

    text: str


@dataclass
class OpenRound(Message):
    number: int


@dataclass
class ShowPane(Message):
    pane: str


@dataclass
class StartRequested(Message):
    """The Pre-Edit form asks to open a round with its answers and options."""

    request: StartRequest


@dataclass
class RunLoopStep(Message):
    """Run a loop step (environment, reference, baseline, round) in the Run pane."""

    step: str
