"""C++ source of costmodel query programs: one function per query, one main for all.

The tiles and calls follow the costmodel guide's templates (docs/formats.md §4) with
its corrections: TCOLMAX/TCOLMIN take (dst, src), TCOLSUM (dst, src, tmp, false),
row reduces (dst, src, tmp), TSELS gets real buffers because it touches memory.
TSEL/TSELS/TCMP use the signatures of pto-isa's costmodel ST tests (mask tiles
of uint8, a 1x32 uint8 tmp tile).

main() runs the queries from the index given as argv[1] (default 0), printing
one `[CYCLE] <label> actual=<n>` line each and flushing it, so a query that
crashes the program is found from the output and the rest can be resumed
without recompiling.
"""

from __future__ import annotations

from collections.abc import Sequence

from pto_tui.core.cycles.query import DTYPE_SIZES, Family, Query, ceil_align, matmul_align

CPP_TYPES: dict[str, str] = {
    "float": "float", "half": "half", "bf16": "bfloat16_t", "int32": "int32_t",
    "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
}
HEADERS = (
    "#include <pto/pto-inst.hpp>\n"
    "#include <pto/common/constants.hpp>\n"
    "#include <pto/costmodel/trace.hpp>\n"
    "#include <cstdint>\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
)
# The guide's addresses for small tiles (src 0x0, src1 0x4000, dst 0x8000); larger
# tiles are spaced by their own size so none overlap.
MIN_TILE_STRIDE = 0x4000


def _vec(name: str, dtype: str, rows: int, cols: int, valid: tuple[int, int] | None = None) -> str:
    vr, vc = valid or (rows, cols)
    return (f"    using {name}T = Tile<TileType::Vec, {CPP_TYPES[dtype]}, {rows}, {cols}, "
            f"BLayout::RowMajor, -1, -1>;\n"
            f"    {name}T {name}({vr}, {vc});\n")


def _assign(names: Sequence[str], stride: int, first_slot: int = 0) -> str:
    return "".join(f"    TASSIGN({n}, 0x{(first_slot + i) * stride:x});\n"
                   for i, n in enumerate(names))


def _stride(*tile_bytes: int) -> int:
    return max(MIN_TILE_STRIDE, ceil_align(max(tile_bytes), 0x1000))


