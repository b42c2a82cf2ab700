"""The pto-isa commits pto-tui has seen the costmodel compile at, and the one-line
message for a commit whose costmodel does not.

pto-isa's own costmodel headers do not compile at every commit (a declaration in one
header conflicting with another's), and then no query can run: the user needs to know
that it is the commit, not the query, and which commit to go back to. So every engine
records, in pto-tui's home, each commit at which a costmodel program compiled, per
checkout: a checkout is known by its git remote (`remote.origin.url`), else by its top
folder, so clones and worktrees of one repository share what was seen. Only clean
checkouts are recorded (local edits to include/ are not the commit). When a compile
fails, the commit named is the newest recorded one that is an ancestor of the checkout's
HEAD: `git rev-list HEAD` lists the ancestors newest first.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import PtoError
from pto_tui.core.paths import app_home
from pto_tui.costmodel.toolchain import CostmodelError

RECORDS_FILE = "costmodel-compiled.json"
RECORDS_FORMAT = 1

# Runs `git <args>` in the checkout: its stdout, or None when git fails.
Git = Callable[..., Awaitable[str | None]]

_ERROR = re.compile(r"\berror:")
# A diagnostic reached through a template instantiation depends on what the query asked.
_INSTANTIATION = re.compile(r"In instantiation of|required from|in instantiation of")


def records_path() -> Path:
    return app_home() / RECORDS_FILE


async def checkout_identity(git: Git) -> str | None:
    """How the records know a checkout: its origin's URL, else its top folder."""
    remote = await git("config", "--get", "remote.origin.url")
    if remote:
        return f"remote:{remote}"
    top = await git("rev-parse", "--show-toplevel")
    return f"path:{top}" if top else None


def clean_commit(version: str) -> str | None:
    """The commit of a version stamp 'git:<sha>'; None with local changes or without git."""
    if version.startswith("git:") and "+" not in version:
        return version[4:]
    return None


def describe_version(version: str) -> str:
    """A version stamp as the message names it: 'at 3186c381', with local changes or not."""
    if not version.startswith("git:"):
        return "(not a git checkout)"
    commit, _, rest = version[4:].partition("+")
    return f"at {commit[:8]}" + (" with local changes" if rest else "")


def load_records(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """{checkout: {commit: {compiler, seen}}}; a damaged file is only lost knowledge."""
    try:
        data = json.loads((path or records_path()).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("format") != RECORDS_FORMAT:
        return {}
    checkouts = data.get("checkouts")
    if not isinstance(checkouts, dict):
        return {}
    return {k: v for k, v in checkouts.items() if isinstance(v, dict)}


def record_compiled(identity: str, commit: str, compiler: str, path: Path | None = None) -> None:
    """Remember that the costmodel compiled at this commit (merged with the file as it
    is now, written atomically). A write that fails only loses this knowledge: the
    query that compiled goes on."""
    target = path or records_path()
    records = load_records(target)
    if commit in records.get(identity, {}):
        return
    seen = datetime.now(UTC).isoformat(timespec="seconds")
    records.setdefault(identity, {})[commit] = {"compiler": compiler, "seen": seen}
    text = json.dumps({"format": RECORDS_FORMAT, "checkouts": records}, indent=1, sort_keys=True)
    with contextlib.suppress(OSError, PtoError):
        atomic_write_text(target, text + "\n")


async def newest_compiled(git: Git, identity: str | None, path: Path | None = None) -> str | None:
    """The newest recorded commit of this checkout that is an ancestor of its HEAD."""
    seen = load_records(path).get(identity or "", {})
    if not seen:
        return None
    listing = await git("rev-list", "HEAD")
    return next((c for c in (listing or "").splitlines() if c in seen), None)


def first_error_line(output: str, shorten: dict[str, str] | None = None) -> str | None:
    """The compiler's first `error:` line, with the given paths replaced (temporary
    sources, the checkout) so it reads the same on every machine."""
    for raw in output.splitlines():
        if _ERROR.search(raw):
            line = raw.strip()
            for long, short in (shorten or {}).items():
                line = line.replace(long, short)
            return line[:400]
    return None


def header_error(output: str, shorten: dict[str, str] | None = None) -> str | None:
    """The first error line when it lies in a pto-isa header and no template
    instantiation led there: the headers themselves fail, whatever the query."""
    line = first_error_line(output, shorten)
    if line is None or "include/pto/" not in line.split(": ")[0] \
            or _INSTANTIATION.search(output):
        return None
    return line


def does_not_compile(version: str, compiler: str, error: str, newest: str | None,
                     checkout: str) -> CostmodelError:
    """The one-line failure for a pto-isa commit whose costmodel does not compile with
    `compiler` (a compiler's name, or what runs it)."""
    head = version[4:].partition("+")[0] if version.startswith("git:") else ""
    if newest and newest == head:
        # The commit itself compiled before: what differs is this run's set-up.
        seen = "yet pto-tui has seen this commit compile: the compiler, flags or local edits differ"
        hint = (f"compare with that run: `git -C {checkout} status -- include`, the compiler "
                "(--compiler or [costmodel] compiler)")
    elif newest:
        seen = f"newest commit seen compiling here: {newest[:8]}"
        hint = (f"use that commit: `git -C {checkout} worktree add <dir> {newest[:8]}`, then "
                "point --pto-isa (or [costmodel] pto_isa) at <dir>")
    else:
        seen = "no earlier commit of this checkout seen compiling"
        hint = "try an older pto-isa commit (pto-tui records each one it sees compile)"
    return CostmodelError(
        f"the costmodel of pto-isa {describe_version(version)} does not compile with "
        f"{compiler} ({seen}): {error}", hint=hint)
