"""The built-in engine: generate the query programs, compile them in batches, run them.

Compilation dominates (2.4–3.0 s per program against a real pto-isa, docs/formats.md §4),
so many queries go into one program and the programs of a sweep are
compiled in parallel, one per core. When a batch fails to compile, the error
lines are traced back to the queries whose functions they point at; those are
compiled alone (to get their own error) and the rest again as a batch. If the
errors cannot be narrowed that way, the batch is split in halves (bisection).
When nothing points into a query and no program of this engine has compiled yet
(the first query alone fails too), the checkout's own headers fail: the run stops
with one line saying so (compiled.py); the first program that compiles records the
checkout's commit there.
A query that crashes its program at run time is marked failed and the program
is resumed after it.
"""

from __future__ import annotations

import asyncio
import math
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pto_tui.core.cycles.capacity import (
    CONSTANTS_FILE,
    LIMITS_FILE,
    Capacities,
    capacities_from,
)
from pto_tui.core.cycles.cycle_lines import parse_cycle_lines
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import VersionStamp
from pto_tui.costmodel.codegen import render_program
from pto_tui.costmodel.compiled import (
    checkout_identity,
    clean_commit,
    does_not_compile,
    first_error_line,
    newest_compiled,
    record_compiled,
)
from pto_tui.costmodel.engine import Outcome, unique_queries
from pto_tui.costmodel.formula import ensure_formula_headers
from pto_tui.costmodel.toolchain import (
    DEFAULT_OPT,
    CostmodelError,
    check_checkout,
    compile_flags,
    compiler_version,
    default_jobs,
    git_in,
    pto_isa_version,
    run_process,
    stamp_flags,
)

DEFAULT_MAX_BATCH = 48  # queries per program: bounds a program's compile time and memory
MAX_ERROR_LINES = 6


class BuiltinEngine:
    """Costmodel queries compiled against a pto-isa checkout with a local C++ compiler."""

    name = "builtin"

    def __init__(
        self,
        pto_isa: str | Path,
        compiler: str = "g++",
        *,
        jobs: int | None = None,
        opt: str = DEFAULT_OPT,
        extra_flags: Sequence[str] = (),
        max_batch: int = DEFAULT_MAX_BATCH,
        compile_timeout: float = 900.0,
        run_timeout: float = 120.0,
        python: str | None = None,
    ) -> None:
        self.pto_isa = Path(pto_isa)
        self.compiler = compiler
        self.jobs = max(1, jobs or default_jobs())
        self.opt = opt
        self.extra_flags = tuple(extra_flags)
        self.max_batch = max(1, max_batch)
        self.compile_timeout = compile_timeout
        self.run_timeout = run_timeout
        self.python = python
        self.generated_formula_header = False
        self.formula_generators: tuple[str, ...] = ()
        self.compiles = 0  # programs compiled so far (tests and the benchmark read this)
        self.compiled_ok = False  # a program compiled: the checkout's headers are sound
        self._checkout: str | None = None  # how the compile records know the checkout
        self._root: Path | None = None
        self._flags: list[str] = []
        self._stamp: VersionStamp | None = None
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------ set-up

    async def prepare(self) -> VersionStamp:
        """Check the checkout, generate the formula headers a query needs (for their
        current inputs), detect versions."""
        async with self._lock:
            if self._stamp is not None:
                return self._stamp
            root = check_checkout(self.pto_isa)
            headers = await ensure_formula_headers(root, self.python)
            self.generated_formula_header = headers.generated
            self.formula_generators = headers.generators
            overlay = headers.include_dir
            version_line, is_clang = await compiler_version(self.compiler)
            flags = compile_flags(root, is_clang, self.opt, self.extra_flags, overlay)
            costmodel = await pto_isa_version(root)
            if costmodel.startswith("git:"):  # the checkout's own repository
                self._checkout = await checkout_identity(git_in(root))
            self._root, self._flags = root, flags
            self._stamp = VersionStamp("builtin", costmodel, version_line,
                                       stamp_flags(flags, root, overlay))
            return self._stamp

    async def stamp(self) -> VersionStamp:
        return await self.prepare()

    def _compiled(self) -> None:
        """A program compiled: remember the commit (once per engine)."""
        if self.compiled_ok:
            return
        self.compiled_ok = True
        commit = clean_commit(self._stamp.costmodel) if self._stamp else None
        if commit and self._checkout and self._stamp:
            record_compiled(self._checkout, commit, self._stamp.compiler)

    async def does_not_compile(self, errors: str, source_name: str) -> CostmodelError:
        """The one-line error for a checkout whose costmodel headers do not compile."""
        root = self._root or self.pto_isa
        version = self._stamp.costmodel if self._stamp else ""
        line = first_error_line(errors, {str(root): "<pto-isa>"}) or _first_line(errors)
        line = re.sub(r"\S*" + re.escape(source_name), "<query>.cpp", line)
        newest = await newest_compiled(git_in(root), self._checkout)
        return does_not_compile(version, self.compiler, line, newest, str(root))

    async def capacities(self) -> Capacities:
        root = check_checkout(self.pto_isa)
        return capacities_from(_read(root / LIMITS_FILE), _read(root / CONSTANTS_FILE))

    # ------------------------------------------------------------ running

    async def run(self, queries: Sequence[Query],
                  progress: Callable[[int], None] | None = None) -> dict[str, Outcome]:
        await self.prepare()
        todo = unique_queries(queries)
        if not todo:
            return {}
        semaphore = asyncio.Semaphore(self.jobs)
        results: dict[str, Outcome] = {}
        with tempfile.TemporaryDirectory(prefix="pto-tui-costmodel-") as tmp:
            batch = _Batcher(self, Path(tmp), semaphore, progress)
            chunks = split_batches(todo, self.jobs, self.max_batch)
            for outcome in await asyncio.gather(*(batch.run(chunk) for chunk in chunks)):
                results.update(outcome)
        return results


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:400] if lines else "(no compiler output)"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None  # older checkouts have no buffer_limits.hpp: the table applies


