"""The line of a compiler's output that says why a build failed, to quote in a failure."""

from __future__ import annotations

import re

_COLOUR = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# g++ and clang: `file:line:col: error: ...` or `fatal error: ...`; the linker's own lines
_ERROR = re.compile(r"\b(?:fatal )?error:")
_LINKER = re.compile(r": (?:undefined reference to|multiple definition of) ")
_COLLECT = re.compile(r"^(?:collect2|clang(?:\+\+)?|g\+\+|c\+\+)(?:\.exe)?: (?:fatal )?error:")


def first_compiler_error(text: str) -> str | None:
    """The first `error:` line of a compiler's output (colour codes removed, stripped), or
    None when there is none. A link failure's summary (`collect2: error: ld returned 1 exit
    status`) says nothing about the cause: the linker's first `undefined reference` or
    `multiple definition` line before it is quoted instead, when there is one."""
    lines = [_COLOUR.sub("", line).strip() for line in text.splitlines()]
    for line in lines:
        if _LINKER.search(line):
            return line  # the linker prints its cause before collect2's summary
        if _ERROR.search(line) and not _COLLECT.match(line):
            return line
    return next((line for line in lines if _ERROR.search(line)), None)


def error_file(line: str) -> str:
    """The file a compiler's `file:line:col: error:` line names ("" for none)."""
    head = line.split(": ", 1)[0]
    return head.split(":", 1)[0] if ":" in head else ""
