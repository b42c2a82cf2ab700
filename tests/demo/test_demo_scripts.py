"""Each demo's scripted rounds (`pto-tui demo --run`) pass every gate a round's run and
close apply: the script's edits and parameters, its justifications against what the
high-risk detector finds now. Measured by hand here (no build), so the whole script of
both demos is checked at every test run; the runs themselves are the e2e tests'."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.backends.demo_campaign import pre_edit_for, scripted_rounds
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.project.config import operator_folder
from pto_tui.core.rounds.records import Measurement
from tests.core.helpers import HAND_ENV, cli


@pytest.mark.parametrize("kind", ["dsl", "tile-lib"])
def test_every_scripted_round_passes_the_gates_of_a_run_and_a_close(tmp_path: Path, kind: str) -> None:
    root = create_demo_project(kind, tmp_path / "projects")
    assert cli("--project", root, "env", *HAND_ENV, "--probe", "build=ok") == 0
    samples = ("--samples", "1000,1001,999,1000.5,999.5,1000.2,999.8")
    assert cli("--project", root, "baseline", "--build", "ok", "--correctness", "pass", *samples) == 0
    with Campaign(root, write=True) as campaign:
        script = scripted_rounds(campaign)
        assert len(script) >= 4
        for n, step in enumerate(script, 1):
            campaign.start_round(StartRequest(pre_edit_for(campaign, step), title=step.title,
                                              restore=True, phase=step.phase))
            if step.edit:
                rel, old, new = step.edit
                path = campaign.layout.workspace / operator_folder(campaign.config) / rel
                text = path.read_text(encoding="utf-8")
                assert old in text, (step.title, rel)
                path.write_text(text.replace(old, new), encoding="utf-8")
            record = campaign.record_changes(ChangesRequest(
                parameters=dict(step.parameters), description=step.title,
                risk_justification=step.justification,
            ))
            campaign.preflight(record)  # what `round run` checks before it builds
            runs = [900.0 + n + 0.1 * i for i in range(7)]
            campaign.record_measurement(Measurement(build="ok", correctness="pass", samples_us=runs))
            closed = campaign.close_round(CloseRequest(analysis="scripted", next_step="the next one"))
            assert closed.is_closed, step.title
