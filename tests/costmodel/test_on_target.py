"""The external costmodel tool run on the project's SSH target through the job layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.project.config import CaseConfig, CostmodelConfig, OperatorConfig
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.vocabulary import OperatorKind
from tests.plugins.sshd import SshTestTarget

TOOL = Path(__file__).resolve().parents[1] / "fixtures" / "costmodel_tool" / "query_pto_cycles.py"


@pytest.mark.sshd
def test_costmodel_tool_on_the_target(
    tmp_path: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    text = new_project_document(
        OperatorConfig(name="op", kind=OperatorKind.PTO_TILE_LIB),
        CaseConfig(),
        [],
        ssh_target.target,
        CostmodelConfig(enabled=True, engine="external", tool=str(TOOL), on_target=True),
    )
    (root / "project.toml").write_text(text.replace("compiler =", "on_target = true\ncompiler ="))
    ssh_target.work_dir.mkdir(parents=True)
    capsys.readouterr()
    assert main(["--project", str(root), "costmodel", "TMATMUL", "half", "half", "float",
                 "--m", "128", "--k", "64", "--n", "128", "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    result = data["results"][0]
    assert result["label"] == "TMATMUL.float<half,half>_128x64x128"
    assert result["cycles"] == 8 * 4 * 8 + 6  # the stand-in follows the fp16 formula
    # it ran as a job on the target: its log is on disk
    logs = list((root / ".pto-tui/jobs").glob("*/output.log"))
    assert logs and any("[CYCLE]" in p.read_text(errors="replace") for p in logs)
