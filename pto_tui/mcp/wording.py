"""A message of the core, written for the command line, phrased for an agent calling tools:
each rule's command-line piece replaced by its MCP piece (`registry.for_front`), a
`pto-tui <command>` by the tool that does it, and a `--flag` by the tool's argument.

The server's own flags (`pto-tui mcp --allow-exec`, `--root DIR`) stay as they are: only
the user can give them, and the message says so."""

from __future__ import annotations

import re

from pto_tui.core.rules.registry import for_front

# command-line sub-commands -> the tool that does the same (longest first)
TOOLS = (
    ("round confirm", "round_confirm"), ("round start", "round_start"), ("round changes", "round_changes"),
    ("round measure", "round_measure"), ("round run", "round_run"), ("round close", "round_close"),
    ("round rerun", "round_rerun"), ("round gates", "gates"), ("round classes", "classes"),
    ("torch-baseline", "torch_baseline"), ("costmodel sweep", "costmodel_sweep"),
    ("costmodel", "costmodel_query"), ("baseline", "baseline"), ("amend", "amend"), ("env", "env"),
    ("import", "import"), ("new", "new"), ("status", "status"), ("rounds", "rounds"), ("show", "show"),
    ("verify", "verify"), ("diff", "diff"), ("exec", "exec"), ("phase", "phase"), ("suggest", "suggest"),
    ("chart", "chart"), ("report", "report"), ("scan", "scan"),
)
# flags whose argument has another name (the others: --some-flag is some_flag)
ARGUMENTS = {
    "--justify": "justify", "--recheck": "bottleneck_recheck", "--describe": "description",
    "--set": "parameters", "--probe": "probes", "--samples": "measurement.samples_us",
    "--build": "measurement.build", "--correctness": "measurement.correctness",
    "--report": "measurement.reports", "--scope": "pre_edit.scope", "--check": "pre_edit.checklist",
    "--bottleneck": "pre_edit.bottleneck", "--kernel": "pre_edit.kernel", "--why": "why",
    "--metric": "pre_edit.expected_metric", "--risk": "pre_edit.main_risk",
    "--hypothesis": "pre_edit.hypothesis", "--evidence": "pre_edit.evidence",
    "--correctness-plan": "pre_edit.correctness_plan", "--form": "pre_edit", "--next": "next_step",
    "--no-close": "close=false", "--avg": "avg_us", "--min": "min_us", "--max": "max_us",
}
_SERVER_FLAG = re.compile(r"pto-tui mcp(?:\s+--[\w-]+(?:\s+[A-Z]+)?)+")
_COMMAND = re.compile(r"`(?:pto-tui\s+(?:--project\s+\S+\s+)?)?([^`]*)`")
_BARE_COMMAND = re.compile(r"\bpto-tui\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)")
_FLAG = re.compile(r"(?<![\w`-])--([a-z][\w-]*)")
_QUOTED = re.compile(r"\"[^\"\n]*\"")
SERVER_FLAGS = ("allow-exec", "root")  # `pto-tui mcp`'s own: only the user gives them


def _argument(flag: str) -> str:
    return ARGUMENTS.get(flag, flag.removeprefix("--").replace("-", "_"))


def _tool_of(words: str) -> tuple[str, str] | None:
    """(tool, the rest) for a command line's words, None when no tool does it."""
    for command, tool in TOOLS:
        if words == command or words.startswith(command + " "):
            return tool, words[len(command):].strip()
    return None


def _call(match: re.Match[str]) -> str:
    found = _tool_of(match.group(1).strip())
    if found is None:
        return match.group(0)
    tool, rest = found
    arguments = [_argument(f) for f in re.findall(r"--[a-z][\w-]*", rest)]
    numbers = re.findall(r"(?<![\w-])(?:N|\d+)(?![\w-])", rest.split("--", 1)[0])
    given = (["number"] if numbers else []) + arguments
    return f"the `{tool}` tool" + (f" ({', '.join(given)})" if given else "")


def _bare(match: re.Match[str]) -> str:
    found = _tool_of(match.group(1))
    return f"the `{found[0]}` tool" if found else match.group(0)


def for_agent(text: str) -> str:
    """`text` phrased for the MCP tools (see the module's docstring)."""
    if not text:
        return text
    text = for_front(text, "mcp")
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\0{len(kept) - 1}\0"

    text = _SERVER_FLAG.sub(keep, text)
    text = _QUOTED.sub(keep, text)  # an example in quotes (a costmodel query's --m) is as written
    text = _COMMAND.sub(_call, text)
    text = _BARE_COMMAND.sub(_bare, text)
    text = _FLAG.sub(lambda m: m.group(0) if m.group(1) in SERVER_FLAGS else f"`{_argument(m.group(0))}`",
                     text)
    return re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], text)
