"""Where runs ran (a Slurm target's node and NPU per run): kept with the round, shown in
notes.md, and a verdict that sets one node's runs against another's says so."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.rounds.placements import nodes_note, placements_text
from pto_tui.core.rounds.records import Measurement, Round
from tests.core.helpers import cli, make_project, pre_edit_args


def measured(*placements: str) -> Measurement:
    return Measurement(build="ok", correctness="pass", samples_us=[100.0] * len(placements),
                       placements=list(placements))


def frontier(*placements: str) -> Round:
    record = Round(number=3)
    record.measurement = measured(*placements)
    return record


def test_the_note_names_the_nodes_when_they_differ() -> None:
    assert nodes_note(measured("n2 npu 0", "n2 npu 1"), frontier("n1 npu 0")) == \
        "runs on n2, the frontier iter-003's on n1: different nodes"
    assert nodes_note(measured("n1 npu 1"), frontier("n1 npu 0", "n1 npu 1")) == ""  # NPUs of one node
    assert nodes_note(measured("n1 npu 0", "n2 npu 0"), frontier("n2 npu 0", "n1 npu 0")) == \
        "runs on n1, n2 on both sides: nodes mixed within each"
    assert nodes_note(measured(), frontier("n1 npu 0")) == ""  # no scheduler said: nothing to say
    assert nodes_note(measured("n1 npu 0"), None) == ""
    assert placements_text(measured("n1 npu 0", "n1 npu 0", "n1 npu 1")) == \
        "n1 npu 0 (2 runs), n1 npu 1 (1 run)"


def test_a_round_measured_on_another_node_than_its_frontier_says_so(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
               "--probe", "ssh=ok", "--probe", "build=ok") == 0
    with Campaign(root, write=True) as campaign:  # as a Slurm target's baseline records it
        campaign.record_baseline(Measurement(build="ok", correctness="pass", samples_us=[100.0, 101.0, 99.0],
                                             placements=["node1 npu 0"] * 3))
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 0
    with Campaign(root, write=True) as campaign:
        m = Measurement(build="ok", correctness="pass", samples_us=[80.0, 81.0, 79.0],
                        placements=["node2 npu 3"] * 3)
        campaign.record_measurement(m)
        closed = campaign.close_round(CloseRequest(1))
    note = "runs on node2, the frontier iter-000's on node1: different nodes"
    assert closed.verdict_reason.endswith(note) and note in closed.flags
    notes = (root / "runs/iter-001/notes.md").read_text()
    assert "- **Ran on**: node2 npu 3 (3 runs)" in notes
