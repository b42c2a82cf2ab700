"""The generated formula headers a pto-isa checkout needs before it compiles in costmodel mode.

pto-isa ships one generator per architecture (`include/pto/costmodel/<arch>/
formula_costmodel/gen_formula_params_header.py`: a2a3 always, a5 since May 2026), each
turning the CSV beside it into `formula_params_generated.hpp` beside it, and the
costmodel headers include every one of them. A fresh checkout has none.

The headers are generated into an overlay outside the checkout, in pto-tui's cache,
named by a hash of every generator's inputs (the script and the files beside it that
are not headers). The overlay's include/ comes first on the include path, so a header
left in the checkout from another commit's CSV is never used, the checkout stays
untouched (its git status, and so its version stamp, stays clean), and changing a CSV
gives a new overlay on the next query.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.paths import app_home
from pto_tui.costmodel.toolchain import CostmodelError, run_process

COSTMODEL_DIR = Path("include/pto/costmodel")
GENERATOR_GLOB = "gen_*_header.py"
GENERATOR_TIMEOUT = 300.0


@dataclass(frozen=True)
class FormulaHeaders:
    """The overlay holding a checkout's generated headers (include_dir goes first on -I)."""

    include_dir: Path | None  # None when the checkout ships no generator
    generators: tuple[str, ...]  # paths relative to the checkout
    generated: bool  # True if this call ran the generators (not reused)


def find_generators(root: Path) -> list[Path]:
    """Every formula generator the checkout ships, relative to its root, sorted."""
    base = root / COSTMODEL_DIR
    if not base.is_dir():
        return []
    return sorted(p.relative_to(root) for p in base.rglob(GENERATOR_GLOB) if p.is_file())


def generator_inputs(root: Path, generator: Path) -> list[Path]:
    """What a generator reads: itself and the non-header files beside it."""
    folder = (root / generator).parent
    return sorted(p.relative_to(root) for p in folder.iterdir()
                  if p.is_file() and p.suffix not in (".hpp", ".h", ".pyc"))


def inputs_digest(root: Path, generators: list[Path]) -> str:
    digest = hashlib.sha256()
    for generator in generators:
        for rel in generator_inputs(root, generator):
            digest.update(str(rel).encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def overlay_home() -> Path:
    return app_home() / "cache" / "formula-headers"


async def ensure_formula_headers(root: Path, python: str | None = None,
                                 home: Path | None = None) -> FormulaHeaders:
    """Run every generator of the checkout into the overlay for their current inputs,
    unless that overlay already exists. Raises CostmodelError naming the failing one."""
    generators = find_generators(root)
    if not generators:
        return FormulaHeaders(None, (), False)
    names = tuple(str(g) for g in generators)
    overlay = (home or overlay_home()) / inputs_digest(root, generators)
    if (overlay / "include").is_dir():
        return FormulaHeaders(overlay / "include", names, False)
    overlay.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=overlay.parent))
    try:
        for generator in generators:
            await _run_generator(root, generator, staging, python)
        try:
            os.rename(staging, overlay)
        except OSError:
            if not (overlay / "include").is_dir():
                raise
            # Another process generated the same inputs meanwhile: use theirs.
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return FormulaHeaders(overlay / "include", names, True)


async def _run_generator(root: Path, generator: Path, staging: Path, python: str | None) -> None:
    for rel in generator_inputs(root, generator):
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    before = set(_headers(staging / generator.parent))
    result = await run_process([python or sys.executable, generator.name],
                               cwd=staging / generator.parent, timeout=GENERATOR_TIMEOUT)
    made = set(_headers(staging / generator.parent)) - before
    if result.returncode != 0 or not made:
        text = (result.stderr or result.stdout).strip()[-1500:]
        why = f"exit code {result.returncode}" if result.returncode else "wrote no header"
        raise CostmodelError(f"{generator} failed in {root} ({why}):\n{text}",
                             hint="run it by hand in its folder to see why")


def _headers(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.suffix in (".hpp", ".h")]
