"""New project, as a short form in the workflow's order (docs/workflow.md §1-§4).

1 operator (a path, or a scan listing candidates with their evidence),
2 kind (confirm or override), 3 case (the operator's listed cases, or typed),
4 target and costmodel, then create, then offer to edit TASK_REQUIREMENTS.md.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from pto_tui.core.campaign.project_arguments import ProjectArguments
from pto_tui.core.errors import PtoError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.scan import classify, scan
from pto_tui.core.project.modes import DEFAULT_MODE, chosen_modes, mode_spec
from pto_tui.core.vocabulary import OperatorKind, TargetMode
from pto_tui.tui.compact import make_compact
from pto_tui.tui.forms import FORM
from pto_tui.tui.new_project import create, parse_pairs
from pto_tui.tui.widgets.tick import Tick


def evidence_text(c: Candidate) -> Text:
    text = Text.assemble((c.name, "bold"), f"  {c.kind.value if c.kind else '?'} ({c.status})")
    for line in c.evidence:
        text.append(f"\n  {line}", style="dim")
    return text


class WizardScreen(Screen[Path | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="wizard.cancel"),
        Binding("ctrl+s", "create", "Create", id="wizard.create"),
    ]

    def __init__(self, projects_root: Path, start: Path) -> None:
        super().__init__()
        self.projects_root = projects_root
        self.start = start
        self.candidate: Candidate | None = None
        self.candidates: list[Candidate] = []
        self.created: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("New project", style="bold"), classes="topbar")
        with VerticalScroll(id="wizard-body", classes=FORM, can_focus=False):
            yield Label("1  Operator: its folder (enter classifies), or a folder to scan",
                        classes="step")
            yield Input(id="wz-source", placeholder="path of the operator source")
            with Horizontal(classes="buttons"):
                yield Button("Classify", id="wz-classify")
                yield Button("Scan for operators", id="wz-scan")
            yield OptionList(id="wz-candidates", classes="hidden")
            yield Static(id="wz-evidence")
            yield Label("2  Kind (confirm or override the classification)", classes="step")
            yield Select([(k.value, k.value) for k in OperatorKind], id="wz-kind",
                         prompt="operator kind")
            yield Input(id="wz-name", placeholder="project name (default: the operator's)")
            yield Label("3  Case", classes="step")
            yield Select([], id="wz-case", prompt="the operator's listed cases", allow_blank=True)
            yield Input(id="wz-spec", placeholder="case string, e.g. 128,128,1024,128")
            yield Input(id="wz-shape", placeholder="shape: S=1024, HEAD_SIZE=128")
            with Horizontal(classes="buttons"):
                yield Input(id="wz-dtype", placeholder="dtype (float16)")
                yield Tick("causal mask", id="wz-causal")
            yield Label("4  Target and costmodel", classes="step")
            yield Input("local", id="wz-target", placeholder="local or ssh:ALIAS")
            with Horizontal(classes="buttons"):
                yield Input(id="wz-workdir", placeholder="remote work directory (ssh targets)")
                yield Input(id="wz-sshconfig", placeholder="SSH config file (~/.ssh/config)")
            yield Input(id="wz-envsetup", placeholder="env set-up line, e.g. source set_env.sh")
            yield Select([(f"{m.value}: {mode_spec(m).choice}", m.value) for m in chosen_modes()],
                         value=DEFAULT_MODE.value, id="wz-mode", allow_blank=False)
            with Horizontal(classes="buttons"):
                yield Input(id="wz-compiler", placeholder="cpu-sim compiler (c++)")
                yield Input(id="wz-cxxflags", placeholder="cpu-sim flags, e.g. -stdlib=libc++")
            yield Select([("built-in engine (pto-isa checkout)", "builtin"),
                          ("external tool (query_pto_cycles.py)", "external")],
                         value="builtin", id="wz-engine", allow_blank=False)
            yield Input(id="wz-ptoisa", placeholder="pto-isa checkout (built-in engine)")
            yield Input(id="wz-tool", placeholder="query_pto_cycles.py (external engine)")
            yield Button("Create the project (ctrl+s)", id="wz-create", variant="success")
            yield Static(id="wz-result")
            with Horizontal(classes="buttons hidden", id="wz-after"):
                yield Button("Edit TASK_REQUIREMENTS.md", id="wz-edit")
                yield Button("Open the project", id="wz-open", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        make_compact(self)
        self.query_one("#wz-source").focus()

    # ------------------------------------------------------------ step 1

    def _source(self) -> Path:
        text = self.query_one("#wz-source", Input).value.strip() or "."
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.start / path

    def classify_source(self) -> None:
        source = self._source()
        if not source.exists():
            self.query_one("#wz-evidence", Static).update(
                Text(f"not found: {source}", style="red"))
            return
        self.choose(classify(source) if source.is_dir() else None, source)

    def scan_source(self) -> None:
        result = scan(self._source())
        self.candidates = result.candidates
        listing = self.query_one("#wz-candidates", OptionList)
        listing.clear_options()
        for i, c in enumerate(result.candidates):
            listing.add_option(Option(evidence_text(c), id=str(i)))
        if not result.candidates:
            listing.add_option(Option("no PTO operator found there", disabled=True))
        listing.remove_class("hidden")
        listing.focus()

    def choose(self, candidate: Candidate | None, source: Path) -> None:
        self.candidate = candidate
        self.query_one("#wz-source", Input).value = str(source)
        evidence = self.query_one("#wz-evidence", Static)
        if candidate is None:
            evidence.update(Text("no PTO evidence found: choose the kind yourself",
                                 style="yellow"))
            return
        evidence.update(evidence_text(candidate))
        kind = self.query_one("#wz-kind", Select)
        if candidate.kind is not None:
            kind.value = candidate.kind.value
        cases = self.query_one("#wz-case", Select)
        cases.set_options([(f"{c.name} {c.spec}".strip(), c.name) for c in candidate.cases])
        self.query_one("#wz-kind").focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            c = self.candidates[int(event.option.id)]
            self.choose(c, c.path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "wz-source":
            event.stop()
            self.classify_source()

    # ------------------------------------------------------------ create

    def answers(self) -> ProjectArguments:
        def value(widget_id: str) -> str:
            return self.query_one(f"#{widget_id}", Input).value.strip()

        kind = self.query_one("#wz-kind", Select).value
        case_name = self.query_one("#wz-case", Select).value
        chosen = None
        if self.candidate is not None and isinstance(case_name, str):
            chosen = next((c for c in self.candidate.cases if c.name == case_name), None)
        engine = self.query_one("#wz-engine", Select).value
        mode = self.query_one("#wz-mode", Select).value
        return ProjectArguments(
            source=self._source(),
            kind=OperatorKind(kind) if isinstance(kind, str) else None,
            name=value("wz-name") or None,
            case=chosen.name if chosen else "",
            case_spec=value("wz-spec"),
            dtype=value("wz-dtype"),
            causal=self.query_one("#wz-causal", Checkbox).value,
            shape=parse_pairs(value("wz-shape"), "shape"),
            target=value("wz-target") or "local",
            work_dir=value("wz-workdir"),
            ssh_config=value("wz-sshconfig"),
            env_setup=value("wz-envsetup"),
            mode=TargetMode(mode) if isinstance(mode, str) else DEFAULT_MODE,
            compiler=value("wz-compiler") or "c++",
            cxx_flags=value("wz-cxxflags"),
            engine=engine if isinstance(engine, str) else "builtin",
            pto_isa=value("wz-ptoisa"),
            costmodel_tool=value("wz-tool"),
        )

    def action_create(self) -> None:
        result = self.query_one("#wz-result", Static)
        try:
            root = create(self.answers(), self.projects_root)
        except PtoError as error:
            result.update(Text(error.render(), style="bold red"))
            return
        self.created = root
        result.update(Text.assemble(("created ", "green"), (str(root), "bold"),
                                    "\nedit TASK_REQUIREMENTS.md now, and add material to "
                                    "context/"))
        self.query_one("#wz-after").remove_class("hidden")
        self.query_one("#wz-edit").focus()

    def edit_requirements(self) -> None:
        from pto_tui.tui.screens.editor import TextEditor, open_in_editor

        if self.created is None:
            return
        path = self.created / "TASK_REQUIREMENTS.md"
        if not open_in_editor(self.app, path):
            self.app.push_screen(TextEditor(path))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "wz-classify": self.classify_source,
            "wz-scan": self.scan_source,
            "wz-create": self.action_create,
            "wz-edit": self.edit_requirements,
            "wz-open": lambda: self.dismiss(self.created),
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            event.stop()
            action()

    def action_cancel(self) -> None:
        self.dismiss(self.created)
