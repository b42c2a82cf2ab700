"""A throw-away one-node Slurm cluster on this machine, for the tests and the benchmarks.

Debian's slurm-wlm (22.05) runs as root without systemd: munged, slurmctld and slurmd are
started by hand in the foreground, each with its files in one private directory, and
every Slurm command reaches this cluster through `SLURM_CONF` (`env`). The node offers a
generic `npu` resource of `npus` slots; `SelectTypeParameters=CR_Core` lets 1-NPU jobs
share the node (by default a job takes the node's whole memory), so a further 1-NPU job
waits "PENDING (Resources)". Two partitions: `ascend` (the default, time limit 60 min)
and `urgent`, whose jobs preempt (cancel) those of `ascend`. No slurmdbd: `sacct` fails
and job states come from squeue and scontrol. Facts it relies on: docs/remote.md §14.
Plain stdlib: no pytest here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SLURMCTLD = "/usr/sbin/slurmctld"
SLURMD = "/usr/sbin/slurmd"
MUNGED = "/usr/sbin/munged"
NODE = "pto-node1"
PARTITION = "ascend"
URGENT = "urgent"  # its jobs preempt those of PARTITION
MAX_MINUTES = 60  # the partition's time limit: a longer --time is refused at submission


class SlurmStartError(RuntimeError):
    """The local cluster could not be started (not installed, not root, a daemon failed)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalSlurm:
    """munged, slurmctld and slurmd of a one-node cluster whose files live in `root`."""

    root: Path
    npus: int = 2
    cpus: int = 4  # declared (config_overrides): CPUs never limit the 1-NPU jobs
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """What a process needs to use this cluster's commands (sbatch, squeue, ...)."""
        return {"SLURM_CONF": str(self.conf)}

    @property
    def env_setup(self) -> str:
        """The same as a target's env_setup line (jobs over SSH do not inherit it)."""
        return f"export SLURM_CONF={self.conf}"

    def prepare(self) -> None:
        missing = [tool for tool in (SLURMCTLD, SLURMD, MUNGED) if not Path(tool).exists()]
        if missing:
            raise SlurmStartError(f"{', '.join(missing)} not found: apt-get install -y slurm-wlm munge")
        if os.geteuid() != 0:
            raise SlurmStartError("the local Slurm cluster runs as root (slurmd starts jobs as their user)")
        for sub in ("munge", "state", "spool", "log"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "munge", 0o711)  # munged refuses a socket folder others may write
        key = self.root / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
            os.chmod(key, 0o400)
        for index in range(self.npus):
            (self.root / f"npu{index}").touch()  # the gres "device" files: IDX is reported

    def _write_config(self) -> None:
        root, host = self.root, socket.gethostname()
        lines = [
            "ClusterName=ptotest",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={root}/munge/munge.sock",
            "SlurmUser=root",
            f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool",
            f"SlurmctldPidFile={root}/slurmctld.pid",
            f"SlurmdPidFile={root}/slurmd.pid",
            f"SlurmctldLogFile={root}/log/slurmctld.log",
            f"SlurmdLogFile={root}/log/slurmd.log",
            "ProctrackType=proctrack/pgid",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "SchedulerType=sched/backfill",
            # schedule a submitted batch job at once (by default up to 3 s later)
            "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "GresTypes=npu",
            "PreemptType=preempt/partition_prio",
            "PreemptMode=CANCEL",
            "ReturnToService=2",
            "EnforcePartLimits=ALL",  # a job over a partition limit is refused at submission
            "SlurmdParameters=config_overrides",
            "MinJobAge=600",
            "KillWait=2",
            f"NodeName={NODE} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={self.cpus} "
            f"Gres=npu:{self.npus} State=UNKNOWN",
            f"PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime={MAX_MINUTES} "
            "PriorityTier=1 State=UP",
            f"PartitionName={URGENT} Nodes={NODE} MaxTime={MAX_MINUTES} PriorityTier=2 "
            "PreemptMode=OFF State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")
        last = self.npus - 1
        files = f"{root}/npu[0-{last}]" if last else f"{root}/npu0"
        (root / "gres.conf").write_text(f"AutoDetect=off\nNodeName={NODE} Name=npu File={files}\n")

    def _spawn(self, argv: list[str], log: str) -> None:
        with (self.root / "log" / log).open("ab") as out:
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                env={**os.environ, **self.env}, start_new_session=True,
            )
        self.processes.append(process)

    def start(self, timeout: float = 30.0) -> None:
        """Start the three daemons and wait until the node is idle."""
        self.prepare()
        self._write_config()
        munge = self.root / "munge"
        self._spawn([MUNGED, "-F", "--force", f"--key-file={munge / 'munge.key'}",
                     f"--socket={munge / 'munge.sock'}", f"--pid-file={munge / 'munged.pid'}",
                     f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'seed'}"], "munged.out")
        self._wait(lambda: (munge / "munge.sock").exists(), timeout, "munged")
        self._spawn([SLURMCTLD, "-D", "-i", "-f", str(self.conf)], "slurmctld.out")
        self._spawn([SLURMD, "-D", "-N", NODE, "-f", str(self.conf)], "slurmd.out")
        self._wait(self._idle, timeout, "slurmd (node idle)")

    def _up(self) -> bool:
        states = self.command("sinfo", "-h", "-N", "-n", NODE, "-o", "%T").stdout
        return bool(states.strip()) and not any(w in states for w in ("down", "drain", "fail"))

    def _idle(self) -> bool:
        # scontrol, not sinfo: after a preemption sinfo went on saying "mixed" for a node
        # scontrol (and the scheduler) had as IDLE, with nothing allocated
        # IDLE+PLANNED: the backfill scheduler's plan for a job since cancelled, cleared
        # only at its next pass (30 s); nothing runs or completes on the node
        node = self.command("scontrol", "-o", "show", "node", NODE)
        return node.returncode == 0 and any(
            f" State={state} " in f" {node.stdout} " for state in ("IDLE", "IDLE+PLANNED"))

    def _wait(self, ready: object, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                break
            if callable(ready) and ready():
                return
            time.sleep(0.1)
        logs = "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}"
            for p in sorted((self.root / "log").glob("*")) if p.is_file()
        )
        self.stop()
        raise SlurmStartError(f"{what} did not come up in {timeout:g} s:\n{logs}")

    def command(self, *argv: str, timeout: float = 20.0) -> subprocess.CompletedProcess[str]:
        """Run one of this cluster's commands (sinfo, scontrol, ...)."""
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **self.env}, check=False)

    def jobs(self) -> list[str]:
        """The ids of every job the cluster still holds pending or running."""
        out = self.command("squeue", "-h", "-o", "%i").stdout
        return out.split()

    def cancel_all(self, timeout: float = 15.0) -> None:
        """Cancel every job and wait until none is left (the next test starts idle)."""
        if not self.jobs():
            return
        self.command("scancel", "--full", *self.jobs())
        deadline = time.monotonic() + timeout
        while self.jobs() and time.monotonic() < deadline:
            time.sleep(0.1)

    def set_node(self, state: str, reason: str = "", timeout: float = 15.0) -> None:
        """`scontrol update` the node's state: DOWN fails the jobs on it, RESUME brings it
        back (refused while the node still completes the jobs it failed: tried again; and
        for a node already up again)."""
        extra = [f"Reason={reason}"] if reason else []
        deadline = time.monotonic() + timeout
        while True:
            result = self.command("scontrol", "update", f"NodeName={NODE}", f"State={state}", *extra)
            if result.returncode == 0 or (state == "RESUME" and self._up()):
                return  # ReturnToService=2 brings a node back by itself once slurmd answers
            if time.monotonic() > deadline:
                raise SlurmStartError(f"scontrol update {state}: {result.stderr.strip()}")
            time.sleep(0.2)

    def wait_idle(self, timeout: float = 20.0) -> None:
        """Until the node is idle again (its jobs ended and completed)."""
        deadline = time.monotonic() + timeout
        seen: list[str] = []  # the node's states while waiting, for the error
        while not self._idle():
            node = self.command("scontrol", "-o", "show", "node", NODE).stdout
            state = next((w for w in node.split() if w.startswith("State=")), "State=?")
            if not seen or seen[-1] != state:
                seen.append(state)
            if time.monotonic() > deadline:
                queue = self.command("squeue", "-t", "all", "-o", "%i %P %T %r").stdout
                raise SlurmStartError(f"{NODE} is not idle after {timeout:g} s (states: "
                                      f"{' then '.join(seen)}):\n{queue}")
            time.sleep(0.1)

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel what runs, then stop the daemons by their pids (TERM, then KILL)."""
        if self.processes and all(p.poll() is None for p in self.processes):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.cancel_all(timeout=5.0)
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout)
        self.processes.clear()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalSlurm:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
