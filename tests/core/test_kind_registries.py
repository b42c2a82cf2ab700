"""The core's registries: every operator kind has its project and source parts, every
target mode its entry, project.toml keeps the same strings for the enums, and an entry
registered here is what `new`, the parser and the scan use, with no other edit."""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import fields, replace
from pathlib import Path

import pytest
import tomlkit

from pto_tui.core.errors import ConfigError
from pto_tui.core.operators.kinds.registry import SOURCE_KINDS
from pto_tui.core.operators.kinds.spec import KindEvidence
from pto_tui.core.operators.scan import classify, scan
from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.config import Target, default_commands, operator_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.kinds.registry import PROJECT_KINDS
from pto_tui.core.project.modes import DEFAULT_MODE, MODES, simulated_mode
from pto_tui.core.project.parse import parse_config
from pto_tui.core.vocabulary import OperatorKind, TargetKind, TargetMode
from tests.core.helpers import FIXTURES, cli, make_project


@pytest.mark.parametrize("kind", list(OperatorKind))
def test_every_operator_kind_has_its_project_and_source_parts(kind: OperatorKind) -> None:
    project, source = PROJECT_KINDS[kind], SOURCE_KINDS[kind]
    assert project.kind is kind and source.kind is kind
    assert project.label and project.workspace_subdir and project.protected
    assert DEFAULT_MODE in project.commands and DEFAULT_MODE in project.modes
    assert set(project.commands) <= set(project.modes) <= set(MODES)
    for mode in project.modes:
        commands = project.commands_for(mode)
        assert commands.build.strip() and commands.benchmark.strip()
    for spec in (project, source):
        for f in fields(spec):  # every function of the interface is there
            value = getattr(spec, f.name)
            if "Callable" in str(f.type) and "None" not in str(f.type):
                assert callable(value), f"{kind.value}: {f.name}"


def test_the_workspace_folders_of_the_kinds_differ() -> None:
    folders = [spec.workspace_subdir for spec in PROJECT_KINDS.values()]
    assert len(set(folders)) == len(folders)  # `import` tells a kind by its folder


@pytest.mark.parametrize("mode", list(TargetMode))
def test_every_target_mode_has_its_entry(mode: TargetMode) -> None:
    spec = MODES[mode]
    assert spec.mode is mode and spec.summary and spec.choice and spec.help
    assert not spec.simulated or spec.timing_note  # a simulated timing says what it is
    assert simulated_mode(mode.value) is spec.simulated
    assert any(mode in kind.modes for kind in PROJECT_KINDS.values())


def test_recorded_modes_outside_the_table_are_not_simulated() -> None:
    assert not simulated_mode("") and not simulated_mode("a-mode-of-a-later-pto-tui")


def test_project_toml_keeps_the_strings_and_reads_the_enums(tmp_path: Path) -> None:
    root = make_project(tmp_path, "fa_tilelib", target="ssh:npu-box", work_dir="/w/fa")
    project = ProjectFile(root / "project.toml")
    assert (project.config.target.kind, project.config.target.mode) == (TargetKind.SSH, TargetMode.NPU)
    project.set("target.mode", TargetMode.CPU_SIM.value)
    project.save()
    data = tomllib.loads((root / "project.toml").read_text())
    assert (data["target"]["kind"], data["target"]["mode"]) == ("ssh", "cpu-sim")
    config = ProjectFile(root / "project.toml").config
    assert config.target.mode is TargetMode.CPU_SIM and config.target.label == "ssh:npu-box"


def _with_target(root: Path, key: str, value: str) -> str:
    """project.toml's text with one [target] key set."""
    document = tomlkit.parse((root / "project.toml").read_text())
    document["target"][key] = value
    return tomlkit.dumps(document)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("kind", "pbs", "unknown target kind 'pbs'; expected 'local' or 'ssh' or 'slurm'"),
        ("mode", "fpga-sim", "unknown target mode 'fpga-sim'; expected one of: npu, cpu-sim, perf-sim, demo"),
    ],
)
def test_an_unknown_target_kind_or_mode_is_refused_naming_the_key(
    tmp_path: Path, key: str, value: str, expected: str
) -> None:
    root = make_project(tmp_path, "fa_tilelib")
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", _with_target(root, key, value))
    assert caught.value.key == f"target.{key}" and expected in caught.value.message


