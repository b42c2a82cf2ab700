"""`[target] kind = "slurm"` and `[target.slurm]` in project.toml: read into the target,
written back only where set, each bad value refused naming its file, line and key; `new
--target slurm[:ALIAS]`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pto_tui.core.errors import ConfigError
from pto_tui.core.project.config import SlurmSettings
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.parse import parse_config
from pto_tui.core.vocabulary import TargetKind
from tests.core.helpers import make_project

SLURM = """
[target.slurm]
partition = "ascend910b"
gres = "npu:910b:1"
time_limit = "1:30:00"
account = "kernels"
options = ["--qos=high", "--exclusive"]
build = "job"
same_node = true
"""


def with_target(root: Path, kind_lines: str, slurm: str) -> str:
    text = (root / "project.toml").read_text()
    head, _, rest = text.partition("[target]\n")
    body, _, tail = rest.partition("\n[costmodel]")
    kept = [line for line in body.splitlines() if not line.startswith(("kind", "host", "work_dir"))]
    return f"{head}[target]\n{kind_lines}\n" + "\n".join(kept) + f"\n{slurm}\n[costmodel]{tail}"


def test_a_slurm_target_reads_its_job_options(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    text = with_target(root, 'kind = "slurm"\nhost = "login1"\nwork_dir = "/shared/me/fa"', SLURM)
    target = parse_config(root / "project.toml", text).target
    assert target.kind is TargetKind.SLURM and target.label == "slurm:login1" and not target.is_local
    assert target.slurm == SlurmSettings("ascend910b", "npu:910b:1", "1:30:00", "kernels",
                                         ("--qos=high", "--exclusive"), "job", True)
    local = parse_config(root / "project.toml", with_target(root, 'kind = "slurm"', "")).target
    assert local.label == "slurm" and local.is_local and local.slurm == SlurmSettings()


@pytest.mark.parametrize(("slurm", "key", "said"), [
    ('[target.slurm]\ngres = "npu"x', "", "invalid TOML"),
    ('[target.slurm]\ngres = "npu 1"', "target.slurm.gres",
     "invalid gres 'npu 1'; expected name[:type]:count, e.g. npu:1"),
    ('[target.slurm]\ntime_limit = "soon"', "target.slurm.time_limit",
     "invalid time_limit 'soon'; expected minutes, H:M:S or D-H:M:S"),
    ('[target.slurm]\nbuild = "cloud"', "target.slurm.build",
     "unknown build place 'cloud'; expected login or job"),
    ('[target.slurm]\noptions = ["qos=high"]', "target.slurm.options",
     "options must be sbatch options (each a string starting with -)"),
    ('[target.slurm]\npartition = "a b"', "target.slurm.partition", "invalid partition 'a b'"),
    ('[target.slurm]\nqueue = "x"', "target.slurm.queue", "unknown key 'queue'"),
    ('[target.slurm]\nsame_node = "yes"', "target.slurm.same_node", "expected a boolean, got str"),
])
def test_a_bad_job_option_is_refused_naming_its_key_and_line(
    tmp_path: Path, slurm: str, key: str, said: str
) -> None:
    root = make_project(tmp_path)
    text = with_target(root, 'kind = "slurm"', slurm)
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", text)
    assert said in caught.value.message
    if key:
        assert caught.value.key == key
        line = text.splitlines()[caught.value.line - 1] if caught.value.line else ""
        assert line.startswith(key.rsplit(".", 1)[1])


def test_a_slurm_target_over_ssh_needs_a_shared_work_dir(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    with pytest.raises(ConfigError) as caught:
        parse_config(root / "project.toml", with_target(root, 'kind = "slurm"\nhost = "login1"', ""))
    assert caught.value.key == "target.work_dir"
    assert "a slurm target reached over SSH needs 'work_dir'" in caught.value.message


def test_new_makes_a_slurm_target_and_the_file_keeps_only_what_is_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(AssertionError):
        make_project(tmp_path / "first", target="slurm:login1")
    assert "a slurm target on a host needs the remote work directory (--work-dir)" in capsys.readouterr().err
    root = make_project(tmp_path, target="slurm:login1", work_dir="/shared/me/fa")
    data = tomllib.loads((root / "project.toml").read_text())
    assert (data["target"]["kind"], data["target"]["host"]) == ("slurm", "login1")
    assert "slurm" not in data["target"]  # every job option at its default: no table written
    project = ProjectFile(root / "project.toml")
    project.set("target.slurm.partition", "ascend")
    project.save()
    config = ProjectFile(root / "project.toml").config
    assert config.target.slurm == SlurmSettings(partition="ascend")
