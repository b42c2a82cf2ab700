"""`pto-tui suggest`: the project's tile knobs ranked by predicted cycles per unit of work."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import load_project_file, open_campaign, print_json
from pto_tui.core import payloads
from pto_tui.core.cycles.review import review_text
from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.prediction import prediction_review
from pto_tui.core.rounds.prediction import review_text as prediction_text
from pto_tui.core.rounds.records import PreEdit
from pto_tui.costmodel import CostmodelCache, make_engine
from pto_tui.costmodel.engine import Engine
from pto_tui.costmodel.ranking_cache import RANKING_FILE, ranked, ranking_key
from pto_tui.costmodel.review import review_rounds
from pto_tui.costmodel.service import resolve_settings
from pto_tui.costmodel.suggest import pick_suggestion, suggest


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "suggest", help=HELP["suggest"],
        description="For each tile knob the operator's costmodel plan uses (declared in "
                    "pto-operator.toml [costmodel], or derived from an attention kernel's "
                    "source), query the costmodel at every allowed value and rank them by "
                    "predicted cycles per unit of work; values whose tiles do not fit on chip "
                    "are refused with the buffer named.")
    parser.add_argument("--knob", default="", help="only this knob")
    parser.add_argument("--pto-isa", metavar="PATH", help="pto-isa checkout (builtin engine)")
    parser.add_argument("--engine", choices=("builtin", "external"),
                        help="costmodel engine (default: [costmodel] engine, else builtin)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--no-cache", action="store_true", help="recompute")
    parser.add_argument(
        "--review", action="store_true",
        help="predicted against measured: per closed round that changed a ranked knob, the "
             "predicted cycles-per-work ratio (new/old) against the measured speedup, and per "
             "knob whether the guidance held")
    parser.set_defaults(handler=run_suggest)


def _engine(args: argparse.Namespace, layout: ProjectLayout, config: ProjectConfig,
            no_cache: bool = False) -> tuple[Engine, CostmodelCache | None]:
    settings = resolve_settings(config.costmodel, layout.root, layout.cache_dir / "costmodel.json",
                                engine=getattr(args, "engine", None),
                                pto_isa=getattr(args, "pto_isa", None))
    engine = make_engine(settings.engine, pto_isa=settings.pto_isa, tool=settings.tool,
                         compiler=settings.compiler)
    return engine, None if no_cache else CostmodelCache(settings.cache_path)


def apply_suggestion(args: argparse.Namespace, pre: PreEdit) -> str:
    """`round start --from-suggestion`: the suggestion's evidence first in the Pre-Edit
    evidence (any --evidence given follows it), the knob in scope; the default title."""
    layout, project = load_project_file(args)
    engine, cache = _engine(args, layout, project.config)
    pick = asyncio.run(pick_suggestion(layout.workspace, project.config, engine, cache,
                                       args.from_suggestion))
    pre.evidence = pick.evidence + (f"\n{pre.evidence}" if pre.evidence.strip() else "")
    if pick.knob not in pre.scope:
        pre.scope.append(pick.knob)
    return f"{pick.knob} {pick.current} -> {pick.value} (costmodel)"


def _review(args: argparse.Namespace, layout: ProjectLayout, config: ProjectConfig) -> int:
    """Predicted against measured: perf_sim's recorded predictions ([target] predict), then
    the costmodel's per ranked knob; a project with predictions shows them even when the
    costmodel cannot rank its knobs (saying why)."""
    with open_campaign(args, write=False) as campaign:
        rounds = campaign.rounds()
    predicted = prediction_review(rounds)
    try:
        engine, cache = _engine(args, layout, config, args.no_cache)
        reviews, problem = asyncio.run(review_rounds(layout.workspace, config, rounds, engine, cache)), ""
    except PtoError as error:
        if not predicted:
            raise
        reviews, problem = [], error.render()
    if args.json:
        print_json(payloads.suggest_review(reviews, predicted, problem), schema="suggest-review")
        return 0
    sys.stdout.write(prediction_text(predicted))
    sys.stdout.write(f"costmodel: no review: {problem}\n" if problem else review_text(reviews))
    return 0


async def _suggestions(args: argparse.Namespace, layout: ProjectLayout, config: ProjectConfig,
                       engine: Engine, cache: CostmodelCache | None) -> list[dict[str, Any]]:
    """The suggestions as printed: the ranking kept for these sources and this costmodel
    version (costmodel/ranking_cache.py), else ranked now (and kept)."""
    path = None if args.no_cache else layout.cache_dir / RANKING_FILE

    async def key_of() -> str:
        return ranking_key(layout.workspace, config, await engine.stamp(), args.knob)

    async def compute() -> tuple[list[dict[str, Any]], bool]:
        found = await suggest(layout.workspace, config, engine, cache, args.knob)
        complete = all(r.ok or r.oversized for s in found for c in s.ranked for r in c.queries)
        return [s.to_dict() for s in found], complete

    return (await ranked(path, key_of, compute))[0]


def run_suggest(args: argparse.Namespace) -> int:
    layout, project = load_project_file(args)
    config = project.config
    if args.review:
        return _review(args, layout, config)
    engine, cache = _engine(args, layout, config, args.no_cache)
    found = asyncio.run(_suggestions(args, layout, config, engine, cache))
    if args.json:
        print_json({"suggestions": found}, schema="suggest")
    else:
        for s in found:
            sys.stdout.write(f"{s['evidence']}\n")
        if not found:
            print("no tile knob with allowed values is used by the costmodel plan")
    return 0
