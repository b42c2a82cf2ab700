"""The project sub-commands, registered in the order --help lists them:
making a project (scan, new, import), reading it (status, rounds, show) and
recording its fixed points (env, baseline, torch-baseline, phase, amend)."""

from __future__ import annotations

import argparse

from pto_tui.cli import reading_cmds, recording_cmds, setup_cmds


def register(sub: argparse._SubParsersAction) -> None:
    setup_cmds.register(sub)
    reading_cmds.register(sub)
    recording_cmds.register(sub)
