"""[discipline] interleave: the frontier's own build, run alternately with the round's.

A host whose speed drifts between rounds (its clocks, its temperature, other tenants)
makes a round's runs unfair against the frontier's runs stored weeks ago. With interleave
on, a round's run also builds the frontier round's files (its closing workspace snapshot,
with its parameters) in a work dir of its own on the same target, and the benchmark
alternates: frontier run, round run, frontier run, ... after the warm-ups of both. The
verdict compares the round with these fresh frontier runs (`core/rounds/interleaved.py`);
the adaptive repeats count pairs. The frontier's own record never changes.

The frontier's copy is written under the project's `.pto-tui/frontier/<key>/` and, on a
target with a work dir W, uploaded to `W-frontier/<key>` (a local target without a work
dir builds in the copy itself). The key names the frontier round and hashes its snapshot,
its parameters and the build command, so a later round with the same frontier reuses its
build: `<key>.built.json` beside the copy says where it was built. A frontier that cannot
be re-measured (no snapshot, a failed build or run) stops the round with an error naming
it, and nothing is recorded as measured.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pto_tui.backends.kinds.backend import Backend
from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.runs import (
    RunPlan,
    build_step,
    more_runs,
    note_placement,
    one_run,
    say,
    take_run,
    take_warm_up,
    warm_up_step,
)
from pto_tui.backends.site import OperatorSite, StepEvent
from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.core.workspace.snapshots import SnapshotStore
from pto_tui.jobs.errors import SyncError

FOLDER = "frontier"  # in the project's .pto-tui/
HINT = (
    "make the frontier build and run on the target again, or set [discipline] interleave = "
    "false to judge rounds against the frontier's stored runs"
)


class FrontierUnavailable(PtoError):
    """The frontier cannot be re-measured: the round's run stops, nothing is recorded."""


@dataclass
class Interleave:
    """The frontier round's build on the target, run alternately with the round's."""

    number: int  # the frontier round
    parameters: dict[str, Scalar]  # its parameter values, as it was measured
    backend: Backend  # on a site of its own: its copy, its work dir, the same target
    built_file: Path  # where its build was made, once made

    @property
    def name(self) -> str:
        return round_name(self.number)

    def unavailable(self, why: str) -> FrontierUnavailable:
        return FrontierUnavailable(
            f"the frontier {self.name} cannot be re-measured for interleaved runs: {why}", hint=HINT
        )

    async def ready(self) -> None:
        """The frontier's copy uploaded and built on the target; a build made there before
        is reused while the copy there is unchanged."""
        site = self.backend.site
        where = f"{site.target.label}:{site.target.work_dir}"
        uploaded = await self._upload()
        if not uploaded and _built_in(self.built_file) == where:
            say(site, f"the frontier {self.name} is built for interleaved runs in {where}: reusing it",
                "frontier build")
            return
        say(site, f"building the frontier {self.name} for interleaved runs, in {where}", "frontier build")
        self.built_file.unlink(missing_ok=True)
        ok, problem = await build_step(self.backend, self.parameters, "frontier build")
        if not ok:
            raise self.unavailable(problem)
        record = {"round": self.number, "built_in": where, "at": time.time()}
        await asyncio.to_thread(atomic_write_text, self.built_file, json.dumps(record) + "\n")

    async def _upload(self) -> bool:
        """Sync the copy to its work dir; whether anything had to be sent or removed."""
        site = self.backend.site
        if not site.synced:
            return False
        site.on_event(StepEvent("frontier sync", "started"))
        try:
            report = await site.runner.sync_workspace(site.target, site.workspace)
        except SyncError as error:
            raise self.unavailable(error.render()) from None
        site.on_event(StepEvent("frontier sync", "finished"))
        return bool(report.uploaded or report.deleted)

    async def runs(self, candidate: Backend, parameters: dict[str, Scalar], plan: RunPlan,
                   m: Measurement, keep: Callable[[Measurement], None]) -> None:
        """The round's timed runs in pairs with the frontier's (the frontier first), after
        the warm-ups of both; those `m` holds (a journal's) are not run again."""
        if m.frontier_round != self.number:  # runs of another frontier are no pair for these
            m.frontier_samples_us, m.frontier_round = [], self.number
        started = False
        while (frontiers_turn := self._turn(plan, m, candidate.site)) is not None:
            # built and warmed only when a run is due (not for a full journal), and after a
            # run an earlier run left (adopted): the warm-ups would overwrite its results
            step = (f"frontier {plan.step(len(m.frontier_samples_us))}" if frontiers_turn
                    else plan.step(len(m.samples_us)))
            if not started and not candidate.site.adopts(step):
                await self.ready()
                say(candidate.site, f"interleaved runs: the frontier {self.name} and this round "
                    "alternate on the same target, the frontier first")
                if not await self._warm_up(candidate, parameters, plan, m):
                    return
                started = True
            if frontiers_turn:
                await self._frontier_run(plan, m)
            else:
                index = len(m.samples_us)
                candidate.site.last_placement = ""
                if not take_run(await one_run(candidate, plan.step(index), parameters), index, m):
                    return
                note_placement(m, candidate.site.last_placement)
            keep(m)

    def _turn(self, plan: RunPlan, m: Measurement, site: OperatorSite) -> bool | None:
        """True: the frontier's run is next; False: the round's; None: the runs are done.
        A pair is a frontier run and the round's run after it; a journal of a run made
        without the frontier's has the frontier catch up first."""
        mine, theirs = len(m.samples_us), len(m.frontier_samples_us)
        if theirs != mine:
            return theirs < mine
        return True if more_runs(plan, m, lambda text: say(site, text)) else None

    async def _frontier_run(self, plan: RunPlan, m: Measurement) -> None:
        index = len(m.frontier_samples_us)
        outcome = await one_run(self.backend, f"frontier {plan.step(index)}", self.parameters)
        if not outcome.valid or outcome.correct is False or outcome.duration_us is None:
            raise self.unavailable(f"its run {index + 1}: {outcome.problem or 'invalid result'}")
        m.frontier_samples_us.append(outcome.duration_us)

    async def _warm_up(self, candidate: Backend, parameters: dict[str, Scalar], plan: RunPlan,
                       m: Measurement) -> bool:
        """The warm-ups of both, alternating as the timed runs do; False (the problem in
        `m`) when the round's fails."""
        for index in range(plan.warmup):
            step = warm_up_step(index, plan)
            outcome = await one_run(self.backend, f"frontier {step}", self.parameters)
            if not outcome.valid or outcome.correct is False:
                raise self.unavailable(f"its warm-up run {index + 1}: {outcome.problem or 'invalid result'}")
            if not take_warm_up(await one_run(candidate, step, parameters), index, m):
                return False
        return True


