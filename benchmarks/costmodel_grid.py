"""Costmodel speed: the 75-point TMATMUL grid, one process per query vs batched vs cached.

    .venv/bin/python benchmarks/costmodel_grid.py [--pto-isa PATH] [--jobs N]

Three runs on the same machine, in the same script:
  reference  one program compiled and run per query, one after another (what
             tools/query_pto_cycles.py does when called once per query);
  cold       the built-in engine: the grid batched into one program per core,
             empty cache;
  warm       the same grid again from the cache (a new engine and cache object,
             as a new `pto-tui costmodel` process would have).
Goals: cold <= 1/10 of the reference, warm < 1 s. The numbers of all
runs are compared; a mismatch is reported.

Without --pto-isa the pto-isa stand-in of the tests is used. Its headers compile
in a fraction of a second instead of the real 2.4-3.0 s, so the header cost that
batching saves is small there and the ratio is only indicative.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.core.cycles.results import CycleResult
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, CostmodelCache, run_queries
from pto_tui.costmodel.toolchain import default_jobs

GRID = ("sweep TMATMUL half half float --m 16,32,64,128,256 --k 32,64,128 "
        "--n 16,32,64,128,256")
STUB = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pto_isa_stub"


async def timed(engine: BuiltinEngine, cache: CostmodelCache | None, queries
                ) -> tuple[float, list[CycleResult]]:
    start = time.perf_counter()
    results = await run_queries(queries, engine, cache)
    return time.perf_counter() - start, results


async def main_async(args: argparse.Namespace, root: Path, label: str) -> int:
    queries = expand_sweep(GRID.split())
    jobs = args.jobs or default_jobs()
    print(f"costmodel grid benchmark: {len(queries)} TMATMUL queries, {label}")
    print(f"  compiler {args.compiler}, {jobs} parallel programs for the engine, "
          f"{args.reference_jobs} for the reference")
    # Untimed set-up shared by all runs: formula header, compiler version, commit.
    setup = BuiltinEngine(root, args.compiler, jobs=jobs)
    stamp = await setup.prepare()
    print(f"  costmodel version {stamp.costmodel[:40]}; {stamp.compiler}")
    print(f"  flags {stamp.flags}")

    with tempfile.TemporaryDirectory(prefix="pto-tui-bench-") as tmp:
        cache_path = Path(tmp) / "costmodel.json"
        reference = BuiltinEngine(root, args.compiler, jobs=args.reference_jobs, max_batch=1)
        if args.skip_reference:
            ref_time, ref_results = float("nan"), []
        else:
            print("  reference (one program per query) ...", flush=True)
            ref_time, ref_results = await timed(reference, None, queries)
        print("  cold (batched, empty cache) ...", flush=True)
        cold = BuiltinEngine(root, args.compiler, jobs=jobs)
        cold_time, cold_results = await timed(cold, CostmodelCache(cache_path), queries)
        warm = BuiltinEngine(root, args.compiler, jobs=jobs)
        warm_time, warm_results = await timed(warm, CostmodelCache(cache_path), queries)

    failed = [r for r in cold_results if not r.ok]
    mismatches = [
        (a.label, a.cycles, b.cycles)
        for a, b in zip(ref_results or cold_results, cold_results, strict=True)
        if a.cycles != b.cycles
    ] + [(a.label, a.cycles, b.cycles)
         for a, b in zip(cold_results, warm_results, strict=True) if a.cycles != b.cycles]

    print()
    print(f"{'run':<12}{'seconds':>10}{'programs':>10}  note")
    if ref_results:
        print(f"{'reference':<12}{ref_time:>10.2f}{reference.compiles:>10}  "
              f"{ref_time / len(queries):.3f} s per query")
    print(f"{'cold':<12}{cold_time:>10.2f}{cold.compiles:>10}  "
          f"{len(queries) - len(failed)}/{len(queries)} answered")
    print(f"{'warm':<12}{warm_time:>10.3f}{warm.compiles:>10}  "
          f"{sum(r.cached for r in warm_results)} from cache")
    print()
    ok = True
    if ref_results:
        ratio = cold_time / ref_time
        goal = ratio <= 0.1
        ok &= goal
        print(f"cold / reference = {ratio:.3f} (1/{1 / ratio:.1f}); goal <= 0.100: "
              f"{'met' if goal else 'NOT met'}")
    goal = warm_time < 1.0
    ok &= goal
    print(f"warm = {warm_time:.3f} s; goal < 1 s: {'met' if goal else 'NOT met'}")
    if mismatches:
        ok = False
        print(f"MISMATCH in {len(mismatches)} numbers, e.g. {mismatches[:3]}")
    else:
        print("numbers: reference, cold and warm runs agree" if ref_results
              else "numbers: cold and warm runs agree")
    if failed:
        print(f"{len(failed)} queries failed, e.g. {failed[0].label}: {failed[0].error}")
    if label.startswith("STAND-IN"):
        print("NOTE: measured against the pto-isa stand-in, whose headers compile far faster "
              "than the real ones (2.4-3.0 s per program); the ratio is indicative only. "
              "Run with --pto-isa PATH for the real figure.")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pto-isa", metavar="PATH", help="a real pto-isa checkout")
    parser.add_argument("--compiler", default="g++")
    parser.add_argument("--jobs", type=int, help="programs in parallel (default: cores)")
    parser.add_argument("--reference-jobs", type=int, default=1,
                        help="reference programs in parallel (default 1: one query after "
                             "another, like the tool)")
    parser.add_argument("--skip-reference", action="store_true",
                        help="only cold and warm (the reference takes minutes on real headers)")
    args = parser.parse_args()
    if args.pto_isa:
        return asyncio.run(main_async(args, Path(args.pto_isa).expanduser(),
                                      f"REAL pto-isa at {args.pto_isa}"))
    with tempfile.TemporaryDirectory(prefix="pto-isa-stub-") as tmp:
        root = Path(tmp) / "pto-isa"
        shutil.copytree(STUB, root, ignore=shutil.ignore_patterns("formula_params_generated.hpp"))
        return asyncio.run(main_async(args, root, "STAND-IN pto-isa (tests/fixtures/pto_isa_stub), "
                                      "no real checkout given"))


if __name__ == "__main__":
    sys.exit(main())
