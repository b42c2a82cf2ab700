"""The official MCP client (the SDK's stdio client and ClientSession) driving
`pto-tui mcp` as a real subprocess."""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

REPO = Path(__file__).resolve().parents[2]


class Agent:
    """A session plus the progress messages each call received, and the roots it offers
    (`roots`: None offers none; change them, then `roots_changed()`)."""

    def __init__(self, session: ClientSession, roots: list[str] | None = None) -> None:
        self.session = session
        self.progress: list[str] = []
        self.roots = roots
        self.roots_asked = 0

    async def list_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        self.roots_asked += 1
        roots = [types.Root.model_validate({"uri": uri}) for uri in self.roots or []]
        return types.ListRootsResult(roots=roots)

    async def roots_changed(self) -> None:
        with warnings.catch_warnings():  # deprecated by the protocol's 2026-07-28 revision
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self.session.send_roots_list_changed()

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The tool's structured result; a refusal is returned, not raised."""

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            self.progress.append(f"{tool}: {message}")

        result = await self.session.call_tool(tool, arguments, progress_callback=on_progress)
        data = result.structured_content
        if data is None:  # the text form carries the same JSON
            data = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert isinstance(data, dict)
        data["is_error"] = bool(result.is_error)
        return data

    async def ok(self, tool: str, **arguments: Any) -> Any:
        data = await self.call(tool, **arguments)
        assert not data["is_error"], data
        return data["data"]


@asynccontextmanager
async def agent(
    project: Path | None = None,
    cwd: Path | None = None,
    *,
    allow_exec: bool = False,
    roots: tuple[Path, ...] = (),
    env: dict[str, str] | None = None,
    client_roots: list[str] | None = None,
) -> AsyncIterator[Agent]:
    """`pto-tui [--project P] mcp [--allow-exec] [--root R]...`; env adds to (or
    overrides) the server's environment, e.g. HOME; client_roots: the URIs the client
    offers as its roots (None: a client without the roots capability)."""
    args = ["-m", "pto_tui.cli.main", *(["--project", str(project)] if project else []), "mcp"]
    args += ["--allow-exec"] if allow_exec else []
    for root in roots:
        args += ["--root", str(root)]
    env = {
        "PYTHONPATH": str(REPO),
        **{k: v for k, v in os.environ.items() if k.startswith("PTO_")},
        **(env or {}),
    }
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=cwd)
    holder: list[Agent] = []

    async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
        return await holder[0].list_roots(context)

    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(
                read, write, list_roots_callback=list_roots if client_roots is not None else None
            ) as session,
        ):
            holder.append(Agent(session, client_roots))
            await session.initialize()
            yield holder[0]
