"""Every documented --json output validates against its schema in docs/json/, from the CLI
and from the MCP tools' payloads (the same data)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core import payloads
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import RuleViolation
from pto_tui.mcp.envelope import failure, ok
from tests.core.helpers import cli, pre_edit_args, ready_project, run_round
from tests.json_check import validate

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "json"
HANDWRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "handwritten" / "flash_attention"


def cli_out(capsys: pytest.CaptureFixture[str], *args: object, code: int = 0) -> Any:
    capsys.readouterr()
    assert cli(*args, "--json") == code
    return json.loads(capsys.readouterr().out)


def test_every_json_output_matches_its_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "torch-baseline", "--avg", "90", "--min", "88", "--max", "95") == 0
    assert run_round(root, "80,81,80.5", params=("QK_PRELOAD=3",)) == 0
    p = ["--project", root]
    validate("status", cli_out(capsys, *p, "status"))
    validate("verify", cli_out(capsys, *p, "verify"))  # a clean history: exit 0
    notes = root / "runs/iter-001/notes.md"
    original = notes.read_bytes()
    notes.write_text("rewritten by hand\n")
    broken = cli_out(capsys, *p, "verify", code=1)
    validate("verify", broken)
    assert broken["clean"] is False and broken["breaks"]
    validate("status", cli_out(capsys, *p, "status"))  # with a tampered mark and history problems
    notes.write_bytes(original)  # put back: the history is whole again
    assert cli_out(capsys, *p, "verify")["clean"] is True
    validate("rounds", cli_out(capsys, *p, "rounds"))
    validate("show", cli_out(capsys, *p, "show", "1"))
    validate("gates", cli_out(capsys, *p, "round", "gates", *pre_edit_args()))
    validate("gates", cli_out(capsys, *p, "round", "gates", code=1))
    validate("round", cli_out(capsys, *p, "round", "start", *pre_edit_args("a second idea")))
    validate("chart", cli_out(capsys, *p, "chart"))
    project = tmp_path / "hand"
    shutil.copytree(HANDWRITTEN, project)
    validate("import", cli_out(capsys, "import", project))

    with Campaign(root) as campaign:  # the MCP tools' data is the same
        status = payloads.status(campaign, [])  # no run left unfinished here
        for name, data in (("status", status), ("rounds", payloads.rounds(campaign))):
            result = ok(data, schema=name).structured_content
            assert result is not None
            validate("mcp-result", result)
            validate(name, result["data"])
    refused = RuleViolation("editable-scope", "bench.py is protected")
    refusal = failure(refused, "round_changes").structured_content
    validate("mcp-result", refusal)
    assert refusal is not None and refusal["error"]["fix"] and refusal["error"]["tool"] == "round_changes"
