"""Which project a tool works on, and the guard that turns pto-tui's errors into
structured tool errors.

A tool's `project` argument wins; else the server's `--project`; else the project is
found as the CLI finds it ($PTO_TUI_PROJECT, then walking up from the server's working
directory). A writing tool opens the campaign under the project lock for that one call.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.types import CallToolResult

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import PtoError
from pto_tui.core.project.layout import ProjectLayout, find_project_root
from pto_tui.mcp.envelope import failure

F = TypeVar("F", bound=Callable[..., Any])


class Projects:
    def __init__(self, default: str | None = None) -> None:
        self.default = default

    def root(self, project: str = "") -> Path:
        return find_project_root(project or self.default)

    def layout(self, project: str = "") -> ProjectLayout:
        return ProjectLayout(self.root(project))

    def campaign(self, project: str, *, write: bool, command: str) -> Campaign:
        return Campaign(self.root(project), write=write, command=f"pto-tui mcp: {command}")


def guarded(fn: F) -> F:
    """A tool whose PtoError (a refusal, bad input, a held lock) becomes a structured
    error result instead of an exception."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> CallToolResult:
            try:
                result: CallToolResult = await fn(*args, **kwargs)
            except PtoError as error:
                return failure(error)
            return result

        return run_async  # type: ignore[return-value]

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            result: CallToolResult = fn(*args, **kwargs)
        except PtoError as error:
            return failure(error)
        return result

    return run  # type: ignore[return-value]