def split_batches(queries: Sequence[Query], jobs: int, max_batch: int) -> list[list[Query]]:
    """At least one program per core (when there are enough queries), at most
    max_batch queries each, sizes differing by at most one."""
    n = len(queries)
    count = min(n, max(jobs, math.ceil(n / max_batch)))
    size, extra = divmod(n, count)
    chunks, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        chunks.append(list(queries[start:end]))
        start = end
    return chunks


class _Batcher:
    """Compiles and runs batches for one BuiltinEngine.run call."""

    def __init__(self, engine: BuiltinEngine, tmp: Path, semaphore: asyncio.Semaphore,
                 progress: Callable[[int], None] | None) -> None:
        self.engine = engine
        self.tmp = tmp
        self.semaphore = semaphore
        self.progress = progress
        self.counter = 0

    def _done(self, outcomes: dict[str, Outcome]) -> dict[str, Outcome]:
        if self.progress is not None and outcomes:
            self.progress(len(outcomes))
        return outcomes

    async def run(self, queries: list[Query]) -> dict[str, Outcome]:
        source, spans = render_program(queries)
        self.counter += 1
        stem = self.tmp / f"batch{self.counter}"
        src, exe = stem.with_suffix(".cpp"), stem.with_suffix(".bin")
        src.write_text(source, encoding="utf-8")
        engine = self.engine
        argv = [engine.compiler, *engine._flags, str(src), "-o", str(exe)]
        async with self.semaphore:
            engine.compiles += 1
            result = await run_process(argv, cwd=self.tmp, timeout=engine.compile_timeout)
        if result.returncode == 0:
            engine._compiled()
            return self._done(await self._execute(exe, queries))
        if result.timed_out:
            raise CostmodelError(f"compiling {len(queries)} queries took longer than "
                                 f"{engine.compile_timeout:.0f} s")
        errors = result.stderr + result.stdout
        blamed = attribute_errors(errors, src.name, spans)
        if len(queries) == 1 and not blamed:
            # Nothing points into the query: before any program has compiled, that is
            # the checkout's headers failing; after, this query's own failure.
            if not engine.compiled_ok:
                raise await engine.does_not_compile(errors, src.name)
            blamed = {0: []}
        if blamed:
            # The compiler names the failing functions: those queries fail with their
            # own messages; the others are compiled again without them.
            outcomes = {
                queries[i].key: Outcome(None, readable_compile_error(
                    "\n".join(lines) or errors, src.name, engine._root))
                for i, lines in blamed.items()
            }
            self._done(outcomes)
            rest = [q for i, q in enumerate(queries) if i not in blamed]
            if rest:
                outcomes.update(await self.run(rest))
            return outcomes
        # Nothing points into a query function. Try the first query alone: if it
        # fails too, the set-up is broken (missing header, bad flag) and no query
        # would compile; otherwise bisect the rest.
        first = await self.run(queries[:1])
        if first_compile_failed(first):
            raise await engine.does_not_compile(errors, src.name)
        rest = queries[1:]
        half = len(rest) // 2
        parts = [p for p in (rest[:half], rest[half:]) if p]
        for outcome in await asyncio.gather(*(self.run(p) for p in parts)):
            first.update(outcome)
        return first

    async def _execute(self, exe: Path, queries: list[Query]) -> dict[str, Outcome]:
        by_label = {q.label: q for q in queries}
        outcomes: dict[str, Outcome] = {}
        first = 0
        while first < len(queries):
            async with self.semaphore:
                result = await run_process([str(exe), str(first)], cwd=self.tmp,
                                           timeout=self.engine.run_timeout)
            for line in parse_cycle_lines(result.stdout):
                query = by_label.get(line.label)
                if query is not None:
                    outcomes[query.key] = Outcome(line.cycles)
            missing = [i for i in range(first, len(queries)) if queries[i].key not in outcomes]
            if not missing:
                break
            # The first query without a line stopped the program; skip it and go on.
            bad = missing[0]
            if result.timed_out:
                why = f"timed out after {self.engine.run_timeout:.0f} s"
            elif result.returncode < 0:
                why = f"killed by signal {-result.returncode}"
            elif result.returncode:
                why = f"exit code {result.returncode}"
            else:
                why = "printed no [CYCLE] line"
            tail = "\n".join(result.stderr.strip().splitlines()[-MAX_ERROR_LINES:])
            outcomes[queries[bad].key] = Outcome(
                None, f"the simulation failed: {why}" + (f"\n  {tail}" if tail else ""))
            first = bad + 1
        return outcomes


