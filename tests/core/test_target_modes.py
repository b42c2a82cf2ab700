"""Target modes: what `new` writes for npu and cpu-sim targets, the rules project.toml
follows, and the documentation of every command key and placeholder."""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
import tomlkit

from pto_tui.core.errors import ConfigError
from pto_tui.core.project.commands import PLACEHOLDERS, template_values
from pto_tui.core.project.config import workload_fingerprint
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.sections import COMMANDS
from tests.core.helpers import FIXTURES, cli, make_project, pre_edit_args

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OP = "kernels/manual/common/fa_like"


def _new(tmp_path: Path, *args: str) -> Path:
    source = tmp_path / "src" / "tilelib_repo"
    if not source.exists():
        shutil.copytree(REPO, source)
    assert cli("new", source / OP, "--case-spec", "64,128,512", "--projects-root", tmp_path / "p", *args) == 0
    return tmp_path / "p" / "fa_like"


def test_a_cpu_sim_project_builds_pto_isas_cpu_simulation_runner(tmp_path: Path) -> None:
    root = _new(tmp_path, "--mode", "cpu-sim", "--compiler", "clang++-16", "--cxx-flags=-stdlib=libc++")
    text = (root / "project.toml").read_text()
    data = tomllib.loads(text)
    assert data["target"]["mode"] == "cpu-sim"
    assert (data["target"]["compiler"], data["target"]["cxx_flags"]) == ("clang++-16", "-stdlib=libc++")
    build = data["commands"]["build"]
    assert "cmake -DPTO_CPU_SIM_STANDALONE=ON -DCMAKE_CXX_COMPILER={compiler}" in build
    assert "-DCMAKE_CXX_FLAGS={cxx_flags}" in build
    # the case header is generated (with the live knobs) before make, which keeps it
    assert build.index("generate_cases.py --cases {case},{CUBE_S0},{TILE_S1} --qk-preload") < build.index(
        "make"
    )
    benchmark = data["commands"]["benchmark"]
    # the executable the CMakeLists.txt builds in CPU simulation, its ticks scaled to ns
    assert "./fa_like_cpu_sim --sys_cnt_multiple=1 --cases {case}" in benchmark
    assert "{binary}" not in benchmark and "--npu" not in benchmark
    assert "# benchmark: from operator: CMakeLists.txt:29 builds fa_like_cpu_sim" in text
    config = ProjectFile(root / "project.toml").config
    assert config.target.simulated
    values = template_values(config, {})
    assert (values["compiler"], values["cxx_flags"], values["mode"]) == (
        "clang++-16",
        "-stdlib=libc++",
        "cpu-sim",
    )


def test_an_npu_project_runs_the_executable_of_the_cmake_helper_function(tmp_path: Path) -> None:
    root = _new(tmp_path)
    data = tomllib.loads((root / "project.toml").read_text())
    assert data["target"]["mode"] == "npu"
    assert "-DRUN_MODE=npu" in data["commands"]["build"]
    # pto_example_mixed(fa_like) adds the executable ${NAME}
    assert "./fa_like --npu={npu} --cases {case}" in data["commands"]["benchmark"]


def test_cpu_sim_needs_the_operators_cpu_simulation_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    lists = source / OP / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("PTO_CPU_SIM_STANDALONE", "SOMETHING_ELSE"))
    projects = tmp_path / "p"
    assert (
        cli("new", source / OP, "--case-spec", "64,128,512", "--projects-root", projects, "--mode", "cpu-sim")
        == 2
    )
    err = capsys.readouterr().err
    assert f"{lists}: no PTO_CPU_SIM_STANDALONE option" in err and "--command build=" in err
    assert not (projects / "fa_like").exists()
    own = ("--command", "build=make -C build")
    assert (
        cli(
            "new",
            source / OP,
            "--case-spec",
            "64,128,512",
            "--projects-root",
            projects,
            "--mode",
            "cpu-sim",
            *own,
        )
        == 0
    )


def test_cpu_sim_is_refused_for_a_pto_dsl_operator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "attention_dsl"
    args = ("--case", "attention_s1024", "--mode", "cpu-sim")
    assert cli("new", source, "--projects-root", tmp_path / "p", *args) == 2
    err = capsys.readouterr().err
    assert "[target.mode] mode 'cpu-sim'" in err and "not supported yet for pto-dsl" in err


def _with_target(root: Path, lines: str) -> str:
    text = (root / "project.toml").read_text()
    return text.replace("[target]\n", "[target]\n" + lines, 1)


