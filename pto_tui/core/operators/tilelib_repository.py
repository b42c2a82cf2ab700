"""A PTO-tile-lib operator inside its repository, as pto-isa lays it out.

An operator is a folder such as `kernels/manual/common/flash_atten/` whose CMakeLists.txt
reaches folders outside it: `${PROJECT_SOURCE_DIR}/../../../../include/` (the PTO headers)
and `.../tests/common` (shared test helpers). Copied alone, the operator does not compile.

The rule `new` follows: the workspace gets the operator folder plus exactly the folders its
CMakeLists.txt reaches, at their paths relative to the repository root, never the whole
repository (pto-isa is some 43 MB, its headers 6 MB). An operator that reaches nothing
outside its folder is not a repository operator: it is copied alone, as before.

Understood: `include_directories`, `target_include_directories` and `add_subdirectory`
arguments that start with `${PROJECT_SOURCE_DIR}`, `${CMAKE_CURRENT_SOURCE_DIR}` or
`${CMAKE_SOURCE_DIR}` (all the operator folder, for its top-level CMakeLists.txt) or are
relative paths; arguments naming other variables (`${ASCEND_HOME_PATH}/include`) lie outside
the repository by design and are not copied.

Pure: this reads files, never runs them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pto_tui.core.errors import InputError

CMAKE_LISTS = "CMakeLists.txt"
_COMMANDS = re.compile(
    r"\b(include_directories|target_include_directories|add_subdirectory)\s*\(([^)]*)\)",
    re.I,
)
_SOURCE_DIR = re.compile(r"^\$\{(?:PROJECT_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}")
_KEYWORDS = {"PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM", "BEFORE", "AFTER", "EXCLUDE_FROM_ALL"}


@dataclass(frozen=True)
class Reach:
    """One folder outside the operator that its CMakeLists.txt names."""

    folder: Path  # resolved
    where: str  # CMakeLists.txt:line


@dataclass(frozen=True)
class TileLibRepository:
    """Where a tile-lib operator sits in its repository and what it needs from it."""

    root: Path  # the repository root
    path: str  # the operator folder, relative to root
    reached: tuple[str, ...]  # folders the CMakeLists.txt reaches, relative to root, outermost only
    where: tuple[str, ...] = ()  # CMakeLists.txt:line of each reached folder

    @property
    def copied(self) -> tuple[str, ...]:
        """What the workspace holds, relative to root: the operator and the reached folders
        (a reached folder holding the operator covers it)."""
        return _outermost((self.path, *self.reached))


def strip_cmake_comments(text: str) -> str:
    """The CMake text with `#` comments blanked (line numbers kept)."""
    return "\n".join(re.sub(r"(?<![$\\])#.*$", "", line) for line in text.splitlines())


def cmake_reaches(operator: Path) -> list[Reach]:
    """Folders outside the operator folder that its CMakeLists.txt names as include
    directories or subdirectories, in the order written."""
    lists = operator / CMAKE_LISTS
    if not lists.is_file():
        return []
    text = strip_cmake_comments(lists.read_text(encoding="utf-8", errors="replace"))
    found: list[Reach] = []
    for match in _COMMANDS.finditer(text):
        tokens = list(re.finditer(r"\S+", match.group(2)))
        if match.group(1).lower() == "target_include_directories":
            tokens = tokens[1:]  # the target's name
        for token in tokens:
            arg = token.group(0).strip("\"'")
            rest = None if arg.upper() in _KEYWORDS else _relative_part(arg)
            if rest is None:
                continue
            folder = Path(os.path.normpath(operator / rest))
            if folder.is_relative_to(operator):
                continue
            line = text.count("\n", 0, match.start(2) + token.start()) + 1
            found.append(Reach(folder, f"{lists.name}:{line}"))
    return found


def _relative_part(arg: str) -> str | None:
    """The path below the operator folder an argument names, None when it names another
    place (another variable, an absolute path, a generator expression)."""
    source = _SOURCE_DIR.match(arg)
    if source:
        return arg[source.end() :].lstrip("/") or "."
    if not arg or "$" in arg or arg.startswith("/"):
        return None
    return arg


def _outermost(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The paths less those inside another one ("." holds all), in the order given, once each."""
    if "." in paths:
        return (".",)
    out: list[str] = []
    for path in paths:
        if path not in out and not any(path.startswith(other + "/") for other in paths):
            out.append(path)
    return tuple(out)


def _git_root(operator: Path) -> Path | None:
    for folder in operator.parents:
        if (folder / ".git").exists():
            return folder
    return None


def declared_repository(
    operator: Path, root: str, needs: tuple[str, ...], marker: Path
) -> TileLibRepository:
    """The repository an operator's marker declares ([repository]: its root above the folder
    and what its build needs); a needed path that is not there is an error naming it."""
    operator = operator.expanduser().resolve()
    top = (operator / root).resolve()
    if not operator.is_relative_to(top) or top == operator:
        raise InputError(f"{root!r} is no folder above {operator}", file=marker, key="repository.root")
    for need in needs:
        found = (top / need).resolve()
        if not found.is_relative_to(top) or not found.exists():
            message = f"{need!r}: no such file or folder in {top}"
            raise InputError(message, file=marker, key="repository.needs")
    reached = _outermost(tuple(PurePosixPath(n).as_posix().rstrip("/") for n in needs))
    return TileLibRepository(
        root=top,
        path=operator.relative_to(top).as_posix(),
        reached=reached,
        where=tuple(f"{marker.name} [repository] needs" for _ in reached),
    )


def find_tilelib_repository(operator: Path) -> TileLibRepository | None:
    """The repository model of a tile-lib operator folder, or None when its CMakeLists.txt
    reaches nothing outside the folder. The root is the nearest folder above with `.git`,
    else the common ancestor of the operator and every folder it reaches; a folder outside
    that root is an error naming the CMakeLists.txt line. Folders that do not exist are
    left out."""
    operator = operator.expanduser().resolve()
    # a folder that does not exist cannot be copied (an operator already copied out of its
    # repository): the build reports it, as it would without pto-tui
    reaches = [r for r in cmake_reaches(operator) if r.folder.is_dir()] if operator.is_dir() else []
    if not reaches:
        return None
    git = _git_root(operator)
    root = git or Path(os.path.commonpath([operator, *(r.folder for r in reaches)]))
    for reach in reaches:
        where = f"{operator / CMAKE_LISTS}:{reach.where.rsplit(':', 1)[1]}"
        if not reach.folder.is_relative_to(root) or root == Path(root.anchor):
            raise InputError(
                f"{where}: {reach.folder} lies outside the repository {root}",
                hint="pto-tui copies only folders inside the operator's repository",
            )
    reached = _outermost(tuple(r.folder.relative_to(root).as_posix() for r in reaches))
    wheres = {r.folder.relative_to(root).as_posix(): r.where for r in reversed(reaches)}
    return TileLibRepository(
        root=root,
        path=operator.relative_to(root).as_posix(),
        reached=reached,
        where=tuple(wheres[r] for r in reached),
    )
