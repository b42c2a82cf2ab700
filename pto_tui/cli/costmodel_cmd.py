"""`pto-tui costmodel`: cycles of PTO instructions from the costmodel, one query or a sweep.

The query words are parsed by pto_tui.core.cycles.query, not by argparse
sub-commands: argparse only collects the positional words (instruction, dtypes,
an optional leading `sweep`) and the dimension options, so the tool's own
command line can be pasted as is.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import load_project_file, print_json, project_layout
from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import (
    SORT_COLUMNS,
    TABLE_COLUMNS,
    CycleResult,
    best_result,
    format_evidence,
    sort_results,
    table_rows,
    to_csv,
    to_markdown,
)
from pto_tui.core.cycles.sweep import SWEEP_HELP, expand_sweep
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import CostmodelConfig
from pto_tui.core.project.file import ProjectFile
from pto_tui.costmodel import (
    CostmodelCache,
    Progress,
    ProgressFn,
    default_cache_path,
    make_engine,
    run_queries_sync,
)
from pto_tui.costmodel.service import Settings, resolve_settings

DESCRIPTION = """\
Simulated A2/A3 cycles of one PTO instruction at a tile shape, from the pto-isa
costmodel. Takes the command line of pto-isa's tools/query_pto_cycles.py:

  unary      TEXP|TNEG|TRECIP|TRSQRT|TSQRT|TABS <dtype> -r ROWS -c COLS
  binary     TADD|TSUB|TMUL|TDIV|TMAX|TMIN|TMAXS|TMINS|TADDS|TSUBS|TMULS|TDIVS|
             TSEL|TSELS|TCMP <dtype> -r ROWS -c COLS
  reduce     TROWSUM|TROWMAX|TROWMIN|TCOLSUM|TCOLMAX|TCOLMIN <dtype> -r ROWS -c COLS
  convert    TCVT <target dtype> <source dtype> -r ROWS -c COLS
  matmul     TMATMUL <A dtype> <B dtype> <out dtype> --m M --k K --n N
  dtypes     float/fp32, half/fp16, bf16, int32, int16, int8, uint8

A leading word `sweep` (optional) and lists or ranges make a sweep: every
combination is queried, many queries compiled into one program, one program per
core, and a table is printed with the best configuration marked (lowest cycles
per FLOP; per element for vector instructions).

""" + SWEEP_HELP + """

Engines: `builtin` (default) compiles the queries against a pto-isa checkout
(--pto-isa) with a C++ compiler; `external` runs the checkout's
tools/query_pto_cycles.py (--tool) once per query. Settings default from the
project's [costmodel] section. Every result is cached by (query, pto-isa commit
or content hash, compiler, flags) in the project's .pto-tui/cache/costmodel.json
(or pto-tui's own cache without a project); --no-cache recomputes.

Examples:
  pto-tui costmodel TMATMUL half half float --m 128 --k 64 --n 128
  pto-tui costmodel TADD half -r 64 -c 64 --pto-isa ~/pto-isa
  pto-tui costmodel sweep TMATMUL half half float \\
      --m 16,32,64,128,256 --k 32,64,128 --n 16,32,64,128,256 --sort cycles_per_flop
  pto-tui costmodel sweep TEXP half,float -r 16:128:x2 -c 64-256/64 --export md
  pto-tui costmodel TCVT half float -r 16 -c 64 --engine external \\
      --tool ~/pto-isa/tools/query_pto_cycles.py

Exit codes: 0 all queries answered; 1 some query failed (compile error, crash)
or the costmodel could not run; 2 a bad query (the message says what is missing).
"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "costmodel",
        help=HELP["costmodel"],
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # REMAINDER: options may sit between the query's words (`TADD --pto-isa X half
    # -r 64`); run_costmodel reads them out of the words with the same options, so the
    # CLI takes every line the console takes.
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="WORD",
                        help="[sweep] INSTRUCTION DTYPE... (see above)")
    add_options(parser)
    parser.set_defaults(handler=run_costmodel)


