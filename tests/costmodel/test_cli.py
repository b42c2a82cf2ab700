"""`pto-tui costmodel` end to end, through pto_tui.cli.main.main."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Target,
)
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.vocabulary import OperatorKind

MATMUL = ["TMATMUL", "half", "half", "float", "--m", "128", "--k", "64", "--n", "128"]
GRID = ["sweep", "TMATMUL", "half", "half", "float", "--m", "16,32,64", "--k", "32,64",
        "--n", "16:64:x2"]


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["costmodel", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_single_query_json(capsys, stub_root: Path, tmp_path: Path) -> None:
    code, out, _ = run(capsys, *MATMUL, "--pto-isa", str(stub_root), "--json")
    assert code == 0
    data = json.loads(out)
    (result,) = data["results"]
    assert result["label"] == "TMATMUL.float<half,half>_128x64x128"
    assert result["cycles"] == 262
    assert result["flops"] == 2 * 128 * 64 * 128
    assert result["ideal_cycles"] == 256
    assert result["efficiency"] == pytest.approx(256 / 262)
    assert result["stamp"]["engine"] == "builtin" and result["stamp"]["compiler"].startswith("g++")
    assert result["cached"] is False
    assert data["best"] == result["label"] and data["failed"] == 0
    # No project: the cache is in pto-tui's own home (PTO_TUI_HOME in tests).
    assert (Path(os.environ["PTO_TUI_HOME"]) / "cache" / "costmodel.json").is_file()
    code, out, _ = run(capsys, *MATMUL, "--pto-isa", str(stub_root), "--json")
    assert json.loads(out)["results"][0]["cached"] is True
    code, out, _ = run(capsys, *MATMUL, "--pto-isa", str(stub_root), "--json", "--no-cache")
    assert json.loads(out)["results"][0]["cached"] is False


def test_single_query_text_prints_the_tool_line(capsys, stub_root: Path) -> None:
    code, out, _ = run(capsys, *MATMUL, "--pto-isa", str(stub_root))
    assert code == 0
    assert out.splitlines()[0] == "[CYCLE] TMATMUL.float<half,half>_128x64x128 actual=262"
    assert "97.7%" in out and "costmodel: builtin sha256:" in out


def test_sweep_table_sorted_with_best_marked(capsys, stub_root: Path) -> None:
    code, out, err = run(capsys, *GRID, "--pto-isa", str(stub_root), "--sort", "cycles_per_flop",
                         "--progress")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["label", "cycles", "flops", "cycles_per_flop", "flop_per_cycle",
                                "ideal_cycles", "efficiency"]
    assert lines[1].startswith("*  TMATMUL.float<half,half>_64x64x64")
    assert "18/18 answered (0 from cache)" in out
    assert "best (*): TMATMUL.float<half,half>_64x64x64 = 70 cycles" in out
    assert "costmodel: 18/18" in err  # progress on stderr


def test_sweep_json_and_sort_descending(capsys, stub_root: Path) -> None:
    code, out, _ = run(capsys, *GRID, "--pto-isa", str(stub_root), "--json", "--sort", "cycles",
                       "--desc")
    data = json.loads(out)
    cycles = [r["cycles"] for r in data["results"]]
    assert len(cycles) == 18 and cycles == sorted(cycles, reverse=True)
    assert data["best"] == "TMATMUL.float<half,half>_64x64x64"


def test_exports(capsys, stub_root: Path, tmp_path: Path) -> None:
    code, out, _ = run(capsys, *GRID, "--pto-isa", str(stub_root), "--export", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 18
    assert [r["label"] for r in rows if r["best"] == "*"] == ["TMATMUL.float<half,half>_64x64x64"]
    target = tmp_path / "sweep.md"
    code, out, _ = run(capsys, *GRID, "--pto-isa", str(stub_root), "--export", "md",
                       "-o", str(target))
    assert code == 0
    text = target.read_text()
    assert text.startswith("|  | label | cycles") and "**best**" in text
    assert "best (*)" in out  # the table is still printed when the export goes to a file
    code, out, _ = run(capsys, *GRID, "--pto-isa", str(stub_root), "--evidence")
    assert out.startswith("Costmodel (A2/A3, simulated cycles; builtin")
    assert "- best: `TMATMUL.float<half,half>_64x64x64`" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([], "Which PTO instruction"),
        (["TADD"], "Which data type"),
        (["TADD", "half"], "Which tile shape"),
        (["TMATMUL", "half", "half", "float", "--m", "16"], "TMATMUL needs the dimensions M, K"),
        (["TCVT", "half", "-r", "16", "-c", "64"], "TCVT needs source and target types"),
        (["TFOO", "half", "-r", "16", "-c", "64"], "valid: unary: TEXP"),
        (["TADD", "double", "-r", "16", "-c", "64"], "valid: float/half/bf16"),
        (["TADD", "half", "-r", "16", "-c", "60"], "multiple of 32 bytes"),
        (["TADD", "half", "-r", "16", "-c", "64", "--sort", "speed"], "unknown column"),
        (["TADD", "half", "-r", "١٦", "-c", "64"], "ASCII digits"),
        (["TADD", "half", "-r", "16", "-c", "٦٤"], "ASCII digits"),
        (["TADD", "half", "١٦x64"], "takes 1 dtype"),
        (["TADD", "--jobs", "x", "half", "-r", "16", "-c", "64"], "invalid int value"),
    ],
)
def test_bad_queries_exit_2_with_the_prompt(capsys, argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err


def test_failed_query_exits_1_and_keeps_the_others(capsys, stub_root: Path) -> None:
    code, out, err = run(capsys, "TADD", "half", "-r", "8,13", "-c", "64",
                         "--pto-isa", str(stub_root))
    assert code == 1
    assert "TADD.half_8x64" in out
    assert "TADD.half_13x64: compile error:" in err
    assert "static assertion failed" in err


def test_no_checkout_is_a_clean_error(capsys) -> None:
    code, _, err = run(capsys, *MATMUL)
    assert code == 1
    assert "needs a pto-isa checkout" in err and "--pto-isa" in err


def test_external_engine(capsys, tmp_path: Path) -> None:
    # The CLI runs the tool with `python3` (the stand-in needs nothing beyond the stdlib).
    tool = Path(__file__).resolve().parents[1] / "fixtures" / "costmodel_tool"
    tool = tool / "query_pto_cycles.py"
    code, out, err = run(capsys, "TCVT", "half", "float", "-r", "16", "-c", "64",
                         "--engine", "external", "--tool", str(tool), "--json")
    assert code == 0, err
    result = json.loads(out)["results"][0]
    assert result["label"] == "TCVT.half<-float_16x64" and result["cycles"] == 14 + 2 * 16
    assert result["stamp"]["engine"] == "external"


def _make_project(root: Path, costmodel: CostmodelConfig) -> Path:
    root.mkdir(parents=True)
    text = new_project_document(
        OperatorConfig(name="demo", kind=OperatorKind.PTO_TILE_LIB), CaseConfig(), [],
        Target(), costmodel)
    (root / "project.toml").write_text(text)
    return root


def test_settings_and_cache_come_from_the_project(capsys, stub_root: Path,
                                                  tmp_path: Path) -> None:
    project = _make_project(tmp_path / "projects" / "demo",
                            CostmodelConfig(enabled=True, engine="builtin",
                                            pto_isa=str(stub_root)))
    code, out, err = run(capsys, *MATMUL, "--json")  # found from the cwd? no: cwd is work/
    assert code == 1 and "needs a pto-isa checkout" in err
    code = main(["--project", str(project), "costmodel", *MATMUL, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["results"][0]["cycles"] == 262
    cache = project / ".pto-tui" / "cache" / "costmodel.json"
    assert cache.is_file()
    assert "TMATMUL.float<half,half>_128x64x128" in cache.read_text()


def test_help_documents_the_forms(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["costmodel", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for needle in ("16:256:x2", "16-128/16", "TMATMUL <A dtype>", "TCVT <target dtype>",
                   "--engine", "sweep TMATMUL"):
        assert needle in text


def test_options_may_sit_between_the_words(capsys, stub_root: Path) -> None:
    # The console's grammar: engine options and dimensions anywhere among the words.
    code, out, err = run(capsys, "TADD", "--pto-isa", str(stub_root), "half", "-r", "64",
                         "--json", "-c", "64")
    assert code == 0, err
    (result,) = json.loads(out)["results"]
    assert result["label"] == "TADD.half_64x64" and result["cycles"] == 14 + 32
    code, out, err = run(capsys, "sweep", "--no-cache", "TADD", "half,float", "16x64",
                         "--pto-isa", str(stub_root), "--sort", "cycles")
    assert code == 0, err
    assert "TADD.float_16x64" in out and "TADD.half_16x64" in out


def test_oversized_queries_are_named_and_never_best(capsys, stub_root: Path) -> None:
    code, out, err = run(capsys, "sweep", "TADD", "half", "-r", "64,512", "-c", "64,512",
                         "--pto-isa", str(stub_root), "--json")
    assert code == 1
    data = json.loads(out)
    by_label = {r["label"]: r for r in data["results"]}
    big = by_label["TADD.half_512x512"]
    assert big["oversized"] is True and big["cycles"] is None
    assert "UB" in big["error"] and "1572864 bytes" in big["error"]
    assert "196608 bytes" in big["error"]
    assert by_label["TADD.half_64x512"]["oversized"]  # 256 repeats: past REPEAT_MAX
    assert "REPEAT_MAX = 255" in by_label["TADD.half_64x512"]["error"]
    assert data["best"] == "TADD.half_512x64" or data["best"] == "TADD.half_64x64"
    assert not by_label[data["best"]]["oversized"]
    code, out, err = run(capsys, "TMATMUL", "half", "half", "float", "--m", "1024", "--k",
                         "1024", "--n", "1024", "--pto-isa", str(stub_root))
    assert code == 1
    assert "does not fit on chip" in err and "L0A" in err and "2097152 bytes" in err
    assert "100%" not in out and "[CYCLE]" not in out
