"""Shared test set-up. Fixture plugins live in tests/plugins/ (one module per real thing)."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.plugins.sshd"]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test out of the user's own pto-tui home and project choice."""
    monkeypatch.setenv("PTO_TUI_HOME", str(tmp_path_factory.mktemp("pto-tui-home")))
    monkeypatch.delenv("PTO_TUI_PROJECT", raising=False)
