"""copy_record, the read model's copy of every round it hands out: equal to the record,
sharing nothing a caller could change, with a tampered mark too."""

from __future__ import annotations

import copy
from dataclasses import fields, is_dataclass
from typing import Any

from pto_tui.core.rounds.records import Round, copy_record
from tests.core.test_toml_text import full_round


def mutable_parts(value: Any) -> list[Any]:
    """Every list, dict and dataclass object inside value (itself included)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list | dict) or (is_dataclass(item) and not isinstance(item, type)):
            found.append(item)
            children = (item.values() if isinstance(item, dict) else item if isinstance(item, list)
                        else [getattr(item, spec.name) for spec in fields(item)])
            stack.extend(children)
    return found


def test_the_copy_is_equal_and_shares_nothing_mutable() -> None:
    record = full_round()
    record.tampered = ["verdict"]
    copied = copy_record(record)
    assert copied == record == copy.deepcopy(record)
    assert type(copied.verdict) is type(record.verdict) and copied.verdict is record.verdict
    originals = {id(part) for part in mutable_parts(record)}
    assert len(originals) >= 30  # the full record really has nested parts to copy
    assert not originals & {id(part) for part in mutable_parts(copied)}


def test_changing_the_copy_leaves_the_record_alone() -> None:
    record = full_round()
    copied = copy_record(record)
    copied.pre_edit.checklist["tile_shape"].ticked = not copied.pre_edit.checklist["tile_shape"].ticked
    copied.measurement.samples_us.append(1.0)
    copied.changes.parameter_values["TILE"] = 1
    copied.environment_attempts[0].probes["ssh"] = False
    assert record == full_round()


def test_a_list_of_rounds_is_copied_round_by_round() -> None:
    rounds = [full_round(), Round(number=0)]
    copied = copy_record(rounds)
    assert copied == rounds and copied is not rounds
    assert all(a is not b for a, b in zip(copied, rounds, strict=True))
