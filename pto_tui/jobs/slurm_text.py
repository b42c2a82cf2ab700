"""What pto-tui says to Slurm and reads back from it, as text: the batch script and the
sbatch line of a step, the state query (scontrol, else squeue, else sacct: whichever the
cluster answers), and how a job's end is told apart (its own exit code, or Slurm's reason).

Pure functions over strings; the follower in `slurm.py` runs them on the login node.
docs/remote.md §14 says what each state means for a step.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from pto_tui.core.project.config import SlurmSettings
from pto_tui.jobs.shell import quote_path

# Slurm's job states (squeue --help, scontrol): still in the queue or on a node...
ACTIVE_STATES = frozenset({
    "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD",
    "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD", "STOPPED",
})
# ...ended by the batch script itself (its exit status is the step's)...
SCRIPT_ENDED = frozenset({"COMPLETED", "FAILED"})
# ...or ended by Slurm: the command's outcome is unknown, the step is interrupted
SLURM_ENDED = frozenset({
    "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
    "REVOKED", "SPECIAL_EXIT",
})
# pending reasons Slurm gives a job that can never start as asked: waiting is pointless
NEVER_STARTS = frozenset({
    "BadConstraints", "PartitionTimeLimit", "PartitionNodeLimit", "InvalidAccount", "InvalidQOS",
    "AccountNotAllowed", "QOSNotAllowed", "PartitionConfig",
})
# what each Slurm end means, in words
ENDED_WORDS = {
    "CANCELLED": "cancelled outside pto-tui",
    "TIMEOUT": "stopped by Slurm at its time limit",
    "NODE_FAIL": "its node failed",
    "PREEMPTED": "preempted by another job",
    "BOOT_FAIL": "its node failed to boot",
    "DEADLINE": "past its deadline",
    "OUT_OF_MEMORY": "out of memory",
}


@dataclass(frozen=True)
class SlurmJobState:
    """A job as Slurm reports it ("" where it does not say)."""

    state: str = ""  # RUNNING, PENDING, COMPLETED, ...; "" when no tool knows the job
    reason: str = ""  # why it waits or ended: Resources, Priority, NodeDown; "" for None
    node: str = ""
    npu: str = ""  # the gres index the job was given ("0", "0-1"), from scontrol -d
    exit_code: int | None = None  # from ExitCode=code:signal
    source: str = ""  # scontrol | squeue | sacct

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def pending(self) -> bool:
        return self.state == "PENDING"

    def shown(self) -> str:
        """"pending (Resources)", "running on pto-node1"."""
        words = self.state.lower().replace("_", " ")
        if self.pending:
            return f"{words} ({self.reason})" if self.reason else words
        return f"{words} on {self.node}" if self.node else words


def with_setup(env_setup: str, script: str) -> str:
    """A script of Slurm commands after the target's env_setup line (where a site's
    `module load slurm` or its SLURM_CONF would be), whose own output is dropped so the
    script's answer stays readable."""
    if not env_setup.strip():
        return script
    return f"{{ {env_setup}\n}} >/dev/null 2>&1 </dev/null\n{script}"


def job_id_of(sbatch_output: str) -> str:
    """The id `sbatch --parsable` printed ("123" or "123;cluster"); "" when none."""
    first = sbatch_output.strip().splitlines()[-1:] or [""]
    job_id = first[0].split(";", 1)[0].strip()
    return job_id if job_id.isdigit() else ""


def refusal_line(stderr: str) -> str:
    """sbatch's own reason for refusing a job, in one line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line.split("error:", 1)[1].strip() for line in lines if "error:" in line]
    return (errors[-1] if errors else lines[-1] if lines else "no reason given").rstrip(".")


def sbatch_options(settings: SlurmSettings, *, npu: bool, node: str = "") -> list[str]:
    """The sbatch options a step's job is asked with (one argument each)."""
    options = []
    if settings.partition:
        options.append(f"--partition={settings.partition}")
    if npu and settings.gres:
        options.append(f"--gres={settings.gres}")
    if settings.time_limit:
        options.append(f"--time={settings.time_limit}")
    if settings.account:
        options.append(f"--account={settings.account}")
    if node:
        options.append(f"--nodelist={node}")
    return options + list(settings.options)


