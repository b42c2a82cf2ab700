"""Whether a query's operands fit the A2/A3 on-chip buffers. Pure: text in, verdicts out.

The costmodel simulates one instruction on tiles of any size: it does not know that a
512x512 half tile cannot sit in the 192 KiB Unified Buffer, so such a query answers
with a meaningless number. Each query is checked here before it runs:

- vector families: every tile the probe program builds (sources, destination, the
  reduce's tmp, TSEL's mask) lives in UB at once, each rounded up to the 32-byte UB
  alignment;
- TMATMUL: A in L0A, B in L0B, the accumulator in L0C, each with M, K, N padded to
  the cube's 16 elements (32 for 1-byte A types); A and B are staged through L1 together.

The capacities are read from the checkout's include/pto/common/buffer_limits.hpp (the
A2A3 branch of each PTO_*_SIZE_BYTES chain) where it has one; DEFAULT_CAPACITIES is the
documented A2/A3 table otherwise (pto-isa's perf_sim/config.hpp and TMrgSort.hpp say
the same: UB 192 KiB, L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pto_tui.core.cycles.query import DTYPE_SIZES, Family, Query, ceil_align, matmul_align

UB_ALIGN_BYTES = 32
# The macros of buffer_limits.hpp, by the buffer's name as the A2/A3 guides write it.
MACROS: dict[str, str] = {
    "UB": "PTO_UBUF_SIZE_BYTES",
    "L1": "PTO_CBUF_SIZE_BYTES",
    "L0A": "PTO_L0A_SIZE_BYTES",
    "L0B": "PTO_L0B_SIZE_BYTES",
    "L0C": "PTO_L0C_SIZE_BYTES",
}
LIMITS_FILE = "include/pto/common/buffer_limits.hpp"
CONSTANTS_FILE = "include/pto/common/constants.hpp"
ACC_BYTES = 4  # the accumulator tile's type is the output dtype; fp32/int32 on A2/A3


@dataclass(frozen=True)
class Capacities:
    """Bytes per buffer and where the numbers came from (a file, or the table)."""

    sizes: dict[str, int]
    source: str
    repeat_max: int = 255  # REPEAT_MAX of pto/common/constants.hpp

    def size(self, buffer: str) -> int:
        return self.sizes[buffer]


DEFAULT_CAPACITIES = Capacities(
    {"UB": 192 * 1024, "L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024,
     "L0C": 128 * 1024},
    "A2/A3 table (pto-tui)",
)


@dataclass(frozen=True)
class Overflow:
    """A query that does not fit: which buffer, how many bytes it needs, how many there are."""

    buffer: str
    needed: int
    capacity: int
    detail: str

    @property
    def message(self) -> str:
        if self.buffer == REPEATS:
            return (f"outside the costmodel's range: {self.detail} need {self.needed} repeats "
                    f"of {REPEAT_BYTES} bytes in one instruction, more than REPEAT_MAX = "
                    f"{self.capacity} (the number would wrap around); split the tile")
        return (f"does not fit on chip: {self.detail} need {self.needed} bytes of {self.buffer}, "
                f"which holds {self.capacity} bytes ({_kib(self.needed)} > {_kib(self.capacity)})")


def _kib(n: int) -> str:
    return f"{n / 1024:.0f} KiB" if n % 1024 == 0 or n > 10240 else f"{n / 1024:.1f} KiB"


REPEATS = "repeats"
REPEAT_BYTES = 256
# The elementwise tile-tile instructions whose simulated cycles wrap once a tile needs
# more than REPEAT_MAX repeats (seen at pto-isa 66a4e168: TADD half 480x64 = 504 cycles,
# 512x64 = 44). Scalar, compare, convert and reduce forms keep growing and are not listed.
REPEAT_LIMITED = frozenset({"TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN"})


def parse_repeat_max(text: str) -> int | None:
    match = re.search(r"\bREPEAT_MAX\s*=\s*([0-9]+)", text)
    return int(match[1]) if match else None


_EXPR = re.compile(r"\(?\s*([0-9]+)u?\s*(?:\*\s*([0-9]+)u?\s*)?\)?")


def _value(text: str) -> int | None:
    match = _EXPR.fullmatch(text.strip())
    if not match:
        return None
    return int(match[1]) * (int(match[2]) if match[2] else 1)


def capacities_from(limits_text: str | None, constants_text: str | None) -> Capacities:
    """The checkout's capacities from its two headers' texts (None: the file is missing)."""
    caps = (parse_buffer_limits(limits_text, f"<pto-isa>/{LIMITS_FILE}")
            if limits_text is not None else DEFAULT_CAPACITIES)
    value = parse_repeat_max(constants_text) if constants_text is not None else None
    return Capacities(caps.sizes, caps.source, value) if value is not None else caps


def parse_buffer_limits(text: str, source: str, arch: str = "A2A3") -> Capacities:
    """The capacities of `arch` from buffer_limits.hpp; buffers it does not define keep
    the table's value (and the source says so)."""
    sizes = dict(DEFAULT_CAPACITIES.sizes)
    found: list[str] = []
    for buffer, macro in MACROS.items():
        value = _branch_value(text, macro, f"PTO_NPU_ARCH_{arch}")
        if value is not None:
            sizes[buffer] = value
            found.append(buffer)
    if not found:
        return DEFAULT_CAPACITIES
    missing = [b for b in MACROS if b not in found]
    note = f" (table for {', '.join(missing)})" if missing else ""
    return Capacities(sizes, source + note)


