"""Recording a round's changes: the files changed against the round's base, parameter
changes applied to the source and project.toml, the editable scope checked, files.txt
and patch.diff written. Refusals happen before anything is written."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pto_tui.core.campaign.checks import (
    check_integrity,
    check_open_record,
    check_workload_reads,
    tunable_file,
)
from pto_tui.core.campaign.context import CampaignContext
from pto_tui.core.campaign.requests import ChangesRequest
from pto_tui.core.errors import InputError
from pto_tui.core.operators.tunables import apply_parameter, discover
from pto_tui.core.project.config import Scalar, Tunable, operator_folder, source_folder
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Changes, ParamChange, Round
from pto_tui.core.rules.pre_edit import scope_findings
from pto_tui.core.rules.protected import bug_fix_findings
from pto_tui.core.rules.risk import diff_risks, parameter_risks, risk_findings, tile_knobs
from pto_tui.core.rules.rule import refuse
from pto_tui.core.rules.scope import changed_lines, only_parameter_lines, outside_scope
from pto_tui.core.rules.workload import workload_knob_findings
from pto_tui.core.vocabulary import ChangeKind
from pto_tui.core.workspace.files import iter_workspace_files

KERNEL_SUFFIXES = (".py", ".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh")
MAX_SOURCE_BYTES = 1_000_000  # a bigger file is generated data, not the kernel's source
MAX_SOURCES = 500


def _stamp(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return (info.st_mtime_ns, info.st_size, info.st_ino)


class ChangeRecorder:
    def __init__(self, campaign: CampaignContext) -> None:
        self.campaign = campaign
        # the operator's tunables as last discovered, by the stamps of the files read:
        # parsing every source file is the costliest step of recording changes
        self._discovered: tuple[object, list[Tunable]] | None = None

    def record_changes(self, request: ChangesRequest) -> Round:
        """Detect the files changed against the round's base, apply parameter changes to
        the source and project.toml, check the editable scope, and write files.txt and
        patch.diff. Refusals happen before anything is written."""
        campaign = self.campaign
        campaign.require_write()
        record = campaign.open_record(request.number)
        # --set writes the source: never under another owner's build
        campaign.check_owner(
            record.number, workspace=True, doing=f"recording {round_name(record.number)}'s changes"
        )
        check_open_record(campaign, record)  # hand edits of round.toml since it started
        changes = record.changes
        given_kind = changes.kind if changes.kind != self._inferred_kind(changes) else None
        refuse(bug_fix_findings(request.bug_fix))
        changes.bug_fix = request.bug_fix or changes.bug_fix
        changes.risk_justification = request.risk_justification or changes.risk_justification
        changes.tolerance_approval = request.tolerance_approval or changes.tolerance_approval
        changes.discipline_approval = request.discipline_approval or changes.discipline_approval
        requested = dict(request.parameters)
        self._check_requested(requested)
        # hand edits so far: protected files and the declared scope are checked first
        check_integrity(campaign, record)
        check_workload_reads(campaign)
        self._check_scope(record, requested)
        self._apply(changes, requested)
        base = record.base_snapshot
        changes.files, diff_text = campaign.snapshots.changes(base) if base else ([], "")
        # a kind given earlier (by an agent, a person) stands until another is given
        changes.kind = request.kind or given_kind or self._inferred_kind(changes)
        changes.description = request.description or changes.description
        changed = [(p.name, p.old, p.new) for p in changes.parameters]
        names = [name for name, _old, _new in changed]
        tiles = tile_knobs(self._kernel_sources(), names) if names else set()
        changes.high_risk = diff_risks(diff_text) + parameter_risks(changed, tiles)
        campaign.publish(record, diff_text=diff_text)
        for finding in risk_findings(changes.high_risk, changes.risk_justification):
            campaign.warnings.append(finding.render() + " before recording measurements")
        return record

    def candidate_risks(self, knob: str, old: Scalar, values: Sequence[Scalar]) -> list[str]:
        """Before an explore group starts: each value allowed (refused naming it), and what
        makes setting the knob to one of them a high-risk change (a bigger tile)."""
        for value in values:
            self._check_requested({knob: value})
        tiles = tile_knobs(self._kernel_sources(), [knob])
        risks = [risk for value in values for risk in parameter_risks([(knob, old, value)], tiles)]
        return list(dict.fromkeys(risks))

    def _kernel_sources(self) -> dict[str, str]:
        """The operator's source files (path -> text), for what its tiles use: its own
        folder only (an operator inside a repository: its package folder)."""
        root = self.campaign.layout.workspace / source_folder(self.campaign.config)
        sources: dict[str, str] = {}
        if not root.is_dir():
            return sources
        for rel in iter_workspace_files(root):
            path = root / rel
            if path.suffix in KERNEL_SUFFIXES and path.stat().st_size <= MAX_SOURCE_BYTES:
                sources[rel] = path.read_text(encoding="utf-8", errors="replace")
                if len(sources) >= MAX_SOURCES:
                    break
        return sources

    def _source_root(self) -> Path:
        config = self.campaign.config
        return self.campaign.layout.workspace / project_kind(config.operator.kind).workspace_subdir

    def _check_requested(self, requested: dict[str, Scalar]) -> None:
        """Every requested parameter is a tunable, set to one of its allowed values."""
        tunables = self.campaign.config.tunables
        refuse(workload_knob_findings(requested, self.campaign.config.case.knobs))
        for name, value in requested.items():
            tunable = tunables.get(name)
            if tunable is None:
                known = ", ".join(tunables) or "none"
                raise InputError(f"unknown parameter {name!r}; tunables: {known}")
            if tunable.allowed and value not in tunable.allowed:
                raise InputError(
                    f"{name}={value!r} is not allowed; allowed values: "
                    + ", ".join(str(v) for v in tunable.allowed)
                )

    def _check_scope(self, record: Round, requested: dict[str, Scalar]) -> None:
        """Hand-edited files and constants, and requested parameters, stay in the scope
        the round declared."""
        base = record.base_snapshot
        hand_files = self.campaign.snapshots.changed_files(base) if base else []
        edited_params = self._edited_parameters(record.changes)
        scope = record.pre_edit.scope
        # a hand-edited constant is covered by its own name or by its file being in scope
        edited_stray = [
            name
            for name in edited_params
            if name not in scope and outside_scope([self._tunable_file(name)], [], scope)
        ]
        # a constant this round already set (`round changes --set`, then `round run` records
        # the changes again) explains its file as much as a hand edit of it does
        recorded = {p.name: p.new for p in record.changes.parameters}
        explaining = {**recorded, **edited_params, **requested}
        stray = outside_scope(
            self._files_not_explained(base, hand_files, explaining, scope), list(requested), scope
        )
        refuse(scope_findings([*stray, *edited_stray], scope))

    def _apply(self, changes: Changes, requested: dict[str, Scalar]) -> None:
        """Write the requested values into the source, note them and the hand-edited ones,
        and save project.toml."""
        source_root = self._source_root()
        for name, value in requested.items():
            apply_parameter(source_root, self.campaign.config.tunables[name], value)
            self._note_parameter(changes, name, value)
        edited = self._edited_parameters(changes)
        for name, value in edited.items():
            self._note_parameter(changes, name, value)
        if requested or edited:  # nothing set: project.toml is not written again
            self.campaign.project.save()

    def _inferred_kind(self, changes: Changes) -> ChangeKind | None:
        """The kind of change when none was given: from the parameters and files changed."""
        kinds = {self.campaign.config.tunables[p.name].kind for p in changes.parameters}
        if kinds == {"env"} and not changes.files:
            return ChangeKind.ENVIRONMENT_VARIABLE
        if kinds:
            return ChangeKind.TEMPLATE_PARAMETER
        if changes.files:
            return ChangeKind.CODE
        return None

    def _edited_parameters(self, changes: Changes) -> dict[str, Scalar]:
        """Constants and template arguments whose value in the source differs from the
        round's parameter values (edited by hand, or applied by --set)."""
        edited: dict[str, Scalar] = {}
        # only the operator's own folder: a repository copy's shared headers hold no tunables
        operator_root = self.campaign.layout.workspace / operator_folder(self.campaign.config)
        if not operator_root.is_dir():
            return edited
        for found in self._discover(operator_root):
            known = self.campaign.config.tunables.get(found.name)
            # env knobs and case fields do not live in the source: what discovery reads for
            # them is a default, never a hand edit (it would undo the round's --set)
            if known is None or known.kind != found.kind or found.kind in ("env", "case"):
                continue
            if changes.parameter_values.get(found.name, known.value) != found.value:
                edited[found.name] = found.value
        return edited

    def _discover(self, root: Path) -> list[Tunable]:
        """discover(root), again only when a file under root changed (time, size, inode)."""
        key = (root, [(rel, _stamp(root / rel)) for rel in iter_workspace_files(root)])
        if self._discovered is None or self._discovered[0] != key:
            self._discovered = (key, discover(root))
        return self._discovered[1]

    def _tunable_file(self, name: str) -> str:
        """Where a tunable lives, relative to the project root."""
        return tunable_file(self.campaign.config, name)

    def _files_not_explained(
        self, base: str, files: list[str], params: dict[str, Scalar], scope: list[str]
    ) -> list[str]:
        """Changed files, less those whose only change is a parameter in the scope: every
        changed line of the file names one of those parameters (or their launcher)."""
        tunables = self.campaign.config.tunables
        anchors: dict[str, list[str]] = {}
        for name in params:
            where = tunables[name].where
            if name in scope and where:
                launcher = where.split("(", 1)[1].rstrip(")") if "(" in where else ""
                # a config struct's member or a launch site's local is written by its own name
                # (StandardTileConfig::TILE_W, TILE_LEN in vabs_fp32); a hand edit of another
                # one of that name is caught as an edited constant
                member = launcher.rsplit("::", 1)[1] if "::" in launcher else launcher.split(" in ", 1)[0]
                member = "" if member.startswith("in ") or member == launcher else member
                anchors.setdefault(self._tunable_file(name), []).extend((name, launcher, member))
        if not anchors:
            return list(files)
        lines = changed_lines(self.campaign.snapshots.diff(base)) if base else {}
        return [
            f
            for f in files
            if f not in anchors or not only_parameter_lines(lines.get(f, []), anchors[f])
        ]

    def _note_parameter(self, changes: Changes, name: str, value: Scalar) -> None:
        """Record old -> new against the round's parameter values and keep project.toml current."""
        old = changes.parameter_values.get(name, self.campaign.config.tunables[name].value)
        previous = next((p.old for p in changes.parameters if p.name == name), old)
        changes.parameters = [p for p in changes.parameters if p.name != name]
        if previous != value:
            changes.parameters.append(ParamChange(name=name, old=previous, new=value))
        changes.parameter_values[name] = value
        self.campaign.project.set(f"tunables.{name}.value", value)