async def interleaved_frontier(
    campaign: Campaign, site: OperatorSite, flops: float | None
) -> Interleave | None:
    """The frontier of the open round, its files copied out of its snapshot, ready to be
    built on `site`'s target; None when interleave is off or there is nothing to compare
    with (the baseline). Raises FrontierUnavailable when its files cannot be had."""
    if not campaign.config.discipline.interleave:
        return None
    frontier = campaign.frontier_of(campaign.rounds())
    if frontier is None:
        return None
    name = round_name(frontier.number)
    if not frontier.snapshot:
        raise FrontierUnavailable(
            f"the frontier {name} cannot be re-measured for interleaved runs: it has no workspace "
            "snapshot (imported from Markdown, or closed by hand), so its files are not known", hint=HINT
        )
    parameters = dict(frontier.changes.parameter_values)
    key = frontier_key(frontier, site.render(campaign.config.commands.build, parameters))
    folder = campaign.layout.state_dir / FOLDER
    try:
        fresh = await asyncio.to_thread(_write_copy, campaign.snapshots, frontier.snapshot, folder / key)
    except PtoError as error:
        raise FrontierUnavailable(
            f"the frontier {name} cannot be re-measured for interleaved runs: {error.message}",
            file=error.file, hint=HINT
        ) from None
    built_file = folder / f"{key}.built.json"
    if fresh:  # a new copy was never built, whatever an old record says
        built_file.unlink(missing_ok=True)
    configured = campaign.config.target
    work_dir = "" if site.on_this_machine and not configured.work_dir else (
        f"{site.target.work_dir.rstrip('/')}-frontier/{key}")
    other = site.elsewhere(folder / key, work_dir)
    return Interleave(frontier.number, parameters, backend_for(other, flops), built_file)


def frontier_key(frontier: Round, build_command: str) -> str:
    """The name of the frontier's copy and work dir: its round, and a hash of what its
    build depends on (its files, its parameters, the build command)."""
    what = json.dumps([frontier.snapshot, frontier.changes.parameter_values, build_command], sort_keys=True)
    return f"{round_name(frontier.number)}-{hashlib.sha256(what.encode()).hexdigest()[:12]}"


def _write_copy(store: SnapshotStore, snap_id: str, dest: Path) -> bool:
    """The snapshot's files in `dest`, written whole or not at all; False when they were
    there already."""
    if dest.is_dir():
        return False
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    store.write_copy(snap_id, partial)
    partial.rename(dest)
    return True


def _built_in(path: Path) -> str:
    """Where the frontier's build recorded in `path` was made ("" when none is)."""
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["built_in"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""
