"""The folders the MCP client declares as its roots (`roots/list`), added to the server's own.

A client that declares the roots capability is asked for its roots before a tool call or a
resource read; its `file://` roots that are folders on this machine become roots of the
server too (the project and the `--root` folders stay roots whatever the client says). A
client that promises to say when its roots change (`roots.listChanged`) is asked again only
after it said so (`notifications/roots/list_changed`); any other client at every call.
A client without the capability, or one whose answer is an error, late or malformed,
adds nothing: the server keeps to its own roots.

The protocol deprecates roots as of its 2026-07-28 revision (SEP-2577), and the SDK marks
`list_roots` deprecated with it; clients on the handshake revisions (2025-11-25 and before,
what stdio clients speak) still offer them, so they are used where offered.

One client per server: `pto-tui mcp` serves one stdio connection, so the roots are kept
for the server, not per connection.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import ListRootsResult, Root
from pydantic import ValidationError

ASKED_FOR = ("tools/call", "resources/read")  # the requests whose paths the roots bound
CHANGED = "notifications/roots/list_changed"
ANSWER_WITHIN = 10.0  # seconds a client has to list its roots


def folder_of(root: Root) -> Path | None:
    """The folder a client root names on this machine (links followed); None for a root
    that is not a local file:// URI of an existing folder."""
    uri = urlparse(str(root.uri))
    if uri.scheme != "file" or uri.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(uri.path)).resolve()
    return path if path.is_dir() else None


class ClientRoots:
    """Server middleware keeping the client's roots (`folders`) up to date."""

    def __init__(self) -> None:
        self.folders: tuple[Path, ...] = ()
        self._current = False  # folders answer the client's roots until it says they changed

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == CHANGED:
            self._current = False
        elif ctx.method in ASKED_FOR:
            await self._refresh(ctx)
        return await call_next(ctx)

    async def _refresh(self, ctx: ServerRequestContext[Any, Any]) -> None:
        capabilities = ctx.session.client_capabilities
        offered = capabilities.roots if capabilities is not None else None
        if offered is None:
            self.folders, self._current = (), True
            return
        if self._current:
            return
        listed = await _list_roots(ctx)
        self.folders = tuple(dict.fromkeys(f for r in (listed or []) if (f := folder_of(r))))
        # a client that does not notify may change its roots at any time: ask every call
        self._current = listed is not None and bool(offered.list_changed)


async def _list_roots(ctx: ServerRequestContext[Any, Any]) -> Sequence[Root] | None:
    """The client's roots, None when it did not answer them."""
    try:
        with anyio.fail_after(ANSWER_WITHIN), warnings.catch_warnings():
            # deprecated by the protocol's 2026-07-28 revision: still what clients offer
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            result: ListRootsResult = await ctx.session.list_roots()
    except (MCPError, ValidationError, TimeoutError):  # NoBackChannelError is an MCPError
        return None
    return result.roots
