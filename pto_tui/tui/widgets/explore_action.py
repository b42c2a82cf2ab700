"""ctrl+n in the Pre-Edit form: explore the costmodel ranking of the knob in scope as rounds
measured at once (`pto-tui explore KNOB --top N`). The form's answers are shared, each
round's hypothesis, evidence (the ranking's words for its value) and scope drafted; the
drafts are shown once to confirm (ExploreScreen), then the group opens and runs in the Run
pane (its G step), its steps named after each round."""

from __future__ import annotations

import asyncio

from textual.widget import Widget

from pto_tui.core.campaign.explore import ExploreRequest, Prepared
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.rounds.records import PreEdit
from pto_tui.tui.messages import ProjectChanged, RunLoopStep
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app

EXPLORE_TOP = 3  # values of the ranking explored at once


def knob_in_scope(pre: PreEdit, tunables: object) -> str:
    knob = next((item for item in pre.scope if isinstance(tunables, dict) and item in tunables), "")
    if not knob:
        raise InputError("put the knob to explore in the scope (ctrl+g ranks the tile knobs and puts the "
                         "chosen one there)", key="scope")
    return knob


async def ranked_request(session: Session, pre: PreEdit) -> ExploreRequest:
    """The group the ranking drafts: its EXPLORE_TOP best values of the knob in scope."""
    from pto_tui.costmodel import CostmodelCache, make_engine
    from pto_tui.costmodel.service import resolve_settings
    from pto_tui.costmodel.suggest import ranked_picks

    layout, config = session.layout, session.campaign.config
    knob = knob_in_scope(pre, dict(config.tunables))
    settings = resolve_settings(config.costmodel, layout.root, layout.cache_dir / "costmodel.json")
    engine = make_engine(settings.engine, pto_isa=settings.pto_isa, tool=settings.tool,
                         compiler=settings.compiler)
    picks = await ranked_picks(layout.workspace, config, engine, CostmodelCache(settings.cache_path),
                               knob, EXPLORE_TOP)
    pre.evidence = "" if any(p.evidence in pre.evidence for p in picks) else pre.evidence
    return ExploreRequest(knob, tuple(p.value for p in picks), pre,
                          evidence={str(p.value): p.evidence for p in picks})


async def explore_ranking(pane: Widget, session: Session, pre: PreEdit) -> None:
    """Draft, ask once, start the group, and hand it to the Run pane."""
    from pto_tui.backends.explore import npu_slots
    from pto_tui.tui.screens.explore import ExploreScreen

    campaign = session.campaign
    try:
        request = await ranked_request(session, pre)
        ready: Prepared = await asyncio.to_thread(campaign.explore_drafts, request)
    except PtoError as error:
        pto_app(pane).report_error(error, title="explore")
        return
    slots = len(npu_slots(campaign, len(ready.drafts), None))
    justification = await pane.app.push_screen_wait(ExploreScreen(ready, slots))
    if justification is None:
        return
    request = ExploreRequest(**{**request.__dict__, "risk_justification": justification})
    try:
        started = await asyncio.to_thread(campaign.start_group, request)
    except PtoError as error:
        pto_app(pane).report_error(error, title="explore")
        return
    pane.post_message(ProjectChanged("explore"))
    await shown(session, started[0].group)  # the Run pane runs the group it has loaded
    pane.post_message(RunLoopStep("explore"))


async def shown(session: Session, group: str, timeout: float = 10.0) -> None:
    """Until the project as loaded holds the group's rounds (the reload is a worker)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        loaded = session.loaded
        if loaded is not None and any(r.group == group for r in loaded.rounds):
            return
        await asyncio.sleep(0.05)
