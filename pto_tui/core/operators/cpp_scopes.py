"""Where a C++ definition sits: at namespace scope, in a struct, or in a function, read from
the braces of the text (comments and string literals blanked first, so offsets and line
numbers stay those of the file). Enough to tell a launch site's `constexpr` local from a
config struct's `static constexpr` member and a namespace constant, never a parser.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from pto_tui.core.operators.tilelib_cpp import angle_span, blank_comments, split_top_level

_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'')
_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "do", "else", "try", "constexpr"})
_TEMPLATE_OPEN = re.compile(r"\b(\w+)\s*<")


@dataclass(frozen=True)
class Scope:
    """The block a definition sits in."""

    kind: str  # "namespace" | "struct" | "function"
    name: str  # the struct's or function's name ("" at namespace scope)
    start: int  # the block's `{` (-1 at file scope)
    end: int  # just past its `}` (len(text) at file scope)


def blank_code(text: str) -> str:
    """Comments and string literals as spaces, newlines kept; an `#include "file"` keeps
    its file name."""
    text = blank_comments(text)

    def blank(match: re.Match[str]) -> str:
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if re.match(r"\s*#\s*include\b", line):
            return match.group(0)
        return match.group(0)[0] + " " * (len(match.group(0)) - 2) + match.group(0)[-1]

    return _STRING.sub(blank, text)


class Blocks:
    """The brace blocks of one C++ text, to ask which ones hold an offset."""

    def __init__(self, text: str) -> None:
        self.text = text
        pairs: list[tuple[int, int]] = []
        stack: list[int] = []
        for index, char in enumerate(text):
            if char == "{":
                stack.append(index)
            elif char == "}" and stack:
                pairs.append((stack.pop(), index + 1))
        pairs.sort()
        self._opens = [open_ for open_, _ in pairs]
        self._pairs = pairs

    def holding(self, index: int) -> list[tuple[int, int]]:
        """The blocks holding `index`, innermost first."""
        last = bisect.bisect_right(self._opens, index)
        held = [(a, b) for a, b in self._pairs[:last] if a < index < b]
        return sorted(held, key=lambda pair: -pair[0])

    def head(self, open_index: int) -> str:
        """The text before a block's `{`, back to the previous `;`, `{` or `}`."""
        start = max(self.text.rfind(c, 0, open_index) for c in ";{}") + 1
        return " ".join(self.text[start:open_index].split())

    def scope(self, index: int) -> Scope:
        """The struct or function holding `index` (the outermost function, the innermost
        struct), else namespace scope."""
        function: Scope | None = None
        for start, end in self.holding(index):
            head = self.head(start)
            struct = re.search(r"\b(?:struct|class)\s+(\w+)[^()]*$", head)
            if struct and function is None:
                return Scope("struct", struct.group(1), start, end)
            name = _function_name(head)
            if name:
                function = Scope("function", name, start, end)
            elif head.startswith(("namespace", 'extern "')) or head.endswith("="):
                continue
        return function or Scope("namespace", "", -1, len(self.text))


def _function_name(head: str) -> str:
    """The function a block head opens (`void Launch(...)`, `[&]() ...` is no function)."""
    if ")" not in head:
        return ""
    depth, index = 0, len(head) - 1
    while index >= 0:  # back to the `(` matching the last `)`
        char = head[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                break
        index -= 1
    match = re.search(r"(\w+)\s*$", head[:index]) if index > 0 else None
    if not match or match.group(1) in _CONTROL or head[:index].rstrip().endswith("]"):
        return ""
    return match.group(1)


def template_arguments(text: str, start: int = 0, end: int | None = None) -> set[str]:
    """Every top-level argument of a `Name<...>` written between start and end."""
    found: set[str] = set()
    stop = len(text) if end is None else end
    for match in _TEMPLATE_OPEN.finditer(text, start, stop):
        close = angle_span(text, match.end() - 1)
        if close is not None and close <= stop:
            found.update(" ".join(arg.split()) for arg in split_top_level(text[match.end() : close - 1]))
    return found


def template_spans(text: str) -> list[tuple[int, int]]:
    """The `<...>` of every `Name<...>` and `template <...>`: a name written there is passed
    or declared, not used in an expression."""
    spans = []
    for match in _TEMPLATE_OPEN.finditer(text):
        close = angle_span(text, match.end() - 1)
        if close is not None:
            spans.append((match.end() - 1, close))
    return spans
