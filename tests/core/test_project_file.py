"""project.toml: validation errors name file, line and key; rewrites keep comments and order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.core.errors import ConfigError
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.config import CaseConfig, OperatorConfig, workload_fingerprint
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.parse import locate_key, parse_config
from pto_tui.core.vocabulary import OperatorKind

GOOD = """\
# my project
schema = 1

[operator]
name = "fa"   # the operator
kind = "pto-tile-lib"

[case]
dtype = "float16"
spec = "128,128,1024,128"

[case.shape]
S1 = 1024

[tunables]
kFaTileS1 = {value = 256, kind = "constexpr", allowed = [128, 256, 512]}

[target]
kind = "ssh"
host = "npu-a"
work_dir = "/home/me/fa"
env_setup = "source /usr/local/Ascend/ascend-toolkit/set_env.sh"
npu_id = 3

[discipline]
repeats = 7
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "project.toml"
    path.write_text(text)
    return path


def error_for(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        ProjectFile(write(tmp_path, text))
    return info.value


def test_valid_file_parses(tmp_path: Path) -> None:
    config = ProjectFile(write(tmp_path, GOOD)).config
    assert config.operator.name == "fa"
    assert config.target.host == "npu-a" and config.target.npu_id == 3
    assert config.tunables["kFaTileS1"].allowed == (128, 256, 512)
    assert config.discipline.repeats == 7 and config.discipline.noise_floor == 0.02
    assert "make -j16" in config.commands.build  # the per-kind default


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    error = error_for(tmp_path, GOOD.replace('kind = "ssh"', 'kind = "ssh'))
    assert error.line == 19 and error.file and error.file.endswith("project.toml")
    assert "invalid TOML" in error.render() and "project.toml:19" in error.render()


def test_unknown_key_names_key_and_line(tmp_path: Path) -> None:
    error = error_for(tmp_path, GOOD.replace("npu_id = 3", "npu_id = 3\nnpu_count = 2"))
    assert error.key == "target.npu_count" and error.line == 24
    assert "unknown key 'npu_count'" in error.message and "npu_id" in error.message


def test_wrong_type_names_key_and_line(tmp_path: Path) -> None:
    error = error_for(tmp_path, GOOD.replace("repeats = 7", 'repeats = "seven"'))
    assert error.key == "discipline.repeats" and error.line == 26
    assert "expected an integer" in error.message
    error = error_for(tmp_path, GOOD.replace("repeats = 7", "repeats = true"))
    assert "boolean" in error.message


def test_value_rules(tmp_path: Path) -> None:
    assert "allowed" in error_for(tmp_path, GOOD.replace("value = 256", "value = 300")).message
    assert error_for(tmp_path, GOOD.replace('host = "npu-a"\n', "")).key == "target.host"
    assert error_for(tmp_path, GOOD.replace('kind = "pto-tile-lib"', 'kind = "cuda"')).key == "operator.kind"
    assert error_for(tmp_path, GOOD.replace('name = "fa"', 'name = "../x"')).key == "operator.name"
    assert error_for(tmp_path, GOOD + "noise_floor = 2.0\n").key == "discipline.noise_floor"
    assert error_for(tmp_path, GOOD + "\n[extra]\n").key == "extra"
    assert "missing section [operator]" in error_for(tmp_path, "schema = 1\n").message


def test_rewrite_keeps_comments_and_order(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    project = ProjectFile(path)
    project.set("tunables.kFaTileS1.value", 512)
    project.set("state.note", "x")
    project.save()
    text = path.read_text()
    assert text.startswith("# my project\nschema = 1\n")
    assert 'name = "fa"   # the operator' in text
    assert "kFaTileS1 = {value = 512" in text
    assert text.index("[operator]") < text.index("[case]") < text.index("[target]")
    assert ProjectFile(path).config.tunables["kFaTileS1"].value == 512


def test_save_refuses_an_invalid_edit(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    project = ProjectFile(path)
    project.set("tunables.kFaTileS1.value", 999)
    with pytest.raises(ConfigError):
        project.save()
    assert path.read_text() == GOOD  # nothing half-written


def test_fingerprint_tracks_the_workload(tmp_path: Path) -> None:
    base = parse_config(tmp_path / "p.toml", GOOD)
    assert workload_fingerprint(base) == workload_fingerprint(parse_config(tmp_path / "p.toml", GOOD))
    changed = parse_config(tmp_path / "p.toml", GOOD.replace("S1 = 1024", "S1 = 2048"))
    assert workload_fingerprint(base) != workload_fingerprint(changed)
    # tunables are not the workload
    tuned = parse_config(tmp_path / "p.toml", GOOD.replace("value = 256", "value = 512"))
    assert workload_fingerprint(base) == workload_fingerprint(tuned)


def test_locate_key() -> None:
    assert locate_key(GOOD, "case.shape.S1") == 13
    assert locate_key(GOOD, "operator") == 4
    assert locate_key(GOOD, "nothing.here") is None


def test_cli_prints_a_named_error_not_a_traceback(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "project.toml").write_text(GOOD.replace("repeats = 7", "repeats = 7 7"))
    result = subprocess.run(
        [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), "status"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{root / 'project.toml'}:26" in result.stderr


def test_case_description_names_the_workload_knobs_and_a_bare_case() -> None:
    knobs = CaseConfig(name="spec", dtype="float16", knobs={"SEQ_LEN": 32, "HEAD_DIM": 64})
    assert knobs.describe() == "SEQ_LEN=32, HEAD_DIM=64; float16"
    bare = CaseConfig(name="flash_attention_score", dtype="float16")
    assert bare.describe() == "flash_attention_score; float16"
    # the case once, as its fields: the string is not repeated beside them
    shaped = CaseConfig(name="c", shape={"S": 512}, dtype="float32", spec="S=512")
    assert shaped.describe() == "S=512; float32"
    unparsed = CaseConfig(dtype="float16", spec="anything,the,tool,takes")
    assert unparsed.describe() == "float16; case anything,the,tool,takes"


def test_a_tile_lib_case_string_is_shown_as_its_fields() -> None:
    operator = OperatorConfig(name="flash_atten", kind=OperatorKind.PTO_TILE_LIB,
                              source="kernels/manual/common/flash_atten")
    case = CaseConfig(dtype="float16", spec="128,128,1024")
    assert case_text(case, operator) == "B=1, N=1, HEAD_SIZE=128, S0=128, S1=1024; float16"
    # a string that does not fit the format is shown as given, never dropped
    odd = CaseConfig(dtype="float16", spec="128,x")
    assert case_text(odd, operator) == "float16; case 128,x"
