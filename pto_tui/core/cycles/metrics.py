"""Costmodel metrics of a query: FLOPs, ideal cycles at the cube peak, the TMATMUL formula. Pure."""

from __future__ import annotations

from pto_tui.core.cycles.query import Query

# Cube throughput on A2/A3 in multiply-accumulates per cycle, by A's dtype. Derived
# from observed costmodel numbers: fp16 follows ceil(M/16)*ceil(K/16)*ceil(N/16)+6
# (docs/formats.md §4); fp32 and int8 follow the same shape with K blocks of 8 (two
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
