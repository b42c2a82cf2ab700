"""The generated formula headers a pto-isa checkout needs before it compiles in costmodel mode.

Which generators run: those in a `formula_costmodel` folder, `include/pto/costmodel/<arch>/
formula_costmodel/gen_*_header.py` (a2a3 always, a5 since May 2026). Their headers
(`formula_params_generated.hpp` beside them) are the only generated files the costmodel
compile includes: `lightweight_costmodel.hpp` reaches every architecture's formula backend.
pto-isa's own runner generates exactly these (`maybe_generate_formula_params` in
tests/run_costmodel.py). Any other generator in the tree is not an input of a query and
neither runs nor enters the overlay's name: a5/VfSim's `gen_vfsim_params_header.py` feeds
the VF simulator library that pto-isa builds only for its A5 VF mock (cmake/a5_vf_mock.cmake),
and no header of the costmodel compile includes its output.

What a generator reads: every file of its folder, sub-folders included (VfSim-like
generators read `params/*.csv`), except headers (which it writes, or which the compile reads
from the checkout itself) and Python byte-code. That folder is copied to a staging directory
at the same relative path and the generator runs there, so the checkout stays untouched
(its git status, and so its version stamp, stays clean).

The staging directory becomes the overlay, in pto-tui's cache, named by a hash of every
input of every generator that runs. The overlay's include/ comes first on the include
path, so a header left in the checkout from another commit's CSV is never used, and
changing any input (a sub-folder's CSV too) gives a new overlay on the next query.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.operators.pto_isa_tree import COSTMODEL_DIR as TREE_COSTMODEL_DIR
from pto_tui.core.operators.pto_isa_tree import GENERATOR_GLOB
from pto_tui.core.paths import app_home
from pto_tui.costmodel.toolchain import CostmodelError, ProcessResult, run_process

COSTMODEL_DIR = Path(TREE_COSTMODEL_DIR)
GENERATOR_TIMEOUT = 300.0
HEADER_SUFFIXES = (".hpp", ".h")
NOT_INPUTS = (*HEADER_SUFFIXES, ".pyc")


@dataclass(frozen=True)
class FormulaHeaders:
    """The overlay holding a checkout's generated headers (include_dir goes first on -I)."""

    include_dir: Path | None  # None when the checkout ships no generator
    generators: tuple[str, ...]  # paths relative to the checkout
    generated: bool  # True if this call ran the generators (not reused)


def find_generators(root: Path) -> list[Path]:
    """The generators a costmodel query needs (see the module's docstring), relative to
    the root, sorted."""
    base = root / COSTMODEL_DIR
    if not base.is_dir():
        return []
    return sorted(p.relative_to(root) for p in base.glob(GENERATOR_GLOB) if p.is_file())


def generator_inputs(root: Path, generator: Path) -> list[Path]:
    """What a generator reads: every file of its folder and its sub-folders, except
    headers and byte-code."""
    folder = (root / generator).parent
    return sorted(p.relative_to(root) for p in folder.rglob("*")
                  if p.is_file() and p.suffix not in NOT_INPUTS
                  and "__pycache__" not in p.relative_to(folder).parts)


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
    """Run the generators a query needs into the overlay for their current inputs,
    unless that overlay already exists. Raises CostmodelError naming the failing one."""
    generators = find_generators(root)
    if not generators:
        return FormulaHeaders(None, (), False)
    names = tuple(str(g) for g in generators)
    digest = inputs_digest(root, generators)
    overlay = (home or overlay_home()) / digest
    if (overlay / "include").is_dir():
        return FormulaHeaders(overlay / "include", names, False)
    overlay.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=overlay.parent))
    try:
        for generator in generators:
            await _run_generator(root, generator, staging, python or sys.executable,
                                 overlay.parent / f"failed-{digest}.log")
        try:
            os.rename(staging, overlay)
        except OSError:
            if not (overlay / "include").is_dir():
                raise
            # Another process generated the same inputs meanwhile: use theirs.
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return FormulaHeaders(overlay / "include", names, True)


async def _run_generator(root: Path, generator: Path, staging: Path, python: str,
                         log: Path) -> None:
    for rel in generator_inputs(root, generator):
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    folder = staging / generator.parent
    before = set(_headers(folder))
    result = await run_process([python, generator.name], cwd=folder, timeout=GENERATOR_TIMEOUT)
    if result.returncode == 0 and set(_headers(folder)) - before:
        return
    if result.timed_out:
        why = f"timed out after {GENERATOR_TIMEOUT:.0f} s"
    elif result.returncode:
        why = f"exit code {result.returncode}"
    else:
        why = "wrote no header"
    # Paths inside the staging copy read as the same paths in the checkout.
    last = last_output_line(result).replace(f"{staging}{os.sep}", "")
    atomic_write_text(log, f"$ cd {folder} && {python} {generator.name}\n"
                           f"# {why}\n{result.stdout}{result.stderr}")
    raise CostmodelError(
        f"pto-isa's formula generator {generator} failed ({why}): {last}",
        hint=f"pto-tui ran it as `{python} {generator.name}` in a copy of "
             f"{generator.parent}/ and its sub-folders (the checkout stays untouched); "
             f"its whole output is in {log}")


def last_output_line(result: ProcessResult) -> str:
    """The last non-empty line the process printed (stderr first: a traceback's last
    line is its error)."""
    for text in (result.stderr, result.stdout):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if lines:
            return lines[-1][:400]
    return "(no output)"


def _headers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in HEADER_SUFFIXES]
