"""`pto-tui round start --from-suggestion KNOB[=VALUE]`: the ranking becomes the round's
evidence (notes.md shows it), the knob is in scope, and the other rules still apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from tests.core.helpers import pre_edit_args
from tests.costmodel.test_suggest import _project


def _ready(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = _project(tmp_path, capsys)
    assert main(["--project", str(root), "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok"]) == 0
    assert main(["--project", str(root), "baseline", "--build", "ok", "--correctness", "pass",
                 "--samples", "100,101,99"]) == 0
    capsys.readouterr()
    return root


def _answers(**drop: str) -> list[str]:
    args = pre_edit_args("a wider key tile amortises the row softmax", scope=())
    for flag in drop:
        i = args.index(f"--{flag}")
        del args[i:i + 2]
    return args


def test_a_round_started_from_a_suggestion_carries_its_evidence(
        tmp_path: Path, stub_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _ready(tmp_path, capsys)
    assert main(["--project", str(root), "suggest", "--pto-isa", str(stub_root), "--json",
                 "--knob", "TILE_S1"]) == 0
    (ranked,) = json.loads(capsys.readouterr().out)["suggestions"]
    start = ["--project", str(root), "round", "start", "--pto-isa", str(stub_root)]
    # on the stand-in the current tile ranks best: no suggestion without a value
    assert ranked["suggested"] == ranked["current"]
    best = next(c["value"] for c in ranked["ranking"] if c["value"] != ranked["current"])
    assert main([*start, "--from-suggestion", "TILE_S1", *_answers(evidence="")]) == 2
    assert f"ranks the current TILE_S1={ranked['current']} best" in capsys.readouterr().err
    code = main([*start, "--from-suggestion", f"TILE_S1={best}", "--json",
                 *_answers(evidence="")])
    out = capsys.readouterr()
    assert code == 0, out.err
    record = json.loads(out.out)
    pre = record["pre_edit"]
    assert pre["evidence"].startswith(f"Suggestion: TILE_S1 {ranked['current']} -> {best}")
    assert "Costmodel ranking of TILE_S1" in pre["evidence"] and ranked["costmodel"] in pre["evidence"]
    assert "TILE_S1" in pre["scope"]
    assert record["title"] == f"TILE_S1 {ranked['current']} -> {best} (costmodel)"
    notes = (root / "runs" / "iter-001" / "notes.md").read_text()
    assert f"Suggestion: TILE_S1 {ranked['current']} -> {best}" in notes
    assert "Queries per step:" in notes


def test_the_other_rules_still_apply(tmp_path: Path, stub_root: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = _ready(tmp_path, capsys)
    start = ["--project", str(root), "round", "start", "--pto-isa", str(stub_root)]
    # the hypothesis is still required: the suggestion fills only the evidence
    assert main([*start, "--from-suggestion", "TILE_S1=128", *_answers(hypothesis="")]) != 0
    assert "hypothesis" in capsys.readouterr().err.lower()
    # a value the costmodel refuses is not a suggestion to start from
    assert main([*start, "--from-suggestion", "TILE_S1=512", *_answers()]) == 2
    err = capsys.readouterr().err
    assert "TILE_S1=512 is refused by the costmodel" in err and "L0B" in err
    assert main([*start, "--from-suggestion", "TILE_S1=100", *_answers()]) == 2
    assert "not in the costmodel's ranking" in capsys.readouterr().err
    assert main([*start, "--from-suggestion", "TILE_S1=x", *_answers()]) == 2
    assert "KNOB=VALUE" in capsys.readouterr().err
    assert not (root / "runs" / "iter-001").exists()
    # a value given by hand, with evidence of one's own kept after the ranking
    assert main([*start, "--from-suggestion", "TILE_S1=128", "--json",
                 *_answers(evidence=""), "--evidence", "profiling: softmax bound"]) == 0
    pre = json.loads(capsys.readouterr().out)["pre_edit"]
    assert "-> 128" in pre["evidence"].splitlines()[0]
    assert pre["evidence"].rstrip().endswith("profiling: softmax bound")
