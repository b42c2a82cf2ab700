"""A client killed right after the last benchmark run, before the measurement reached
round.toml, loses no sample: each run's sample was kept as the run ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from tests.backends.helpers import demo_project

REPO = Path(__file__).resolve().parents[2]
# Runs the real environment round and baseline, but dies (SIGKILL from the test) between
# the last benchmark run and recording the measurement.
CLIENT = """
import asyncio, sys, time
from pathlib import Path
from tests.backends.helpers import bring_up, open_loop

async def main():
    async with open_loop(Path(sys.argv[1])) as (campaign, runner):
        def killed_here(measurement):
            print("measured", len(measurement.samples_us), flush=True)
            time.sleep(60)
        campaign.record_baseline = killed_here
        await bring_up(campaign, runner)

asyncio.run(main())
"""


def test_samples_survive_a_client_killed_after_the_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = demo_project(tmp_path, "dsl", repeats=3)
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, str(root)],
        stdout=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert client.stdout is not None
        line = client.stdout.readline().decode().split()
        assert line == ["measured", "3"], line
    finally:
        client.kill()
        client.wait(timeout=10)
    journal = root / ".pto-tui" / "measuring" / "iter-000.json"
    kept = json.loads(journal.read_text())
    assert kept["round"] == 0 and kept["planned_runs"] == 3
    assert len(kept["measurement"]["samples_us"]) == 3
    assert all(sample > 0 for sample in kept["measurement"]["samples_us"])

    assert main(["--project", str(root), "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["unfinished_measurements"][0]["samples_us"] == kept["measurement"]["samples_us"]
    assert main(["--project", str(root), "status"]) == 0
    assert "unfinished measurement: round 0: 3 of 3 samples kept" in capsys.readouterr().out


def test_a_finished_measurement_leaves_no_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = demo_project(tmp_path, "dsl", repeats=2)
    assert main(["--project", str(root), "env"]) == 0
    assert main(["--project", str(root), "baseline"]) == 0
    capsys.readouterr()
    assert not list((root / ".pto-tui" / "measuring").glob("*.json"))
    assert main(["--project", str(root), "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unfinished_measurements"] == []
