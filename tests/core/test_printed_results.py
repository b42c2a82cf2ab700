"""A run's result read from what its driver prints ([result]): pto-isa's `Average time: X ms`
drivers with their pass/fail line, `avg=X us` lines, a marker's own regular expressions; and
the marker checked against its schema as project.toml is, every error naming file, line and
key; and `new` choosing the format from the driver's source, or refusing an operator whose
driver prints no time, naming what to declare."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pto_tui.core.errors import ConfigError
from pto_tui.core.operators.marker import read_marker
from pto_tui.core.project.config import ResultConfig
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.reports.printed import read_printed
from tests.core.helpers import cli, cli_json

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
FUSED_OUTPUT = """========== Testing Basic Kernel (Small) ==========
Max difference: 0.000000e+00
✓ Basic Kernel (Small) PASSED

========== Benchmarking Basic Kernel ==========
Parameters: length=65536, iterations=20
Average time: 0.1250 ms
Throughput: 4.19 GB/s

========== Benchmarking Large Tile Kernel ==========
Average time: 0.0500 ms

========================================
✓ All tests PASSED
"""


def test_average_time_lines_are_summed_unless_a_label_picks_one() -> None:
    read = read_printed(FUSED_OUTPUT, ResultConfig(format="average-time"))
    assert (read.correct, read.duration_us, read.times) == (True, pytest.approx(175.0), 2)
    assert read.detail == "the sum of 2 time lines"
    large = ResultConfig(format="average-time", label="Benchmarking Large Tile")
    labelled = read_printed(FUSED_OUTPUT, large)
    assert (labelled.correct, labelled.duration_us) == (True, pytest.approx(50.0))
    missing = read_printed(FUSED_OUTPUT, ResultConfig(format="average-time", label="Optimized"))
    assert missing.duration_us is None and "no line holds the result label 'Optimized'" in missing.problem


def test_a_failed_line_fails_the_run_and_no_verdict_line_leaves_it_undetermined() -> None:
    failed = FUSED_OUTPUT.replace("✓ All tests PASSED", "✗ Some tests FAILED")
    assert read_printed(failed, ResultConfig(format="average-time")).correct is False
    silent = FUSED_OUTPUT.replace("✓ All tests PASSED", "")
    assert read_printed(silent, ResultConfig(format="average-time")).correct is None
    topk = "test data success\ntest index failed\nSome tests failed!\n"
    assert read_printed(topk, ResultConfig(format="average-time")).correct is False


def test_avg_us_lines_and_a_pattern_of_ones_own() -> None:
    moe = "  combine: avg=12.5 us max=13.0 us\nrank=0 verify=PASS mismatch_count=0\n"
    read = read_printed(moe, ResultConfig(format="avg-us"))
    assert (read.correct, read.duration_us) == (True, pytest.approx(12.5))
    own = ResultConfig(format="pattern", time=r"elapsed_ns=(\d+)", unit="ns", passed="^OK$", failed="^BAD$")
    read = read_printed("elapsed_ns=250000\nOK\n", own)
    assert (read.correct, read.duration_us) == (True, pytest.approx(250.0))
    assert read_printed("elapsed_ns=250000\nBAD\n", own).correct is False
    nothing = read_printed("OK\n", own)
    assert nothing.duration_us is None and "no time line" in nothing.problem


def _marker(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pto-operator.toml").write_text(text)
    return folder / "pto-operator.toml"


@pytest.mark.parametrize(
    ("text", "key", "line", "words"),
    [
        ('kind = "pto-tile-lib"\nkernel = "x.cpp"\n', "kernel", 2, "unknown key 'kernel'; known:"),
        ('[result]\nformat = "csv"\n', "result.format", 2, "unknown result format 'csv'"),
        ('[result]\nformat = "pattern"\n', "result.time", None, "format 'pattern' needs"),
        ('[result]\nformat = "pattern"\ntime = "avg ("\n', "result.time", 3, "no regular expression"),
        ('[result]\nformat = "pattern"\ntime = "avg [0-9]+"\n', "result.time", 3, "with a group"),
        ('[result]\nunit = "minutes"\n', "result.unit", 2, "unknown unit 'minutes'"),
        ('[repository]\nroot = "/abs"\n', "repository.root", 2, "must be a folder above"),
        ('[repository]\nneeds = ["x"]\n', "repository.root", None, "missing required key 'root'"),
        ('[commands]\nbuild = 3\n', "commands.build", 2, "expected a string"),
        ('[tunables.T]\nvalue = 1\nkind = "macro"\n', "tunables.T.kind", 3, "unknown kind 'macro'"),
        ('[[cases]]\nspec = "1,2"\n', "cases.name", None, "missing required key 'name'"),
        ('sources = ["../x.cpp"]\n', "sources", 1, "sources must be patterns inside"),
    ],
)
def test_the_marker_is_checked_against_its_schema(
    tmp_path: Path, text: str, key: str, line: int | None, words: str
) -> None:
    marker = _marker(tmp_path / "op", text)
    with pytest.raises(ConfigError) as caught:
        read_marker(marker.parent)
    error = caught.value
    assert (error.key, error.file) == (key, str(marker)) and words in str(error)
    if line is not None:
        assert error.line == line


def test_new_reads_the_drivers_average_time_and_refuses_a_driver_without_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO, tmp_path / "repo")
    kernels = tmp_path / "repo" / "kernels"
    projects = tmp_path / "projects"
    fused = kernels / "custom/fused_like"
    data = cli_json(capsys, "new", fused, "--mode", "cpu-sim", "--projects-root", projects)
    config = ProjectFile(Path(data["project"]) / "project.toml").config
    assert config.result == ResultConfig(format="average-time")
    assert config.commands.benchmark == "cd build && ./fused_like_cpu_sim"
    assert config.commands.results == ""
    text = (Path(data["project"]) / "project.toml").read_text()
    assert "# results: from none: the result is read from the benchmark's output ([result])" in text

    gemm = kernels / "manual/a2a3/gemm_perf_like"
    assert cli("new", gemm, "--mode", "cpu-sim", "--projects-root", projects) == 2
    err = capsys.readouterr().err
    assert f"{gemm}: its driver (main.cpp) prints its verdict (main.cpp:42) but no time" in err
    assert "[result] format = \"pattern\"" in err and "docs/pto-operator-toml.md" in err
    assert not (projects / "gemm_perf_like").exists()
    # the NPU build is refused the same way, and so is topk (its driver prints no time either)
    assert cli("new", kernels / "manual/a2a3/topk_like", "--projects-root", projects) == 2
    assert "topk_like: its driver (main.cpp) prints its verdict" in capsys.readouterr().err


def test_a_marker_declares_how_a_driver_without_a_time_is_timed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO, tmp_path / "repo")
    gemm = tmp_path / "repo" / "kernels/manual/a2a3/gemm_perf_like"
    _marker(gemm, (
        'kind = "pto-tile-lib"\n[commands]\n'
        'benchmark = "python3 scripts/gen_data.py && cd build && t=$(date +%s%N) && ./gemm_perf_like_cpu_sim'
        ' && echo elapsed_ns=$(( $(date +%s%N) - t ))"\n'
        '[result]\nformat = "pattern"\ntime = \'elapsed_ns=([0-9]+)\'\nunit = "ns"\n'
    ))
    data = cli_json(capsys, "new", gemm, "--mode", "cpu-sim", "--projects-root", tmp_path / "projects")
    config = ProjectFile(Path(data["project"]) / "project.toml").config
    assert config.result == ResultConfig(format="pattern", time="elapsed_ns=([0-9]+)", unit="ns")
    assert "baseM" in config.tunables  # the marker declares no tunables: the source's stay
