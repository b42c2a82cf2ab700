"""round.toml's own TOML writer against tomlkit: the same bytes for every shape a record has,
and for random tables of those shapes (seeded), so a round.toml reads and hashes as before."""

from __future__ import annotations

import random
import tomllib
from typing import Any

import tomlkit

from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.rounds import toml_text
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import (
    CLOSED,
    Amendment,
    Changes,
    ChecklistItem,
    EnvironmentNotes,
    Measurement,
    ParamChange,
    PreEdit,
    Round,
)
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, ChangeKind, Verdict

ODD = 'tab\there "quoted" back\\slash\nnew line\r\x01\x7f é \u2028 \'single\''
KEYS = ["a", "k-1", "x_y", "a.b", "", "é", "sp ace", 'q"', "workspace/x.cpp", "Z9"]


def full_round() -> Round:
    """A closed round using every part of the record, with awkward text in it."""
    env = EnvironmentNotes(
        versions={"CANN": "8.0", "odd key.with dots": ODD}, build_outcome="ok",
        problems=["a", ODD], probes={"ssh": True, "build": False}, passed=True, at="2026-01-01",
        declared_by="cli", declared_reason=ODD,
    )
    return Round(
        number=7, status=CLOSED, phase="fine-tune", opened_at="t0", closed_at="t1", title=ODD,
        pre_edit=PreEdit(
            kernel="k", bottleneck=ODD, hypothesis="h", scope=["workspace/**", ODD],
            checklist={key: ChecklistItem(i % 2 == 0, ODD) for i, key in enumerate(HARDWARE_CHECKLIST)},
        ),
        changes=Changes(
            kind=ChangeKind.TEMPLATE_PARAMETER,
            files=["workspace/a.cpp"], description=ODD, based_on=3,
            parameters=[ParamChange("TILE", 64, 128), ParamChange("FLAG", None, True),
                        ParamChange("RATE", 0.5, 1e-05)],
            parameter_values={"TILE": 128, "FLAG": True, "NAME": ODD, "RATE": 1e20},
        ),
        measurement=Measurement(build="ok", correctness="pass", samples_us=[99.0, -0.0, 1e-07],
                                reference_us=[1e20], tflops=3.5, reports=["r.csv"],
                                fingerprint="fp", target_mode="npu",
                                workload_reads=[WorkloadRead("SEQ", "k.py", 9, ODD),
                                                WorkloadRead("s1", ODD, 1)]),
        verdict=Verdict.KEPT, verdict_reason=ODD, flags=["f1", ODD], held_for_review=True,
        analysis=ODD, next="n", rerun_of=2, base_snapshot="s0", snapshot="s1",
        environment=env, environment_attempts=[env, EnvironmentNotes()],
        amendments=[Amendment(**{k: ODD for k in Amendment.__dataclass_fields__})],
        notes_sha="abc", protected_hashes={"workspace/x.cpp": "h1"}, tolerances={"atol": 1e-3},
        discipline={"runs": 5.0},
    )


def test_a_full_record_is_written_as_tomlkit_writes_it_and_reads_back() -> None:
    for record in (full_round(), Round(number=0), Round(number=3, title="plain")):
        data = round_to_dict(record)
        text = toml_text.dumps(data)
        assert text == tomlkit.dumps(data)
        assert tomllib.loads(text) == data  # the tables the read model keeps without parsing
        assert round_from_dict(tomllib.loads(text)) == round_from_dict(data)


def _scalar(rng: random.Random) -> Any:
    pick = rng.randrange(4)
    if pick == 0:
        return "".join(rng.choice(ODD) for _ in range(rng.randint(0, 5)))
    if pick == 1:
        return rng.randint(-5, 10**12)
    if pick == 2:
        return rng.choice([0.1, 1e-5, 1e20, float("inf"), -0.0, 99.0])
    return rng.choice([True, False])


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.25:
        return _table(rng, depth + 1)
    if depth < 3 and roll < 0.35:
        return [_table(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    if roll < 0.45:
        return [_scalar(rng) for _ in range(rng.randint(0, 3))]
    return _scalar(rng)


def _table(rng: random.Random, depth: int) -> dict[str, Any]:
    return {f"{rng.choice(KEYS)}{i}": _value(rng, depth) for i in range(rng.randint(0, 5))}


def test_random_tables_of_the_record_shapes_are_written_as_tomlkit_writes_them() -> None:
    # tables before and after values, empty tables and elements, tables of tables only,
    # arrays of tables in arrays of tables: each of tomlkit's blank-line rules is met
    rng = random.Random(17)
    for _ in range(1500):
        data = _table(rng, 0)
        assert toml_text.dumps(data) == tomlkit.dumps(data), data


def test_shapes_a_record_never_has_are_left_to_tomlkit() -> None:
    for data in ({"mixed": [1, {"a": 1}]}, {"nested": [[1, 2], [3]]}, {"inline": [[{"a": 1}]]}):
        assert toml_text.dumps(data) == tomlkit.dumps(data)
