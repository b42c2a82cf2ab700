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


# the first probe of every target kind so far: answers at all, and says what it is
REACHABLE = Probe("target reachable", "echo ok; uname -srm", "target", version_line=-1)
