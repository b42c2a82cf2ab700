"""Tables a project file must keep once they exist: a truncated project.toml is an error.

A fresh project.toml always has [target]; the campaign's discipline and the state pto-tui
records (the torch baseline, the last round number) decide verdicts and numbering. If a
file loses one of them (cut short by a full disk, a bad merge, an editor crash), reading
on with defaults would silently change the rules or the records. So every save notes
which of these tables the file held (`.pto-tui/tables.json`), and a file missing one it
held before is refused, naming it. Without that note (a project from an older pto-tui,
or a copied folder) a recorded baseline round is the evidence that the campaign began.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import ConfigError, bounded_json, read_text

# Tables `new` writes and the campaign needs from then on.
ALWAYS = ("target",)
# Tables that, once the campaign has started, must stay.
ONCE_STARTED = ("discipline", "phases")
# Tables (dotted) that, once written, must stay.
KEPT = ("target", "commands", "discipline", "phases", "state.torch_baseline", "state.last_round")
WITNESS = Path(".pto-tui") / "tables.json"


def present(data: Mapping[str, Any]) -> list[str]:
    """The KEPT tables (and keys) the parsed file holds."""
    found = []
    for dotted in KEPT:
        node: Any = data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if node is not None:
            found.append(dotted)
    return found


def _witnessed(root: Path) -> list[str]:
    try:
        listed = bounded_json(read_text(root / WITNESS))
    except (OSError, ValueError):
        return []
    return [name for name in listed if name in KEPT] if isinstance(listed, list) else []


def _started(root: Path) -> bool:
    return (root / "runs" / "iter-000" / "round.toml").is_file()


def check(path: Path, data: Mapping[str, Any]) -> None:
    """Refuse a project file that lost a table it must keep; the error names it."""
    root = path.parent
    have = set(present(data))
    needed = list(ALWAYS) + _witnessed(root)
    if _started(root):
        needed += ONCE_STARTED
    for name in dict.fromkeys(needed):
        if name in have:
            continue
        why = "every project has one (pto-tui new writes it)"
        if name not in ALWAYS:
            why = "this project had it when pto-tui last saved the file"
            if name in ONCE_STARTED and name not in _witnessed(root):
                why = "the campaign has started (runs/iter-000 is recorded)"
        raise ConfigError(
            f"missing [{name}]: {why}; the file looks cut short or edited by hand, and "
            "defaults would silently change the campaign",
            file=path,
            key=name,
            hint="restore project.toml (e.g. from git or a backup) with this table",
        )


def note(path: Path, data: Mapping[str, Any]) -> None:
    """Record which KEPT tables the file just saved holds."""
    witness = path.parent / WITNESS
    witness.parent.mkdir(exist_ok=True)
    text = json.dumps(present(data)) + "\n"
    try:
        if read_text(witness) == text:
            return  # as it is: not written again at every save of project.toml
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write_text(witness, text)
