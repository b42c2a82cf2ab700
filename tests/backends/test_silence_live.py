"""The CLI's live output says of a real step that prints nothing that it is silent, at a
gentle rate (once per stretch of `every` seconds, not on every tick), with its limit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pto_tui.backends.loop import site_for
from pto_tui.backends.silence import Silence
from pto_tui.cli.live import printer, tell_silence
from tests.backends.helpers import demo_project, open_loop


async def test_a_silent_step_is_told_once_per_stretch_of_silence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = demo_project(tmp_path, "dsl")
    silence = Silence()
    async with open_loop(root) as (campaign, runner):
        site = site_for(campaign, runner, printer(False, silence))
        watch = asyncio.create_task(tell_silence(silence, every=1.0, tick=0.05))
        try:
            await site.run("quiet step", "sleep 3.6; echo done", timeout=30)
        finally:
            watch.cancel()
    err = capsys.readouterr().err
    told = [line for line in err.splitlines() if "no output for" in line]
    # about 60 ticks of the watch, and three seconds of silence: told once per second
    assert 2 <= len(told) <= 4, err
    assert told[0] == "--- quiet step: no output for 1 s · limit 30 s", err
    assert [int(line.split("for ")[1].split(" ")[0]) for line in told] == list(range(1, len(told) + 1))
    assert err.index("==> quiet step") < err.index(told[0]) < err.index("<== quiet step")
