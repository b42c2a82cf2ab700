"""A sealed record (a closed round the read model keeps) shares one empty list and one
empty table for its empty fields: changing them raises, naming the fix, and every copy
of the record is an ordinary record again."""

from __future__ import annotations

import copy
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.rounds.records import Round, copy_record
from pto_tui.core.rounds.sealed import EMPTY_DICT, EMPTY_LIST, READ_ONLY, seal
from tests.core.test_read_model import project_with_rounds
from tests.core.test_toml_text import full_round


def empties(record: object) -> list[object]:
    """Every empty list and dict field of record and of its nested records."""
    found: list[object] = []
    for spec in fields(record):  # type: ignore[arg-type]
        value = getattr(record, spec.name)
        if isinstance(value, list | dict) and not value:
            found.append(value)
        elif is_dataclass(value) and not isinstance(value, type):
            found += empties(value)
    return found


def test_a_sealed_record_shares_its_empty_fields_and_refuses_changes() -> None:
    record = seal(Round(number=3, status="closed"))
    shared = empties(record)
    assert len(shared) >= 20 and all(v is EMPTY_LIST or v is EMPTY_DICT for v in shared)
    with pytest.raises(TypeError, match="copy_record"):
        record.flags.append("x")
    with pytest.raises(TypeError, match="copy_record"):
        record.changes.parameter_values["TILE"] = 1
    with pytest.raises(TypeError, match="copy_record"):
        record.measurement.samples_us += [1.0]
    assert not EMPTY_LIST and not EMPTY_DICT and READ_ONLY.endswith("(copy_record)")


def test_a_full_record_keeps_its_values_when_sealed() -> None:
    record = seal(full_round())
    assert record == full_round()


@pytest.mark.parametrize("copier", [copy_record, copy.deepcopy, copy.copy])
def test_a_copy_of_a_sealed_record_can_be_changed(copier: object) -> None:
    sealed = seal(Round(number=3, status="closed"))
    copied = copier(sealed)  # type: ignore[operator]
    if copier is copy.copy:  # a shallow copy shares the fields: copy them as callers do
        copied.flags = copy.copy(sealed.flags)
    else:
        copied.measurement.samples_us.append(1.0)
        copied.changes.parameter_values["TILE"] = 1
        assert copied.measurement.samples_us == [1.0] and not sealed.measurement.samples_us
    copied.flags.append("x")
    assert copied.flags == ["x"] and sealed.flags == [] and type(copied.flags) is list


def test_the_model_keeps_closed_rounds_sealed_and_hands_out_copies(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 3)
    with Campaign(root) as campaign:
        kept = campaign.current_rounds()
        closed = [r for r in kept if r.is_closed]
        assert closed and all(r.flags is EMPTY_LIST for r in closed if not r.flags)
        handed = campaign.rounds()
        for record in handed:
            record.flags.append("mine")  # a caller's copy: nothing shared with the model
        assert all("mine" not in r.flags for r in campaign.current_rounds())