def _branch_value(text: str, macro: str, arch_macro: str) -> int | None:
    """The value `#define macro` takes in the #if/#elif branch naming arch_macro."""
    lines = text.splitlines()
    in_branch = False
    for line in lines:
        stripped = line.strip()
        if re.match(r"#\s*(el)?if\b", stripped):
            in_branch = arch_macro in stripped
        elif re.match(r"#\s*(else|endif)\b", stripped):
            in_branch = False
        elif in_branch:
            match = re.match(rf"#\s*define\s+{macro}\s+(.+)$", stripped)
            if match:
                return _value(match[1])
    return None


def _vector_tiles(q: Query) -> list[tuple[str, int]]:
    """(name, bytes) of every tile the probe program of a vector query puts in UB."""
    r, c = q.rows, q.cols
    dt = q.dtypes[0]
    size = DTYPE_SIZES[dt]
    tile = r * c * size
    if q.family is Family.CVT:
        dst, src = q.dtypes
        return [("src", r * c * DTYPE_SIZES[src]), ("dst", r * c * DTYPE_SIZES[dst])]
    if q.family is Family.UNARY or (q.instr.endswith("S") and q.instr != "TSELS"):
        return [("src", tile), ("dst", tile)]
    if q.family is Family.ROW_REDUCE:
        return [("src", tile), ("tmp", tile), ("dst", r * UB_ALIGN_BYTES)]  # r x 1, row-aligned
    if q.family is Family.COL_REDUCE:
        tiles = [("src", tile), ("dst", c * size)]
        return tiles + ([("tmp", max(r // 2, 1) * c * size)] if q.instr == "TCOLSUM" else [])
    mask = r * ceil_align(max(c // 8, 1), 32)
    if q.instr == "TCMP":
        return [("src0", tile), ("src1", tile), ("dst", mask)]
    if q.instr == "TSEL":
        return [("src0", tile), ("src1", tile), ("dst", tile), ("mask", mask)]
    if q.instr == "TSELS":
        return [("src", tile), ("dst", tile), ("mask", mask)]
    return [("src0", tile), ("src1", tile), ("dst", tile)]


def matmul_bytes(q: Query) -> dict[str, int]:
    """Bytes of A (L0A), B (L0B) and the accumulator (L0C), padded as the cube needs."""
    a, b, _ = q.dtypes
    align = matmul_align(a)
    m, k, n = (ceil_align(x, align) for x in (q.m, q.k, q.n))
    return {"L0A": m * k * DTYPE_SIZES[a], "L0B": k * n * DTYPE_SIZES[b], "L0C": m * n * ACC_BYTES}


def check_fit(q: Query, caps: Capacities = DEFAULT_CAPACITIES) -> Overflow | None:
    """The first buffer the query's operands overflow, or None when they fit."""
    if q.is_matmul:
        need = matmul_bytes(q)
        names = {"L0A": "A", "L0B": "B", "L0C": "the accumulator"}
        for buffer in ("L0A", "L0B", "L0C"):
            if need[buffer] > caps.size(buffer):
                return Overflow(buffer, need[buffer], caps.size(buffer),
                                f"{names[buffer]} ({q.shape}, padded)")
        staged = need["L0A"] + need["L0B"]
        if staged > caps.size("L1"):
            return Overflow("L1", staged, caps.size("L1"), "A and B together")
        return None
    tiles = [(name, ceil_align(n, UB_ALIGN_BYTES)) for name, n in _vector_tiles(q)]
    total = sum(n for _, n in tiles)
    if total > caps.size("UB"):
        listed = " + ".join(f"{name} {n}" for name, n in tiles)
        return Overflow("UB", total, caps.size("UB"), f"its tiles ({listed})")
    if q.family is Family.UNARY or q.instr in REPEAT_LIMITED:
        repeats = -(-max(n for _, n in tiles) // REPEAT_BYTES)
        if repeats > caps.repeat_max:
            return Overflow(REPEATS, repeats, caps.repeat_max, f"its {q.shape} tiles")
    return None
