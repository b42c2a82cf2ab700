"""Which backend service a Run pane step calls, and whether a round run goes on from an
earlier one (a job of it kept running, or its sample journal) instead of starting over."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from pto_tui.jobs.model import JobRecord
from pto_tui.tui.session import Snapshot
from pto_tui.tui.widgets.run_texts import unfinished_of_open_round

Service = Callable[..., Awaitable[Any]]


def loop_service(step: str, snap: Snapshot | None, kept: JobRecord | None) -> tuple[Service, bool]:
    """(the service to call with (campaign, runner, on_event), whether it resumes a run)."""
    from pto_tui.backends.environment import run_environment
    from pto_tui.backends.loop import run_baseline, run_round
    from pto_tui.backends.reference import run_reference
    from pto_tui.backends.resume import resume_round

    if step == "round" and (kept is not None or unfinished_of_open_round(snap) is not None):
        # what the earlier run measured is kept, the job left running adopted: the rest runs
        return functools.partial(resume_round, kept=kept, close=False), True
    if step == "round":  # measured, then closed only once its Post-Run is written
        return functools.partial(run_round, close=False), False
    services: dict[str, Service] = {"environment": run_environment, "reference": run_reference,
                                    "baseline": run_baseline}
    return services[step], False
