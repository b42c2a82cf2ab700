"""The external-tool engine: run a user's `query_pto_cycles.py`, one process per query.

The tool compiles one program per call, so this engine is as slow as the tool
(its cache still makes repeats instant). Commands go through an injectable async
runner so the job layer can run them on a target; the default runs locally.

A query that fails to compile is reported by the compiler's first `error:` line. When no
query of a run succeeds and that line lies in a pto-isa header with no template
instantiation leading there, the checkout's costmodel itself does not compile: the run
fails with one line saying so (compiled.py), naming the newest commit seen to compile.
"""

from __future__ import annotations

import asyncio
import hashlib
import posixpath
from collections.abc import Callable, Sequence

from pto_tui.core.cycles.capacity import (
    CONSTANTS_FILE,
    LIMITS_FILE,
    Capacities,
    capacities_from,
)
from pto_tui.core.cycles.cycle_lines import parse_cycle_lines
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import VersionStamp
from pto_tui.costmodel.compiled import (
    checkout_identity,
    clean_commit,
    does_not_compile,
    first_error_line,
    header_error,
    newest_compiled,
    record_compiled,
)
from pto_tui.costmodel.engine import Outcome, Runner, unique_queries
from pto_tui.costmodel.toolchain import CostmodelError, default_jobs, run_process

MAX_ERROR_LINES = 6


async def local_runner(argv: list[str], cwd: str | None) -> tuple[int, str, str]:
    result = await run_process(argv, cwd=cwd, timeout=900)
    if result.timed_out:
        return 124, result.stdout, result.stderr + "\n(timed out after 900 s)"
    return result.returncode, result.stdout, result.stderr


class ExternalEngine:
    """Runs `<python> <tool> <query args>` and reads its `[CYCLE]` line."""

    name = "external"

    def __init__(self, tool: str, *, python: str = "python3", runner: Runner | None = None,
                 cwd: str | None = None, jobs: int | None = None) -> None:
        self.tool = tool
        self.python = python
        self.runner: Runner = runner or local_runner
        # The tool is meant to run from the pto-isa root: <root>/tools/query_pto_cycles.py.
        self.cwd = cwd if cwd is not None else posixpath.dirname(posixpath.dirname(tool)) or None
        self.jobs = max(1, jobs or default_jobs())
        self._stamp: VersionStamp | None = None
        self._capacities: Capacities | None = None
        self._recorded = ""  # the commit this engine has recorded as compiling

    async def stamp(self) -> VersionStamp:
        """git commit of the checkout holding the tool, plus a hash of the tool itself."""
        if self._stamp is not None:
            return self._stamp
        tool_dir = posixpath.dirname(self.tool) or "."
        rc, out, err = await self.runner(["sha256sum", self.tool], None)
        if rc != 0:
            raise CostmodelError(f"cannot read the costmodel tool {self.tool}: "
                                 f"{(err or out).strip()[:300]}",
                                 hint="pass --tool PATH or set tool in [costmodel]")
        tool_hash = out.split()[0][:16] if out.split() else "unknown"
        rc, out, _ = await self.runner(["git", "-C", tool_dir, "rev-parse", "HEAD"], None)
        commit = out.strip() if rc == 0 and out.strip() else ""
        rc, out, _ = await self.runner(
            ["git", "-C", tool_dir, "status", "--porcelain", "--", "../include"], None)
        dirty = rc == 0 and out.strip() != ""
        if commit and not dirty:
            version = f"git:{commit}"
        elif commit:
            # Local edits change the numbers; without reading the tree remotely we
            # cannot hash it, so make the stamp unique to this moment's diff listing.
            version = f"git:{commit}+dirty:{hashlib.sha256(out.encode()).hexdigest()[:16]}"
        else:
            version = "nogit"
        self._stamp = VersionStamp("external", f"{version} tool:{tool_hash}")
        return self._stamp

    async def capacities(self) -> Capacities:
        """buffer_limits.hpp of the checkout holding the tool, read where the tool runs."""
        if self._capacities is None:
            texts: list[str | None] = []
            for rel in (LIMITS_FILE, CONSTANTS_FILE):
                rc, out, _ = await self.runner(["cat", posixpath.join(self.cwd or ".", rel)], None)
                texts.append(out if rc == 0 else None)
            self._capacities = capacities_from(*texts)
        return self._capacities

    async def run(self, queries: Sequence[Query],
                  progress: Callable[[int], None] | None = None) -> dict[str, Outcome]:
        todo = unique_queries(queries)
        semaphore = asyncio.Semaphore(self.jobs)

        outputs: dict[str, str] = {}

        async def one(query: Query) -> tuple[str, Outcome]:
            async with semaphore:
                rc, out, err = await self.runner([self.python, self.tool, *query.argv()], self.cwd)
            outputs[query.key] = err + "\n" + out
            outcome = _outcome(query, rc, out, err, self._shorten())
            if progress is not None:
                progress(1)
            return query.key, outcome

        outcomes = dict(await asyncio.gather(*(one(q) for q in todo)))
        await self._check_compiles(outcomes, outputs)
        return outcomes

    def _shorten(self) -> dict[str, str]:
        return {self.cwd.rstrip("/"): "<pto-isa>"} if self.cwd else {}

    async def _git(self, *args: str) -> str | None:
        rc, out, _ = await self.runner(["git", "-C", posixpath.dirname(self.tool) or ".",
                                        *args], None)
        return out.strip() if rc == 0 else None

    async def _check_compiles(self, outcomes: dict[str, Outcome],
                              outputs: dict[str, str]) -> None:
        """Record the commit when a query compiled; fail the run in one line when none
        did because the checkout's own headers do not compile."""
        version = (await self.stamp()).costmodel.split()[0]  # 'git:<sha>' or not
        if any(o.error == "" for o in outcomes.values()):
            commit = clean_commit(version)
            identity = await checkout_identity(self._git) if commit else None
            if commit and identity and commit != self._recorded:
                record_compiled(identity, commit, f"{self.tool} (external)")
                self._recorded = commit
            return
        errors = (header_error(text, self._shorten()) for text in outputs.values())
        error = next((e for e in errors if e), None)
        if error is not None:
            identity = await checkout_identity(self._git) if version.startswith("git:") else None
            newest = await newest_compiled(self._git, identity)
            raise does_not_compile(version, f"the tool {posixpath.basename(self.tool)}",
                                   error, newest, self.cwd or ".")


def _outcome(query: Query, rc: int, out: str, err: str,
             shorten: dict[str, str] | None = None) -> Outcome:
    lines = parse_cycle_lines(out)
    match = [line for line in lines if line.label == query.label]
    if not match and len(lines) == 1:
        match = lines  # the tool may spell a dtype differently (fp16 for half)
    if rc == 0 and match:
        return Outcome(match[-1].cycles)
    error = first_error_line(err + "\n" + out, shorten)
    why = f"exit code {rc}" if rc else "no [CYCLE] line in its output"
    if error is not None:  # a compile error: its first line says why, not make's tail
        return Outcome(None, f"the costmodel tool failed ({why}): {error}")
    text = "\n  ".join((err.strip() or out.strip()).splitlines()[-MAX_ERROR_LINES:])
    return Outcome(None, f"the costmodel tool failed ({why})" + (f":\n  {text}" if text else ""))
