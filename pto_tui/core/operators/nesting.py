"""After the walk: fold nested candidates into one, and leave out PTO C++ pto-tui cannot build.

- A folder whose kernel files all lie in one operator folder inside it (e.g. `csrc` and
  `csrc/kernel`) is that operator: the inner folder, which holds the kernel file, is listed.
- A PTO-DSL folder whose kernel modules are imported by a PTO-DSL operator inside it
  (`ops/<family>/<stages>.py` used by `ops/<family>/<op>/kernel.py`) is a shared helper.
- PTO C++ without a CMake project of its own (an `unclear` detection) is no PTO-tile-lib
  operator pto-tui can build: compiled by a JIT helper script (`examples/jit_cpp/<op>`) or
  by a repository-wide CMake project into a Python extension (`csrc/kernel`). It is listed
  as skipped, with the way to declare it (a pto-operator.toml) if it is wanted after all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.marker import MARKER_FILE
from pto_tui.core.operators.skip_rules import Skipped

_DECLARE = f"add a {MARKER_FILE} there to declare it"


@dataclass(frozen=True)
class Found:
    """A candidate, with the modules its kernel files import from."""

    candidate: Candidate
    modules: frozenset[str]


def _files_inside(outer: Candidate, inner: Candidate) -> bool:
    return bool(outer.files) and all(
        (outer.path / rel).is_relative_to(inner.path) for rel in outer.files
    )


def _imports_kernels_of(user: Found, helper: Candidate) -> bool:
    """user imports one of helper's kernel modules (by dotted path ending or relative name)."""
    stems = [PurePosixPath(rel).stem for rel in helper.files if rel.endswith(".py")]
    names = [f"{helper.path.name}.{stem}" for stem in stems]
    return any(m in stems or m.endswith(tuple(names)) for m in user.modules)


def folded_into(outer: Found, found: list[Found]) -> tuple[Candidate, str] | None:
    """The candidate inside outer that outer is a duplicate or a shared helper of, and why."""
    for inner in found:
        if inner is outer or not inner.candidate.path.is_relative_to(outer.candidate.path):
            continue
        if _files_inside(outer.candidate, inner.candidate):
            return inner.candidate, "its kernel files are those of"
        kind = outer.candidate.kind
        imported = kind is not None and kind is inner.candidate.kind and source_kind(kind).kernels_imported
        if imported and _imports_kernels_of(inner, outer.candidate):
            return inner.candidate, "a shared helper: its kernels are imported by"
    return None


def unclear_reason(folder: Path, root: Path) -> str:
    """Why PTO C++ sources without their own CMake project are not listed."""
    for base in (folder.parent, *folder.parent.parents):
        if not base.is_relative_to(root):
            break
        cmake = base / "CMakeLists.txt"
        rel = folder.relative_to(base).as_posix()
        try:
            built_here = cmake.is_file() and rel in cmake.read_text(encoding="utf-8", errors="replace")
        except OSError:
            built_here = False
        if built_here:
            where = cmake.relative_to(root).as_posix()
            return (
                f"PTO C++ compiled by {where} together with the rest of that project: "
                f"no operator folder with its own build; {_DECLARE}"
            )
    return (
        "PTO C++ without a CMake project (built some other way, e.g. by a JIT helper "
        f"script): not a PTO-tile-lib operator pto-tui can build; {_DECLARE}"
    )


def fold_nested(found: list[Found], root: Path) -> tuple[list[Candidate], list[Skipped]]:
    """The candidates to list, and those left out (folded or unclear) with the reason."""
    listed: list[Candidate] = []
    left_out: list[Skipped] = []
    for entry in found:
        candidate = entry.candidate
        owner = folded_into(entry, found)
        if owner is not None:
            inner, why = owner
            left_out.append(Skipped(candidate.path, f"{why} {inner.path.relative_to(root)}"))
        elif candidate.status == "unclear" and not (candidate.path / MARKER_FILE).is_file():
            left_out.append(Skipped(candidate.path, unclear_reason(candidate.path, root)))
        else:
            listed.append(candidate)
    return listed, left_out
