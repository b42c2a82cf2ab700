"""Folders of secrets (SSH and GnuPG keys, cloud credentials, keyrings) that `new` never
copies into a workspace (a sync would upload it) and `scan` never lists.

The list is of the usual places under the home folder; a source that is one of them,
lies inside one, or (for `new`) would copy one along is refused, naming the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from pto_tui.core.errors import InputError

# relative to the home folder
SECRET_FOLDERS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".local/share/keyrings",
    ".password-store",
)
# their last names: a walk resolves only folders named so (cheap on big trees)
SECRET_NAMES = frozenset(Path(rel).name for rel in SECRET_FOLDERS)


def secret_folders() -> list[Path]:
    """The secret folders of this user's home ($HOME), resolved (whether or not they exist)."""
    home = Path(os.path.expanduser("~"))
    return [(home / rel).resolve() for rel in SECRET_FOLDERS]


def secret_folder_of(path: Path) -> Path | None:
    """The secret folder that path is, or lies inside; None if none."""
    resolved = path.expanduser().resolve()
    for folder in secret_folders():
        if resolved == folder or resolved.is_relative_to(folder):
            return folder
    return None


def is_secret_folder(path: Path) -> bool:
    """Whether a folder met in a walk is one of the secret folders."""
    return path.name in SECRET_NAMES and path.resolve() in secret_folders()


def refuse_secret(path: Path, what: str, *, key: str | None = None, copied: bool = False) -> None:
    """An InputError when path is, or lies inside, a secret folder; copied=True also
    refuses a path that holds one (everything under it would be copied)."""
    folder = secret_folder_of(path)
    if folder is not None:
        where = "is" if path.expanduser().resolve() == folder else "lies inside"
        raise InputError(
            f"{what} {path} {where} {folder}, a folder of secrets (keys, credentials): "
            "pto-tui never copies or scans it",
            key=key,
            hint="point it at the operator's own folder",
        )
    if not copied:
        return
    root = path.expanduser().resolve()
    held = [f for f in secret_folders() if f.is_relative_to(root) and f.exists()]
    if held:
        raise InputError(
            f"{what} {path} holds {held[0]}, a folder of secrets (keys, credentials): "
            "copying it into the workspace would upload it to the target",
            key=key,
            hint="point it at the operator's own folder",
        )