def batch_script(job_dir: str, command: str) -> str:
    """The batch script: says where it runs (J/placement: node, NPU index, start time),
    runs the step's command, records its exit status in J/rc. The shell catches TERM (a
    cancel, a time limit) so J/rc is still written; a cluster that sets no
    ASCEND_RT_VISIBLE_DEVICES gets the allocated NPU's index there, so device 0 in the job
    is the NPU Slurm gave it."""
    j = quote_path(job_dir)
    return (
        "#!/bin/bash\n"
        "trap : TERM\n"
        'idx=$(scontrol -d show job "$SLURM_JOB_ID" 2>/dev/null | grep -o "IDX:[^)]*" | head -1 '
        '| cut -d: -f2)\n'
        'export PTO_SLURM_NPU="$idx"\n'
        'node="${SLURMD_NODENAME:-$(hostname)}"\n'
        f'echo "$node ${{idx:--}} $(date +%s.%N)" > {j}/placement\n'
        'if [ -z "${ASCEND_RT_VISIBLE_DEVICES:-}" ] && [ -n "$idx" ]; then '
        'export ASCEND_RT_VISIBLE_DEVICES="$idx"; fi\n'
        f"( {command} )\n"
        f"echo $? > {j}/rc.tmp && mv {j}/rc.tmp {j}/rc\n"
    )


def submit_script(job_dir: str, batch: str, name: str, options: list[str]) -> str:
    """Write the batch script into the job's folder and hand it to sbatch: its output goes
    to J/stdout and J/stderr, appended (never requeued: a benchmark is not run twice
    unasked). Prints the Slurm job id, also kept in J/slurm_id."""
    j = quote_path(job_dir)
    argv = [
        "sbatch", "--parsable", f"--job-name={name}", "--no-requeue", "--open-mode=append",
        f"--output={job_dir}/stdout", f"--error={job_dir}/stderr", f"--chdir={job_dir}", *options,
    ]
    sbatch = " ".join(shlex.quote(a) for a in argv)
    return (
        f"mkdir -p {j} && rm -f {j}/rc {j}/slurm_id && : > {j}/stdout && : > {j}/stderr || exit 1\n"
        f"printf '%s' {shlex.quote(batch)} > {j}/batch.sh && chmod +x {j}/batch.sh || exit 1\n"
        f'id=$({sbatch} {j}/batch.sh) || exit 1\n'
        f'echo "$id" > {j}/slurm_id; echo "$id"'
    )


def state_script(job_id: str) -> str:
    """Print the job's state from the first tool that knows it, prefixed by that tool's
    name: scontrol (while slurmctld keeps the job), squeue, then sacct (with accounting)."""
    q = shlex.quote(job_id)
    return (
        f"o=$(scontrol -o -d show job {q} 2>/dev/null) && [ -n \"$o\" ] "
        '&& { echo "scontrol $o"; exit 0; }\n'
        f"o=$(squeue -h -j {q} -o '%T|%r|%N' 2>/dev/null) && [ -n \"$o\" ] "
        '&& { echo "squeue $o"; exit 0; }\n'
        "command -v sacct >/dev/null 2>&1 && "
        f"o=$(sacct -n -P -X -j {q} -o State,ExitCode,NodeList,Reason 2>/dev/null) && [ -n \"$o\" ] "
        "&& { echo \"sacct $o\"; exit 0; }\n"
        "echo unknown"
    )


def rc_and_state_script(job_dir: str, job_id: str) -> str:
    """J/rc (or '-') on the first line, J/placement (node and NPU index, or '-') on the
    second, then the state as `state_script` prints it ("ended 0" after an exit status 0)."""
    j = quote_path(job_dir)
    # a command that ended well needs no word from Slurm (one scontrol less per step)
    return (f"rc=$(cat {j}/rc 2>/dev/null || echo -); echo \"$rc\"\n"
            f"head -1 {j}/placement 2>/dev/null | grep . || echo -\n"
            f'[ "$rc" = 0 ] && {{ echo "ended 0"; exit 0; }}\n{state_script(job_id)}')


