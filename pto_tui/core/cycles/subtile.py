"""An attention kernel that runs its step in sub-tiles, read from its source. Pure.

The pto-isa flash attention (kernels/manual/common/flash_atten) steps over TILE_S1 keys
but runs its matmuls in CUBE_S1-column chunks (`kTileFactor = Tile_S1 / Cube_S1`) and
its softmax in row slices of `Cube_S0 / VEC_CORES / kTileFactor` rows by TILE_S1, one
slice after the other on each vector core. Costed as one matmul and one softmax on the
whole CUBE_S0 x TILE_S1 tile, its current tile overflows UB and is refused; costed as
the kernel runs it, it fits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pto_tui.core.cycles.plan import Step

CHUNK_NAMES = ("CUBE_S1", "CUBE_N", "CUBE_KV")
VECTOR_CORES = "VEC_CORES"
CPP_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")


def _cpu_sim_branch(text: str, pos: int) -> bool:
    """Whether `pos` sits in an `#ifdef __CPU_SIM` branch (its value is the simulator's)."""
    branch = re.findall(r"^\s*#\s*(if\w*.*|else|elif.*|endif)", text[:pos], re.MULTILINE)
    return bool(branch) and branch[-1].startswith("if") and "CPU_SIM" in branch[-1]


def _constant(sources: Mapping[str, str], name: str) -> tuple[int, str] | None:
    """The value the C++ sources give `name` (`constexpr int kFaCubeS1 = 128;`), with
    where: the first one outside a CPU-simulator branch (scripts and cost sketches
    beside the kernel are not what it compiles)."""
    key = name.replace("_", "_?")
    pattern = re.compile(rf"\b\w*{key}\w*\s*=\s*([0-9]+)\b", re.IGNORECASE)
    for rel, text in sorted(sources.items()):
        if not rel.endswith(CPP_SUFFIXES):
            continue
        for match in pattern.finditer(text):
            if int(match[1]) > 0 and not _cpu_sim_branch(text, match.start()):
                return int(match[1]), f"{rel}:{text.count(chr(10), 0, match.start()) + 1}"
    return None


def sub_tiling(sources: Mapping[str, str], rows: str, cols: str, head: str, dt: str,
               names: Sequence[str]) -> tuple[tuple[Step, ...], dict[str, int], str] | None:
    """The sub-tiled steps when a source divides the `cols` tile by a chunk knob."""
    chunk = next((c for c in CHUNK_NAMES if any(
        re.search(rf"\b{cols}\s*/\s*{c}\b", t, re.IGNORECASE) for t in sources.values())), None)
    if chunk is None:
        return None
    constants: dict[str, int] = {}
    notes: list[str] = []
    if chunk not in names:
        found = _constant(sources, chunk)
        if found is None:
            return None
        constants[chunk] = found[0]
        notes.append(f"{chunk}={found[0]} from {found[1]}")
    factor = f"{{{cols}}}/{{{chunk}}}"
    vec_rows = f"{rows}*{chunk}/{cols}"  # the rows of one slice: rows / kTileFactor
    split = any(re.search(rf"\b{rows}\s*/\s*{VECTOR_CORES}\b", t, re.IGNORECASE)
                for t in sources.values())
    cores = _constant(sources, VECTOR_CORES) if split else None
    if cores is not None:  # each vector core takes its share of the rows, in parallel
        constants[VECTOR_CORES] = cores[0]
        vec_rows += f"/{VECTOR_CORES}"
        notes.append(f"{VECTOR_CORES}={cores[0]} from {cores[1]}")
    r, c, d, k = (f"{{{n}}}" for n in (rows, cols, head, chunk))
    templates = (
        f"TMATMUL {dt} {dt} float --m {r} --k {d} --n {k}",  # S = Q K^T, one chunk
        f"TROWMAX float -r {{{vec_rows}}} -c {c}",
        f"TEXP float -r {{{vec_rows}}} -c {c}",
        f"TROWSUM float -r {{{vec_rows}}} -c {c}",
        f"TMATMUL {dt} {dt} float --m {r} --k {k} --n {d}",  # O += P V, one chunk
    )
    note = (f"sub-tiled: matmuls in {chunk} chunks, softmax in row slices, "
            f"{cols}/{chunk} of each per step" + (f" ({', '.join(notes)})" if notes else ""))
    return tuple(Step(t, factor) for t in templates), constants, note
