"""A hand-written round's changes (docs/formats.md §8, §13): notes.md's Changes section, files.txt
and patch.diff, read into `Changes` without loss.

The change kind (修改类型) in its words, the files (files.txt, else the notes' list; a line
of prose in files.txt is kept as written, never taken for a path), what changed, the round
it was based on (基于哪一轮, a "基于 iter-XXX" line anywhere in the section, or the
parameter block's "# 基于 iter-XXX 的配置"), the full parameter snapshot (本轮完整参数快照,
on one line, as sub-bullets or in a fenced block) and a parameter round's old → new values.
"""

from __future__ import annotations

import re
from pathlib import Path

from pto_tui.core.errors import inside, read_text
from pto_tui.core.project.config import Scalar, parse_scalar
from pto_tui.core.rounds.markdown_notes import Notes
from pto_tui.core.rounds.records import Changes, ParamChange
from pto_tui.core.vocabulary import ChangeKind

_KINDS = {
    "代码": ChangeKind.CODE,
    "code": ChangeKind.CODE,
    "模板": ChangeKind.TEMPLATE_PARAMETER,
    "template": ChangeKind.TEMPLATE_PARAMETER,
    "环境变量": ChangeKind.ENVIRONMENT_VARIABLE,
    "environment": ChangeKind.ENVIRONMENT_VARIABLE,
    "env": ChangeKind.ENVIRONMENT_VARIABLE,
    "调参": ChangeKind.ENVIRONMENT_VARIABLE,
    "构建": ChangeKind.BUILD_CONFIG,
    "build": ChangeKind.BUILD_CONFIG,
}
NO_FILES = ("", "-", "无", "none", "no", "n/a")
_NO_KIND = ("无", "none", "-", "n/a", "baseline", "基线")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^,，;；\s]+)")
_PARAM_LINE = re.compile(r"^([-+])\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_ARROW = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*:?\s+(\S+)\s*(?:→|->)\s*(\S+)")
_BASED = re.compile(r"(?:基于|based on)\s*(?:哪一轮\s*[:：]?\s*)?`?iter[-_ ]?(\d+)", re.IGNORECASE)
_ROUND_REF = re.compile(r"iter[-_ ]?(\d+)", re.IGNORECASE)
# a path in files.txt: no spaces and no CJK text or full-width punctuation
_PROSE = re.compile(r"\s|[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def where(path: Path, line: int | None = None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


def kind_of(text: str) -> ChangeKind | None:
    lowered = text.lower()
    return next((kind for word, kind in _KINDS.items() if word in lowered), None)


def _side_text(path: Path) -> str | None:
    """A round file's text, None when it is missing or leads outside the project."""
    if not path.is_file() or not inside(path, path.parents[2]):  # runs/iter-XXX/<name>
        return None
    return read_text(path, errors="replace")


def files_of(folder: Path, as_written: dict[str, str]) -> list[str]:
    """files.txt's paths; its prose lines (not comments) are kept in `as_written`."""
    text = _side_text(folder / "files.txt")
    if text is None:
        return []
    paths: list[str] = []
    prose: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.lower() in NO_FILES:
            continue
        (prose if _PROSE.search(stripped) else paths).append(stripped)
    if prose:
        as_written["files.txt"] = "\n".join(prose)
    return paths


def _param_block(text: str) -> list[ParamChange]:
    """The '-  NAME=old / +  NAME=new' lines of a parameter round's patch.diff."""
    if "调参" not in text and "参数变更" not in text:
        return []
    old: dict[str, str] = {}
    changes: list[ParamChange] = []
    for line in text.splitlines():
        match = _PARAM_LINE.match(line.strip() if line.startswith(("-", "+")) else "")
        if match and match.group(1) == "-":
            old[match.group(2)] = match.group(3).strip()
        elif match:
            name, new = match.group(2), match.group(3).strip()
            before = old.get(name)
            changes.append(ParamChange(name, parse_scalar(before) if before else None, parse_scalar(new)))
    return changes


def _arrows(text: str) -> list[ParamChange]:
    return [
        ParamChange(n, parse_scalar(o), parse_scalar(v)) for n, o, v in _ARROW.findall(text) if n.isupper()
    ]


class ChangesReader:
    """Reads one round's Changes; `problems` and `as_written` collect what no field takes."""

    def __init__(self, notes: Notes, folder: Path, problems: list[str], as_written: dict[str, str]) -> None:
        self.notes, self.folder = notes, folder
        self.problems, self.as_written = problems, as_written
        self.patch = _side_text(folder / "patch.diff") or ""

    def read(self) -> Changes:
        changes = Changes(kind=self._kind())
        description = self.notes.value("Changes", "description")
        changes.description = description.value if description else ""
        changes.based_on = self._based_on()
        changes.parameter_values = self._snapshot()
        changes.files = files_of(self.folder, self.as_written) or self._listed_files()
        changes.parameters = _param_block(self.patch) or _arrows(changes.description)
        return changes

    def _kind(self) -> ChangeKind | None:
        bullet = self.notes.value("Changes", "kind")
        if bullet is None or not bullet.value:
            return None
        kind = kind_of(bullet.value)
        if kind is None and not bullet.value.strip().lower().startswith(_NO_KIND):
            self.problems.append(
                f"{where(self.notes.path, bullet.line)}: change kind {bullet.value!r} is none of "
                f"{', '.join(k.value for k in ChangeKind)}; kept as written"
            )
        if kind is None or bullet.value.strip() != kind.value:  # its own words kept
            self.as_written["Changes: " + (bullet.label or "kind")] = bullet.value
        return kind

    def _listed_files(self) -> list[str]:
        bullet = self.notes.value("Changes", "files")
        if bullet is None or bullet.value.strip().lower() in NO_FILES:
            return []
        return [p for part in re.split(r"[,，、;；\n]", bullet.value) if (p := part.strip().strip("`"))]

    def _based_on(self) -> int | None:
        """The round it was based on, from the first place that says it; a second place
        that names another round is a conflict, listed."""
        found: list[tuple[int, str]] = []
        bullet = self.notes.value("Changes", "based_on")
        if bullet is not None and (match := _ROUND_REF.search(bullet.value)):
            found.append((int(match.group(1)), where(self.notes.path, bullet.line)))
        section = self.notes.sections.get("Changes")
        for line, text in list(section.lines) if section is not None else []:
            match = _BASED.search(text)
            if match and section is not None:
                found.append((int(match.group(1)), where(self.notes.path, line)))
                section.lines.remove((line, text))  # read: not listed as unread
        for number, text in enumerate(self.patch.splitlines(), 1):
            if text.startswith("#") and (match := _BASED.search(text)):
                found.append((int(match.group(1)), where(self.folder / "patch.diff", number)))
        if not found:
            return None
        first, place = found[0]
        for other, there in found[1:]:
            if other != first:
                self.problems.append(
                    f"{place} and {there}: based-on round differs: iter-{first:03d} and "
                    f"iter-{other:03d}; iter-{first:03d} used"
                )
        return first

    def _snapshot(self) -> dict[str, Scalar]:
        bullet = self.notes.value("Changes", "snapshot")
        if bullet is None or not bullet.value.strip():
            return {}
        values = {k: parse_scalar(v) for k, v in _ASSIGN.findall(bullet.value)}
        rest = _ASSIGN.sub("", bullet.value).strip(" ,，;；\n`")
        if rest or not values:
            self.problems.append(
                f"{where(self.notes.path, bullet.line)}: parameter snapshot holds more than "
                "NAME=value pairs; kept as written"
            )
            self.as_written["Changes: " + (bullet.label or "snapshot")] = bullet.value
        return values