def parse_placement(line: str) -> tuple[str, str]:
    """(node, NPU index) from J/placement's line ("node idx start-time", "-" for no index);
    "" for what it does not say."""
    words = line.split() if line.strip() != "-" else []
    npu = words[1] if len(words) > 1 and words[1] != "-" else ""
    return (words[0] if words else "", npu)


def follow_script(job_dir: str, job_id: str, out_offset: int, err_offset: int) -> str:
    """Stream the job's output files from byte offsets until J/rc appears or Slurm no longer
    lists the job (asked each second; J/rc is looked for every 0.1 s)."""
    j, q = quote_path(job_dir), shlex.quote(job_id)
    tail = "tail -s 0.1 -F --pid=$w -c +{start} {file}"
    return (
        f"( n=0; while [ ! -e {j}/rc ]; do n=$((n+1)); if [ $((n % 10)) -eq 0 ]; then "
        f"squeue -h -j {q} -o %t 2>/dev/null | grep -q . || break; fi; sleep 0.1; done ) & "
        "w=$!; "
        f"{tail.format(start=out_offset + 1, file=f'{j}/stdout')} & "
        f"{tail.format(start=err_offset + 1, file=f'{j}/stderr')} >&2; wait"
    )


def cancel_script(job_id: str) -> str:
    return f"scancel {shlex.quote(job_id)}"


_FIELD = re.compile(r"(?:^|\s)(JobState|NodeList|ExitCode)=(\S*)")
_REASON = re.compile(r"(?:^|\s)Reason=(.*?)(?=\s+\w+=|$)")
_IDX = re.compile(r"GRES=[^\s(]*\(IDX:([^)]*)\)")


def parse_state(text: str) -> SlurmJobState:
    """The state as `state_script` printed it; an empty state when no tool knew the job."""
    source, _, rest = text.strip().partition(" ")
    if source == "ended":  # the batch script ran to its end with status 0: Slurm completes it
        return SlurmJobState("COMPLETED", exit_code=0, source="rc")
    if source == "scontrol":
        fields = dict(_FIELD.findall(rest))
        said = _REASON.search(rest)
        idx = _IDX.search(rest)
        return SlurmJobState(
            state=fields.get("JobState", ""), reason=_reason(said.group(1) if said else ""),
            node=_node(fields.get("NodeList", "")), npu=idx.group(1) if idx else "",
            exit_code=_exit_code(fields.get("ExitCode", "")), source=source)
    if source == "squeue":
        state, reason, node = (rest.splitlines()[0].split("|") + ["", ""])[:3]
        return SlurmJobState(state=state, reason=_reason(reason), node=_node(node), source=source)
    if source == "sacct":
        state, code, node, reason = (rest.splitlines()[0].split("|") + ["", "", ""])[:4]
        # sacct says "CANCELLED by 1000": the state is the first word
        return SlurmJobState(state=state.split(" ")[0], reason=_reason(reason), node=_node(node),
                             exit_code=_exit_code(code), source=source)
    return SlurmJobState()


def _reason(text: str) -> str:
    text = text.strip().strip("()")
    return "" if text in ("None", "(null)") else text


def _node(text: str) -> str:
    return "" if text in ("(null)", "None assigned") else text


def _exit_code(text: str) -> int | None:
    code = text.split(":", 1)[0]
    return int(code) if code.isdigit() else None


def ended_by_slurm(job_id: str, state: SlurmJobState) -> str:
    """One line saying why Slurm ended (or will never start) the job, in its own words."""
    words = ENDED_WORDS.get(state.state, "")
    where = f" on {state.node}" if state.node and not state.pending else ""
    reason = f", reason {state.reason}" if state.reason else ""
    told = f" ({words})" if words else ""
    return f"slurm job {job_id} {state.state}{where}{reason}{told}"
