"""Fixtures of the costmodel tests: copies of the pto-isa stand-in, the stand-in tool."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
STUB = FIXTURES / "pto_isa_stub"
TOOL = FIXTURES / "costmodel_tool" / "query_pto_cycles.py"
GENERATED = "formula_params_generated.hpp"


def copy_stub(dest: Path) -> Path:
    """A fresh checkout of the stand-in: without the generated formula header."""
    shutil.copytree(STUB, dest, ignore=shutil.ignore_patterns(GENERATED))
    return dest


@pytest.fixture(scope="session")
def stub_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One stand-in checkout shared by the tests that only read it."""
    return copy_stub(tmp_path_factory.mktemp("stub") / "pto-isa")


@pytest.fixture
def fresh_stub(tmp_path: Path) -> Path:
    """A checkout of this test's own, for tests that change it."""
    return copy_stub(tmp_path / "pto-isa")


@pytest.fixture(scope="session")
def tool_path() -> Path:
    return TOOL
