"""A real project whose campaign has started: the base every malformed file is cut from."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, ready_project


@pytest.fixture(scope="package")
def started_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """env, iter-000 and the torch baseline recorded, a round number handed out."""
    root = ready_project(tmp_path_factory.mktemp("malformed"))
    assert cli("--project", root, "torch-baseline", "--avg", "120", "--min", "110", "--max", "130") == 0
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", 1)
    project.save()
    return root
