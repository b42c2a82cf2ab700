"""A minimal project on an SSH target, for the CLI tests of the job layer."""

from __future__ import annotations

from pathlib import Path


def make_project(root: Path, host: str, work_dir: Path, ssh_config: Path) -> Path:
    project = root / "projects" / "op"
    (project / "workspace").mkdir(parents=True)
    (project / "workspace" / "data.txt").write_text("from the workspace\n")
    (project / "project.toml").write_text(
        "schema = 1\n"
        '[operator]\nname = "op"\nkind = "pto-dsl"\n'
        f'[target]\nkind = "ssh"\nhost = "{host}"\nwork_dir = "{work_dir}"\n'
        f'ssh_config = "{ssh_config}"\n'
    )
    return project
