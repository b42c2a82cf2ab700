"""Which project a tool works on, and the folders the agent may reach.

A tool's `project` argument wins; else the server's `--project`; else the project is
found as the CLI finds it ($PTO_TUI_PROJECT, then walking up from the server's working
directory). A writing tool opens the campaign under the project lock for that one call.

The server works inside its roots: the project it was started for (--project, or the
one found at start) and each `--root DIR`; with neither, the working directory; and the
folders the MCP client declares as its roots, when it offers them (`client_roots`). A
project, source or output path outside them is refused, naming the path and the roots.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import ProjectLayout, find_project_root
from pto_tui.mcp.client_roots import ClientRoots
from pto_tui.mcp.envelope import AgentBoundary


def server_roots(project: str | None, extra: Sequence[str]) -> tuple[Path, ...]:
    """The folders the server's tools may reach (see the module's docstring)."""
    roots: list[Path] = []
    for text in extra:
        root = Path(text).expanduser().resolve()
        if not root.is_dir():
            raise InputError(f"no such directory: {text}", key="--root")
        roots.append(root)
    if project:
        roots.append(Path(project).expanduser().resolve())
    else:
        # no project yet: the --root folders (or the working directory) will hold it
        with contextlib.suppress(InputError):
            roots.append(find_project_root(None))
    return tuple(roots) or (Path.cwd().resolve(),)


class Projects:
    def __init__(self, default: str | None = None, roots: Sequence[Path] | None = None,
                 allow_exec: bool = False, client: ClientRoots | None = None) -> None:
        self.default = default
        self.roots = tuple(roots) if roots is not None else server_roots(default, ())
        self.allow_exec = allow_exec
        self.client = client or ClientRoots()

    def all_roots(self) -> tuple[Path, ...]:
        """The server's own roots, then the client's (as it last listed them)."""
        return tuple(dict.fromkeys((*self.roots, *self.client.folders)))

    def within(self, path: Path | str, key: str) -> Path:
        """path (resolved: links followed), or AgentBoundary when it lies outside the roots."""
        resolved = Path(path).expanduser().resolve()
        roots = self.all_roots()
        if any(resolved == root or resolved.is_relative_to(root) for root in roots):
            return resolved
        shown = ", ".join(str(root) for root in roots)
        raise AgentBoundary(
            "outside_roots",
            f"{key} {path} is outside the folders this server works in ({shown})",
            key=key,
            hint="work inside the roots; the user may add a folder as a root of the MCP client, "
            "or by restarting the server with `pto-tui mcp --root DIR`",
            details={"path": str(resolved), "roots": [str(root) for root in roots]},
        )

    def root(self, project: str = "") -> Path:
        if project:
            self.within(project, "project")
        return self.within(find_project_root(project or self.default), "project")

    def layout(self, project: str = "") -> ProjectLayout:
        return ProjectLayout(self.root(project))

    def campaign(self, project: str, *, write: bool, command: str) -> Campaign:
        return Campaign(self.root(project), write=write, command=f"pto-tui mcp: {command}")
