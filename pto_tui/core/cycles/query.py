"""The PTO costmodel query: its vocabulary, the query record and its validation. Pure: no I/O.

A query is what `tools/query_pto_cycles.py` takes on its command line:

    TEXP half -r 16 -c 16                      unary
    TADD half -r 64 -c 64                      binary (and TADDS, TSEL, TCMP, ...)
    TROWSUM float -r 64 -c 64                  row reduce
    TCOLSUM half -r 16 -c 256                  column reduce
    TCVT half float -r 16 -c 64                TCVT <target> <source>
    TMATMUL half half float --m 128 --k 64 --n 128    TMATMUL <A> <B> <out>

Reading queries and sweeps from words is in sweep.py, the tool's output lines in
cycle_lines.py, FLOPs and ideal cycles in metrics.py (docs/formats.md §4).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
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

# The prompts of the costmodel guide (docs/formats.md §4), asked when information is missing.
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
MAX_DIM = 1 << 20


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
    """Block alignment of TMATMUL tiles: 32 for 1-byte A types, else 16 (docs/formats.md §4)."""
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
