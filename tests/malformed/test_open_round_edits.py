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
from pto_tui.core.rules.open_round import CHANGES_RECORDED, VALID_RECORD
from pto_tui.core.rules.pre_edit import (
    BOTTLENECK_CLASS,
    FOUR_QUESTIONS,
    HARDWARE_CHECKLIST,
    ONE_HYPOTHESIS,
    PRE_EDIT_COMPLETE,
)
from pto_tui.core.rules.risk import HIGH_RISK
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
    "made-up phase": (_set("phase", "astrology"), VALID_RECORD.id, "phase 'astrology'"),
    "unknown checklist item": (
        _set("pre_edit.checklist.bogus", {"ticked": True, "note": "x"}), VALID_RECORD.id, "'bogus'"
    ),
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


KERNEL = "workspace/kernel/fa_kernel.h"
MEASURE = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99")
CLOSE = ("round", "close", "--analysis", "a", "--next", "b")


def _parameter_round(tmp_path: Path) -> Path:
    """iter-001 open with TILE_S1 set (a parameter in its scope), its changes recorded."""
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=128") == 0
    return root


PARAMETER_EDITS: dict[str, tuple[Edit, str, str]] = {
    # the scope narrowed by hand after the changes it covered were recorded
    "scope narrowed": (_set("pre_edit.scope", ["workspace/fa.cpp"]), ONE_HYPOTHESIS.id,
                       "[changes] against [pre_edit] scope: changes outside the declared scope"),
    "parameter disagrees with the snapshot": (
        _set("changes.snapshot.TILE_S1", 512), VALID_RECORD.id,
        "changes.parameters: TILE_S1 = 128 is not changes.snapshot's 512",
    ),
    # patch.diff says 256 -> 128: a record that says otherwise is not what was recorded
    "parameter's old value": (
        lambda data: data["changes"]["parameters"][0].__setitem__("old", 64), CHANGES_RECORDED.id,
        "patch.diff",
    ),
}


@pytest.mark.parametrize("name", list(PARAMETER_EDITS))
def test_a_hand_edit_of_a_recorded_change_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = _parameter_round(tmp_path)
    edit, rule, field = PARAMETER_EDITS[name]
    path = _round_toml(root)
    good = path.read_text()
    data = tomlkit.parse(good).unwrap()
    edit(data)
    path.write_text(tomlkit.dumps(data))
    _refused(capsys, root, rule, field, *MEASURE)
    _refused(capsys, root, rule, field, *CLOSE)
    assert 'status = "closed"' not in path.read_text()
    path.write_text(good)  # as pto-tui wrote it: measured and closed
    assert cli("--project", root, *MEASURE) == 0 and cli("--project", root, *CLOSE) == 0


def test_an_edit_after_round_changes_is_refused_until_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workspace changed after `round changes`: measure and close refuse until the
    changes are recorded again, and recording them applies the scope."""
    root = _parameter_round(tmp_path)
    kernel = root / "workspace" / "kernel" / "fa_kernel.h"
    kernel.write_text(kernel.read_text() + "// a second idea, out of this round's scope\n")
    for step in (MEASURE, CLOSE):
        capsys.readouterr()
        assert cli("--project", root, *step) == 1
        err = capsys.readouterr().err
        assert f"refused by rule '{CHANGES_RECORDED.id}'" in err, err
        assert "changed since: workspace/kernel/fa_kernel.h" in err and "`pto-tui round changes`" in err, err
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1  # now the scope speaks
    err = capsys.readouterr().err
    assert f"'{ONE_HYPOTHESIS.id}'" in err and "workspace/kernel/fa_kernel.h" in err, err
    assert not (root / "runs" / "iter-001" / "patch.diff").read_text().count("second idea")
    kernel.write_text(kernel.read_text().replace("// a second idea, out of this round's scope\n", ""))
    assert cli("--project", root, *MEASURE) == 0 and cli("--project", root, *CLOSE) == 0


def test_changes_never_recorded_are_refused_at_measure_and_close(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=(KERNEL,))) == 0
    kernel = root / "workspace" / "kernel" / "fa_kernel.h"
    kernel.write_text(kernel.read_text().replace("kFaQkPreload = 4", "kFaQkPreload = 5"))
    for step in (MEASURE, CLOSE):
        capsys.readouterr()
        assert cli("--project", root, *step) == 1
        err = capsys.readouterr().err
        assert f"refused by rule '{CHANGES_RECORDED.id}'" in err, err
        assert "never recorded" in err and "runs/iter-001/patch.diff is missing" in err, err
    assert cli("--project", root, "round", "changes") == 0
    assert cli("--project", root, *MEASURE) == 0 and cli("--project", root, *CLOSE) == 0
    assert "kFaQkPreload = 5" in (root / "runs" / "iter-001" / "patch.diff").read_text()


def test_a_round_with_nothing_changed_and_nothing_recorded_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing to record is nothing hidden: the check refuses edits, not rounds."""
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=(KERNEL,))) == 0
    assert cli("--project", root, *MEASURE) == 0 and cli("--project", root, *CLOSE) == 0


def test_a_justification_removed_after_measure_is_refused_at_close(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    justify = "a 512-wide tile still fits the unified buffer with both ping-pong halves"
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=512", "--justify", justify) == 0
    assert cli("--project", root, *MEASURE) == 0
    path = _round_toml(root)
    data = tomlkit.parse(path.read_text()).unwrap()
    assert data["changes"]["high_risk"], data["changes"]
    del data["changes"]["risk_justification"]
    path.write_text(tomlkit.dumps(data))
    capsys.readouterr()
    assert cli("--project", root, *CLOSE) == 1
    err = capsys.readouterr().err
    assert f"refused by rule '{HIGH_RISK.id}'" in err and "write a justification" in err, err
    assert 'status = "closed"' not in path.read_text()


def test_an_unreadable_open_round_is_named_where_a_step_looks_for_it(
    open_round: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _round_toml(open_round)
    good = path.read_text()
    path.write_text(good.replace("number = 1", "number = 9"))
    try:
        for step in (MEASURE, CLOSE):
            capsys.readouterr()
            assert cli("--project", open_round, *step) != 0
            err = capsys.readouterr().err
            assert "no open round (" in err and "iter-001/round.toml" in err and "[number]" in err, err
            assert "Traceback" not in err
    finally:
        path.write_text(good)
