"""Hand edits of an open round's round.toml: every gate `round start` and `round changes`
applied holds again at `round changes`, `round measure`, the run's preflight and
`round close`; an edit that breaks one is refused naming its field, the round stays open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import RuleViolation
from pto_tui.core.rules.open_round import VALID_RECORD
from pto_tui.core.rules.pre_edit import (
    BOTTLENECK_CLASS,
    FOUR_QUESTIONS,
    HARDWARE_CHECKLIST,
    ONE_HYPOTHESIS,
    PRE_EDIT_COMPLETE,
)
from tests.core.helpers import cli, pre_edit_args, ready_project

Edit = Callable[[dict[str, Any]], None]


def _set(path: str, value: object) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        *tables, key = path.split(".")
        node = data
        for table in tables:
            node = node.setdefault(table, {})
        node[key] = value

    return edit


def _drop_checklist_item(data: dict[str, Any]) -> None:
    del data["pre_edit"]["checklist"]["tile_shape"]


def _unknown_knob(data: dict[str, Any]) -> None:
    data.setdefault("changes", {})["parameters"] = [{"name": "NO_SUCH_KNOB", "old": 1, "new": 2}]


# (edit, rule id, text naming the field)
EDITS: dict[str, tuple[Edit, str, str]] = {
    "emptied hypothesis": (_set("pre_edit.hypothesis", ""), PRE_EDIT_COMPLETE.id, "Hypothesis"),
    "emptied bottleneck": (_set("pre_edit.bottleneck", "  "), FOUR_QUESTIONS.id, "bottleneck"),
    "made-up bottleneck class": (
        _set("pre_edit.bottleneck", "cosmic rays"), BOTTLENECK_CLASS.id, "'cosmic rays'"
    ),
    "checklist item unticked": (
        _set("pre_edit.checklist.tile_shape.ticked", False), HARDWARE_CHECKLIST.id, "tile_shape"
    ),
    "checklist item removed": (_drop_checklist_item, HARDWARE_CHECKLIST.id, "tile_shape"),
    "scope catch-all": (_set("pre_edit.scope", ["**"]), ONE_HYPOTHESIS.id, "'**'"),
    "scope emptied": (_set("pre_edit.scope", []), ONE_HYPOTHESIS.id, "scope"),
    "status weird": (_set("status", "weird"), VALID_RECORD.id, "status 'weird'"),
    "based_on unknown": (_set("changes.based_on", 99), VALID_RECORD.id, "changes.based_on = 99"),
    "snapshot id escaping": (
        _set("base_snapshot", "own:../../../../etc/passwd"), VALID_RECORD.id, "base_snapshot"
    ),
    "unknown knob": (_unknown_knob, VALID_RECORD.id, "changes.parameters: 'NO_SUCH_KNOB'"),
    "unknown knob in the snapshot": (
        _set("changes.snapshot.NO_SUCH_KNOB", 3), VALID_RECORD.id, "changes.snapshot: 'NO_SUCH_KNOB'"
    ),
    "negative tflops": (_set("measurement.tflops", -1.0), VALID_RECORD.id, "measurement.tflops"),
    "zero sample": (_set("measurement.samples_us", [0.0, 100.0]), VALID_RECORD.id, "samples_us[0]"),
    "made-up build outcome": (_set("measurement.build", "maybe"), VALID_RECORD.id, "measurement.build"),
}


@pytest.fixture(scope="module")
def open_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with iter-001 open, its changes recorded: round.toml as pto-tui wrote it."""
    root = ready_project(tmp_path_factory.mktemp("open-round"))
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/fa.cpp",))) == 0
    assert cli("--project", root, "round", "changes") == 0
    return root


def _round_toml(root: Path) -> Path:
    return root / "runs" / "iter-001" / "round.toml"


def _refused(capsys: pytest.CaptureFixture[str], root: Path, rule: str, field: str, *args: str) -> None:
    capsys.readouterr()
    code = cli("--project", root, *args)
    err = capsys.readouterr().err
    assert code != 0, (args, err)
    assert f"'{rule}'" in err or f"[{rule}]" in err, err
    assert field in err, err
    assert "runs/iter-001/round.toml" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", list(EDITS))
def test_a_hand_edit_of_an_open_round_is_refused_at_every_step(
    open_round: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    edit, rule, field = EDITS[name]
    path = _round_toml(open_round)
    good = path.read_text()
    data = tomlkit.parse(good).unwrap()
    edit(data)
    path.write_text(tomlkit.dumps(data))
    try:
        measure = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99")
        _refused(capsys, open_round, rule, field, *measure)
        _refused(capsys, open_round, rule, field, "round", "close", "--analysis", "a", "--next", "b")
        _refused(capsys, open_round, rule, field, "round", "changes")
        with Campaign(open_round, write=True) as campaign:  # `round run`'s preflight
            record = campaign.open_record(1)
            with pytest.raises(RuleViolation) as refused:
                campaign.preflight(record)
            assert refused.value.rule == rule and field in refused.value.message
        assert 'status = "closed"' not in path.read_text()  # still open, nothing closed
    finally:
        path.write_text(good)


def test_the_untouched_open_round_passes_the_same_checks(
    open_round: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checks above refuse the edit, not the round: as written, every step goes on."""
    with Campaign(open_round, write=True) as campaign:
        campaign.preflight(campaign.open_record(1))
    assert cli("--project", open_round, "round", "changes") == 0


def test_round_start_refuses_a_catch_all_scope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    for scope in ("**", "*", "./**/*", "/"):
        capsys.readouterr()
        assert cli("--project", root, "round", "start", *pre_edit_args(scope=(scope,))) != 0
        err = capsys.readouterr().err
        assert f"'{ONE_HYPOTHESIS.id}'" in err and repr(scope) in err, err
    assert not (root / "runs" / "iter-001").exists()
