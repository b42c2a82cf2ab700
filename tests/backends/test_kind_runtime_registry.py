"""The run-time registry of operator kinds: every kind has a backend, probes for each mode
it runs in and a reader of a result file given by hand; an entry (or a target kind's)
registered here is what `backend_for` and the environment round use, with no other edit.
The demo PTO-DSL operator runs for real on this machine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.backends.environment import probes_for, run_environment
from pto_tui.backends.kinds.backend import Backend, BenchOutcome
from pto_tui.backends.kinds.pto_dsl import DslBackend
from pto_tui.backends.kinds.registry import RUNTIME_KINDS, backend_for
from pto_tui.backends.loop import site_for
from pto_tui.core.project.config import Scalar, Target
from pto_tui.core.project.kinds.registry import PROJECT_KINDS
from pto_tui.core.vocabulary import OperatorKind, TargetKind, TargetMode
from pto_tui.jobs.probes import REACHABLE, Probe
from pto_tui.jobs.targets import TARGET_KINDS
from tests.backends.helpers import demo_project, open_loop


@pytest.mark.parametrize("kind", list(OperatorKind))
def test_every_operator_kind_has_its_run_time_part(kind: OperatorKind) -> None:
    runtime = RUNTIME_KINDS[kind]
    assert runtime.kind is kind and issubclass(runtime.backend, Backend)
    assert callable(runtime.report_outcome)
    assert all(issubclass(cls, Backend) for cls in runtime.mode_backends.values())
    for mode in PROJECT_KINDS[kind].modes:  # every mode the project part allows is probed
        probes = runtime.probes[mode](Target(mode=mode))
        assert probes and all(isinstance(p, Probe) and p.name and p.command for p in probes)


class _Measured(DslBackend):
    """The demo's own backend, counting what the environment round asks of it."""

    builds = 0
    benchmarks = 0

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        _Measured.builds += 1
        return await super().build(parameters, step)

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        _Measured.benchmarks += 1
        return await super().benchmark(step, parameters)


async def test_a_kind_and_a_target_kind_registered_here_run_the_environment_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _Measured.builds = _Measured.benchmarks = 0
    demo = Probe("registered probe", "echo registered-1.0", "registered")
    runtime = replace(
        RUNTIME_KINDS[OperatorKind.PTO_DSL], backend=_Measured, probes={TargetMode.DEMO: lambda _t: [demo]}
    )
    monkeypatch.setitem(RUNTIME_KINDS, OperatorKind.PTO_DSL, runtime)
    scheduler = Probe("scheduler answers", "echo scheduler-2.0", "scheduler")
    local = replace(TARGET_KINDS[TargetKind.LOCAL], probes=(REACHABLE, scheduler))
    monkeypatch.setitem(TARGET_KINDS, TargetKind.LOCAL, local)
    root = demo_project(tmp_path, "dsl")
    async with open_loop(root) as (campaign, runner):
        assert isinstance(backend_for(site_for(campaign, runner)), _Measured)
        assert probes_for(campaign.config) == [demo]
        notes = await run_environment(campaign, runner)
    assert notes.passed, notes.problems
    assert list(notes.probes)[:2] == ["target reachable", "scheduler answers"]
    assert notes.probes["registered probe"] and notes.versions["registered"] == "registered-1.0"
    assert notes.versions["scheduler"] == "scheduler-2.0"
    assert (_Measured.builds, _Measured.benchmarks) == (1, 1)


async def test_a_mode_with_its_own_backend_gets_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = replace(RUNTIME_KINDS[OperatorKind.PTO_DSL], mode_backends={TargetMode.DEMO: _Measured})
    monkeypatch.setitem(RUNTIME_KINDS, OperatorKind.PTO_DSL, runtime)
    root = demo_project(tmp_path, "dsl")
    async with open_loop(root) as (campaign, runner):
        assert type(backend_for(site_for(campaign, runner))) is _Measured
        monkeypatch.setitem(RUNTIME_KINDS, OperatorKind.PTO_DSL, replace(runtime, mode_backends={}))
        assert type(backend_for(site_for(campaign, runner))) is DslBackend
