"""Shell text the executors run: quoting, the job wrapper, detached launch and follow.

Every job is wrapped so that it runs as its own process group whose id is recorded
in the job's folder on the target (J/pgid): `kill -- -PGID` from any later
connection then stops the whole tree, even a silent `make -j16` (docs/remote.md §4).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from pto_tui.core.project.config import Target
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.model import JobSpec

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# The job folder on the target, relative to the work dir (or the home directory).
REMOTE_JOBS_DIR = ".pto-tui/jobs"


def quote_path(path: str) -> str:
    """Shell-quote a path, keeping a leading ~/ expandable."""
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def join_path(base: str, path: str) -> str:
    if not base or path.startswith(("/", "~")):
        return path
    return base.rstrip("/") + "/" + path


def job_cwd(target: Target, spec: JobSpec, default: str = "") -> str:
    """Where the command runs: spec.cwd against the target's work dir ("" = the home)."""
    base = target.work_dir or default
    return join_path(base, spec.cwd) if spec.cwd else base


def env_exports(env: Mapping[str, str]) -> str:
    parts = []
    for name, value in env.items():
        if not _ENV_NAME.match(name):
            raise JobError(f"invalid environment variable name {name!r}")
        parts.append(f"export {name}={shlex.quote(str(value))}")
    return "\n".join(parts)


def inner_script(target: Target, spec: JobSpec, cwd: str) -> str:
    """cd, environment set-up line, inline env, then the command itself."""
    lines = []
    if cwd:
        lines.append(f"cd {quote_path(cwd)} || exit 1")
    if target.env_setup.strip() and spec.env_setup:
        # a broken set-up line must fail the job, not run it in a half-made environment
        lines.append(
            "{ " + target.env_setup + "\n} || { echo 'pto-tui: env_setup failed: '"
            + shlex.quote(target.env_setup)
            + " >&2; exit 1; }"
        )
    env = dict(spec.env)
    if spec.line_buffered and not spec.pty:
        env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PTO_NPU_ID", str(target.npu_id))  # which device this target means
    exports = env_exports(env)
    if exports:
        lines.append(exports)
    lines.append(spec.command)
    return "\n".join(lines)


def bash_command(inner: str, line_buffered: bool) -> str:
    """`bash -c inner`, under stdbuf (line-buffered stdio for C/C++ programs) when present."""
    plain = f"bash -c {shlex.quote(inner)}"
    if not line_buffered:
        return plain
    return (
        "if command -v stdbuf >/dev/null 2>&1; "
        f"then exec stdbuf -oL -eL {plain}; else exec {plain}; fi"
    )


def attached_script(job_dir: str, inner: str, line_buffered: bool) -> str:
    """The command of an attached job: record the process group, then become the job."""
    j = quote_path(job_dir)
    return f"mkdir -p {j} && echo $$ > {j}/pgid || exit 1\n{bash_command(inner, line_buffered)}"


def detached_launch_script(job_dir: str, inner: str, line_buffered: bool) -> str:
    """Start the job in a new session that outlives the connection; print its pgid.

    Every descriptor is redirected, or the launch would block until the job ends. The
    session leader traps TERM with a handler (not an ignore, which children would inherit)
    so it still writes J/rc when the job is cancelled.
    """
    j = quote_path(job_dir)
    runner = (
        f"echo $$ > {j}/pgid.tmp && mv {j}/pgid.tmp {j}/pgid; trap : TERM HUP INT; "
        f"( {bash_command(inner, line_buffered)} ) > {j}/stdout 2> {j}/stderr < /dev/null; "
        f"echo $? > {j}/rc.tmp && mv {j}/rc.tmp {j}/rc"
    )
    return (
        f"mkdir -p {j} && rm -f {j}/rc {j}/pgid && : > {j}/stdout && : > {j}/stderr || exit 1\n"
        f"setsid -f bash -c {shlex.quote(runner)} < /dev/null > /dev/null 2>&1\n"
        f"for _ in $(seq 100); do [ -s {j}/pgid ] && break; sleep 0.05; done\n"
        f"cat {j}/pgid"
    )


def follow_script(job_dir: str, pgid: int, out_offset: int, err_offset: int) -> str:
    """Stream a detached job's output from byte offsets until it has ended.

    tail --pid watches a watcher of ours rather than the job: the job's leader is
    reaped by init, which may leave it a zombie (still "alive" to kill -0) for seconds;
    the watcher is our child, reaped at once. It ends when J/rc appears or the group
    is gone; tail then reads what is left and stops.
    """
    j = quote_path(job_dir)
    tail = "tail -s 0.2 -F --pid=$w -c +{start} {file}"
    return (
        f"( while [ ! -e {j}/rc ] && kill -0 -- -{pgid} 2>/dev/null; do sleep 0.1; done ) & "
        "w=$!; "
        f"{tail.format(start=out_offset + 1, file=f'{j}/stdout')} & "
        f"{tail.format(start=err_offset + 1, file=f'{j}/stderr')} >&2; wait"
    )


def status_script(job_dir: str) -> str:
    """Print 'pgid rc alive' of a job folder: '-' for what is not there."""
    j = quote_path(job_dir)
    return (
        f"p=$(cat {j}/pgid 2>/dev/null || echo -); r=$(cat {j}/rc 2>/dev/null || echo -); "
        f'a=0; [ "$p" != - ] && kill -0 -- "-$p" 2>/dev/null && a=1; echo "$p $r $a"'
    )


def kill_script(job_dir: str, signal_name: str) -> str:
    """Signal the job's whole process group, found from its folder."""
    j = quote_path(job_dir)
    return (
        f'p=$(cat {j}/pgid 2>/dev/null) && [ -n "$p" ] '
        f'&& kill -{signal_name} -- "-$p" 2>/dev/null; true'
    )
