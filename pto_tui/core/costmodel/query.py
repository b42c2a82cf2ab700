"""The PTO costmodel query language and its results (FORMATS.md §4). Pure: no I/O.

A query is what `tools/query_pto_cycles.py` takes on its command line:

    TEXP half -r 16 -c 16                      unary
    TADD half -r 64 -c 64                      binary (and TADDS, TSEL, TCMP, ...)
    TROWSUM float -r 64 -c 64                  row reduce
    TCOLSUM half -r 16 -c 256                  column reduce
    TCVT half float -r 16 -c 64                TCVT <target> <source>
    TMATMUL half half float --m 128 --k 64 --n 128    TMATMUL <A> <B> <out>

A sweep is the same form where any dtype may be a comma list (`half,bf16`) and
any dimension a list of values and ranges (see SWEEP_HELP). Results carry the
version stamp of the costmodel that produced them, because the numbers change
between pto-isa commits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import product
from typing import Any

from pto_tui.core.errors import InputError

# ---------------------------------------------------------------- vocabulary


class Family(StrEnum):
    UNARY = "unary"
    BINARY = "binary"
    ROW_REDUCE = "row-reduce"
    COL_REDUCE = "col-reduce"
    CVT = "convert"
    MATMUL = "matmul"


FAMILIES: dict[Family, tuple[str, ...]] = {
    Family.UNARY: ("TEXP", "TNEG", "TRECIP", "TRSQRT", "TSQRT", "TABS"),
    Family.BINARY: (
        "TADD",
        "TSUB",
        "TMUL",
        "TDIV",
        "TMAX",
        "TMIN",
        "TMAXS",
        "TMINS",
        "TADDS",
        "TSUBS",
        "TMULS",
        "TDIVS",
        "TSEL",
        "TSELS",
        "TCMP",
    ),
    Family.ROW_REDUCE: ("TROWSUM", "TROWMAX", "TROWMIN"),
    Family.COL_REDUCE: ("TCOLSUM", "TCOLMAX", "TCOLMIN"),
    Family.CVT: ("TCVT",),
    Family.MATMUL: ("TMATMUL",),
}
INSTRUCTIONS: dict[str, Family] = {name: fam for fam, names in FAMILIES.items() for name in names}

# Canonical dtype names (as the tool prints them in labels) and their sizes in bytes.
DTYPE_SIZES: dict[str, int] = {
    "float": 4,
    "half": 2,
    "bf16": 2,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
}
DTYPE_ALIASES: dict[str, str] = {"fp32": "float", "fp16": "half"}
VALID_DTYPES_TEXT = "float/half/bf16/int32/int16/int8/uint8 (aliases fp32 = float, fp16 = half)"

# The prompts of the costmodel guide (FORMATS.md §4), asked when information is missing.
PROMPT_INSTRUCTION = (
    "Which PTO instruction do you want to query the cycles of? (e.g. TADD, TMUL, TMATMUL)"
)
PROMPT_DTYPE = "Which data type? Supported: float/half/bf16/int32/int16/int8/uint8"
PROMPT_SHAPE = "Which tile shape? (e.g. 16x16, 64x64, 32x256): give -r ROWS -c COLS"
PROMPT_MATMUL = (
    "TMATMUL needs the dimensions M, K and N (e.g. M=128, K=64, N=128): give --m M --k K --n N"
)
PROMPT_MATMUL_TYPES = "TMATMUL needs three types: A, B and output (e.g. TMATMUL half half float)"
PROMPT_CVT = (
    "TCVT needs source and target types that differ (e.g. float to half): "
    "TCVT <target> <source>, e.g. TCVT half float"
)

# Vector tiles are row-major; pto-isa's Tile static_asserts Cols * sizeof(T) % 32 == 0.
VEC_ROW_ALIGN_BYTES = 32
# Guard against typos such as 16:4096:1 that would expand to thousands of programs.
MAX_SWEEP_POINTS = 5000
MAX_DIM = 1 << 20

SWEEP_HELP = """\
Sweep values (for -r, -c, --m, --k, --n; comma-separated items):
  64                 one value
  16,32,64           a list
  16:256:x2          16 to 256 inclusive, multiplying by 2 (16,32,64,128,256)
  16:128:16          16 to 128 inclusive, adding 16 (also written 16-128/16)
  16:64              16 to 64 inclusive, adding 1