def add_options(parser: argparse.ArgumentParser) -> None:
    dims = parser.add_argument_group("tile shape (a value, a list or a range)")
    dims.add_argument("-r", "--rows", dest="rows", metavar="ROWS", help="tile rows")
    dims.add_argument("-c", "--cols", dest="cols", metavar="COLS", help="tile columns")
    dims.add_argument("--m", dest="m", metavar="M", help="M of a matmul (rows of A)")
    dims.add_argument("--k", dest="k", metavar="K", help="K of a matmul (the reduced dimension)")
    dims.add_argument("--n", dest="n", metavar="N", help="N of a matmul (columns of B)")
    engine = parser.add_argument_group("engine")
    engine.add_argument("--engine", choices=("builtin", "external"),
                        help="default: [costmodel] engine, else builtin")
    engine.add_argument("--pto-isa", metavar="PATH", help="pto-isa checkout (builtin engine)")
    engine.add_argument("--tool", metavar="PATH",
                        help="query_pto_cycles.py (external engine); default "
                             "<pto-isa>/tools/query_pto_cycles.py")
    engine.add_argument("--compiler", metavar="CXX", help="C++ compiler (default g++)")
    engine.add_argument("--jobs", type=int, metavar="N", help="parallel programs (default: cores)")
    engine.add_argument("--no-cache", action="store_true", help="recompute, do not read the cache")
    out = parser.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print machine-readable JSON")
    out.add_argument("--sort", metavar="COLUMN",
                     help=f"sort the table by: {', '.join(SORT_COLUMNS)}")
    out.add_argument("--desc", action="store_true", help="sort descending")
    out.add_argument("--export", choices=("csv", "md"), help="print the results as CSV or Markdown")
    out.add_argument("-o", "--output", metavar="FILE", help="write the export to FILE")
    out.add_argument("--evidence", action="store_true",
                     help="print a Markdown block for a round's Pre-Edit Evidence")
    out.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="progress on stderr (default: on for sweeps when stderr is a terminal)")


class _WordsParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"costmodel: {message}")


def split_options(args: argparse.Namespace) -> argparse.Namespace:
    """The options found among the query's words, merged into args; args.words keeps
    only the query's own words. One grammar: the words then go to the same parser the
    console uses (pto_tui.core.cycles.sweep)."""
    if any(w in ("-h", "--help") for w in args.words):
        raise InputError("put --help before the query: pto-tui costmodel --help")
    parser = _WordsParser(add_help=False, allow_abbrev=False)
    add_options(parser)
    found, rest = parser.parse_known_args(args.words)
    defaults = vars(parser.parse_args([]))
    for name, value in vars(found).items():
        if value != defaults[name]:
            setattr(args, name, value)
    args.words = rest
    return args


def _query_words(args: argparse.Namespace) -> list[str]:
    words = list(args.words)
    for flag, value in (("-r", args.rows), ("-c", args.cols), ("--m", args.m),
                        ("--k", args.k), ("--n", args.n)):
        if value is not None:
            words += [flag, value]
    return words


def _settings(args: argparse.Namespace) -> Settings:
    config = CostmodelConfig()
    base = Path.cwd()
    cache_path = default_cache_path()
    try:
        layout = project_layout(args)
    except InputError:
        if getattr(args, "project", None):
            raise
        layout = None  # no project: run with flags and pto-tui's own cache
    if layout is not None:
        cache_path = layout.cache_dir / "costmodel.json"
        base = layout.root
        if layout.project_file.is_file():
            config = ProjectFile(layout.project_file).config.costmodel
    return resolve_settings(
        config, base, cache_path,
        engine=args.engine, pto_isa=args.pto_isa, tool=args.tool, compiler=args.compiler,
    )


def _progress_printer() -> ProgressFn:
    def show(progress: Progress) -> None:
        end = "\n" if progress.done >= progress.total else "\r"
        sys.stderr.write(f"costmodel: {progress.done}/{progress.total} ({progress.message})\x1b[K"
                         f"{end}")
        sys.stderr.flush()
    return show


