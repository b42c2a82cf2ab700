"""What pto-tui reads back from Slurm, on the tools' own output (as printed by Slurm 22.05's
scontrol -o -d, squeue -o '%T|%r|%N' and sacct -n -P -X), and the sbatch line it writes."""

from __future__ import annotations

import pytest

from pto_tui.core.project.config import SlurmSettings
from pto_tui.jobs.slurm_text import (
    SlurmJobState,
    ended_by_slurm,
    job_id_of,
    parse_placement,
    parse_state,
    refusal_line,
    sbatch_options,
)

RUNNING = (
    "scontrol JobId=16 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901744 "
    "Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 "
    "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 DerivedExitCode=0:0 RunTime=00:00:02 "
    "TimeLimit=01:00:00 Partition=ascend ReqNodeList=(null) ExcNodeList=(null) NodeList=pto-node1 "
    "BatchHost=pto-node1 NumNodes=1 JOB_GRES=npu:1   Nodes=pto-node1 CPU_IDs=0 Mem=0 "
    "GRES=npu:1(IDX:0) MinCPUsNode=1 StdOut=/dev/null Power= TresPerNode=gres:npu:1 "
)
PENDING = (
    "scontrol JobId=18 JobName=wrap UserId=root(0) JobState=PENDING Reason=Resources "
    "Dependency=(null) Requeue=1 ExitCode=0:0 DerivedExitCode=0:0 Partition=ascend "
    "ReqNodeList=(null) ExcNodeList=(null) NodeList= SchedNodeList=pto-node1 NumNodes=1 "
    "TresPerNode=gres:npu:1 "
)
NODE_FAILED = (
    "scontrol JobId=10 JobName=wrap UserId=root(0) JobState=NODE_FAIL Reason=NodeDown "
    "Dependency=(null) Requeue=0 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 NodeList=pto-node1 "
)
WAITING_FOR_NODES = (
    "scontrol JobId=31 JobName=b UserId=me(1000) JobState=PENDING "
    "Reason=ReqNodeNotAvail,_UnavailableNodes:node[3-4] Dependency=(null) ExitCode=0:0 NodeList= "
)


@pytest.mark.parametrize(("text", "expected"), [
    (RUNNING, SlurmJobState("RUNNING", "", "pto-node1", "0", 0, "scontrol")),
    (PENDING, SlurmJobState("PENDING", "Resources", "", "", 0, "scontrol")),
    (NODE_FAILED, SlurmJobState("NODE_FAIL", "NodeDown", "pto-node1", "", 0, "scontrol")),
    (WAITING_FOR_NODES,
     SlurmJobState("PENDING", "ReqNodeNotAvail,_UnavailableNodes:node[3-4]", "", "", 0, "scontrol")),
    ("squeue PENDING|Resources|", SlurmJobState("PENDING", "Resources", "", source="squeue")),
    ("squeue RUNNING|None|pto-node1", SlurmJobState("RUNNING", "", "pto-node1", source="squeue")),
    ("sacct CANCELLED by 1000|0:15|node17|None", SlurmJobState("CANCELLED", "", "node17", "", 0, "sacct")),
    ("sacct FAILED|2:0|node17|None", SlurmJobState("FAILED", "", "node17", "", 2, "sacct")),
    ("sacct PENDING|0:0|None assigned|Priority", SlurmJobState("PENDING", "Priority", "", "", 0, "sacct")),
    ("ended 0", SlurmJobState("COMPLETED", exit_code=0, source="rc")),  # rc_and_state_script's
    ("unknown", SlurmJobState()),
])
def test_the_state_is_read_from_whichever_tool_answered(text: str, expected: SlurmJobState) -> None:
    assert parse_state(text) == expected


def test_what_a_state_says_in_words() -> None:
    assert parse_state(PENDING).shown() == "pending (Resources)"
    assert parse_state(RUNNING).shown() == "running on pto-node1"
    assert parse_state(PENDING).active and not parse_state(NODE_FAILED).active
    assert ended_by_slurm("10", parse_state(NODE_FAILED)) == \
        "slurm job 10 NODE_FAIL on pto-node1, reason NodeDown (its node failed)"
    waiting = SlurmJobState("PENDING", "PartitionTimeLimit")
    assert ended_by_slurm("7", waiting) == "slurm job 7 PENDING, reason PartitionTimeLimit"


def test_sbatch_s_answers_are_read_to_an_id_or_a_reason() -> None:
    assert job_id_of("812\n") == "812" and job_id_of("812;cluster-a\n") == "812"
    assert job_id_of("") == "" and job_id_of("sbatch: error: x") == ""
    said = ("sbatch: error: invalid partition specified: gone\n"
            "sbatch: error: Batch job submission failed: Invalid partition name specified\n")
    assert refusal_line(said) == "Batch job submission failed: Invalid partition name specified"
    assert refusal_line("") == "no reason given"
    assert parse_placement("pto-node1 0-1 1796529601.25") == ("pto-node1", "0-1")
    assert parse_placement("-") == ("", "") and parse_placement("node2 - 1796529601.25") == ("node2", "")


def test_the_sbatch_options_come_from_target_slurm() -> None:
    settings = SlurmSettings(partition="ascend910b", gres="npu:1", time_limit="30", account="kernels",
                             options=("--qos=high",))
    assert sbatch_options(settings, npu=True, node="node7") == [
        "--partition=ascend910b", "--gres=npu:1", "--time=30", "--account=kernels", "--nodelist=node7",
        "--qos=high"]
    assert sbatch_options(settings, npu=False) == [  # a build in a job asks for no NPU
        "--partition=ascend910b", "--time=30", "--account=kernels", "--qos=high"]
    assert sbatch_options(SlurmSettings(gres=""), npu=True) == []