Dtypes may be comma lists too (TADD half,float ...). Every combination is queried."""


class QueryError(InputError):
    """A query that cannot be run as given; the message is the guide's prompt."""


# ---------------------------------------------------------------- the query


def canonical_dtype(text: str) -> str:
    name = text.strip().lower()
    name = DTYPE_ALIASES.get(name, name)
    if name not in DTYPE_SIZES:
        raise QueryError(f"unknown dtype {text!r}; valid: {VALID_DTYPES_TEXT}")
    return name


def canonical_instruction(text: str) -> str:
    name = text.strip().upper()
    if name not in INSTRUCTIONS:
        valid = "; ".join(f"{fam.value}: {' '.join(names)}" for fam, names in FAMILIES.items())
        raise QueryError(f"unknown instruction {text!r}; valid: {valid}")
    return name


@dataclass(frozen=True)
class Query:
    """One costmodel query. dtypes in command-line order: (dt,), (target, source), (A, B, out)."""

    instr: str
    dtypes: tuple[str, ...]
    rows: int = 0
    cols: int = 0
    m: int = 0
    k: int = 0
    n: int = 0

    @property
    def family(self) -> Family:
        return INSTRUCTIONS[self.instr]

    @property
    def is_matmul(self) -> bool:
        return self.family is Family.MATMUL

    @property
    def label(self) -> str:
        """The label the tool prints after [CYCLE]."""
        if self.is_matmul:
            a, b, out = self.dtypes
            return f"TMATMUL.{out}<{a},{b}>_{self.m}x{self.k}x{self.n}"
        if self.family is Family.CVT:
            dst, src = self.dtypes
            return f"TCVT.{dst}<-{src}_{self.rows}x{self.cols}"
        return f"{self.instr}.{self.dtypes[0]}_{self.rows}x{self.cols}"

    @property
    def shape(self) -> str:
        if self.is_matmul:
            return f"{self.m}x{self.k}x{self.n}"
        return f"{self.rows}x{self.cols}"

    def argv(self) -> list[str]:
        """The tool's command-line arguments for this query."""
        if self.is_matmul:
            dims = ["--m", str(self.m), "--k", str(self.k), "--n", str(self.n)]
        else:
            dims = ["-r", str(self.rows), "-c", str(self.cols)]
        return [self.instr, *self.dtypes, *dims]

    @property
    def key(self) -> str:
        """Stable text identity (cache keys, de-duplication)."""
        return " ".join(self.argv())

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "instr": self.instr,
            "family": self.family.value,
            "dtypes": list(self.dtypes),
            "label": self.label,
        }
        if self.is_matmul:
            data.update(m=self.m, k=self.k, n=self.n)
        else:
            data.update(rows=self.rows, cols=self.cols)
        return data


def matmul_align(a_dtype: str) -> int:
    """Block alignment of TMATMUL tiles: 32 for 1-byte A types, else 16 (FORMATS.md §4)."""
    return 32 if DTYPE_SIZES[a_dtype] == 1 else 16