def run_costmodel(args: argparse.Namespace) -> int:
    split_options(args)
    queries = expand_sweep(_query_words(args))  # QueryError (exit 2) with the guide's prompt
    if args.sort:
        sort_results([], args.sort)  # reject an unknown column before any work
    settings = _settings(args)
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    cache = None if args.no_cache else CostmodelCache(settings.cache_path)
    show = args.progress if args.progress is not None else (
        len(queries) > 1 and sys.stderr.isatty() and not args.json)
    progress = _progress_printer() if show else None
    if settings.engine == "external" and settings.on_target:
        results = asyncio.run(_run_on_target(args, queries, settings, cache, progress))
    else:
        engine = make_engine(settings.engine, pto_isa=settings.pto_isa, tool=settings.tool,
                             compiler=settings.compiler, jobs=args.jobs)
        results = run_queries_sync(queries, engine, cache, progress)
    return _report(args, queries, results)


async def _run_on_target(args: argparse.Namespace, queries: list[Query], settings: Settings,
                         cache: CostmodelCache | None,
                         progress: ProgressFn | None) -> list[CycleResult]:
    from pto_tui.costmodel.remote import run_for_project  # the job layer only when needed

    layout, project = load_project_file(args)
    return await run_for_project(queries, settings, project.config, layout.jobs_dir, cache,
                                 progress)


def _report(args: argparse.Namespace, queries: list[Query], results: list[CycleResult]) -> int:
    failed = [r for r in results if not r.ok]
    shown = sort_results(results, args.sort, args.desc) if args.sort else results
    best = best_result(results)
    if args.export:
        text = to_csv(shown) if args.export == "csv" else to_markdown(shown)
        if args.output:
            atomic_write_text(Path(args.output), text)
        else:
            sys.stdout.write(text)
    if args.json:
        print_json({
            "results": [r.to_dict() for r in shown],
            "best": best.label if best else None,
            "failed": len(failed),
            "stamp": results[0].stamp.to_dict() if results else None,
        }, schema="costmodel")
    elif args.evidence:
        sys.stdout.write(format_evidence(results))
    elif not args.export or args.output:
        if len(queries) == 1:
            _print_single(results[0])
        else:
            _print_table(shown, best)
    if failed and not args.json:
        for r in failed:
            print(f"pto-tui: {r.label}: {r.error}", file=sys.stderr)
    return 1 if failed else 0


def _print_single(r: CycleResult) -> None:
    if not r.ok:
        return
    print(f"[CYCLE] {r.label} actual={r.cycles}")
    kind = "FLOP (2*M*K*N)" if r.query.is_matmul else "elements"
    line = f"  {r.flops} {kind}, {r.flop_per_cycle:.4g} per cycle"
    if r.ideal_cycles is not None and r.efficiency is not None:
        line += f"; ideal {r.ideal_cycles:.1f} cycles at cube peak ({r.efficiency * 100:.1f}%)"
    print(line)
    print(f"  costmodel: {r.stamp.short()}" + (" (cached)" if r.cached else ""))


def _print_table(results: list[CycleResult], best: CycleResult | None) -> None:
    header = ["", *TABLE_COLUMNS]
    rows = [["*" if r is best else "", *cells]
            for r, cells in zip(results, table_rows(results), strict=True)]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    for row in (header, *rows):
        print("  ".join(str(cell).ljust(w) if i < 2 else str(cell).rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    cached = sum(r.cached for r in results)
    ok = sum(r.ok for r in results)
    print(f"\n{ok}/{len(results)} answered ({cached} from cache); "
          f"costmodel: {results[0].stamp.short() if results else '-'}")
    if best is not None:
        per = "FLOP" if best.query.is_matmul else "element"
        print(f"best (*): {best.label} = {best.cycles} cycles, "
              f"{best.cycles_per_flop:.4g} cycles/{per}")
