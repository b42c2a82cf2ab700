"""Fixtures of the TUI tests: real projects on disk, the app on them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.tui.projects import campaign_project, demo_ready_project, new_project


@pytest.fixture(scope="session")
def _campaign_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return campaign_project(tmp_path_factory.mktemp("campaign"))


@pytest.fixture(scope="session")
def _fresh_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_project(tmp_path_factory.mktemp("fresh"))


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_ready_project(tmp_path_factory.mktemp("demo"))


def _copy(template: Path, tmp_path: Path) -> Path:
    """Each test works on its own copy of a project made once by the CLI."""
    dest = tmp_path / "projects" / template.name
    shutil.copytree(template, dest, symlinks=True)
    (dest / ".pto-tui" / "lock.json").unlink(missing_ok=True)
    return dest


@pytest.fixture
def campaign_root(_campaign_template: Path, tmp_path: Path) -> Path:
    """Baseline, torch_npu, and a kept, a neutral, a failure and an inconclusive round."""
    return _copy(_campaign_template, tmp_path)


@pytest.fixture
def fresh_root(_fresh_template: Path, tmp_path: Path) -> Path:
    """Environment round passed and baseline recorded: ready for round 1."""
    return _copy(_fresh_template, tmp_path)


@pytest.fixture
def demo_root(_demo_template: Path, tmp_path: Path) -> Path:
    """The DSL demo (CPU) after its environment round, CPU torch stand-in and iter-000."""
    return _copy(_demo_template, tmp_path)


@pytest.fixture(autouse=True)
def _no_color_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("EDITOR", "true")  # never open a real editor from a test
