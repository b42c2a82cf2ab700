"""The environment round's probes of a slurm target (after `target reachable`): Slurm's
commands answer, the partition exists and is up, it offers the gres a step asks for, and
one real job with that gres runs there (submitted like any NPU step, so a queue, an
account or a time limit that refuses jobs is found before the baseline)."""

from __future__ import annotations

import shlex

from pto_tui.core.project.config import Target
from pto_tui.jobs.model import NEEDS_NPU
from pto_tui.jobs.probes import Probe

SINFO = Probe(
    "slurm: sinfo answers", "sinfo --version && sinfo -h -o '%P %a %D %G'", "slurm",
    checks="Slurm's commands run on the login node and reach its controller",
    fix="load Slurm in [target] env_setup (a module load, SLURM_CONF), or check the controller",
)


def _partition_check(partition: str) -> str:
    """The partition (or the cluster's default one) exists and is up."""
    q = shlex.quote(partition)
    return (
        f"p={q}\n"
        'if [ -z "$p" ]; then p=$(sinfo -h -o %P | grep "\\*$" | head -1 | tr -d "*"); '
        '[ -n "$p" ] || { echo "the cluster has no default partition: set [target.slurm] partition" >&2; '
        'exit 1; }; fi\n'
        'line=$(sinfo -h -p "$p" -o "%P %a %D %T" | head -1)\n'
        '[ -n "$line" ] || { echo "unknown partition $p (known: $(sinfo -h -o %P | paste -sd " "))" >&2; '
        'exit 1; }\n'
        'echo "$line"\n'
        'case "$line" in *" up "*) ;; *) echo "partition $p is not up: $line" >&2; exit 1;; esac'
    )


def _gres_check(partition: str, gres: str) -> str:
    """Some node of the partition offers the gres (name, type if given, at least the count)."""
    parts = gres.split(":")
    name, count = parts[0], parts[-1] if len(parts) > 1 and parts[-1].isdigit() else "1"
    kind = parts[1] if len(parts) == 3 else ""
    where = f"-p {shlex.quote(partition)} " if partition else ""
    check = (
        f"awk -F: -v want={shlex.quote(name)} -v kind={shlex.quote(kind)} -v n={count} "
        "'{ c = $NF + 0; if ($1 == want && (kind == \"\" || $2 == kind) && c >= n) ok = 1 } END { exit !ok }'"
    )
    return (
        f"g=$(sinfo -h {where}-o %G | tr ',' '\\n' | sed 's/(.*//' | sort -u)\n"
        '[ -n "$g" ] || { echo "the partition offers no gres, not ' + gres + '" >&2; exit 1; }\n'
        'echo "$g"\n'
        f'echo "$g" | {check} || {{ echo "the partition offers gres $(echo $g), not {gres}" >&2; exit 1; }}'
    )


def slurm_probes(target: Target) -> tuple[Probe, ...]:
    settings = target.slurm
    partition = settings.partition
    shown = partition or "(default)"
    probes = [SINFO, Probe(f"slurm: partition {shown} is up", _partition_check(partition),
                           checks=f"sinfo lists partition {shown}, state up",
                           fix="set [target.slurm] partition to one sinfo lists as up")]
    if settings.gres:
        offers = _gres_check(partition, settings.gres)
        probes.append(Probe(f"slurm: the partition offers {settings.gres}", offers,
                            checks=f"a node of partition {shown} has gres {settings.gres} (sinfo -o %G)",
                            fix="set [target.slurm] gres to one the partition's nodes offer (npu:1)"))
    ran = 'echo "a job ran on ${SLURMD_NODENAME:-$(hostname)} with NPU ${PTO_SLURM_NPU:-(not reported)}"'
    probes.append(Probe(f"slurm: one job with {settings.gres or 'no gres'} runs", ran, needs=NEEDS_NPU,
                        checks="a batch job with [target.slurm]'s options is accepted, runs and exits 0",
                        fix="Slurm's reason says which [target.slurm] key it refused (partition, gres, "
                            "time_limit, account, options)"))
    return tuple(probes)