# A compiler diagnostic starts at "<file>: In instantiation of ..." / "In function ..."
# / "In file included from ..."; the lines up to the next start belong to it.
_BLOCK_START = re.compile(r"^(\S.*: In |In file included from )")


def attribute_errors(errors: str, source_name: str,
                     spans: list[tuple[int, int]]) -> dict[int, list[str]]:
    """Which query functions the compiler's errors point at, with each one's error lines."""
    blocks: list[list[str]] = [[]]
    for line in errors.splitlines():
        if _BLOCK_START.match(line) and blocks[-1]:
            blocks.append([])
        blocks[-1].append(line)
    where = re.compile(re.escape(source_name) + r":(\d+)(?::\d+)?:")
    blamed: dict[int, list[str]] = {}
    for block in blocks:
        if not any("error" in line for line in block):
            continue
        numbers = {int(n) for line in block for n in where.findall(line)}
        for i, (lo, hi) in enumerate(spans):
            if any(lo <= n <= hi for n in numbers):
                blamed.setdefault(i, []).extend(block)
    return blamed


def first_compile_failed(outcomes: dict[str, Outcome]) -> bool:
    return any(o.error.startswith("compile error") for o in outcomes.values())


def readable_compile_error(errors: str, source_name: str, root: Path | None) -> str:
    """The first error lines, with the temporary paths and the checkout path shortened."""
    picked: list[str] = []
    for raw in errors.splitlines():
        if "error" not in raw and "static assertion" not in raw:
            continue
        line = re.sub(r"\S*" + re.escape(source_name), "<query>.cpp", raw)
        if root is not None:
            line = line.replace(str(root), "<pto-isa>")
        line = line.strip()
        if line and line not in picked:
            picked.append(line[:400])
        if len(picked) >= MAX_ERROR_LINES:
            break
    if not picked:
        picked = [line.strip()[:400] for line in errors.strip().splitlines()[:MAX_ERROR_LINES]]
    return "compile error:\n  " + "\n  ".join(picked)
