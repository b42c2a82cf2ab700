"""What a tile-lib case generator (pto-isa's scripts/generate_cases.py) decides, read with ast.

The generator turns a case string HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1] and options such as
`--qk-preload` into the rows of an X-macro (`#define TFA_FOR_EACH_CASE(MACRO)` followed by
`MACRO(s0, head_size, ...)` rows) that main.cpp expands into the entry template's
instantiations. This module finds, without running the script:

- the module's named integer constants (`QK_PRELOAD_DEFAULT = 4`);
- its integer argparse options, the default resolved through such a constant;
- the case dict's fields: the case-string position each comes from (with its default), or
  the option it is copied from, or the constant it is fixed at (`"cube_s1": 128`);
- the X-macro's name and the field order of its rows.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_DEFINE = re.compile(r"#define\s+(\w+)\s*\(\s*(\w+)\s*\)")


@dataclass(frozen=True)
class GeneratorOption:
    """An integer option of the generator, e.g. --qk-preload (default QK_PRELOAD_DEFAULT = 4)."""

    flag: str
    dest: str
    default: int | None
    default_name: str  # the named constant the default is read from, or ""
    line: int


@dataclass(frozen=True)
class CaseField:
    """One key of the generator's case dict and where its value comes from."""

    key: str
    line: int
    position: int | None = None  # index in the case string
    default: int | None = None  # when the case string may omit it
    default_name: str = ""
    option: str = ""  # dest of the option it is copied from
    fixed: int | None = None  # a literal the generator always writes


@dataclass(frozen=True)
class MacroRow:
    """`#define NAME(MACRO)` and the case keys its MACRO(...) rows list, in order."""

    name: str
    keys: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Generator:
    rel: str
    constants: dict[str, int] = field(default_factory=dict)
    options: dict[str, GeneratorOption] = field(default_factory=dict)  # by dest
    fields: dict[str, CaseField] = field(default_factory=dict)  # by case key
    first_case: dict[str, int] = field(default_factory=dict)  # the generator's first default case
    row: MacroRow | None = None


def read_generator(text: str, rel: str) -> Generator | None:
    """The generator's decisions, or None when the text is not Python."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    constants = _module_constants(tree)
    parser = _case_parser(tree)
    fields = _case_fields(parser, constants) if parser else {}
    return Generator(
        rel=rel,
        constants=constants,
        options=_options(tree, constants),
        fields=fields,
        first_case=_first_default_case(tree),
        row=_macro_row(tree),
    )


def _module_constants(tree: ast.Module) -> dict[str, int]:
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            number = _int_value(value)
            if isinstance(target, ast.Name) and number is not None:
                found[target.id] = number
    return found


def _int_value(node: ast.AST | None) -> int | None:
    """The value of an integer literal (not a bool), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _int_or_named(node: ast.AST | None, constants: dict[str, int]) -> tuple[int | None, str]:
    """A literal int, or a module constant by name: (value, name)."""
    number = _int_value(node)
    if number is not None:
        return number, ""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id], node.id
    return None, ""


def _options(tree: ast.Module, constants: dict[str, int]) -> dict[str, GeneratorOption]:
    """Integer `add_argument("--flag", type=int, default=...)` options, by dest."""
    found: dict[str, GeneratorOption] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant):
            continue
        flag = node.args[0].value
        if not isinstance(flag, str) or not flag.startswith("--"):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        type_node, dest_node = keywords.get("type"), keywords.get("dest")
        if not (isinstance(type_node, ast.Name) and type_node.id == "int"):
            continue
        dest = flag[2:].replace("-", "_")
        if isinstance(dest_node, ast.Constant):
            dest = str(dest_node.value)
        default, name = _int_or_named(keywords.get("default"), constants)
        found[dest] = GeneratorOption(flag, dest, default, name, node.lineno)
    return found


