"""Shared helpers of the demo operator tests: copies of the operators run as subprocesses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from pto_tui.demo import demo_operator_dir

PYTHON = sys.executable


def copy_operator(name: str, dest: Path) -> Path:
    """A private copy of a demo operator: the tests never write into the package."""
    target = dest / name
    shutil.copytree(demo_operator_dir(name), target, ignore=shutil.ignore_patterns("build", "__pycache__"))
    return target


def clean_env(**knobs: str) -> dict[str, str]:
    """The test's environment without stray demo knobs, plus the given ones."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEMO_ATTN_")}
    env.update(knobs)
    return env


def run(
    args: Sequence[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def replace_once(path: Path, old: str, new: str) -> None:
    """Edit a copied source; fails loudly when the text to break is no longer there."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found exactly once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")
