"""The one mapping from a new project's arguments (flags, the wizard's fields, an MCP
tool's arguments) to the answers the project is planned from."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.campaign.project_arguments import ProjectArguments, project_answers
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import OperatorKind, TargetKind, TargetMode


def test_every_argument_reaches_the_answers_and_the_target() -> None:
    answers = project_answers(ProjectArguments(
        source=Path("/src/fa"), kind=OperatorKind.PTO_TILE_LIB, name="fa2", case="big",
        case_spec="128,128,1024", shape={"S": 1024}, dtype="bfloat16", causal=True,
        options={"layout": "BSND"}, target="ssh:npu-a", work_dir="/w/fa", ssh_config="/etc/lab_ssh",
        env_setup="source set_env.sh", npu=2, mode=TargetMode.CPU_SIM.value, compiler="g++", cxx_flags="-O2",
        engine="external", pto_isa="/pto-isa", costmodel_tool="/q.py", requirements="fast",
        commands={"build": "make"}, related=("include/x.h",),
    ))
    assert answers.target == Target(
        kind=TargetKind.SSH, host="npu-a", work_dir="/w/fa", env_setup="source set_env.sh", npu_id=2,
        ssh_config="/etc/lab_ssh", mode=TargetMode.CPU_SIM, compiler="g++", cxx_flags="-O2",
    )
    assert (answers.source, answers.kind, answers.name) == (Path("/src/fa"), OperatorKind.PTO_TILE_LIB, "fa2")
    assert (answers.case_name, answers.case_spec, answers.shape) == ("big", "128,128,1024", {"S": 1024})
    assert (answers.dtype, answers.causal, answers.options) == ("bfloat16", True, {"layout": "BSND"})
    assert (answers.engine, answers.pto_isa, answers.costmodel_tool) == ("external", "/pto-isa", "/q.py")
    assert (answers.requirements, answers.commands) == ("fast", {"build": "make"})
    assert answers.related == ["include/x.h"]


def test_the_defaults_are_a_local_npu_target_and_a_classified_operator() -> None:
    answers = project_answers(ProjectArguments(source=Path("fa")))
    assert answers.target == Target()
    assert answers.kind is None and answers.name is None and not answers.commands


def test_an_unknown_command_and_a_bad_target_are_refused_by_name() -> None:
    with pytest.raises(InputError, match="unknown command 'deploy'; the commands are build, correctness"):
        project_answers(ProjectArguments(source=Path("fa"), commands={"deploy": "x"}))
    with pytest.raises(InputError, match="remote work directory"):
        project_answers(ProjectArguments(source=Path("fa"), target="ssh:npu-a"))
