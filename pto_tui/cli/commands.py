"""Every sub-command: its name, the module that registers it, its one-line help.

Kept apart from the modules so that `pto-tui --help` (and finding which sub-command was
asked for) needs none of their dependencies: only the module of the command being run is
imported. The modules take their help line from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    module: str
    help: str


_SETUP = "pto_tui.cli.setup_cmds"
_READING = "pto_tui.cli.reading_cmds"
_RECORDING = "pto_tui.cli.recording_cmds"
_EXEC = "pto_tui.cli.exec_cmd"
_REPORT = "pto_tui.cli.report_cmds"

# in the order --help lists them
COMMANDS: tuple[Command, ...] = (
    Command("scan", _SETUP, "list candidate operators under DIR, with the evidence for each"),
    Command("new", _SETUP,
            "create projects/<op>/ from an operator source (docs/workflow.md §1-§4, see `pto-tui docs`)"),
    Command(
        "import",
        "pto_tui.cli.import_cmd",
        "read a hand-written (Markdown only) project into records, with its workspace and target",
    ),
    Command("status", _READING, "best so far, baseline, recent failures, gates"),
    Command("rounds", _READING, "the round table"),
    Command("show", _READING, "one round: record and notes"),
    Command(
        "verify",
        "pto_tui.cli.verify_cmd",
        "check the history: runs/closed.log's chain, its anchor, every closed round's files",
    ),
    Command(
        "diff",
        "pto_tui.cli.diff_cmd",
        "what changed in a round: parameters, duration with its noise, TFLOPS, the patch",
    ),
    Command(
        "verdict",
        "pto_tui.cli.verdict_cmd",
        "the verdict rule on durations given by hand or as JSON lines, without a round",
    ),
    Command(
        "baseline",
        _RECORDING,
        "iter-000, the initial PTO measurement: measured on the target, or given with --build",
    ),
    Command("phase", _RECORDING, "show the phases, or set the one new rounds fall in"),
    Command("amend", _RECORDING, "add a correction beside a closed round (the original stays)"),
    Command(
        "env",
        _RECORDING,
        "the environment round (docs/workflow.md §6): run the probes on the target, "
        "or record results given with --probe",
    ),
    Command(
        "torch-baseline",
        _RECORDING,
        "the torch_npu reference: measured on the target, or given with --avg/--min/--max",
    ),
    Command("round", "pto_tui.cli.round_cmds", "round life-cycle: start, changes, measure, close"),
    Command("exec", _EXEC, "run a command on the project's target, syncing the workspace first"),
    Command("trust-host", _EXEC, "show the target's SSH host key and trust it"),
    Command("jobs", _EXEC, "list the project's jobs"),
    Command("attach", _EXEC, "follow a detached job again"),
    Command(
        "costmodel",
        "pto_tui.cli.costmodel_cmd",
        "simulated cycles of PTO instructions (one query or a sweep)",
    ),
    Command("suggest", "pto_tui.cli.suggest_cmd", "rank the tile knobs' allowed values by the costmodel"),
    Command("explore", "pto_tui.cli.explore_cmd",
            "several values of one knob as rounds measured at once on free NPUs, closed in order"),
    Command("chart", _REPORT, "draw the summary chart (projects/<op>/summary_chart.png)"),
    Command(
        "export", _REPORT, "the round table with each round's reproducibility record, as csv, md or json"
    ),
    Command("report", _REPORT, "write the Markdown campaign report (projects/<op>/REPORT.md)"),
    Command(
        "demo", "pto_tui.cli.demo_cmd", "try the whole loop on a built-in CPU demo operator (no NPU needed)"
    ),
    Command("mcp", "pto_tui.cli.mcp_cmd", "serve pto-tui's commands to a coding agent (MCP over stdio)"),
    Command(
        "config", "pto_tui.cli.config_cmd", "reference of project.toml: every key, its type, default and help"
    ),
    Command("docs", "pto_tui.cli.docs_cmd", "the documents shipped with pto-tui: the workflow, "
            "the rules, project.toml, the file formats"),
)

HELP = {c.name: c.help for c in COMMANDS}
