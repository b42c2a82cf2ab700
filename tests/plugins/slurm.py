"""pytest plugin: a real one-node Slurm cluster on this machine (Debian's slurm-wlm, run as
root without systemd, its files in a temporary folder), and slurm targets on it.

Fixtures:
- slurm_cluster (session): a running LocalSlurm (pto_tui/jobs/local_slurm.py) with a gres
  `npu` of 2 slots: .conf, .env (SLURM_CONF), .env_setup, .command(...), .jobs(),
  .set_node(...), .cancel_all(). Started once, stopped at the end of the session.
- slurm (function): the cluster with no job left from an earlier test, SLURM_CONF set in
  this test's environment (jobs of a local slurm target inherit it); every job still
  queued or running when the test ends is cancelled.
- slurm_target (function): a `Target` of kind slurm whose login node is this machine,
  partition `ascend`, gres npu:1, with a fresh (existing) work dir in the test's tmp dir.
Mark such tests `slurm`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pto_tui.core.project.config import SlurmSettings, Target
from pto_tui.jobs.local_slurm import PARTITION, LocalSlurm


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSlurm]:
    cluster = LocalSlurm(tmp_path_factory.mktemp("slurm"))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def slurm(slurm_cluster: LocalSlurm, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalSlurm]:
    slurm_cluster.cancel_all()
    slurm_cluster.wait_idle()
    for name, value in slurm_cluster.env.items():
        monkeypatch.setenv(name, value)
    try:
        yield slurm_cluster
    finally:
        slurm_cluster.cancel_all()


def slurm_settings(**changes: object) -> SlurmSettings:
    values: dict[str, object] = {"partition": PARTITION, "gres": "npu:1"}
    values.update(changes)
    return SlurmSettings(**values)  # type: ignore[arg-type]


@pytest.fixture
def slurm_target(slurm: LocalSlurm, tmp_path: Path) -> Target:
    work_dir = tmp_path / "cluster-work"
    work_dir.mkdir()
    return Target(kind="slurm", work_dir=str(work_dir), env_setup=slurm.env_setup,  # type: ignore[arg-type]
                  slurm=slurm_settings())