@pytest.mark.parametrize(
    ("operator", "lines", "message"),
    [
        ("demo_fa", 'mode = "npu"\n', "a demo operator runs in mode 'demo', not 'npu'"),
        ("fa_tilelib", 'mode = "demo"\n', "mode 'demo' is for the built-in demo operators"),
        ("fa_tilelib", 'mode = "gpu"\n',
         "unknown target mode 'gpu'; expected one of: npu, cpu-sim, perf-sim, demo"),
    ],
)
def test_a_mode_that_does_not_suit_the_operator_is_refused(
    tmp_path: Path, operator: str, lines: str, message: str
) -> None:
    root = _project(tmp_path, operator)
    text = (root / "project.toml").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("mode =")) + "\n"
    text = text.replace("[target]\n", "[target]\n" + lines, 1)
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", text)
    rendered = caught.value.render()
    line = text.splitlines().index(lines.strip()) + 1
    assert message in rendered and f"project.toml:{line}" in rendered and "target.mode" in rendered


def _project(tmp_path: Path, operator: str) -> Path:
    if operator == "demo_fa":
        from pto_tui.core.campaign.demo import create_demo_project

        return create_demo_project("tile-lib", tmp_path / "p")
    return make_project(tmp_path, operator)


def test_the_mode_defaults_follow_the_operator_and_cpu_sim_fills_absent_commands(tmp_path: Path) -> None:
    demo = _project(tmp_path, "demo_fa")
    text = "\n".join(
        line for line in (demo / "project.toml").read_text().splitlines() if not line.startswith("mode =")
    )
    assert parse_config(demo / "project.toml", text + "\n").target.mode == "demo"
    root = _project(tmp_path, "fa_tilelib")
    document = tomlkit.parse((root / "project.toml").read_text())
    del document["commands"]
    without_commands = tomlkit.dumps(document)
    document["target"]["mode"] = "cpu-sim"
    cpu_sim = tomlkit.dumps(document)
    config = parse_config(root / "project.toml", cpu_sim)
    assert "-DPTO_CPU_SIM_STANDALONE=ON" in config.commands.build
    assert "./{binary} --cases {case}" in config.commands.benchmark
    npu = parse_config(root / "project.toml", without_commands)
    assert "-DRUN_MODE=npu" in npu.commands.build
    # simulated timings never compare with an NPU's: the mode is part of the workload
    assert workload_fingerprint(config) != workload_fingerprint(replace(config, target=npu.target))


def test_every_command_key_and_placeholder_is_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ProjectFile(make_project(tmp_path, "fa_tilelib") / "project.toml").config
    config = replace(config, case=replace(config.case, shape={}, options={}))
    assert set(template_values(config, {})) == set(PLACEHOLDERS)
    assert cli("config", "commands") == 0
    out = capsys.readouterr().out
    for key in COMMANDS.keys:
        assert f"### `{key.name}`" in out
    for name in PLACEHOLDERS:
        assert f"`{{{name}}}`" in out
    for mode in ("npu", "cpu-sim", "demo"):
        assert f"- `{mode}`: " in out
    assert "pto-tile-lib, cpu-sim: `rm -rf build" in out
    with pytest.raises(SystemExit):
        cli("config", "--help")
    help_text = capsys.readouterr().out
    assert "pto-tui config commands" in help_text and "{cxx_flags}" in help_text
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for name in PLACEHOLDERS:
        assert f"{{{name}}}" in readme, f"README does not document {{{name}}}"



def test_the_environment_round_refuses_an_empty_case_string_before_any_probe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's generate_cases.py given an empty --cases fails with a traceback in the
    build; the round says what is missing first, and runs nothing."""
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    projects = tmp_path / "p"
    assert cli("new", source / OP, "--projects-root", projects, "--mode", "cpu-sim") == 0
    root = projects / "fa_like"
    capsys.readouterr()
    assert cli("--project", root, "env") == 2
    err = capsys.readouterr().err
    assert "[case.spec] no case string: the command passes one ({case})" in err
    assert 'spec = "128,128,1024"' in err
    assert not list(root.glob(".pto-tui/jobs/*"))  # no job ran, not even a probe


def test_the_generators_tile_bounds_are_the_case_fields_allowed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's generator wants S1 divisible by TILE_S1 and TILE_S1 by the CUBE_S1 it fixes
    (128; the stand-in's 64, read from it), and replaces a CUBE_S0 that does not divide S0
    by S0 without a word: a round is refused such a tile."""
    root = _new(tmp_path)  # case 64,128,512: S0 128, S1 512
    tunables = tomllib.loads((root / "project.toml").read_text())["tunables"]
    assert tunables["TILE_S1"]["allowed"] == [64, 128, 256, 512]
    assert tunables["CUBE_S0"]["allowed"] == [16, 32, 64, 128]
    assert "allowed" not in tunables["QK_PRELOAD"]  # the generator bounds it only below
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
               "--probe", "ssh=ok", "--probe", "build=ok") == 0
    assert cli("--project", root, "baseline", "--build", "ok", "--correctness", "pass",
               "--samples", "100,101,99") == 0
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=384") == 2
    assert "TILE_S1=384 is not allowed; allowed values: 64, 128, 256, 512" in capsys.readouterr().err
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=128") == 0
