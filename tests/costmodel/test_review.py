"""`pto-tui suggest --review`: the costmodel's predicted ratio for each round's change of a
ranked knob against the measured speedup, and per knob whether the guidance held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.cycles.review import (
    HELD,
    MIXED,
    NOT_HELD,
    UNKNOWN,
    KnobChange,
    review,
    review_text,
)
from tests.core.helpers import run_round
from tests.costmodel.test_round_from_suggestion import _ready


def _change(n: int, before: float | None, after: float | None, old_cost: float | None,
            new_cost: float | None, knob: str = "TILE_S1") -> KnobChange:
    return KnobChange(n, knob, 256, 128, before, after, old_cost, new_cost)


def test_the_guidance_holds_when_prediction_and_measurement_agree() -> None:
    (k,) = review([_change(1, 100.0, 80.0, 0.2, 0.1)])
    (r,) = k.rounds
    assert r.predicted_ratio == pytest.approx(0.5) and r.measured_speedup == pytest.approx(1.25)
    assert r.held is True and k.verdict == HELD
    (k,) = review([_change(1, 100.0, 120.0, 0.2, 0.1)])  # predicted faster, measured slower
    assert k.rounds[0].held is False and k.verdict == NOT_HELD
    (k,) = review([_change(2, 100.0, 120.0, 0.2, 0.1), _change(1, 100.0, 80.0, 0.2, 0.1)])
    assert [r.change.round for r in k.rounds] == [1, 2] and k.verdict == MIXED


def test_no_prediction_or_no_measurement_is_not_judged() -> None:
    refused, unmeasured = review([_change(1, 100.0, 80.0, 0.2, None),
                                  _change(2, None, 80.0, 0.2, 0.1, knob="CUBE_S0")])
    assert refused.rounds[0].predicted_ratio is None and refused.verdict == UNKNOWN
    assert unmeasured.rounds[0].measured_speedup is None and unmeasured.rounds[0].held is None
    assert "no prediction" in review_text([refused])
    assert review_text([]).startswith("no closed round changed a knob")


def test_suggest_review_on_real_rounds(tmp_path: Path, stub_root: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    root = _ready(tmp_path, capsys)
    # the stand-in ranks TILE_S1=256 (current) before 128: 128 is predicted slower
    assert run_round(root, "120,121,119", params=("TILE_S1=128",)) == 0  # slower: held
    assert run_round(root, "80,81,79", params=("TILE_S1=128",)) == 0  # faster: did not hold
    capsys.readouterr()
    assert main(["--project", str(root), "suggest", "--review", "--json",
                 "--pto-isa", str(stub_root)]) == 0
    (tile,) = json.loads(capsys.readouterr().out)["review"]
    assert tile["knob"] == "TILE_S1" and tile["verdict"] == MIXED
    first, second = tile["rounds"]
    assert (first["round"], first["old"], first["new"]) == (1, 256, 128)
    assert first["predicted_ratio"] > 1 and first["before_us"] == pytest.approx(100)
    assert first["measured_speedup"] == pytest.approx(100 / 120, rel=0.01)
    assert first["held"] is True and second["held"] is False
    assert main(["--project", str(root), "suggest", "--review", "--pto-isa", str(stub_root)]) == 0
    text = capsys.readouterr().out
    assert "TILE_S1: guidance mixed" in text and "iter-001 TILE_S1 256 -> 128" in text
