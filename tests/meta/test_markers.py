"""The e2e list names real test modules, so a rename cannot silently move a slow flow
into the fast loop."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import E2E_MODULES

REPO = Path(__file__).resolve().parents[2]


def test_every_e2e_module_exists() -> None:
    missing = sorted(name for name in E2E_MODULES if not (REPO / name).is_file())
    assert not missing, f"tests/conftest.py E2E_MODULES names missing files: {missing}"
