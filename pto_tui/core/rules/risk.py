"""High-risk change detection from a round's diff and parameter changes (docs/workflow.md §11.4).

Each finding is a short sentence; a round with findings needs a written justification
before its numbers are recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from pto_tui.core.project.config import Scalar
from pto_tui.core.rules.reasons import reason_findings
from pto_tui.core.rules.rule import Finding, Rule

HIGH_RISK = Rule(
    "high-risk-justification",
    refuses="measurements of a high-risk change (a barrier or sync removed, a FIFO size "
    "changed, instructions reordered, a bigger tile) without a justification that says "
    "something; `round changes` warns at once",
    fix="justify the high-risk change in writing",
    steps=("measure", "run"),
    cli="`round changes --justify REASON`",
    mcp="`round_changes` justify",
    tui="the Round pane's justification field, then Record changes",
)

_TILE_NAME = re.compile(r"(TILE|BASE_[MNK]|CUBE_S|BLOCK_[MNK]|_M\d?$|_N\d?$|_K\d?$)", re.I)
_FIFO_NAME = re.compile(r"FIFO", re.I)
_SYNC = re.compile(
    r"\b(pipe_barrier|PipeBarrier|set_flag|wait_flag|SetFlag|WaitFlag|sync_all|"
    r"SyncAll|TSYNC|barrier)\b"
)
_INSTRUCTION = re.compile(r"\b(T[A-Z][A-Z0-9]+)\s*\(")
_FIFO_CODE = re.compile(r"\b\w*[Ff]ifo\w*\s*=\s*\d+")


def _number(value: Scalar | None) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(value)
    except ValueError:
        return None


def parameter_risks(changes: Iterable[tuple[str, Scalar | None, Scalar]],
                    tile_dimensions: Iterable[str] = ()) -> list[str]:
    """FIFO sizes changed, tiles made bigger. A tile knob is one the kernel sizes or steps
    through its tiles with (`tile_dimensions`, from `tile_knobs`), or one named as a tile
    dimension where the source cannot tell (a constant passed on through template
    defaults)."""
    tiles = set(tile_dimensions)
    found = []
    for name, old, new in changes:
        if _FIFO_NAME.search(name):
            found.append(f"FIFO size change {name} {old}->{new} may change the kernel's semantics")
            continue
        before, after = _number(old), _number(new)
        is_tile = name in tiles or _TILE_NAME.search(name) is not None
        if is_tile and before is not None and after is not None and after > before:
            found.append(f"bigger tile {name} {old}->{new} risks UB overflow or a compile failure")
    return found


# how a kernel binds a name to a knob's value: `BLOCK = tuned_int("ENV_NAME", ...)`, a
# parameter default or an assignment `block_q: int = BLOCK`, a C++ `constexpr int X = BLOCK;`
_TUNED = r"(\w+)\s*=\s*tuned_int\(\s*[\"']{name}[\"']"
_ALIAS = r"(\w+)\s*(?::\s*[\w.\[\]]+\s*)?=\s*{name}\b(?!\s*\()"
# how a kernel sizes or steps through a tile with a name N (Python and C++):
_TILE_USES = (
    r"\[[^\]\n]*:\s*[\w.]+\s*\+\s*{n}\b",  # a slice's extent: x[q0 : q0 + N]
    r"\brange\([^()\n]*,[^()\n]*,\s*{n}\s*\)",  # a loop's step: range(0, seq, N)
    r"\+=\s*{n}\b",  # a C++ loop's step: i += N
    r"\b\w*Tile\w*\s*<[^;{{}}>]*\b{n}\b",  # a tile type's extent: Tile<..., N, ...>
    # a PTO-DSL tile or view type's shape: pto.TileBufType(shape=[N, K], ...)
    r"\b\w*(?:Tile|Tensor)\w*\(\s*shape\s*=\s*\[[^\]\n]*\b{n}\b",
    r"\b(?:zeros|empty|ones|full)\(\s*\(?[^()\n]*\b{n}\b",  # an array shaped by N
    r"std::(?:vector|array)<[^>]*>\s+\w+\s*[({{][^;]*\b{n}\b",  # a buffer sized by N
)


def tile_knobs(sources: Mapping[str, str], knobs: Iterable[str]) -> set[str]:
    """The knobs the kernel's tiles use: those whose value (the knob itself, or a name the
    source binds to it) sizes a tile or steps through tiles in the kernel's source files
    (path -> text). By use, whatever the knob is called."""
    texts = list(sources.values())
    found = set()
    for knob in knobs:
        names = _bound_names(texts, knob)
        if any(re.search(use.format(n=re.escape(name)), text)
               for name in names for use in _TILE_USES for text in texts):
            found.add(knob)
    return found


def _bound_names(texts: Sequence[str], knob: str) -> set[str]:
    """The knob's name and the names bound to its value (two steps: the module constant
    a tuned_int reads it into, then a parameter defaulting to that)."""
    names = {knob}
    for text in texts:
        names.update(re.findall(_TUNED.format(name=re.escape(knob)), text))
    for _step in range(2):
        for name in list(names):
            for text in texts:
                names.update(re.findall(_ALIAS.format(name=re.escape(name)), text))
    return names


def diff_risks(diff_text: str) -> list[str]:
    """Removed barriers/sync, FIFO constants edited, instructions reordered."""
    removed: list[str] = []
    added: list[str] = []
    for line in diff_text.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:].strip())
        elif line.startswith("+"):
            added.append(line[1:].strip())
    found = []
    removed_sync = [r for r in removed if _SYNC.search(r)]
    kept_sync = {a for a in added if _SYNC.search(a)}
    dropped = [r for r in removed_sync if r not in kept_sync]
    if dropped:
        found.append(f"barrier/sync removed without a dependency proof: {dropped[0]}")
    if any(_FIFO_CODE.search(a) for a in added) and any(_FIFO_CODE.search(r) for r in removed):
        found.append("FIFO size constant changed: may change the kernel's semantics")
    moved = [r for r in removed if _INSTRUCTION.search(r) and r in added]
    if moved:
        found.append(f"instructions reordered (numerics may change): {moved[0]}")
    return found


def risk_findings(high_risk: Sequence[str], justification: str) -> list[Finding]:
    """A high-risk change is measured only with a written justification."""
    if not high_risk:
        return []
    what = "high-risk change: " + "; ".join(high_risk)
    if justification.strip():
        return reason_findings(HIGH_RISK, f"{what} — its justification", justification)
    return [HIGH_RISK.finding_with_fix(f"{what} — write a justification")]
