"""Tools that ask the costmodel and sum a campaign up: costmodel_query, costmodel_sweep,
suggest, chart, report. Queries run through the same entry as the CLI and the TUI
console (run_for_project); a sweep reports progress per query answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

from pto_tui.core import payloads
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import CycleResult, sort_results
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.config import CostmodelConfig, ProjectConfig
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.prediction import prediction_review
from pto_tui.costmodel import CostmodelCache, Progress, default_cache_path, make_engine, run_queries
from pto_tui.costmodel.engine import Engine
from pto_tui.costmodel.remote import run_for_project
from pto_tui.costmodel.review import review_rounds
from pto_tui.costmodel.service import resolve_settings
from pto_tui.costmodel.suggest import suggest as suggest_knobs
from pto_tui.mcp.catalog import Answer, add
from pto_tui.mcp.projects import Projects


def _words(query: str) -> list[str]:
    import shlex

    try:
        return shlex.split(query)
    except ValueError as error:
        raise InputError(f"query: {error}", key="query") from None


async def _run(
    projects: Projects, project: str, queries: list[Query], ctx: Context, engine: str, pto_isa: str
) -> list[CycleResult]:
    if pto_isa:  # the builtin engine builds and runs code from that checkout
        projects.within(pto_isa, "pto_isa")
    try:
        layout = projects.layout(project)
    except InputError:
        if project or projects.default:
            raise
        layout = None  # no project: the flags and pto-tui's own cache
    config: ProjectConfig | None = None
    base, cache_path = Path.cwd(), default_cache_path()
    if layout is not None:
        base, cache_path = layout.root, layout.cache_dir / "costmodel.json"
        if layout.project_file.is_file():
            config = ProjectFile(layout.project_file).config
    costmodel = config.costmodel if config is not None else CostmodelConfig()
    settings = resolve_settings(costmodel, base, cache_path, engine=engine or None, pto_isa=pto_isa or None)
    loop = asyncio.get_running_loop()
    pending: list[asyncio.Future[None]] = []

    def progress(p: Progress) -> None:
        pending.append(asyncio.ensure_future(ctx.report_progress(p.done, p.total, p.message), loop=loop))

    cache = CostmodelCache(cache_path)
    try:
        if config is None or layout is None:  # no project: the engine runs here, as the CLI's
            made = make_engine(
                settings.engine, pto_isa=settings.pto_isa, tool=settings.tool, compiler=settings.compiler
            )
            return await run_queries(queries, made, cache, progress)
        return await run_for_project(queries, settings, config, layout.jobs_dir, cache, progress)
    finally:
        await asyncio.gather(*pending, return_exceptions=True)


def project_engine(
    projects: Projects, project: str, engine: str = "", pto_isa: str = ""
) -> tuple[ProjectLayout, ProjectConfig, Engine, CostmodelCache]:
    """The project's costmodel engine and cache, as `suggest` uses them."""
    layout = projects.layout(project)
    if pto_isa:
        projects.within(pto_isa, "pto_isa")
    config = ProjectFile(layout.project_file).config
    settings = resolve_settings(
        config.costmodel, layout.root, layout.cache_dir / "costmodel.json",
        engine=engine or None, pto_isa=pto_isa or None,
    )
    made = make_engine(
        settings.engine, pto_isa=settings.pto_isa, tool=settings.tool, compiler=settings.compiler
    )
    return layout, config, made, CostmodelCache(settings.cache_path)


def register(server: MCPServer, projects: Projects) -> None:
    """Long on purpose: one short tool per closure, each bound to `projects`; the
    tools read best side by side."""

    async def costmodel_query(
        query: str, ctx: Context, project: str = "", engine: str = "", pto_isa: str = ""
    ) -> Answer:
        """Cycles of one PTO instruction at one tile shape, e.g.
        "TMATMUL half half float --m 128 --k 64 --n 128" or "TADD half -r 64 -c 64"."""
        queries = expand_sweep(_words(query))
        if len(queries) != 1:
            raise InputError(f"the query expands to {len(queries)} points; use costmodel_sweep", key="query")
        return Answer(payloads.costmodel(await _run(projects, project, queries, ctx, engine, pto_isa)))

    async def costmodel_sweep(
        query: str, ctx: Context, project: str = "", sort: str = "", engine: str = "", pto_isa: str = ""
    ) -> Answer:
        """Every combination of lists or ranges, e.g. "TMATMUL half half float --m 16,32,64
        --k 64 --n 16:128:x2"; the best configuration (lowest cycles per FLOP) is named."""
        queries = expand_sweep(_words(query))
        if sort:
            sort_results([], sort)  # an unknown column is refused before any work
        results = await _run(projects, project, queries, ctx, engine, pto_isa)
        data = payloads.costmodel(results)
        if sort:
            data["results"] = [r.to_dict() for r in sort_results(results, sort)]
        return Answer(data)

    async def suggest(
        project: str = "", knob: str = "", engine: str = "", pto_isa: str = ""
    ) -> Answer:
        """The operator's tile knobs ranked by predicted cycles per unit of work."""
        layout, config, made, cache = project_engine(projects, project, engine, pto_isa)
        found = await suggest_knobs(layout.workspace, config, made, cache, knob)
        return Answer({"suggestions": [s.to_dict() for s in found]})

    async def suggest_review(project: str = "", engine: str = "", pto_isa: str = "") -> Answer:
        """Predicted against measured, as `pto-tui suggest --review`: perf_sim's recorded
        cycles against each round's measured change where the project predicts ([target]
        predict), and the costmodel's prediction per ranked knob."""
        with projects.campaign(project, write=False, command="suggest_review") as campaign:
            rounds = campaign.rounds()
        predicted = prediction_review(rounds)
        try:
            layout, config, made, cache = project_engine(projects, project, engine, pto_isa)
            reviews, problem = await review_rounds(layout.workspace, config, rounds, made, cache), ""
        except PtoError as error:
            if not predicted:
                raise
            reviews, problem = [], error.render()
        return Answer(payloads.suggest_review(reviews, predicted, problem))

    def chart(project: str = "", svg: bool = False) -> Answer:
        """Draw the two-panel summary chart (projects/<op>/summary_chart.png)."""
        from pto_tui.core.summary.chart import write_campaign_chart  # matplotlib only here

        with projects.campaign(project, write=False, command="chart") as campaign:
            result = write_campaign_chart(campaign, None, svg=svg)
        return Answer(payloads.chart(result))

    def report(project: str = "") -> Answer:
        """Write the Markdown campaign report (projects/<op>/REPORT.md), drawing the chart if needed."""
        from pto_tui.core.summary.campaign_report import write_campaign_report

        with projects.campaign(project, write=False, command="report") as campaign:
            result = write_campaign_report(campaign, None)
        return Answer(payloads.report(result))

    for tool in (costmodel_query, costmodel_sweep, suggest, suggest_review, chart, report):
        add(server, tool)
