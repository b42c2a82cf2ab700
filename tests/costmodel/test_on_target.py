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


@pytest.mark.sshd
async def test_the_console_runs_the_tool_on_the_target_too(
    tmp_path: Path, ssh_target: SshTestTarget
) -> None:
    from textual.widgets import DataTable

    from pto_tui.tui.app import PtoApp
    from tests.tui.keys import loaded, wait_for

    root = tmp_path / "proj"
    root.mkdir()
    text = new_project_document(
        OperatorConfig(name="op", kind=OperatorKind.PTO_TILE_LIB), CaseConfig(), [],
        ssh_target.target,
        CostmodelConfig(enabled=True, engine="external", tool=str(TOOL), on_target=True),
    )
    (root / "project.toml").write_text(text.replace("compiler =", "on_target = true\ncompiler ="))
    ssh_target.work_dir.mkdir(parents=True)
    app = PtoApp(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("5", *"TADD half -r 16 -c 64", "enter")
        table = app.screen.query_one("#cm-results", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, timeout=60)
    # Same as the CLI: a job on the target, its log on disk, not a local process.
    logs = list((root / ".pto-tui/jobs").glob("*/output.log"))
    assert logs and any("[CYCLE] TADD.half_16x64" in p.read_text(errors="replace") for p in logs)
