"""Create projects/<op>/ from the template (docs/workflow.md §4).

The project is assembled in a temporary folder beside its final place and renamed
into place at the end, so a failure never leaves half a project behind.
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.requirements import render_requirements
from pto_tui.core.errors import InputError
from pto_tui.core.operators.case_strings import parsed_cases
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.paths.patterns import literal
from pto_tui.core.project.config import (
    MAX_NAME,
    valid_operator_name,
)
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, copy_filter, repository_excludes


def template_dir() -> Path:
    """The shipped project_template/ (inside the package, a link to the top-level folder)."""
    return Path(str(resources.files("pto_tui") / "project_template"))


def copy_source(spec: NewProject, source: Path, dest: Path, projects_root: Path) -> None:
    """The operator folder; or, for an operator inside a repository, the repository with
    the same relative paths (so its runner runs unchanged from the workspace's copy),
    less what `repository_excludes` leaves out, and less the projects folder when it lies
    inside the repository. Of a tile-lib repository only the operator folder and the
    folders its CMakeLists.txt reaches are copied (`tilelib_repository`)."""
    if spec.repository is not None:
        root = spec.repository.resolve()
        excludes = repository_excludes(root)
        projects = projects_root.resolve()
        if projects.is_relative_to(root) and projects != root:
            excludes += (literal(projects.relative_to(root).as_posix()) + "/",)
        tile = source_kind(spec.operator.kind).build_repository(source)
        for rel in tile.copied if tile else (".",):
            if (root / rel).is_file():  # a file the build needs (the root CMakeLists.txt)
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / rel, dest / rel)
            else:
                shutil.copytree(root / rel, dest / rel, ignore=copy_filter(root, excludes), symlinks=True)
    elif source.is_dir():
        shutil.copytree(source, dest, ignore=copy_filter(source, DEFAULT_EXCLUDES), symlinks=True)
    else:
        dest.mkdir(parents=True)
        shutil.copy2(source, dest / source.name)


def check_case_spec(spec: NewProject) -> None:
    """A case string is checked by the operator's own format when one is known; any case
    string must be one printable line (it is passed to the operator's tools)."""
    text = spec.case.spec
    if any(not ch.isprintable() for ch in text):
        raise InputError(f"case string {text!r} holds control characters or line breaks", key="case.spec")
    parsed_cases(spec.case, spec.operator)


def create_project(spec: NewProject, projects_root: Path, *, overwrite: bool = False) -> Path:
    """Scaffold projects_root/<operator>/ and return its path."""
    name = spec.operator.name
    if not valid_operator_name(name):
        raise InputError(
            f"invalid operator name {name!r}: one folder name inside projects/ "
            f"(letters, digits, '_', '.', '-'; no '/', no '..', not empty, at most {MAX_NAME} characters)"
        )
    check_case_spec(spec)
    source = spec.source.expanduser().resolve()
    if not source.exists():
        raise InputError(f"operator source not found: {source}")
    final = projects_root / name
    if final.resolve().parent != projects_root.resolve():
        raise InputError(f"operator name {name!r} escapes {projects_root}")
    if final.exists() and not overwrite:
        raise InputError(
            f"project already exists: {final}",
            hint="pass --overwrite to replace it (its records are lost)",
        )
    projects_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=projects_root))
    try:
        shutil.copytree(template_dir(), staging, dirs_exist_ok=True)
        for folder in ("context", "runs", "workspace"):
            (staging / folder).mkdir(exist_ok=True)
        subdir = project_kind(spec.operator.kind).workspace_subdir
        copy_source(spec, source, staging / "workspace" / subdir, projects_root)
        text = new_project_document(
            spec.operator,
            spec.case,
            spec.tunables,
            spec.target,
            spec.costmodel,
            spec.commands,
            origins=spec.origins,
            scope=spec.scope,
            tolerances=spec.tolerances.values,
            tolerances_from=spec.tolerances.origin,
            result=spec.result,
        )
        parse_config(final / "project.toml", text)  # never write a file we could not read back
        atomic_write_text(staging / "project.toml", text)
        atomic_write_text(staging / "TASK_REQUIREMENTS.md", render_requirements(spec))
        Ledger(ProjectLayout(staging)).write_iterations([], None, fresh=True)
        if final.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=projects_root))
            final.rename(trash / name)
            staging.rename(final)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final
