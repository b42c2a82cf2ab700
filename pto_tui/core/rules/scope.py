"""Editable scope: protected files (checked by content hash) and the round's declared scope."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from pto_tui.core.paths.patterns import matches, path_patterns
from pto_tui.core.workspace.files import iter_workspace_files


def is_protected(relpath: str, patterns: Iterable[str], editable: Iterable[str] = ()) -> bool:
    """A workspace file is protected when a pattern names it, or when the project declares
    what is editable (an operator inside a repository) and it is not among that."""
    editable_list = tuple(editable)
    if matches(relpath, patterns):
        return True
    return bool(editable_list) and not matches(relpath, editable_list)


def protected_hashes(
    workspace: Path, patterns: Iterable[str], editable: Iterable[str] = ()
) -> dict[str, str]:
    """sha256 of every protected workspace file (path relative to workspace/)."""
    pattern_list = tuple(patterns)
    editable_list = tuple(editable)
    out: dict[str, str] = {}
    if not workspace.is_dir():
        return out
    for rel in iter_workspace_files(workspace):
        if is_protected(rel, pattern_list, editable_list):
            out[rel] = hashlib.sha256((workspace / rel).read_bytes()).hexdigest()
    return out


def changed_protected(reference: Mapping[str, str], current: Mapping[str, str]) -> list[str]:
    """Protected files added, removed or changed since the reference hashes."""
    return sorted(
        rel for rel in set(reference) | set(current) if reference.get(rel) != current.get(rel)
    )


def outside_scope(
    files: Iterable[str], parameters: Iterable[str], scope: Iterable[str]
) -> list[str]:
    """Changed files (relative to the project) and parameters the declared scope does not cover.

    A scope entry is a parameter name or a path pattern, relative to the project root or
    to workspace/ or to the operator folder inside it.
    """
    entries = [s.strip() for s in scope if s.strip()]
    patterns = path_patterns(tuple(entries))
    stray = [p for p in parameters if p not in entries]
    for path in files:
        forms = {path}
        if path.startswith("workspace/"):
            inner = path[len("workspace/") :]
            forms.add(inner)
            if "/" in inner:
                forms.add(inner.split("/", 1)[1])
        if not any(form in entries or patterns.matches(form) for form in forms):
            stray.append(path)
    return stray


def changed_lines(diff_text: str) -> dict[str, list[str]]:
    """The removed and added lines of a unified diff, by file (relative to the project root,
    as the diff names it after its a/ or b/ prefix)."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in diff_text.splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            name = line[4:].split("\t")[0]
            if name != "/dev/null":
                current = name[2:] if name[:2] in ("a/", "b/") else name
                out.setdefault(current, [])
            continue
        if current and line[:1] in ("+", "-"):
            out[current].append(line[1:])
    return out


def only_parameter_lines(lines: Iterable[str], anchors: Iterable[str]) -> bool:
    """Every changed line names one of the anchors (a parameter's name, or the launcher
    whose template arguments it is): the file's only change is that parameter."""
    names = [a for a in anchors if a]
    return all(any(name in line for name in names) for line in lines if line.strip())
