"""The `exec` tool: a shell command on the project's target, as `pto-tui exec` runs it.

Off unless the server was started with --allow-exec: a shell command has the user's
full rights on the target (a local target: this machine). It runs in the workspace's
copy (the target's work dir), synced or not.

The workspace is uploaded first (only what changed) under the project lock, exactly as
the CLI does (`workspace_upload_lock`): a round another writer is measuring never sees
its files change under it; sync=false runs on the target's copy as it is. The command's
output comes back with its job record (the full log stays in .pto-tui/jobs/).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from pto_tui.core.project.config import Target, exec_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.run_claim import workspace_upload_lock
from pto_tui.jobs.model import JobRecord, JobSpec, shown_state
from pto_tui.jobs.runner import JobRunner
from pto_tui.mcp.catalog import Answer, add
from pto_tui.mcp.envelope import AgentBoundary
from pto_tui.mcp.progress import with_runner
from pto_tui.mcp.projects import Projects

KEEP_LINES = 400  # of each stream; the job's log holds all of it


async def _run(runner: JobRunner, target: Target, spec: JobSpec, sync_from: Path | None,
               workspace: Path) -> tuple[JobRecord, dict[str, list[str]]]:
    job = await runner.submit(target, spec, sync_from=sync_from, workspace=workspace)
    lines: dict[str, list[str]] = {"stdout": [], "stderr": [], "meta": []}
    async for line in job.subscribe():
        kept = lines.setdefault(line.stream, [])
        kept.append(line.text)
        del kept[:-KEEP_LINES]
    return await job.wait(), lines


def register(server: MCPServer, projects: Projects) -> None:
    async def exec_command(command: str, project: str = "", sync: bool = True,
                           timeout: float | None = None) -> Answer:
        """Run a bash command on the project's target, in the workspace's copy there (the
        work dir), e.g. to inspect the toolchain; the workspace is uploaded first unless
        sync=false. Only when the server was started with --allow-exec. Returns exit_code
        (the result is an error when it is not 0), the job record and the last lines of
        stdout and stderr."""
        if not projects.allow_exec:
            raise AgentBoundary(
                "exec_disabled",
                "exec is off: this server was started without --allow-exec (a command "
                "runs with the user's full rights on the target)",
                key="exec",
                hint="ask the user to restart the server with `pto-tui mcp --allow-exec` "
                "if commands on the target are wanted; the other tools work without it",
            )
        layout = projects.layout(project)
        config = ProjectFile(layout.project_file).config
        target = config.target
        spec = JobSpec(command=command, cwd=exec_folder(config, layout.workspace), timeout=timeout,
                       name="exec (MCP)")
        sync_from = layout.workspace if sync and layout.workspace.is_dir() else None
        lock = None
        if sync_from is not None:
            lock = await asyncio.to_thread(workspace_upload_lock, layout.state_dir, "pto-tui mcp: exec")
        try:
            record, lines = await with_runner(
                layout, lambda r: _run(r, target, spec, sync_from, layout.workspace)
            )
        finally:
            if lock is not None:
                lock.release()
        data: dict[str, Any] = {
            "exit_code": record.exit_code,
            "state": shown_state(record),
            "job": {**record.to_json(), "shown_state": shown_state(record)},
            "stdout": "\n".join(lines["stdout"]),
            "stderr": "\n".join(lines["stderr"]),
            "notes": lines["meta"],  # what pto-tui said about the job (sync, timeout)
            "synced": sync_from is not None,
        }
        failed = record.exit_code != 0
        how = f"exited with code {record.exit_code}" if record.exit_code is not None else "did not finish"
        warnings = [f"the command {how} ({shown_state(record)})"] if failed else []
        return Answer(data, warnings, is_error=failed)

    add(server, exec_command, name="exec")