def _case_parser(tree: ast.Module) -> ast.FunctionDef | None:
    """The function that splits the case string on ',' and returns the case dict."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        splits = any(
            isinstance(n, ast.Call)
            and getattr(n.func, "attr", "") == "split"
            and n.args
            and isinstance(n.args[0], ast.Constant)
            and n.args[0].value == ","
            for n in ast.walk(node)
        )
        if splits and _returned_dict(node) is not None:
            return node
    return None


def _returned_dict(func: ast.FunctionDef) -> ast.Dict | None:
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            return node.value
    return None


def _case_fields(func: ast.FunctionDef, constants: dict[str, int]) -> dict[str, CaseField]:
    """Keys of the returned dict, each traced to a case-string position, option or literal."""
    sources = _positions(func, constants)
    arguments = {a.arg for a in func.args.args}
    fields: dict[str, CaseField] = {}
    returned = _returned_dict(func)
    if returned is None:
        return fields
    for key_node, value in zip(returned.keys, returned.values, strict=True):
        if not isinstance(key_node, ast.Constant) or not isinstance(key_node.value, str):
            continue
        key, line = key_node.value, key_node.lineno
        if isinstance(value, ast.Call) and len(value.args) == 1:
            value = value.args[0]  # int(causal_mask) and the like
        if _int_value(value) is not None:
            fields[key] = CaseField(key, line, fixed=_int_value(value))
        elif isinstance(value, ast.Name) and value.id in sources:
            position, default, name = sources[value.id]
            fields[key] = CaseField(key, line, position=position, default=default, default_name=name)
        elif isinstance(value, ast.Name) and value.id in arguments:
            fields[key] = CaseField(key, line, option=value.id)
    return fields


def _positions(func: ast.FunctionDef, constants: dict[str, int]) -> dict[str, tuple[int, int | None, str]]:
    """Local name -> (case-string index, default, default's name), from
    `a, b = map(int, parts[:2])` and `x = int(parts[4]) if len(parts) == 5 else X_DEFAULT`."""
    found: dict[str, tuple[int, int | None, str]] = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Call) and len(value.args) == 2:
            start = _slice_start(value.args[1])
            if start is not None:
                for offset, element in enumerate(target.elts):
                    if isinstance(element, ast.Name):
                        found[element.id] = (start + offset, None, "")
        elif isinstance(target, ast.Name):
            default_node = value.orelse if isinstance(value, ast.IfExp) else None
            body = value.body if isinstance(value, ast.IfExp) else value
            index = _index_of(body.args[0]) if isinstance(body, ast.Call) and body.args else None
            if index is not None:
                default, name = _int_or_named(default_node, constants)
                found[target.id] = (index, default, name)
    return found


def _slice_start(node: ast.AST) -> int | None:
    """0 for `parts[:4]`, 2 for `parts[2:5]`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        lower = node.slice.lower
        if lower is None:
            return 0
        return _int_value(lower)
    return None


def _index_of(node: ast.AST) -> int | None:
    """4 for `parts[4]`."""
    return _int_value(node.slice) if isinstance(node, ast.Subscript) else None


def _first_default_case(tree: ast.Module) -> dict[str, int]:
    """The first of the generator's own cases (`for (head, s0, ...) in DEFAULT_CASES` building
    a dict), as case key -> int: the values a build without --cases uses."""
    tables = {
        n.targets[0].id: n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.List)
    }
    constants = _module_constants(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ListComp) and isinstance(node.elt, ast.Dict)):
            continue
        loop = node.generators[0]
        table = tables.get(loop.iter.id) if isinstance(loop.iter, ast.Name) else None
        if table is None or not table.elts or not isinstance(loop.target, ast.Tuple):
            continue
        first = table.elts[0]
        if not isinstance(first, ast.Tuple):
            continue
        names = [e.id if isinstance(e, ast.Name) else "" for e in loop.target.elts]
        row = dict(zip(names, (_int_or_named(e, constants)[0] for e in first.elts), strict=False))
        case: dict[str, int] = {}
        for key, value in zip(node.elt.keys, node.elt.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(value, ast.Name):
                found = row.get(value.id)
                if found is not None:
                    case[str(key.value)] = found
        return case
    return {}


def _macro_row(tree: ast.Module) -> MacroRow | None:
    """The X-macro the generator writes: its name and the case keys of a MACRO(...) row."""
    for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        name = ""
        for node in ast.walk(func):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                define = _DEFINE.search(node.value)
                name = define.group(1) if define else name
        if not name:
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.JoinedStr) and _opens_row(node):
                keys = tuple(_row_keys(node, func))
                if keys:
                    return MacroRow(name, keys, node.lineno)
    return None


def _opens_row(node: ast.JoinedStr) -> bool:
    first = node.values[0] if node.values else None
    return isinstance(first, ast.Constant) and str(first.value).strip().startswith("MACRO(")


def _row_keys(node: ast.JoinedStr, func: ast.FunctionDef) -> list[str]:
    """`{case['s0']}` gives s0; `{causal_mask}` the key its local assignment reads."""
    keys: list[str] = []
    for part in node.values:
        if isinstance(part, ast.Constant) and ")" in str(part.value):
            break  # the row's closing parenthesis: what follows is the line suffix
        if not isinstance(part, ast.FormattedValue):
            continue
        key = _subscript_key(part.value)
        if key is None and isinstance(part.value, ast.Name):
            key = _assigned_key(func, part.value.id)
        if key is not None:
            keys.append(key)
    return keys


def _subscript_key(node: ast.AST) -> str | None:
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    return None


def _assigned_key(func: ast.FunctionDef, name: str) -> str | None:
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == name for t in node.targets):
            for inner in ast.walk(node.value):
                key = _subscript_key(inner)
                if key is not None:
                    return key
    return None