def ceil_align(value: int, align: int) -> int:
    return -(-value // align) * align


def validate(query: Query) -> Query:
    """Reject what cannot be laid out, before any compiler runs. Returns the query.

    Rules applied (and only these, since they are known from pto-isa):
    - every dimension is a positive integer (at most 2**20);
    - vector tiles are row-major, so cols * sizeof(dtype) must be a multiple of
      32 bytes for every tile the program builds (both types of TCVT; the
      uint8 mask of TCMP is cols wide, so TCMP needs cols % 32 == 0);
    - TMATMUL dimensions are padded to 16 (32 for 1-byte A types) by the
      generated program, so any positive M, K, N is accepted;
    - TCVT types must differ.
    """
    family = query.family
    if family is Family.MATMUL:
        dims = {"M": query.m, "K": query.k, "N": query.n}
    else:
        dims = {"rows": query.rows, "cols": query.cols}
    for name, value in dims.items():
        if value <= 0:
            raise QueryError(f"{query.instr}: {name} must be a positive integer, got {value}")
        if value > MAX_DIM:
            raise QueryError(f"{query.instr}: {name}={value} is larger than {MAX_DIM}")
    if family is Family.CVT and query.dtypes[0] == query.dtypes[1]:
        raise QueryError(PROMPT_CVT)
    if family is not Family.MATMUL:
        tile_types = list(query.dtypes)
        if query.instr == "TCMP":
            tile_types.append("uint8")
        for dtype in tile_types:
            row_bytes = query.cols * DTYPE_SIZES[dtype]
            if row_bytes % VEC_ROW_ALIGN_BYTES:
                step = VEC_ROW_ALIGN_BYTES // DTYPE_SIZES[dtype]
                raise QueryError(
                    f"{query.label}: a row of {query.cols} {dtype} is {row_bytes} bytes; "
                    f"row-major vector tiles need a multiple of {VEC_ROW_ALIGN_BYTES} bytes "
                    f"(cols a multiple of {step} for {dtype})"
                )
    return query


# ---------------------------------------------------------------- parsing

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
_SHAPE_RE = re.compile(r"^\d+(x\d+){1,2}$")


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
        elif token.startswith("-") and not token.lstrip("-").isdigit():
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
    try:
        return int(text)
    except ValueError:
        raise QueryError(f"{name}: {text!r} is not an integer\n{SWEEP_HELP}") from None


def _expand_item(item: str, name: str) -> list[int]:
    match = re.fullmatch(r"(-?\d+)-(\d+)/(\d+)", item)
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
    if family is Family.MATMUL:
        extra = [f for f in ("rows", "cols") if f in words.dims]
        if extra:
            raise QueryError("TMATMUL takes --m/--k/--n, not -r/-c")
        if not all(d in words.dims for d in ("m", "k", "n")):
            raise QueryError(PROMPT_MATMUL)
        names = ("m", "k", "n")
    else:
        extra = [f for f in ("m", "k", "n") if f in words.dims]
        if extra:
            raise QueryError(f"{instr} takes -r ROWS -c COLS, not --m/--k/--n")
        if not all(d in words.dims for d in ("rows", "cols")):
            raise QueryError(PROMPT_SHAPE)
        names = ("rows", "cols")
    dim_lists = [parse_dim_values(words.dims[name], name) for name in names]
    total = math.prod(len(x) for x in (*dtype_lists, *dim_lists))
    if total > MAX_SWEEP_POINTS:
        raise QueryError(f"the sweep has {total} points; at most {MAX_SWEEP_POINTS} are allowed")
    queries: list[Query] = []
    for dtypes in product(*dtype_lists):
        for dims in product(*dim_lists):
            query = Query(instr, tuple(dtypes), **dict(zip(names, dims, strict=True)))
            queries.append(validate(query))
    return queries


def parse_query(argv: Sequence[str]) -> Query:
    """Exactly one query, in the tool's command-line form."""
    queries = expand_sweep(argv)
    if len(queries) != 1:
        raise QueryError(
            f"that is a sweep of {len(queries)} queries; use `costmodel sweep ...` "
            "or expand_sweep()"
        )
    return queries[0]


def parse_query_text(text: str) -> list[Query]:
    """A query typed as one line (the TUI's console); a leading tool path is ignored."""
    tokens = text.split()
    while tokens and (tokens[0].endswith(".py") or tokens[0].startswith("python")):
        tokens = tokens[1:]
    return expand_sweep(tokens)


# ---------------------------------------------------------------- [CYCLE] lines

_CYCLE_RE = re.compile(r"\[CYCLE\]\s+(?P<label>\S+)\s+actual=(?P<cycles>\d+)")
_LABEL_RES = (
    re.compile(
        r"^(?P<instr>TMATMUL)\.(?P<out>\w+)<(?P<a>\w+),(?P<b>\w+)>_(?P<m>\d+)x(?P<k>\d+)x(?P<n>\d+)$"
    ),
    re.compile(r"^(?P<instr>TCVT)\.(?P<dst>\w+)<-(?P<src>\w+)_(?P<rows>\d+)x(?P<cols>\d+)$"),
    re.compile(r"^(?P<instr>T[A-Z]+)\.(?P<dt>\w+)_(?P<rows>\d+)x(?P<cols>\d+)$"),
)


@dataclass(frozen=True)
class CycleLine:
    label: str
    cycles: int


def parse_cycle_lines(text: str) -> list[CycleLine]:
    """Every `[CYCLE] <label> actual=<n>` line of a tool's or program's output."""
    return [CycleLine(m["label"], int(m["cycles"])) for m in _CYCLE_RE.finditer(text)]


def query_from_label(label: str) -> Query:
    """The query a label names, in any of the three label forms."""
    for regex in _LABEL_RES:
        match = regex.match(label)
        if not match:
            continue
        parts = match.groupdict()
        instr = canonical_instruction(parts["instr"])
        if "out" in parts:
            dtypes = tuple(canonical_dtype(parts[x]) for x in ("a", "b", "out"))
            return Query(instr, dtypes, m=int(parts["m"]), k=int(parts["k"]), n=int(parts["n"]))
        if "dst" in parts:
            dtypes = (canonical_dtype(parts["dst"]), canonical_dtype(parts["src"]))
        else:
            dtypes = (canonical_dtype(parts["dt"]),)
        return Query(instr, dtypes, rows=int(parts["rows"]), cols=int(parts["cols"]))
    raise QueryError(f"not a costmodel label: {label!r}")


# ---------------------------------------------------------------- metrics

# Cube throughput on A2/A3 in multiply-accumulates per cycle, by A's dtype. Derived
# from observed costmodel numbers: fp16 follows ceil(M/16)*ceil(K/16)*ceil(N/16)+6
# (FORMATS.md §4); fp32 and int8 follow the same shape with K blocks of 8 (two
# cycles each) and 32. Other A types: unknown, so no ideal.
CUBE_MACS_PER_CYCLE: dict[str, int] = {
    "half": 16 * 16 * 16,
    "bf16": 16 * 16 * 16,
    "int8": 16 * 32 * 16,
    "uint8": 16 * 32 * 16,
    "float": 16 * 8 * 16 // 2,
}


def flop_count(query: Query) -> int:
    """2*M*K*N for TMATMUL (valid, unpadded dims); rows*cols element operations otherwise.

    For vector families this counts one operation per element of the tile, not
    floating-point operations; it makes cycles per element comparable across shapes.
    """
    if query.is_matmul:
        return 2 * query.m * query.k * query.n
    return query.rows * query.cols


def ideal_cycles(query: Query) -> float | None:
    """Cycles at the A2/A3 cube peak for TMATMUL (M*K*N / MACs per cycle); None elsewhere.

    Vector families have no ideal here: their cycle counts depend on pto-isa's
    per-instruction formulas, which we do not model.
    """
    if not query.is_matmul:
        return None
    macs = CUBE_MACS_PER_CYCLE.get(query.dtypes[0])
    if macs is None:
        return None
    return query.m * query.k * query.n / macs


def expected_matmul_cycles(query: Query) -> int | None:
    """The observed fp16/bf16 TMATMUL formula ceil(M/16)*ceil(K/16)*ceil(N/16) + 6."""
    if not query.is_matmul or query.dtypes[0] not in ("half", "bf16"):
        return None
    return math.ceil(query.m / 16) * math.ceil(query.k / 16) * math.ceil(query.n / 16) + 6
