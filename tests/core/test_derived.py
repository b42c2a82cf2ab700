"""What the rules ask of the closed rounds at every write (the frontier, the newest
reference round) is kept by the read model until a closed round changes: a close, or a
round's file edited by hand to say closed; the answer is always the one the records on
disk give."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import StartRequest
from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.rounds.records import Round
from tests.core.helpers import read_every_round
from tests.core.test_read_model import one_round, pre_edit, project_with_rounds


class Counting:
    """frontier_of, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, rounds: list[Round]) -> Round | None:
        self.calls += 1
        return frontier_of(rounds)


def _derived(campaign: Campaign, compute: Counting) -> Round | None:
    with campaign.reads.operation(write=True):  # one call of a write, as the steps make it
        return campaign.reads.derived(compute)


def _on_disk(campaign: Campaign) -> Round | None:
    return frontier_of(read_every_round(campaign.layout)[0])


def test_the_frontier_is_computed_again_only_after_a_write(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 3)
    counting = Counting()
    with Campaign(root, write=True) as campaign:
        first = _derived(campaign, counting)
        assert first is not None and first.number == 3 and first == _on_disk(campaign)
        assert _derived(campaign, counting) is first and counting.calls == 1
        record = one_round(campaign)  # kept: faster than round 3
        newest = _derived(campaign, counting)
        assert newest is not None and newest.number == record.number == 4
        assert counting.calls == 2 and newest == _on_disk(campaign)


def test_only_a_closed_round_changed_by_hand_drops_what_was_derived(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 2)
    counting = Counting()
    with Campaign(root, write=True) as campaign:
        opened = campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))
        _derived(campaign, counting)
        path = campaign.layout.round_dir(opened.number) / "round.toml"
        path.write_text(path.read_text().replace('title = "bigger tiles"', 'title = "by hand"'))
        _derived(campaign, counting)  # an open round's edit: the closed rounds are as they were
        assert counting.calls == 1 and campaign.open_round().title == "by hand"
        path.write_text(path.read_text().replace('status = "open"', 'status = "closed"'))
        _derived(campaign, counting)  # it says closed now: asked again
        assert counting.calls == 2
        assert campaign.status().tampered[opened.number]  # and shown as pto-tui never closed it
