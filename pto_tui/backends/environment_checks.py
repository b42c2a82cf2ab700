"""The environment round's checks by name, shared by the code that runs them (environment.py)
and the panes that list them: what each is called in iter-000's environment notes, which
job's log backs it, and what the notes hold as its evidence.

Light on purpose (no job runner, no SSH): a pane imports it while the app is drawing.
"""

from __future__ import annotations

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import EnvironmentNotes
from pto_tui.jobs.model import job_name
from pto_tui.jobs.probes import REACHABLE

JOB_LABEL = f"{round_name(0)} environment"  # its jobs: "iter-000 environment probe: python"

# checked before the probes of the operator's kind and the target's mode (probes_for)...
TARGET_REACHABLE = REACHABLE.name  # the target kind's own first probe
WORKSPACE_UPLOADED = "workspace uploaded"
WORK_DIR_EXISTS = "work dir exists"
# ...and after them
FULL_BUILD = "full build"
ONE_VALID_RESULT = "one valid result"
# a target that predicts ([target] predict): the perf_sim driver built alongside counted cycles
FIRST_PREDICTION = "perf_sim prediction"

BUILD_STEP = "build"
FIRST_RESULT_STEP = "first result"
# the checks that are not probes: the step whose job stands for each (the prediction's job
# runs as a step of that name)
CHECK_STEPS = {
    FULL_BUILD: BUILD_STEP, ONE_VALID_RESULT: FIRST_RESULT_STEP, FIRST_PREDICTION: FIRST_PREDICTION,
}

# keys of EnvironmentNotes.versions that are not a tool's name
TARGET_VERSION = REACHABLE.version_of  # what the reachable target said of itself
SYNC_VERSION = "sync"  # what the upload did


def probe_step(name: str) -> str:
    """The step a probe's job runs as: "probe: python"."""
    return f"probe: {name}"


def check_job_name(check: str) -> str:
    """The name of the job whose log backs a check (the newest job of that name)."""
    return job_name(JOB_LABEL, CHECK_STEPS.get(check) or probe_step(check))


def problem_line(check: str, problem: str) -> str:
    """A failed check as the notes' problems list it: "python: exit code 127"."""
    return f"{check}: {problem}"


def check_problem(check: str, notes: EnvironmentNotes) -> str:
    """Why a check failed, as the notes say it ("" when they do not)."""
    prefix = f"{check}:"
    line = next((p for p in notes.problems if p.startswith(prefix)), "")
    return line.removeprefix(prefix).strip()


def check_evidence(check: str, notes: EnvironmentNotes) -> str:
    """What backs a passed check: the build's outcome, where the one valid result is, or the
    version its probe recorded (under the tool's name, the first word of the probe's:
    "python"); "ok" when nothing was recorded."""
    if check == FULL_BUILD:
        return notes.build_outcome
    if check == ONE_VALID_RESULT:
        return notes.first_valid_result
    key = {TARGET_REACHABLE: TARGET_VERSION, WORKSPACE_UPLOADED: SYNC_VERSION,
           FIRST_PREDICTION: FIRST_PREDICTION}.get(check, check.split(" ")[0])
    return notes.versions.get(key, "ok")
