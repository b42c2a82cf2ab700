"""What an operator's Python files say, read with ast (never imported: they need torch/NPU).

- `meta.py`: the family and name (`planned_meta(family="attention", name=...)`).
- `runtime.py`: `VARIANTS`, a tuple of dataclass instances; each variant's fields (the
  class defaults, then the call's arguments) and its label (the class's `label`
  f-string, when it has one).
- the adapter: which env knobs it derives from the variant (`str(variant.seq_len)`)
  rather than passes through (`os.environ.get(NAME, default)`): those are shape knobs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.project.config import Scalar


@dataclass(frozen=True)
class Variant:
    """One workload shape an operator's runtime lists."""

    label: str
    fields: dict[str, Scalar] = field(default_factory=dict)
    where: str = ""  # file:line


@dataclass(frozen=True)
class ShapeKnob:
    """An env knob whose value the adapter takes from the variant, not the environment."""

    name: str
    field: str  # the variant field it comes from, e.g. seq_len ("" when not one field)
    where: str = ""


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None


def literal_scalar(node: ast.AST) -> Scalar | None:
    """A literal number, string or boolean in the source; None for anything else."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return value if isinstance(value, int | float | str | bool) else None


def meta_keywords(path: Path) -> dict[str, str]:
    """String `family=` and `name=` given to any call in meta.py (or as dict keys)."""
    tree = _parse(path)
    found: dict[str, str] = {}
    if tree is None:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = literal_scalar(keyword.value)
                if keyword.arg in ("family", "name") and isinstance(value, str):
                    found.setdefault(keyword.arg, value)
        elif isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                name, value = (literal_scalar(key) if key else None), literal_scalar(item)
                if name in ("family", "name") and isinstance(value, str):
                    found.setdefault(str(name), value)
    return found


def _class_fields(cls: ast.ClassDef) -> tuple[list[str], dict[str, Scalar]]:
    """A dataclass's field names in order, and their literal defaults."""
    names: list[str] = []
    defaults: dict[str, Scalar] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.append(stmt.target.id)
            value = literal_scalar(stmt.value) if stmt.value is not None else None
            if value is not None:
                defaults[stmt.target.id] = value
    return names, defaults


def _label(cls: ast.ClassDef, values: dict[str, Scalar]) -> str | None:
    """The class's `label` property evaluated for these fields, when it is an f-string of
    `self.<field>` only."""
    for stmt in cls.body:
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == "label"):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.JoinedStr):
                return _render_fstring(node.value, values)
    return None


def _render_fstring(node: ast.JoinedStr, values: dict[str, Scalar]) -> str | None:
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
            continue
        inner = part.value if isinstance(part, ast.FormattedValue) else None
        if not (isinstance(inner, ast.Attribute) and inner.attr in values):
            return None
        out.append(str(values[inner.attr]))
    return "".join(out)


def read_variants(path: Path, rel: str) -> tuple[Variant, ...]:
    """`VARIANTS = (Cls(a=1, ...), NAMED_VARIANT, ...)` of runtime.py, each with its fields
    and label (the class's `label`, else the constant's name, else `<class>-<index>`)."""
    tree = _parse(path)
    if tree is None:
        return ()
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    named: dict[str, ast.expr] = {}  # module-level NAME = ... (a variant written once, named)
    listed: list[ast.expr] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                named[target.id] = stmt.value
        if any(isinstance(t, ast.Name) and t.id == "VARIANTS" for t in stmt.targets):
            listed = list(stmt.value.elts) if isinstance(stmt.value, ast.Tuple | ast.List) else []
    variants = []
    for index, item in enumerate(listed):
        constant = ""
        seen: set[str] = set()
        while isinstance(item, ast.Name) and item.id in named and item.id not in seen:
            seen.add(item.id)
            constant = constant or item.id
            item = named[item.id]
        if isinstance(item, ast.Call) and isinstance(item.func, ast.Name):
            variants.append(_variant(item, item.func.id, classes.get(item.func.id), constant, index, rel))
    return tuple(variants)


def _variant(
    call: ast.Call, class_name: str, cls: ast.ClassDef | None, constant: str, index: int, rel: str
) -> Variant:
    names, values = _class_fields(cls) if cls else ([], {})
    for position, arg in enumerate(call.args):
        value = literal_scalar(arg)
        if position < len(names) and value is not None:
            values[names[position]] = value
    for keyword in call.keywords:
        value = literal_scalar(keyword.value)
        if keyword.arg and value is not None:
            values[keyword.arg] = value
    label = (_label(cls, values) if cls else None) or _constant_label(constant)
    return Variant(
        label=label or f"{class_name.lower()}-{index}", fields=values, where=f"{rel}:{call.lineno}"
    )


def _constant_label(constant: str) -> str:
    """TND_HALF_VARIANT -> tnd_half; a bare VARIANT names nothing."""
    label = constant.lower().removesuffix("_variant")
    return "" if label in ("", "variant") else label


def variant_dtype(fields: dict[str, Scalar]) -> str:
    """A variant's data type: its `dtype`, else its `input_dtype` (grouped_matmul's)."""
    for key in ("dtype", "input_dtype"):
        if isinstance(fields.get(key), str) and fields[key]:
            return str(fields[key])
    return ""


def environment_writes(path: Path, rel: str) -> dict[str, str]:
    """Env knobs a runtime sets itself at run time (`os.environ["PTO_MC2_RANK"] = str(rank)`),
    each with where: the process rank, a device id; never a tunable."""
    tree = _parse(path)
    found: dict[str, str] = {}
    if tree is None:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and "environ" in ast.unparse(target.value):
                    name = literal_scalar(target.slice)
                    if isinstance(name, str):
                        found.setdefault(name, f"{rel}:{node.lineno}")
    return found


def _is_environ_read(node: ast.AST) -> bool:
    """os.environ.get(...), os.getenv(...), environ.get(...), os.environ[...]."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("get", "getenv"):
            return "environ" in ast.unparse(func.value) or ast.unparse(func.value) == "os"
        return isinstance(func, ast.Name) and func.id == "getenv"
    return isinstance(node, ast.Subscript) and "environ" in ast.unparse(node.value)


def _variant_field(node: ast.AST) -> str | None:
    """The attribute read from a non-module object (variant.seq_len -> seq_len), if any."""
    for inner in ast.walk(node):
        if (
            isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name)
            and inner.value.id not in ("os", "environ", "str", "int")
        ):
            return inner.attr
    return None


def _knob_pairs(tree: ast.Module) -> list[tuple[str, ast.expr, int]]:
    """(env name, value expression, line) of dict literals and `env["NAME"] = ...`."""
    pairs: list[tuple[str, ast.expr, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = literal_scalar(key) if key is not None else None
                if isinstance(name, str):
                    pairs.append((name, value, value.lineno))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    name = literal_scalar(target.slice)
                    if isinstance(name, str):
                        pairs.append((name, node.value, node.lineno))
    return pairs


def shape_knobs(path: Path, rel: str, knob_names: set[str]) -> tuple[ShapeKnob, ...]:
    """Of the operator's env knobs, those the adapter sets from the variant."""
    tree = _parse(path)
    if tree is None:
        return ()
    found: dict[str, ShapeKnob] = {}
    for name, value, line in _knob_pairs(tree):
        if name not in knob_names or _is_environ_read(value):
            continue
        field_name = _variant_field(value)
        if field_name is not None:
            found.setdefault(name, ShapeKnob(name=name, field=field_name, where=f"{rel}:{line}"))
    return tuple(found.values())
