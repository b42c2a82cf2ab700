"""The things the built-in engine needs around the compiler: processes, versions, flags.

- run_process: an asyncio subprocess with a timeout, returning (rc, stdout, stderr);
- compiler_version / compile_flags: what goes into the version stamp;
- pto_isa_version: the checkout's git commit, else a content hash of include/;
(the generation step a fresh pto-isa checkout needs is in formula.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import InputError, PtoError

# docs/formats.md §4. -include stdint.h/stddef.h: libstdc++ does not pull them in for the
# pto-isa headers. The -Wno-* flags are clang's; g++ keeps only those it knows.
BASE_FLAGS: tuple[str, ...] = (
    "-std=c++23", "-include", "stdint.h", "-include", "stddef.h",
    "-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-DPTO_COMM_NOT_SUPPORTED",
)
CLANG_WARNING_FLAGS: tuple[str, ...] = ("-Wno-macro-redefined", "-Wno-ignored-attributes")
GCC_WARNING_FLAGS: tuple[str, ...] = ("-Wno-ignored-attributes",)
DEFAULT_OPT = "-O2"


class CostmodelError(PtoError):
    """The costmodel could not run (compiler, checkout, tool): exit 1."""


@dataclass(frozen=True)
class ProcessResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False


async def run_process(argv: list[str], cwd: str | Path | None = None,
                      timeout: float | None = None) -> ProcessResult:
    """Run argv without a shell; a missing program is a CostmodelError."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=str(cwd) if cwd else None,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        raise CostmodelError(f"program not found: {argv[0]}") from None
    except PermissionError:
        raise CostmodelError(f"cannot execute: {argv[0]}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        return ProcessResult(-9, out.decode(errors="replace"), err.decode(errors="replace"), True)
    except asyncio.CancelledError:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    return ProcessResult(proc.returncode or 0, out.decode(errors="replace"),
                         err.decode(errors="replace"))


async def compiler_version(compiler: str) -> tuple[str, bool]:
    """(first line of `compiler --version`, is_clang)."""
    result = await run_process([compiler, "--version"], timeout=30)
    if result.returncode != 0:
        raise CostmodelError(f"{compiler} --version failed: {result.stderr.strip()[:300]}")
    first = result.stdout.strip().splitlines()[0] if result.stdout.strip() else compiler
    return first.strip(), "clang" in result.stdout.lower()


def compile_flags(pto_isa: Path, is_clang: bool, opt: str = DEFAULT_OPT,
                  extra: tuple[str, ...] = (), overlay: Path | None = None) -> list[str]:
    """`overlay` (the generated formula headers) comes before the checkout's include/."""
    warnings = CLANG_WARNING_FLAGS if is_clang else GCC_WARNING_FLAGS
    first = [f"-I{overlay}"] if overlay is not None else []
    return [*BASE_FLAGS[:1], opt, *BASE_FLAGS[1:], *first,
            f"-I{pto_isa / 'include'}", f"-I{pto_isa / 'include' / 'common'}",
            *warnings, *extra]


def stamp_flags(flags: list[str], pto_isa: Path, overlay: Path | None = None) -> str:
    """The flags as they enter the version stamp: without the checkout's own path or
    the overlay's, so moving a checkout does not invalidate its cache (the overlay is
    named by its inputs, which the checkout's version already covers)."""
    root = str(pto_isa)
    text = " ".join(f.replace(root, "<pto-isa>") for f in flags)
    return text.replace(str(overlay), "<generated>") if overlay is not None else text


def check_checkout(pto_isa: Path) -> Path:
    root = pto_isa.expanduser().resolve()
    if not (root / "include" / "pto" / "pto-inst.hpp").is_file():
        raise InputError(
            f"not a pto-isa checkout: {root} (no include/pto/pto-inst.hpp)",
            hint="pass --pto-isa PATH or set pto_isa in the [costmodel] section of project.toml",
        )
    return root


def include_tree_hash(root: Path) -> str:
    """sha256 over the paths and bytes of every file under include/ (sorted)."""
    digest = hashlib.sha256()
    include = root / "include"
    for path in sorted(p for p in include.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(include)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


async def pto_isa_version(root: Path) -> str:
    """'git:<commit>' for a clean checkout; with local changes to include/ (or no git),
    a content hash, because those edits change the numbers."""
    top = await _git(root, "rev-parse", "--show-toplevel")
    # Only the checkout's own repository counts, not one it happens to sit inside.
    head = await _git(root, "rev-parse", "HEAD") if top and Path(top).resolve() == root else None
    if head is not None:
        status = await _git(root, "status", "--porcelain", "--", "include")
        if status == "":
            return f"git:{head}"
        return f"git:{head}+sha256:{await asyncio.to_thread(include_tree_hash, root)}"
    return f"sha256:{await asyncio.to_thread(include_tree_hash, root)}"


def git_in(root: Path) -> Callable[..., Awaitable[str | None]]:
    """`git <args>` in this checkout: its stdout, or None when git fails."""

    async def git(*args: str) -> str | None:
        return await _git(root, *args)

    return git


async def _git(root: Path, *args: str) -> str | None:
    try:
        result = await run_process(["git", "-C", str(root), *args], timeout=30)
    except CostmodelError:
        return None  # no git on this machine
    if result.returncode != 0:
        return None
    return result.stdout.strip()


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)
