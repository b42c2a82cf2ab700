"""The C++ side of a tile-lib operator, read with careful regexes (comments blanked first,
so offsets and line numbers stay those of the file).

- namespace-scope `constexpr ... kName = <expr>;` constants, valued when the expression is
  made of integers and other such constants (`kFaCvFifoSize / 2`);
- the entry template (`template <...> ... LaunchXxx(`) with its parameters and defaults;
- template instantiations `Name<args>(` (calls and explicit `template void Name<...>(`), each
  with the context it sits in: the function template around it, or the `#define` it is
  part of, so an argument can be traced back through `run_case<..., TILE_S1, ...>` to the
  X-macro entry that the generated case rows expand.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_CONSTANT = re.compile(
    r"^(?:(?:static|inline)\s+)*constexpr\s+(?:(?:static|inline|const)\s+)*[\w:]+(?:\s+[\w:]+)*?"
    r"\s+(k[A-Z]\w*)\s*=\s*([^;{}]+);",
    re.M,
)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_TEMPLATE = re.compile(r"\btemplate\s*<")
_PARAM = re.compile(r"^(?:typename|class|[\w:]+(?:\s+[\w:]+)*?)\s+(\w+)(?:\s*=\s*(.+))?$", re.S)
_INT = re.compile(r"-?\d+")
_OPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


@dataclass(frozen=True)
class Constant:
    name: str
    expr: str
    value: int | None  # None: not an integer expression of literals and constants
    rel: str
    line: int


@dataclass(frozen=True)
class TemplateParam:
    name: str
    default: str  # "" when none


@dataclass(frozen=True)
class Context:
    """What an instantiation sits in: a function template or a #define, with its parameters."""

    kind: str  # "template" | "macro" | ""
    name: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class Instantiation:
    name: str
    args: tuple[str, ...]
    rel: str
    line: int
    explicit: bool  # `template void Name<...>(...)`: an explicit instantiation, not a call
    context: Context


@dataclass(frozen=True)
class EntryTemplate:
    name: str
    params: tuple[TemplateParam, ...]
    rel: str
    line: int


def blank_comments(text: str) -> str:
    """Comments replaced by spaces, newlines kept: offsets and lines are unchanged."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def evaluate(expr: str, known: dict[str, int]) -> int | None:
    """An integer constant expression (`1024 * 3`, `512U`, `kFaCvFifoSize / 2`), or None."""
    python = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr.strip()).replace("/", "//")
    try:
        tree = ast.parse(python, mode="eval")
    except SyntaxError:
        return None
    return _eval_node(tree.body, known)


def _eval_node(node: ast.AST, known: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _eval_node(node.operand, known)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval_node(node.left, known), _eval_node(node.right, known)
        if left is None or right is None or (right == 0 and isinstance(node.op, ast.FloorDiv | ast.Mod)):
            return None
        return _OPS[type(node.op)](left, right)
    return None


def constants(sources: dict[str, str]) -> dict[str, Constant]:
    """Namespace-scope k-named constexpr constants of all sources, valued in file order."""
    known: dict[str, int] = {}
    found: dict[str, Constant] = {}
    for rel, text in sources.items():
        for match in _CONSTANT.finditer(text):
            name, expr = match.group(1), " ".join(match.group(2).split())
            if name in found:
                continue  # a second definition (another #ifdef branch): the first is reported
            value = evaluate(expr, known)
            if value is not None:
                known[name] = value
            found[name] = Constant(name, expr, value, rel, line_of(text, match.start()))
    return found


def split_top_level(text: str) -> list[str]:
    """`a, B<c, d>, (e, f)` -> ["a", "B<c, d>", "(e, f)"]."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def angle_span(text: str, open_index: int) -> int | None:
    """Index just past the `>` matching the `<` at open_index (parentheses respected)."""
    depth = 0
    for index in range(open_index, len(text)):
        char = text[index]
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
            if depth == 0:
                return index + 1
        elif char in ";{}":
            return None
    return None


