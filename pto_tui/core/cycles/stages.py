"""Matmul stages read from tile knobs: `<STAGE>_BASE_M`, `_BASE_N`, `_BASE_K` name the
base tile of one matmul stage (pto-kernels' PTO-DSL attention has a QK and a PV stage,
each a separate kernel). Pure: knob names and source texts in, plans out.

A stage computes an M x N output tile by a loop over K in BASE_K steps, one TMATMUL of
BASE_M x BASE_K x BASE_N each; the loop's length does not depend on the base tile's M
and N, so the cycles of one TMATMUL per multiply-accumulate rank the base tiles the
same way as the whole stage's cycles would. That is the workflow's hypothesis "a bigger
TMATMUL tile costs fewer cycles per FLOP", with the on-chip capacity checks applied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pto_tui.core.cycles.guidance import DTYPES
from pto_tui.core.cycles.plan import Plan, Step

_BASE = re.compile(r"^(\w+?)_BASE_([MNK])$")
_MATMUL_CALL = re.compile(r"\b(?:tile\.matmul(?:_acc)?|TMATMUL)\s*[(<]")


def stage_knobs(names: Sequence[str]) -> dict[str, dict[str, str]]:
    """stage prefix -> {"M": knob, "N": knob, "K": knob} for prefixes with all three."""
    found: dict[str, dict[str, str]] = {}
    for name in names:
        match = _BASE.match(name)
        if match:
            found.setdefault(match[1], {})[match[2]] = name
    return {prefix: dims for prefix, dims in found.items() if set(dims) == {"M", "N", "K"}}


def matmul_stage_plans(sources: Mapping[str, str], names: Sequence[str], dtype: str) -> list[Plan]:
    """One plan per matmul stage whose three base-tile knobs are tunables, if a source
    calls a matmul; none otherwise."""
    files = [rel for rel, text in sorted(sources.items()) if _MATMUL_CALL.search(text)]
    if not files:
        return []
    dt = DTYPES.get(dtype.lower(), "half")
    plans = []
    for prefix, dims in sorted(stage_knobs(names).items()):
        m, n, k = (f"{{{dims[d]}}}" for d in "MNK")
        where = (f"derived from {', '.join(files[:3])}: matmul stage {prefix} "
                 f"({dims['M']} x {dims['K']} x {dims['N']} base tile, looped over K); "
                 "ranked per multiply-accumulate")
        step = Step(f"TMATMUL {dt} {dt} float --m {m} --k {k} --n {n}")
        plans.append(Plan((step,), f"{m}*{k}*{n}", where, (dims["M"], dims["N"], dims["K"])))
    return plans
