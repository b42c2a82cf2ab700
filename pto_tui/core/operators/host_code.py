"""C++ host code read as the NPU build compiles it, with the small scanners host_launch.py
uses: comments, string literals and what only `__CPU_SIM` (pto-isa's CPU simulation) or
`__COSTMODEL` builds compile blanked, offsets and lines unchanged; matching brackets; a
function body's top-level statements."""

from __future__ import annotations

import re

from pto_tui.core.operators import tilelib_cpp as cpp

_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'')
_HIDDEN = ("__CPU_SIM", "__COSTMODEL")  # undefined when the NPU build compiles the wrapper
_CONDITION = re.compile(r"^\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)$")
_KNOWN = re.compile(r"^\s*(!?)\s*defined\s*(?:\(\s*(\w+)\s*\)|\s+(\w+))\s*$")


def code_view(text: str) -> str:
    """The text as the NPU build compiles host code: comments, string literals and what only
    `__CPU_SIM` or `__COSTMODEL` builds compile blanked (offsets and lines unchanged)."""
    text = cpp.blank_comments(text)
    text = _STRING.sub(
        lambda m: '"' + " " * (len(m.group(0)) - 2) + '"' if m.group(0)[0] == '"' else "' '", text
    )
    return _blank_hidden_branches(text)


def _blank_hidden_branches(text: str) -> str:
    lines = text.split("\n")
    stack: list[tuple[bool, bool, bool]] = []  # (known, taken so far, this branch kept)
    for index, line in enumerate(lines):
        directive = _CONDITION.match(line)
        kept = all(frame[2] for frame in stack)
        if directive is None:
            if not kept:
                lines[index] = " " * len(line)
            continue
        word, rest = directive.group(1), directive.group(2).strip()
        if word in ("ifdef", "ifndef", "if"):
            value = _known_value(word, rest)
            stack.append((value is not None, bool(value), value is not False))
        elif stack and word == "elif":
            known, taken, _ = stack[-1]
            stack[-1] = (known, taken, not taken) if known else stack[-1]
        elif stack and word == "else":
            known, taken, _ = stack[-1]
            stack[-1] = (known, True, not taken) if known else stack[-1]
        elif stack and word == "endif":
            known = stack.pop()[0]
            if known:
                lines[index] = " " * len(line)
            continue
        if stack and stack[-1][0]:
            lines[index] = " " * len(line)
    return "\n".join(lines)


def _known_value(word: str, rest: str) -> bool | None:
    """The value of a condition on a hidden macro (all undefined), or None for any other."""
    if word in ("ifdef", "ifndef"):
        return (word == "ifndef") if rest in _HIDDEN else None
    known = _KNOWN.match(rest)
    if known is None or (known.group(2) or known.group(3)) not in _HIDDEN:
        return None
    return known.group(1) == "!"


def brace_pairs(text: str) -> list[tuple[int, int]]:
    """(open, close) of every balanced brace pair."""
    pairs, stack = [], []
    for index, char in enumerate(text):
        if char == "{":
            stack.append(index)
        elif char == "}" and stack:
            pairs.append((stack.pop(), index))
    return pairs


def match_back(text: str, close: int, opener: str, closer: str) -> int | None:
    """Index of the opener matching the closer at `close`, scanning backwards."""
    depth = 0
    for index in range(close, -1, -1):
        if text[index] == closer:
            depth += 1
        elif text[index] == opener:
            depth -= 1
            if depth == 0:
                return index
        elif text[index] in ";{}":
            return None
    return None


def match_forward(text: str, start: int, opener: str, closer: str) -> int | None:
    """Index just past the closer matching the opener at `start`."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opener:
            depth += 1
        elif text[index] == closer:
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def angle_start(text: str) -> int | None:
    """Index of the `<` matching the `>` that ends text (parentheses skipped)."""
    depth = parens = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char == ")":
            parens += 1
        elif char == "(":
            parens -= 1
        elif parens == 0 and char == ">":
            depth += 1
        elif parens == 0 and char == "<":
            depth -= 1
            if depth == 0:
                return index
        elif char in ";{}":
            return None
    return None


def statements(body: str) -> list[str]:
    """The body's top-level statements, preprocessor lines left out."""
    body = "\n".join("" if line.lstrip().startswith("#") else line for line in body.split("\n"))
    statements, depth, start = [], 0, 0
    for index, char in enumerate(body):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
            if depth == 0 and char == "}":
                statements.append(body[start : index + 1].strip())
                start = index + 1
        elif char == ";" and depth == 0:
            statements.append(body[start : index + 1].strip())
            start = index + 1
    return [s for s in statements if s]
