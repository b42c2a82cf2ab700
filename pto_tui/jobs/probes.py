"""Probes: short commands whose success says the target, a tool or a library is there. The
environment round runs each as a job and records its outcome and the version it prints;
each target kind names its own (jobs/targets.py), each operator kind its own per mode
(backends/kinds/)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    name: str
    command: str
    version_of: str = ""  # record an output line as this tool's version
    # which line carries the version: the first, or the last for `command -v x && x --version`
    version_line: int = 0
    needs: str = ""  # what the probe's job needs of a scheduler (JobSpec.needs): NEEDS_NPU submits it
    checks: str = ""  # what a pass means, in words ("" : the command says it)
    fix: str = ""  # what to do when it fails: install, set a key, another mode
    env_setup: bool = True  # run after [target] env_setup (the first probe runs before it)

    def failed(self, why: str) -> str:
        """The failure as the environment notes keep it: what failed, what was checked,
        and the next step."""
        checked = self.checks or f"`{self.command}`"
        text = f"{self.name}: {why} (checked: {checked})"
        return text + (f"\n  hint: {self.fix}" if self.fix else "")


# the first probe of every target kind so far: answers at all, and says what it is; it
# runs without [target] env_setup, which has its probe of its own next
REACHABLE = Probe(
    "target reachable", "echo ok; uname -srm", "target", version_line=-1,
    checks="a shell on the target answers", env_setup=False,
    fix="check the host, [target] host and ssh_config, and that `ssh HOST true` works",
)
ENV_SETUP = Probe(
    "environment set-up", "true",
    checks="[target] env_setup runs and exits 0",
    fix="fix [target] env_setup in project.toml (--env-setup at new): run it by hand on the "
    "target to see why it fails",
)
