"""Shared test set-up. Fixture plugins live in tests/plugins/ (one module per real thing)."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.plugins.sshd", "tests.plugins.slurm"]

# sample operators and repositories: some carry their own tests (run by the operator's
# commands in a round), which are not pto-tui's
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test out of the user's own pto-tui home and project choice."""
    monkeypatch.setenv("PTO_TUI_HOME", str(tmp_path_factory.mktemp("pto-tui-home")))
    monkeypatch.delenv("PTO_TUI_PROJECT", raising=False)


# The end-to-end flows: whole campaigns through the backends, the CLI's demo, remote
# faults over the test sshd, and the TUI driving a loop. `scripts/test.sh --fast` skips
# them (marker e2e) for the edit–test loop; CI runs everything.
E2E_MODULES = {
    "tests/backends/test_demo_loop.py",
    "tests/backends/test_demo_cli.py",
    "tests/backends/test_remote_and_faults.py",
    "tests/backends/test_repository_e2e.py",
    "tests/backends/test_tilelib_repository_e2e.py",
    "tests/backends/test_cpu_sim_e2e.py",
    "tests/backends/test_printed_result_e2e.py",
    "tests/backends/test_declared_repository_e2e.py",
    "tests/backends/test_perf_sim_e2e.py",
    "tests/backends/test_slurm_campaign.py",
    "tests/backends/test_explore.py",
    "tests/backends/test_perf_sim_predict_e2e.py",
    "tests/meta/test_benchmarks_run.py",
    "tests/tui/test_demo_loop.py",
    "tests/tui/test_round_flow.py",
    "tests/tui/test_slurm_round.py",
    "tests/tui/test_tmux_session.py",
    "tests/tui/test_tmux_left_jobs.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        if item.path.relative_to(root).as_posix() in E2E_MODULES:
            item.add_marker(pytest.mark.e2e)
