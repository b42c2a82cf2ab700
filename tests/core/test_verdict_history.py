"""History stays honest when the verdict rule changes: a round closed under an earlier rule
keeps the verdict it was closed with (status, rounds, show), `show` names the rule it was
decided with, and the next round is decided by the rule of today.

The earlier rule is the range rule pto-tui closed rounds with before it recorded the rule
(benchmarks/verdict_bench.py keeps it): it made a clear gain measured with a wide spread
inconclusive. It is put in place of today's for one close, as that pto-tui closed it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign import closing
from pto_tui.core.rules.verdict import RULE, VerdictResult
from pto_tui.core.vocabulary import Verdict
from tests.core.helpers import cli, cli_json, pre_edit_args, ready_project

# a clear gain (about 20%) with a wide spread: today's rule keeps it
GAIN = "80,84,76,81,79,83,77"
MEASURE = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples")
CLOSE = ("round", "close", "--analysis", "a", "--next", "b")


def range_rule(**_kwargs: object) -> VerdictResult:
    """The range rule's answer for GAIN: its spread (max - min) / median is 10%, and half
    of it is noise it cannot tell a gain from."""
    return VerdictResult(Verdict.INCONCLUSIVE, "gain within the noise (range rule)", "noisy", 0.25, 1.25)


def one_round(root: Path, knob: str) -> None:
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    justify = "a smaller tile lowers what each stage holds in the unified buffer"
    assert cli("--project", root, "round", "changes", "--set", f"TILE_S1={knob}", "--justify", justify) == 0
    assert cli("--project", root, *MEASURE, GAIN) == 0


def test_a_round_closed_under_an_earlier_rule_keeps_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    one_round(root, "128")
    with pytest.MonkeyPatch.context() as earlier:
        earlier.setattr(closing, "decide", range_rule)
        earlier.setattr(closing, "RULE", "")  # that pto-tui recorded no rule
        assert cli("--project", root, *CLOSE) == 0
    one_round(root, "64")
    assert cli("--project", root, *CLOSE) == 0
    rounds = cli_json(capsys, "--project", root, "rounds")
    assert isinstance(rounds, dict)
    verdicts = {r["round"]: r["verdict"] for r in rounds["rounds"]}
    assert verdicts[1] == "inconclusive"  # as closed, though today's rule would keep it
    assert verdicts[2] == "kept"  # the same numbers, decided today
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict)
    assert status["counts"]["inconclusive"] == 1 and status["counts"]["kept"] == 1
    capsys.readouterr()
    assert cli("--project", root, "show", "1") == 0
    assert "verdict rule: range 0 (closed before pto-tui recorded the rule)" in capsys.readouterr().out
    assert cli("--project", root, "show", "2") == 0
    assert f"verdict rule: {RULE}" in capsys.readouterr().out
    shown: Any = cli_json(capsys, "--project", root, "show", "2")
    assert shown["record"]["verdict_rule"] == RULE
    capsys.readouterr()
    assert cli("--project", root, "verify") == 0  # closed by pto-tui both: nothing tampered
    assert json.loads(json.dumps(status))["tampered_rounds"] == {}