def test_a_target_built_from_text_holds_the_enums() -> None:
    target = Target(kind="ssh", host="h", mode="cpu-sim")  # type: ignore[arg-type]
    assert target.kind is TargetKind.SSH and target.mode is TargetMode.CPU_SIM
    assert target.simulated and target.label == "ssh:h"
    with pytest.raises(ValueError, match="pbs"):
        Target(kind="pbs")  # type: ignore[arg-type]


def test_a_kind_entry_registered_here_is_what_new_and_the_parser_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tile = PROJECT_KINDS[OperatorKind.PTO_TILE_LIB]
    own = Commands(build="make -C op", correctness="", benchmark="./op --case {case}", results="op.csv")
    monkeypatch.setitem(
        PROJECT_KINDS,
        OperatorKind.PTO_TILE_LIB,
        replace(tile, workspace_subdir="ops", commands={TargetMode.NPU: own}),
    )
    root = make_project(tmp_path, "fa_tilelib")
    assert (root / "workspace" / "ops" / "CMakeLists.txt").is_file()
    config = ProjectFile(root / "project.toml").config
    assert operator_folder(config) == "ops"
    assert (config.commands.build, config.commands.results) == ("make -C op", "op.csv")
    assert default_commands(OperatorKind.PTO_TILE_LIB) == own
    # an absent command is the entry's default too
    text = (root / "project.toml").read_text().replace('build = "make -C op"\n', "")
    assert parse_config(root / "project.toml", text).commands.build == "make -C op"


def test_a_kind_that_does_not_run_in_a_mode_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tile = PROJECT_KINDS[OperatorKind.PTO_TILE_LIB]
    monkeypatch.setitem(PROJECT_KINDS, OperatorKind.PTO_TILE_LIB, replace(tile, modes=(TargetMode.NPU,)))
    root = make_project(tmp_path, "fa_tilelib")
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", _with_target(root, "mode", "cpu-sim"))
    assert caught.value.key == "target.mode"
    expected = "mode 'cpu-sim' (pto-isa's CPU simulation) is not supported yet for pto-tile-lib"
    assert expected in caught.value.message


def test_a_source_entry_registered_here_is_what_the_scan_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def pto_files(folder: Path, files: list[Path]) -> KindEvidence:
        own = [p.name for p in files if p.suffix == ".pto" and p.parent == folder]
        return KindEvidence(lines=[f"{rel}: a .pto kernel" for rel in own], files=own, found=bool(own))

    dsl = replace(SOURCE_KINDS[OperatorKind.PTO_DSL], gather=pto_files, owns_subfolders=True)
    monkeypatch.setitem(SOURCE_KINDS, OperatorKind.PTO_DSL, dsl)
    folder = tmp_path / "tree" / "softmax"
    (folder / "nested").mkdir(parents=True)
    (folder / "softmax.pto").write_text("kernel\n")
    shutil.copytree(FIXTURES / "fa_tilelib", folder / "nested" / "fa")  # not entered: owned
    candidate = classify(folder)
    assert candidate is not None and candidate.kind is OperatorKind.PTO_DSL
    assert candidate.evidence == ("softmax.pto: a .pto kernel",)
    assert [c.path.name for c in scan(tmp_path / "tree").candidates] == ["softmax"]


def test_the_mode_table_decides_what_is_simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    npu = MODES[TargetMode.NPU]
    target = Target()
    assert not target.simulated
    monkeypatch.setitem(MODES, TargetMode.NPU, replace(npu, simulated=True, timing_note="a test's cycles"))
    assert target.simulated and simulated_mode("npu")


def test_new_offers_the_modes_of_the_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "500")  # one line per option: nothing wrapped mid-word
    with pytest.raises(SystemExit):
        cli("new", "--help")
    help_text = " ".join(capsys.readouterr().out.split())
    for mode, spec in MODES.items():
        if mode is not TargetMode.DEMO:
            assert f"{mode.value}" in help_text and " ".join(spec.choice.split()) in help_text