def _mask_cols(cols: int) -> int:
    return ceil_align(max(cols // 8, 1), 32)


def _body(q: Query) -> str:
    """Tile set-up and the instruction call of one query (inside a function)."""
    fam = q.family
    r, c = q.rows, q.cols
    if fam is Family.MATMUL:
        a, b, out = q.dtypes
        align = matmul_align(a)
        m, k, n = (ceil_align(x, align) for x in (q.m, q.k, q.n))  # padded as the guide does
        return (
            f"    using LeftTile = TileLeft<{CPP_TYPES[a]}, {m}, {k}, {q.m}, {q.k}>;\n"
            f"    using RightTile = TileRight<{CPP_TYPES[b]}, {k}, {n}, {q.k}, {q.n}>;\n"
            f"    using AccTile = TileAcc<{CPP_TYPES[out]}, {m}, {n}, {q.m}, {q.n}>;\n"
            "    LeftTile aTile;\n    RightTile bTile;\n    AccTile cTile;\n"
            "    TASSIGN(aTile, 0x0);\n    TASSIGN(bTile, 0x10000);\n    TASSIGN(cTile, 0x20000);\n"
            "    TMATMUL(cTile, aTile, bTile);\n"
        )
    dt = q.dtypes[0]
    size = r * c * DTYPE_SIZES[dt]
    if fam is Family.UNARY:
        s = _stride(size)
        return (_vec("src", dt, r, c) + _vec("dst", dt, r, c)
                + _assign(["src"], s) + _assign(["dst"], s, 2)
                + f"    {q.instr}(dst, src);\n")
    if fam is Family.CVT:
        dst_t, src_t = q.dtypes
        s = _stride(r * c * DTYPE_SIZES[dst_t], r * c * DTYPE_SIZES[src_t])
        return (_vec("src", src_t, r, c) + _vec("dst", dst_t, r, c)
                + _assign(["src"], s) + _assign(["dst"], s, 2)
                + "    TCVT(dst, src, RoundMode::CAST_NONE);\n")
    if fam is Family.ROW_REDUCE:
        s = _stride(size)
        return (_vec("src", dt, r, c) + _vec("tmp", dt, r, c) + _vec("dst", dt, r, c)
                + _assign(["src", "tmp", "dst"], s)
                + f"    {q.instr}(dst, src, tmp);\n")
    if fam is Family.COL_REDUCE:
        s = _stride(size)
        text = _vec("src", dt, r, c) + _vec("dst", dt, 1, c)
        if q.instr == "TCOLSUM":
            text += _vec("tmp", dt, max(r // 2, 1), c)
            return (text + _assign(["src", "tmp", "dst"], s)
                    + "    TCOLSUM(dst, src, tmp, false);\n")
        return text + _assign(["src", "dst"], s) + f"    {q.instr}(dst, src);\n"
    return _binary(q, dt, r, c, size)


def _binary(q: Query, dt: str, r: int, c: int, size: int) -> str:
    s = _stride(size)
    if q.instr == "TCMP":
        # The packed predicate: uint8 tile, valid width cols/8 (pto-isa ST tests).
        return (_vec("src0", dt, r, c) + _vec("src1", dt, r, c)
                + _vec("dst", "uint8", r, c, (r, max(c // 8, 1)))
                + _assign(["src0", "src1", "dst"], s)
                + "    TCMP(dst, src0, src1, CmpMode::GT);\n")
    mc = _mask_cols(c)
    if q.instr == "TSEL":
        return (_vec("src0", dt, r, c) + _vec("src1", dt, r, c) + _vec("dst", dt, r, c)
                + _vec("mask", "uint8", r, mc) + _vec("tmp", "uint8", 1, 32)
                + _assign(["src0", "src1", "dst", "mask", "tmp"], s)
                + "    TSEL(dst, mask, src0, src1, tmp);\n")
    if q.instr == "TSELS":
        # TSELS touches memory: its tiles need real host buffers.
        tiles = (("dst", dt, r, c), ("mask", "uint8", r, mc), ("src", dt, r, c),
                 ("tmp", "uint8", 1, 32))
        text = "".join(_vec(n, t, rr, cc) for n, t, rr, cc in tiles)
        for n, t, rr, cc in tiles:
            text += (f"    alignas(64) static std::uint8_t {n}Buf[{rr * cc * DTYPE_SIZES[t]}];\n"
                     f"    TASSIGN({n}, reinterpret_cast<std::uintptr_t>({n}Buf));\n")
        return text + f"    TSELS(dst, mask, src, tmp, static_cast<{CPP_TYPES[dt]}>(1));\n"
    if q.instr.endswith("S"):  # TADDS, TMULS, ...: tile op scalar
        return (_vec("src", dt, r, c) + _vec("dst", dt, r, c)
                + _assign(["src"], s) + _assign(["dst"], s, 2)
                + f"    {q.instr}(dst, src, static_cast<{CPP_TYPES[dt]}>(1));\n")
    return (_vec("src0", dt, r, c) + _vec("src1", dt, r, c) + _vec("dst", dt, r, c)
            + _assign(["src0", "src1", "dst"], s)
            + f"    {q.instr}(dst, src0, src1);\n")


def render_function(index: int, query: Query) -> str:
    return (
        f"// query {index}: {query.key}\n"
        f"void q{index}() {{\n"
        "    ResetTrace();\n"
        f"{_body(query)}"
        "    const uint64_t cycles = GetLastPtoInstrCycles();\n"
        f'    std::printf("[CYCLE] {query.label} actual=%llu\\n", (unsigned long long)cycles);\n'
        "    std::fflush(stdout);\n"
        "}\n"
    )


def render_program(queries: Sequence[Query]) -> tuple[str, list[tuple[int, int]]]:
    """The program's source and, per query, the (first, last) source lines of its function.

    The line ranges let a compile error be traced back to the query it came from.
    """
    parts = [f"// Generated by pto-tui: {len(queries)} costmodel queries.\n", HEADERS,
             "using namespace pto;\nusing namespace pto::mocker;\n\nnamespace {\n\n"]
    line = sum(p.count("\n") for p in parts) + 1
    spans: list[tuple[int, int]] = []
    for i, query in enumerate(queries):
        text = render_function(i, query) + "\n"
        n_lines = text.count("\n")
        spans.append((line, line + n_lines - 1))
        parts.append(text)
        line += n_lines
    table = ", ".join(f"q{i}" for i in range(len(queries)))
    parts.append(
        "}  // namespace\n\n"
        f"static void (*const kQueries[])() = {{{table}}};\n\n"
        "int main(int argc, char **argv) {\n"
        "    const int first = argc > 1 ? std::atoi(argv[1]) : 0;\n"
        f"    for (int i = first; i < {len(queries)}; ++i) kQueries[i]();\n"
        "    return 0;\n"
        "}\n"
    )
    return "".join(parts), spans
