"""Reading costmodel queries from command-line words, and expanding sweeps. Pure: no I/O.

A sweep is a query where any dtype may be a comma list (`half,bf16`) and any
dimension a list of values and ranges (see SWEEP_HELP). A single query is a sweep
of one point.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product

from pto_tui.core.cycles.query import (
    INSTRUCTIONS,
    PROMPT_CVT,
    PROMPT_DTYPE,
    PROMPT_INSTRUCTION,
    PROMPT_MATMUL,
    PROMPT_MATMUL_TYPES,
    PROMPT_SHAPE,
    Family,
    Query,
    QueryError,
    canonical_dtype,
    canonical_instruction,
    validate,
)

# Guard against typos such as 16:4096:1 that would expand to thousands of programs.
MAX_SWEEP_POINTS = 5000

SWEEP_HELP = """\
Sweep values (for -r, -c, --m, --k, --n; comma-separated items):
  64                 one value
  16,32,64           a list
  16:256:x2          16 to 256 inclusive, multiplying by 2 (16,32,64,128,256)
  16:128:16          16 to 128 inclusive, adding 16 (also written 16-128/16)
  16:64              16 to 64 inclusive, adding 1
Dtypes may be comma lists too (TADD half,float ...). Every combination is queried."""


_DIM_FLAGS = {
    "-r": "rows",
    "--rows": "rows",
    "-c": "cols",
    "--cols": "cols",
    "--m": "m",
    "-m": "m",
    "--k": "k",
    "-k": "k",
    "--n": "n",
    "-n": "n",
}
# ASCII digits only: \d and int() would take Unicode digits such as '١٦'.
_SHAPE_RE = re.compile(r"^[0-9]+(x[0-9]+){1,2}$")
_ASCII_INT = re.compile(r"-?[0-9]+")


@dataclass
class _Words:
    instr: str = ""
    dtypes: list[str] = field(default_factory=list)
    dims: dict[str, str] = field(default_factory=dict)


def _split_words(argv: Sequence[str]) -> _Words:
    words = _Words()
    tokens = list(argv)
    if tokens and tokens[0].lower() == "sweep":
        tokens = tokens[1:]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        flag, eq, inline = token.partition("=")
        if flag in _DIM_FLAGS:
            if eq:
                value = inline
            elif i + 1 < len(tokens):
                i += 1
                value = tokens[i]
            else:
                raise QueryError(f"{flag} needs a value")
            words.dims[_DIM_FLAGS[flag]] = value
        elif token.startswith("-") and not _ASCII_INT.fullmatch(token):
            raise QueryError(
                f"unknown option {token!r}; use -r/-c for vector tiles, --m/--k/--n for TMATMUL"
            )
        elif _SHAPE_RE.match(token):  # convenience: 64x64 or 128x64x128
            parts = token.split("x")
            names = ("rows", "cols") if len(parts) == 2 else ("m", "k", "n")
            words.dims.update(zip(names, parts, strict=True))
        elif not words.instr:
            words.instr = token
        else:
            words.dtypes.append(token)
        i += 1
    return words


def parse_dim_values(text: str, name: str = "value") -> list[int]:
    """Expand a sweep value: '64', '16,32', '16:256:x2', '16:128:16', '16-128/16'."""
    values: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise QueryError(f"{name}: empty item in {text!r}")
        values.extend(_expand_item(item, name))
        if len(values) > MAX_SWEEP_POINTS:
            raise QueryError(f"{name}: {text!r} expands to more than {MAX_SWEEP_POINTS} values")
    return list(dict.fromkeys(values))  # keep order, drop repeats


def _int(text: str, name: str) -> int:
    if not _ASCII_INT.fullmatch(text.strip()):
        raise QueryError(f"{name}: {text!r} is not an integer (ASCII digits 0-9)\n{SWEEP_HELP}")
    return int(text)


def _expand_item(item: str, name: str) -> list[int]:
    match = re.fullmatch(r"(-?[0-9]+)-([0-9]+)/([0-9]+)", item)
    if match:
        item = f"{match[1]}:{match[2]}:{match[3]}"
    if ":" not in item:
        return [_int(item, name)]
    parts = item.split(":")
    if len(parts) not in (2, 3):
        raise QueryError(f"{name}: bad range {item!r}\n{SWEEP_HELP}")
    start, stop = _int(parts[0], name), _int(parts[1], name)
    step_text = parts[2] if len(parts) == 3 else "1"
    geometric = step_text.lower().startswith("x") or step_text.startswith("*")
    step = _int(step_text.lstrip("xX*+"), name)
    if start <= 0 or stop < start:
        raise QueryError(f"{name}: range {item!r} must go up from a positive start")
    if step < (2 if geometric else 1):
        raise QueryError(f"{name}: step of {item!r} must be at least {2 if geometric else 1}")
    out: list[int] = []
    value = start
    while value <= stop:
        out.append(value)
        if len(out) > MAX_SWEEP_POINTS:
            raise QueryError(f"{name}: {item!r} expands to more than {MAX_SWEEP_POINTS} values")
        value = value * step if geometric else value + step
    return out


def _dtype_lists(words: _Words, want: int, family: Family) -> list[list[str]]:
    if not words.dtypes:
        raise QueryError(PROMPT_DTYPE)
    if family is Family.MATMUL and len(words.dtypes) != 3:
        raise QueryError(PROMPT_MATMUL_TYPES)
    if family is Family.CVT and len(words.dtypes) != 2:
        raise QueryError(PROMPT_CVT)
    if len(words.dtypes) > want:
        raise QueryError(
            f"{words.instr.upper()} takes {want} dtype{'s' if want > 1 else ''}, "
            f"got {len(words.dtypes)}: {' '.join(words.dtypes)}"
        )
    return [
        [canonical_dtype(d) for d in text.split(",") if d.strip()] or [canonical_dtype(text)]
        for text in words.dtypes
    ]


def _dim_names(words: _Words, instr: str, family: Family) -> tuple[str, ...]:
    """The dimension names the query takes, checking the words give them and no others."""
    if family is Family.MATMUL:
        if any(f in words.dims for f in ("rows", "cols")):
            raise QueryError("TMATMUL takes --m/--k/--n, not -r/-c")
        if not all(d in words.dims for d in ("m", "k", "n")):
            raise QueryError(PROMPT_MATMUL)
        return ("m", "k", "n")
    if any(f in words.dims for f in ("m", "k", "n")):
        raise QueryError(f"{instr} takes -r ROWS -c COLS, not --m/--k/--n")
    if not all(d in words.dims for d in ("rows", "cols")):
        raise QueryError(PROMPT_SHAPE)
    return ("rows", "cols")


def expand_sweep(argv: Sequence[str]) -> list[Query]:
    """Every query of a command line (a single query is a sweep of one), validated.

    A leading word 'sweep' is allowed and ignored. Raises QueryError with the
    guide's prompt for missing information.
    """
    words = _split_words(argv)
    if not words.instr:
        raise QueryError(PROMPT_INSTRUCTION)
    instr = canonical_instruction(words.instr)
    family = INSTRUCTIONS[instr]
    want = {Family.MATMUL: 3, Family.CVT: 2}.get(family, 1)
    dtype_lists = _dtype_lists(words, want, family)
    names = _dim_names(words, instr, family)
    dim_lists = [parse_dim_values(words.dims[name], name) for name in names]
    sizes = [len(values) for values in dtype_lists] + [len(values) for values in dim_lists]
    total = math.prod(sizes)
    if total > MAX_SWEEP_POINTS:
        raise QueryError(f"the sweep has {total} points; at most {MAX_SWEEP_POINTS} are allowed")
    queries: list[Query] = []
    for dtypes in product(*dtype_lists):
        for dims in product(*dim_lists):
            dim_values: dict[str, int] = dict(zip(names, dims, strict=True))
            query = Query(instr, tuple(dtypes), **dim_values)
            queries.append(validate(query))
    return queries


def parse_query_text(text: str) -> list[Query]:
    """A query typed as one line (the TUI's console); a leading tool path is ignored."""
    tokens = text.split()
    while tokens and (tokens[0].endswith(".py") or tokens[0].startswith("python")):
        tokens = tokens[1:]
    return expand_sweep(tokens)
