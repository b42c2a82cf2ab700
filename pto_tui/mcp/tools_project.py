"""Tools that find, create and read a project: scan, new, import, status, rounds, show,
gates, classes."""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

from pto_tui.core import payloads
from pto_tui.core.campaign.importing import ImportOptions, import_project
from pto_tui.core.campaign.planning import plan_project
from pto_tui.core.campaign.prefill import prefill as prefill_answers
from pto_tui.core.campaign.project_arguments import ProjectArguments, project_answers
from pto_tui.core.campaign.scaffold import create_project
from pto_tui.core.errors import InputError
from pto_tui.core.operators.scan import scan as scan_tree
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.modes import DEFAULT_MODE
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST, OperatorKind
from pto_tui.mcp.catalog import Answer, add
from pto_tui.mcp.inputs import PreEditAnswers
from pto_tui.mcp.projects import Projects


def _kind(text: str) -> OperatorKind | None:
    if not text:
        return None
    try:
        return OperatorKind(text)
    except ValueError:
        known = ", ".join(k.value for k in OperatorKind)
        raise InputError(f"unknown kind {text!r}; one of {known}", key="kind") from None


def register(server: MCPServer, projects: Projects) -> None:
    """Long on purpose: one short tool per closure, each bound to `projects`; the
    tools read best side by side."""

    def scan(dir: str) -> Answer:
        """List candidate PTO operators under a directory (inside the server's roots), with
        kind, evidence, cases and tunables."""
        return Answer(payloads.scan(scan_tree(projects.within(dir, "dir"))))

    def new(
        source: str,
        projects_root: str = "projects",
        name: str = "",
        kind: str = "",
        case: str = "",
        case_spec: str = "",
        shape: dict[str, Scalar] | None = None,
        dtype: str = "",
        causal: bool = False,
        options: dict[str, Scalar] | None = None,
        target: str = "local",
        work_dir: str = "",
        ssh_config: str = "",
        env_setup: str = "",
        npu: int = 0,
        mode: str = DEFAULT_MODE.value,
        compiler: str = "c++",
        cxx_flags: str = "",
        predict: str = "",
        engine: str = "",
        pto_isa: str = "",
        costmodel_tool: str = "",
        requirements: str = "",
        commands: dict[str, str] | None = None,
        related: list[str] | None = None,
    ) -> Answer:
        """Create projects/<op>/ from an operator source (docs/workflow.md §1-§4), as `pto-tui new`
        with the same answers (commands: build, correctness, benchmark, reference, results).
        An existing project is never replaced. source, projects_root and the files named
        (ssh_config, pto_isa, costmodel_tool) must lie inside the server's roots."""
        source_dir = projects.within(source, "source")
        projects_dir = projects.within(projects_root, "projects_root")
        # an SSH config may run commands (ProxyCommand); a costmodel tool or checkout builds code
        named = {"ssh_config": ssh_config, "pto_isa": pto_isa, "costmodel_tool": costmodel_tool}
        for key, path in named.items():
            if path:
                projects.within(path, key)
        arguments = ProjectArguments(
            source=source_dir, kind=_kind(kind), name=name or None, case=case, case_spec=case_spec,
            shape=dict(shape or {}), dtype=dtype, causal=causal, options=dict(options or {}),
            target=target, work_dir=work_dir, ssh_config=ssh_config, env_setup=env_setup, npu=npu,
            mode=mode, compiler=compiler, cxx_flags=cxx_flags, predict=predict, engine=engine,
            pto_isa=pto_isa,
            costmodel_tool=costmodel_tool, requirements=requirements, commands=dict(commands or {}),
            related=tuple(related or ()),
        )
        spec, candidate = plan_project(project_answers(arguments))
        root = create_project(spec, projects_dir, overwrite=False)
        return Answer(payloads.new(root, spec, candidate))

    def import_markdown(
        project: str = "",
        kind: str = "",
        source: str = "",
        case: str = "",
        target: str = "",
        work_dir: str = "",
        env_setup: str = "",
        npu: int = 0,
        mode: str = "",
        ssh_config: str = "",
    ) -> Answer:
        """Read a hand-written (Markdown only) project into records, as `pto-tui import`;
        every conflict and unreadable piece is listed by file and line, and next_steps says
        what the project still needs. source: the operator's folder, copied into workspace/
        (it gives the commands and tunables; inside the server's roots); target (local or
        ssh:ALIAS with work_dir) and mode: where jobs run."""
        root = projects.root(project)
        for key, path in (("source", source), ("ssh_config", ssh_config)):
            if path:
                projects.within(path, key)
        options = ImportOptions(
            kind=_kind(kind), source=Path(source) if source else None, case=case, target=target,
            work_dir=work_dir, env_setup=env_setup, npu=npu, mode=mode, ssh_config=ssh_config,
        )
        return Answer(import_project(root, options).to_json())

    def status(project: str = "") -> Answer:
        """The campaign at a glance: environment, baselines, frontier, verdict counts, the
        three-round rule, rounds missing, unreadable or tampered, unfinished measurements."""
        from pto_tui.backends.sample_journal import unfinished_of

        with projects.campaign(project, write=False, command="status") as campaign:
            return Answer(payloads.status(campaign, unfinished_of(campaign)))

    def verify(project: str = "") -> Answer:
        """The history checked from the files (as `pto-tui verify`): runs/closed.log's
        chain, its anchor in the pto-tui home, every closed round's files and the torch
        baseline; `clean` false and each break listed when anything was changed by hand."""
        from pto_tui.core.campaign.verify import verify as verify_history

        return Answer(verify_history(projects.layout(project)).to_json())

    def rounds(project: str = "") -> Answer:
        """The round table (one row per round, with speedups and tampered marks)."""
        with projects.campaign(project, write=False, command="rounds") as campaign:
            return Answer(payloads.rounds(campaign))

    def show(number: int, project: str = "") -> Answer:
        """One round's record (round.toml as data), its folder, the round it reruns
        (rerun_of) and the rounds that rerun it (reruns)."""
        with projects.campaign(project, write=False, command="show") as campaign:
            return Answer(payloads.show(campaign, number))

    def gates(pre_edit: PreEditAnswers, project: str = "", prefill: bool = False,
              prefill_round: int | None = None) -> Answer:
        """What still blocks a round with these Pre-Edit answers (may_start: nothing does).
        prefill: complete the answers not given from the last closed round (or
        prefill_round) first, as round_start would."""
        pre = pre_edit.to_record()
        with projects.campaign(project, write=False, command="gates") as campaign:
            rounds = campaign.current_rounds()
            if prefill or prefill_round is not None:
                pre = prefill_answers(rounds, pre, prefill_round).pre_edit
            return Answer(payloads.gates(campaign.gates(pre, rounds)))

    def classes() -> Answer:
        """The bottleneck classes and the hardware checklist keys a Pre-Edit form uses."""
        return Answer({"bottleneck_classes": BOTTLENECK_CLASSES, "checklist": HARDWARE_CHECKLIST})

    for tool in (scan, new, status, verify, rounds, show, gates, classes):
        add(server, tool)
    add(server, import_markdown, name="import")
