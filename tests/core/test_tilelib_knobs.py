"""Tile-lib knobs resolved from where their value is decided (the case generator, the
instantiation site), on a pto-isa shaped fixture repository; a round's value reaches the
built binary, checked by building the fixture with the machine's g++ and cmake."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.core.operators.tilelib_build import generator_arguments, knob_reached_build
from pto_tui.core.operators.tilelib_generator import read_generator
from pto_tui.core.operators.tilelib_knobs import resolve_knobs
from pto_tui.core.operators.tilelib_trace import entry_sites
from pto_tui.core.operators.tunables import apply_parameter, discover, discover_report
from pto_tui.core.project.commands import render_command
from pto_tui.core.project.config import Tunable
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.reports.parsers import parse_report_csv
from tests.core.helpers import cli

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OPERATOR = REPO / "kernels" / "manual" / "common" / "fa_like"
LIVE = {
    "CUBE_S0": ("case field", 64, "scripts/generate_cases.py:32"),
    "TILE_S1": ("case field", 128, "scripts/generate_cases.py:34"),
    "QK_PRELOAD": ("generator option", 2, "scripts/generate_cases.py:76"),
    "kFaLikeFifoSize": ("constant", 4, "fa_like_kernel.h:10"),
    "kFaLikeSyncPeriod": ("constant", 2, "fa_like_kernel.h:11"),
    "kFaLikeScratchFloats": ("constant", 16, "fa_like_kernel.h:15"),
}
# live, but computed from another live knob: shown as derived, never offered on its own
DERIVED = {"kFaLikeSyncPeriod": "kFaLikeFifoSize / 2"}
DEAD = {
    "kFaLikeProfileBytesPerBlock": "profiling: it only lays out the profiling buffer (fa_like_kernel.h:40)",
    "kFaLikeCommSlotBytes": "host-only: only the host driver uses it (main.cpp:71), never the kernel",
    "S0": "workload: names the case",
    "HEAD_SIZE": "workload: names the case",
    "S1": "workload: names the case",
    "CUBE_S1": "fixed at 64 by the generator",
    "kFaLikeCubeS1": "default of template parameter CUBE_S1, overridden at main.cpp:46 by the generator's "
    "fixed cube_s1 = 64",
    "kFaLikeTileS1": "default of template parameter TILE_S1, overridden at main.cpp:46 by the case string "
    "(tile_s1, field 4)",
    "kFaLikeQkPreload": "default of template parameter QK_PRELOAD, overridden at main.cpp:46 by "
    "generate_cases.py --qk-preload",
}


def test_knobs_are_resolved_where_their_value_is_decided() -> None:
    knobs = {k.name: k for k in resolve_knobs(OPERATOR)}
    assert set(knobs) == set(LIVE) | set(DEAD)
    for name, (decided_by, value, where) in LIVE.items():
        knob = knobs[name]
        assert (knob.live, knob.decided_by, knob.value, knob.where) == (True, decided_by, value, where), knob
    for name, reason in DEAD.items():
        assert not knobs[name].live and knobs[name].reason.startswith(reason), knobs[name]
    assert knobs["QK_PRELOAD"].flag == "--qk-preload"
    assert "QK_PRELOAD_DEFAULT = 2" in knobs["QK_PRELOAD"].reason
    assert knobs["kFaLikeSyncPeriod"].derived and knobs["kFaLikeSyncPeriod"].reason == (
        "derived: kFaLikeSyncPeriod = kFaLikeFifoSize / 2 follows kFaLikeFifoSize"
    )
    assert not any(k.derived for n, k in knobs.items() if n not in DERIVED)
    assert knobs["kFaLikeScratchFloats"].reason == "used at fa_like_kernel.h:26"
    tile = knobs["TILE_S1"]
    assert (tile.position, tile.row_position, tile.key) == (4, 5, "tile_s1")


def test_discover_offers_only_the_live_knobs() -> None:
    report = discover_report(OPERATOR)
    found = {t.name: t for t in report.tunables}
    assert set(found) == set(LIVE) - set(DERIVED)
    assert {n: t.kind for n, t in found.items()} == {
        "CUBE_S0": "case",
        "TILE_S1": "case",
        "QK_PRELOAD": "case",
        "kFaLikeFifoSize": "constexpr",
        "kFaLikeScratchFloats": "constexpr",
    }
    assert [(d.name, d.expr, d.where) for d in report.derived] == [
        ("kFaLikeSyncPeriod", "kFaLikeFifoSize / 2", "fa_like_kernel.h:11")
    ]
    left_out = {item.name: item.reason for item in report.left_out}
    assert left_out["kFaLikeCommSlotBytes"] == DEAD["kFaLikeCommSlotBytes"]
    assert left_out["kFaLikeProfileBytesPerBlock"] == DEAD["kFaLikeProfileBytesPerBlock"]
    assert set(left_out) == set(DEAD)
    assert found["QK_PRELOAD"].where == "scripts/generate_cases.py:76 (--qk-preload)"
    assert found["TILE_S1"].value == found["TILE_S1"].default == 128
    assert generator_arguments(resolve_knobs(OPERATOR)) == (
        "--cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD}"
    )


def test_a_constant_defined_by_an_expression_is_written_as_a_value(tmp_path: Path) -> None:
    """A project made before derived values were told apart may hold one as a tunable: a
    round that sets it writes a value in place of the expression, which then is no longer
    derived (it is offered on its own again)."""
    root = tmp_path / "fa_like"
    shutil.copytree(OPERATOR, root)
    found = {t.name: t for t in discover(root)}
    period = Tunable("kFaLikeSyncPeriod", 2, "constexpr", 2, (), "fa_like_kernel.h:11")
    assert apply_parameter(root, period, 1) == "fa_like_kernel.h"
    assert "constexpr int kFaLikeSyncPeriod = 1;" in (root / "fa_like_kernel.h").read_text()
    assert apply_parameter(root, found["QK_PRELOAD"], 3) is None  # reaches the build as an argument
    assert {t.name: t.value for t in discover(root)}["kFaLikeSyncPeriod"] == 1


def test_generator_reading_follows_named_defaults_and_fixed_fields() -> None:
    text = (OPERATOR / "scripts" / "generate_cases.py").read_text()
    gen = read_generator(text, "scripts/generate_cases.py")
    assert gen is not None and gen.row is not None
    assert gen.row.name == "FA_LIKE_FOR_EACH_CASE"
    assert gen.row.keys == ("s0", "head_size", "s1", "cube_s0", "cube_s1", "tile_s1", "qk_preload")
    assert gen.options["qk_preload"].default_name == "QK_PRELOAD_DEFAULT"
    assert gen.fields["cube_s1"].fixed == 64 and gen.fields["tile_s1"].default_name == "TILE_S1_DEFAULT"
    assert gen.first_case == {"head_size": 64, "s0": 128, "s1": 512, "cube_s0": 64, "tile_s1": 128}
    literal = text.replace("default=QK_PRELOAD_DEFAULT", "default=5")
    assert read_generator(literal, "g.py").options["qk_preload"].default == 5  # type: ignore[union-attr]
    assert read_generator("def broken(:\n", "g.py") is None


def test_an_operator_without_generated_cases_keeps_the_generic_discovery(tmp_path: Path) -> None:
    root = tmp_path / "fa_like"
    shutil.copytree(OPERATOR, root)
    main = root / "main.cpp"
    main.write_text(main.read_text().replace("FA_LIKE_FOR_EACH_CASE(FA_LIKE_CASE_ENTRY)", ""))
    assert resolve_knobs(root) == []
    found = {t.name for t in discover(root)}
    assert {"kFaLikeTileS1", "kFaLikeQkPreload"} <= found  # the generic discovery's constants


BUILD = (
    "rm -rf build && mkdir build && cd build && "
    "{python} ../scripts/generate_cases.py {args} --output-header generated_cases.h "
    "--output-json generated_cases.json > /dev/null && "
    "cmake -DPTO_CPU_SIM_STANDALONE=ON -DPython3_EXECUTABLE={python} .. > /dev/null && make > /dev/null"
)


def _build(root: Path, values: dict[str, str]) -> bytes:
    args = render_command(generator_arguments(resolve_knobs(root)), values)
    command = BUILD.replace("{args}", args).replace("{python}", sys.executable)
    done = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return (root / "build" / "fa_like_cpu_sim").read_bytes()


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_a_round_on_a_live_knob_changes_the_binary_and_a_dead_one_does_not(tmp_path: Path) -> None:
    shutil.copytree(REPO, tmp_path / "repo")
    root = tmp_path / "repo" / "kernels" / "manual" / "common" / "fa_like"
    knobs = {k.name: k for k in resolve_knobs(root)}
    base = {"case": "64,128,512", "CUBE_S0": "64", "TILE_S1": "128"}
    first = _build(root, {**base, "QK_PRELOAD": "2"})
    build = root / "build"
    assert knob_reached_build(build, knobs["QK_PRELOAD"], 2) is True
    assert "MACRO(128, 64, 512, 64, 64, 128, 2)" in (build / "generated_cases.h").read_text()
    second = _build(root, {**base, "QK_PRELOAD": "3"})
    assert second != first
    assert knob_reached_build(build, knobs["QK_PRELOAD"], 3) is True
    assert knob_reached_build(build, knobs["QK_PRELOAD"], 2) is False
    assert knob_reached_build(build, knobs["TILE_S1"], 128) is True
    assert "MACRO(128, 64, 512, 64, 64, 128, 3)" in (build / "generated_cases.h").read_text()
    data = [sys.executable, "../scripts/gen_data.py", "--cases", "64,128,512"]
    subprocess.run(data, cwd=build, capture_output=True, text=True, timeout=60, check=True)
    run = subprocess.run(["./fa_like_cpu_sim"], cwd=build, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "test success" in run.stdout and "QK_PRELOAD=3" in run.stdout
    rows = parse_report_csv((build / "report.csv").read_text(), "report.csv")
    assert [(r.case, r.ok) for r in rows] == [("case_float_H_64_S0_128_S1_512", True)]
    # the dead constant: editing it rebuilds the same binary
    header = root / "fa_like_kernel.h"
    header.write_text(header.read_text().replace("kFaLikeQkPreload = 2;", "kFaLikeQkPreload = 7;"))
    assert _build(root, {**base, "QK_PRELOAD": "2"}) == first
    # without the generator's output the check cannot tell, nor for a constant
    shutil.rmtree(build)
    assert knob_reached_build(build, knobs["QK_PRELOAD"], 3) is None
    assert knob_reached_build(build, knobs["kFaLikeFifoSize"], 4) is None


def test_new_project_build_passes_the_live_knobs_to_the_generator(tmp_path: Path) -> None:
    """The default build and data-generation commands carry the case fields and the generator
    option, so a round on them reaches the generated case header; the binary's filter keeps
    the workload case."""
    shutil.copytree(REPO, tmp_path / "repo")
    source = tmp_path / "repo" / "kernels" / "manual" / "common" / "fa_like"
    projects = tmp_path / "projects"
    assert cli("new", source, "--case-spec", "64,128,512", "--projects-root", projects) == 0
    config = ProjectFile(projects / "fa_like" / "project.toml").config
    assert "generate_cases.py --cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD}" in (
        config.commands.build
    )
    assert "gen_data.py --cases {case},{CUBE_S0},{TILE_S1} &&" in config.commands.benchmark
    assert config.commands.benchmark.endswith("--cases {case}")
    text = (projects / "fa_like" / "project.toml").read_text()
    assert "# build: from operator: generate_cases.py arguments of its live knobs" in text


def test_new_traces_the_knobs_once_and_an_edit_is_traced_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`new` wants the knobs for the tunables and again for the build commands: the entry
    template's arguments are traced once; a source edited since is traced again."""
    import pto_tui.core.operators.tilelib_knobs as knobs_module

    traced: list[str] = []
    real = entry_sites

    def counted(*args: object, **kwargs: object) -> object:
        traced.append("traced")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(knobs_module, "entry_sites", counted)
    monkeypatch.setattr(knobs_module, "_last", [])  # another test's same fixture: not reused here
    shutil.copytree(REPO, tmp_path / "repo")
    source = tmp_path / "repo" / "kernels" / "manual" / "common" / "fa_like"
    projects = tmp_path / "projects"
    assert cli("new", source, "--case-spec", "64,128,512", "--projects-root", projects) == 0
    assert len(traced) == 1
    before = {k.name: k.value for k in resolve_knobs(source)}
    assert len(traced) == 1 and before["kFaLikeFifoSize"] == 4
    header = source / "fa_like_kernel.h"
    header.write_text(header.read_text().replace("kFaLikeFifoSize = 4", "kFaLikeFifoSize = 8"))
    after = {k.name: k.value for k in resolve_knobs(source)}
    assert len(traced) == 2 and after["kFaLikeFifoSize"] == 8
