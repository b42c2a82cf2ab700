"""A round's notes.md as people and agents write it (docs/formats.md §8, §13), read without loss.

Sections are found by their heading in English or Chinese (`markdown_labels`); in the
sections that hold fields (Pre-Edit, Changes, Post-Run, the environment round's) each
labelled line becomes a field, whatever its form: `- **Label**: value`, `- **Label:**
value`, `- 标签：值`, `Label: value`, and a label alone on its line followed by indented
lines, sub-bullets or a fenced block (the value). Every other line is kept with its line
number, so what no field takes can be kept as written and listed. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import read_regular_bytes
from pto_tui.core.rounds.markdown_labels import LABELS, field_of, section_of

_HEADING = re.compile(r"^(#{2,6})\s+(.+?)\s*#*\s*$")
_TITLE = re.compile(r"^#\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BOLD_LABEL = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*]{1,60}?)\s*[:：]?\s*\*\*\s*[:：]?\s*(.*)$")
_PLAIN_LABEL = re.compile(r"^\s*([-*+]\s+)?([^:：=`*|/]{1,40}?)\s*[:：](?!//)\s*(.*)$")
_SUB_BULLET = re.compile(r"^\s*[-*+]\s+")


@dataclass
class Bullet:
    value: str
    line: int
    label: str = ""  # as written


@dataclass
class Section:
    heading: str  # as written
    line: int
    fields: dict[str, Bullet] = field(default_factory=dict)  # field -> its bullet
    unknown: list[Bullet] = field(default_factory=list)  # labelled lines no field takes
    lines: list[tuple[int, str]] = field(default_factory=list)  # every other line, numbered

    def text(self) -> str:
        return "\n".join(text for _line, text in self.lines).strip()


@dataclass
class Notes:
    """notes.md: its sections by canonical name, and the sections pto-tui has no name for."""

    path: Path
    sections: dict[str, Section] = field(default_factory=dict)
    other: list[Section] = field(default_factory=list)

    def value(self, section: str, key: str) -> Bullet | None:
        found = self.sections.get(section)
        return found.fields.get(key) if found is not None else None

    def text(self, section: str) -> str:
        found = self.sections.get(section)
        return found.text() if found is not None else ""


def _labelled(line: str, section: str) -> tuple[str, str, bool] | None:
    """(label, value, dashed) when the line is `label: value` in one of its forms."""
    bold = _BOLD_LABEL.match(line)
    if bold:
        return bold.group(1).strip(), bold.group(2).strip(), True
    plain = _PLAIN_LABEL.match(line)
    if plain is None:
        return None
    label, value, dashed = plain.group(2).strip(), plain.group(3).strip(), bool(plain.group(1))
    # an undashed line is a field only when its label is one (else it is prose with a colon)
    if not dashed and field_of(section, label) is None:
        return None
    return label, value, dashed


@dataclass
class _Reader:
    notes: Notes
    section: Section | None = None
    name: str = ""
    last: Bullet | None = None
    fence: list[str] | None = None  # the lines of an open fenced block
    fence_line: int = 0

    def heading(self, number: int, text: str) -> None:
        self.last, self.section = None, Section(text, number)
        name = section_of(text)
        if name is None or name in self.notes.sections:
            self.name = ""
            self.notes.other.append(self.section)
        else:
            self.name = name
            self.notes.sections[name] = self.section

    def close_fence(self) -> None:
        block = "\n".join(self.fence or [])
        if self.last is not None and not self.last.value:
            self.last.value = block
        elif self.section is not None:
            self.section.lines.append((self.fence_line, block))
        self.fence = None

    def line(self, number: int, line: str) -> None:
        if self.section is None and line.strip():  # text before the first section: kept too
            self.section = Section("", number)
            self.notes.other.append(self.section)
        section = self.section
        if section is None or not line.strip():
            if self.last is not None and self.last.value:
                self.last = None  # a blank line ends a bullet, unless its value is still to come
            return
        found = _labelled(line, self.name) if self.name in LABELS else None
        indented = line.startswith(("  ", "\t"))
        if found is not None and not (indented and self.last is not None):
            label, value, _dashed = found
            bullet = Bullet(value, number, label)
            key = field_of(self.name, label)
            if key is not None and key not in section.fields:
                section.fields[key] = bullet
            else:
                section.unknown.append(bullet)
            self.last = bullet
            return
        if self.last is not None and (indented or (not self.last.value and _SUB_BULLET.match(line))):
            item = _SUB_BULLET.sub("", line).strip()
            self.last.value = f"{self.last.value}\n{item}".strip()
            return
        self.last = None
        section.lines.append((number, line.strip()))


def parse_notes(path: Path) -> Notes:
    """notes.md -> its sections, fields and numbered lines."""
    reader = _Reader(Notes(path))
    text = read_regular_bytes(path).decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), 1):
        if reader.fence is not None:
            if _FENCE.match(line):
                reader.close_fence()
            else:
                reader.fence.append(line.rstrip())
            continue
        if _FENCE.match(line):
            reader.fence, reader.fence_line = [], number
            continue
        heading = _HEADING.match(line)
        if heading:
            reader.heading(number, heading.group(2).strip())
        elif not _TITLE.match(line):
            reader.line(number, line)
    if reader.fence is not None:
        reader.close_fence()
    return reader.notes
