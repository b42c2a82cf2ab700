"""The reference of the [commands] keys, their placeholders and the [target] modes, for
`pto-tui config commands` and docs/project-toml.md (one text for both)."""

from __future__ import annotations

from pto_tui.core.project.command_table import command_texts
from pto_tui.core.project.commands import PLACEHOLDERS
from pto_tui.core.project.kinds.registry import PROJECT_KINDS
from pto_tui.core.project.modes import MODES
from pto_tui.core.project.sections import COMMANDS


def commands_markdown() -> list[str]:
    """Markdown lines: every command key with its defaults, every placeholder, every mode."""
    lines = [
        "## Commands, placeholders and target modes",
        "",
        "Commands run from the operator folder (PTO-tile-lib) or the repository root (PTO-DSL) "
        "on the target, after [target] env_setup. `new` writes every command into "
        "project.toml with a comment saying where it came from; an absent key takes the "
        "default of the operator's kind and the target's mode.",
        "",
    ]
    for key in COMMANDS.keys:
        lines += [f"### `{key.name}`", "", key.help, ""]
        # the defaults that differ: each kind's, in each mode that has its own
        for kind, spec in PROJECT_KINDS.items():
            for mode, commands in spec.commands.items():
                text = command_texts(commands)[key.name]
                lines.append(f"- {kind.value}, {mode.value}: " + (f"`{text}`" if text else "(empty)"))
        lines.append("")
    lines += [
        "### Placeholders",
        "",
        "`{name}` in a command is replaced by the value, shell-quoted (one argument, never "
        "interpreted by the shell). Besides these, every key of [case.shape] and "
        "[case.options] and every tunable parameter (its value in the round) is a placeholder; "
        "an unknown placeholder is an error naming the known ones.",
        "",
        "| placeholder | value |",
        "| --- | --- |",
        *(f"| `{{{name}}}` | {text} |" for name, text in PLACEHOLDERS.items()),
        "",
        "### Target modes ([target] mode)",
        "",
        *(f"- `{mode.value}`: {spec.help}" for mode, spec in MODES.items()),
    ]
    return lines