def _template_headers(text: str) -> list[tuple[int, tuple[TemplateParam, ...], str]]:
    """(offset, parameters, function name) of each `template <...> ... name(` header."""
    headers = []
    for match in _TEMPLATE.finditer(text):
        end = angle_span(text, match.end() - 1)
        if end is None:
            continue
        after = re.match(r"[\w:\s*&]*?(\w+)\s*\(", text[end : end + 300])
        params = []
        for part in split_top_level(text[match.end() : end - 1]):
            param = _PARAM.match(part)
            if param:
                params.append(TemplateParam(param.group(1), " ".join((param.group(2) or "").split())))
        headers.append((match.start(), tuple(params), after.group(1) if after else ""))
    return headers


def entry_templates(sources: dict[str, str], prefix: str = "Launch") -> dict[str, EntryTemplate]:
    """Entry templates by name; overloads are merged, a default taken from any of them."""
    found: dict[str, EntryTemplate] = {}
    for rel, text in sources.items():
        for offset, params, name in _template_headers(text):
            if not name.startswith(prefix) or not params:
                continue
            old = found.get(name)
            # an overload with the defaults wins over one without
            if old is None or (len(old.params) == len(params) and not any(p.default for p in old.params)):
                found[name] = EntryTemplate(name, params, rel, line_of(text, offset))
    return found


def parameter_lists(text: str, prefix: str = "Launch") -> list[tuple[int, int]]:
    """(start, end) of the `template <...>` parameter lists of templates named prefix*:
    a constant written there is a default, not a use."""
    spans = []
    for match in _TEMPLATE.finditer(text):
        end = angle_span(text, match.end() - 1)
        if end is not None and re.match(rf"[\w:\s*&]*?\b{prefix}\w*\s*\(", text[end : end + 300]):
            spans.append((match.start(), end))
    return spans


def macros(text: str) -> list[tuple[int, int, str, tuple[str, ...], str]]:
    """(start, end, name, parameters, body) of each function-like #define."""
    found = []
    for m in _DEFINE.finditer(text):
        params = tuple(p.strip() for p in m.group(2).split(",") if p.strip())
        found.append((m.start(), m.end(), m.group(1), params, m.group(3)))
    return found


def context_at(text: str, index: int) -> Context:
    """The #define or the nearest function template header before index."""
    for start, end, name, params, _body in macros(text):
        if start <= index < end:
            return Context("macro", name, params)
    before = [h for h in _template_headers(text[:index]) if h[2]]
    if before:
        _offset, header_params, name = before[-1]
        return Context("template", name, tuple(p.name for p in header_params))
    return Context("", "", ())


def instantiations(sources: dict[str, str], name: str) -> list[Instantiation]:
    """Every `name<args>(` of the sources; a declaration `... name(` has no `<` and is skipped."""
    found = []
    for rel, text in sources.items():
        for match in re.finditer(rf"\b{re.escape(name)}\s*<", text):
            end = angle_span(text, match.end() - 1)
            if end is None or not re.match(r"\s*\(", text[end:]):
                continue
            args = tuple(" ".join(a.split()) for a in split_top_level(text[match.end() : end - 1]))
            before = text[max(0, match.start() - 80) : match.start()]
            explicit = bool(re.search(r"\btemplate\s+[\w:*&\s]+$", before))
            context = context_at(text, match.start())
            found.append(Instantiation(name, args, rel, line_of(text, match.start()), explicit, context))
    return found


def is_int_literal(text: str) -> bool:
    return bool(_INT.fullmatch(re.sub(r"[uUlL]+$", "", text)))


def uses(sources: dict[str, str], name: str) -> list[tuple[str, int, int]]:
    """(rel, line, offset) of each use of an identifier."""
    return [
        (rel, line_of(text, m.start()), m.start())
        for rel, text in sources.items()
        for m in re.finditer(rf"\b{re.escape(name)}\b", text)
    ]


def replace_constant(text: str, name: str, value: int) -> str | None:
    """The text with constant `name` defined as `value` (its expression replaced), or None
    when the text does not define it."""
    for match in _CONSTANT.finditer(text):
        if match.group(1) == name:
            start, end = match.span(2)
            return text[:start] + str(value) + text[end:]
    return None
