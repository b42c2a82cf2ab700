"""Where things live inside a project folder (projects/<op>/), per docs/formats.md §1."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import InputError

PROJECT_FILE = "project.toml"
ITERATIONS_FILE = "ITERATIONS.md"


@dataclass(frozen=True)
class ProjectLayout:
    root: Path

    @property
    def project_file(self) -> Path:
        return self.root / PROJECT_FILE

    @property
    def iterations(self) -> Path:
        return self.root / ITERATIONS_FILE

    @property
    def requirements(self) -> Path:
        return self.root / "TASK_REQUIREMENTS.md"

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def context(self) -> Path:
        return self.root / "context"

    @property
    def state_dir(self) -> Path:
        """pto-tui's private files in the project (lock, snapshots, job logs, caches)."""
        return self.root / ".pto-tui"

    @property
    def jobs_dir(self) -> Path:
        return self.state_dir / "jobs"

    @property
    def cache_dir(self) -> Path:
        return self.state_dir / "cache"

    @property
    def chart(self) -> Path:
        return self.root / "summary_chart.png"

    def round_dir(self, number: int) -> Path:
        return self.runs / round_name(number)


# The highest round number (iter-999999): far past any campaign, low enough that a
# folder number beyond it is a stray name, never a round to count up to.
MAX_ROUND = 999_999
# A folder numbered more than this past the round before it is a stray name too: rounds
# are numbered one by one, and the gaps below a folder are listed one by one.
MAX_ROUND_GAP = 10_000


def round_name(number: int) -> str:
    """A round's name, "iter-" and at least three digits: how it is shown, and its folder
    in runs/, its jobs and its journal are named."""
    return f"iter-{number:03d}"


def is_project_dir(path: Path) -> bool:
    """A project folder holds project.toml, or (written by hand) ITERATIONS.md and runs/."""
    return (path / PROJECT_FILE).is_file() or (
        (path / ITERATIONS_FILE).is_file() and (path / "runs").is_dir()
    )


def find_project_root(explicit: str | None = None, start: Path | None = None) -> Path:
    """The project to work on: explicit path, else $PTO_TUI_PROJECT, else walk up from start."""
    chosen = explicit or os.environ.get("PTO_TUI_PROJECT")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if not path.is_dir():
            raise InputError(f"project folder not found: {path}")
        if not is_project_dir(path):
            raise InputError(
                f"{path} is not a pto-tui project (no project.toml, nor ITERATIONS.md with runs/)",
                hint="create one with `pto-tui new`, or pass --project projects/<op>",
            )
        return path
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if is_project_dir(candidate):
            return candidate
    projects = here / "projects"
    found = sorted(p for p in projects.iterdir() if is_project_dir(p)) if projects.is_dir() else []
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(p.name for p in found)
        raise InputError(
            f"several projects under {projects}: {names}",
            hint="choose one with --project projects/<op>",
        )
    raise InputError(
        f"no pto-tui project at or above {here}",
        hint="create one with `pto-tui new`, or pass --project DIR",
    )
