"""`pto-tui exec`, `trust-host`, `jobs`, `attach`: the job layer from the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, invoked_as, load_project_file, print_json
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Target, exec_folder
from pto_tui.core.project.run_claim import workspace_upload_lock
from pto_tui.jobs.connect import scan_host_key
from pto_tui.jobs.hostkeys import app_known_hosts, trust_host_key
from pto_tui.jobs.job import Job
from pto_tui.jobs.model import ENDED, JobRecord, JobSpec, JobState, job_id_for, list_records, shown_state
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.targets import target_kind


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser(
        "exec",
        help=HELP["exec"],
        description=(
            "Run CMD on the target of project.toml with live output. The workspace is "
            "uploaded first (only what changed). Ctrl-C cancels the command (TERM, then "
            "KILL). The exit code is the command's: 1 when it failed without one or was "
            "lost, 130 when cancelled."
        ),
    )
    run.add_argument("--no-sync", action="store_true", help="do not upload the workspace first")
    run.add_argument("--timeout", type=float, metavar="S", help="stop the command after S seconds")
    run.add_argument("--pty", action="store_true", help="run in a terminal (merges stderr)")
    run.add_argument(
        "--detach",
        action="store_true",
        help="start it detached on the target and return; follow it with `pto-tui attach ID`",
    )
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ...",
                     help="the command and its arguments, after --")
    run.set_defaults(handler=exec_handler)

    trust = sub.add_parser(
        "trust-host",
        help=HELP["trust-host"],
        description=(
            "Connect to the target's SSH host, show its host key fingerprint and, once "
            "confirmed, store it in pto-tui's own known_hosts. A key that changed is "
            "refused: remove the old entry by hand if the change is legitimate."
        ),
    )
    trust.add_argument("--yes", action="store_true", help="trust without asking")
    trust.set_defaults(handler=trust_handler)

    jobs = sub.add_parser("jobs", help=HELP["jobs"],
                          description="The project's jobs, oldest first: each step a person or "
                          "a round ran (its round and step, state, exit code, command).")
    jobs.add_argument("--all", action="store_true", dest="all_jobs",
                      help="also pto-tui's own bookkeeping jobs (clock reads, result listings)")
    add_json_flag(jobs)
    jobs.set_defaults(handler=jobs_handler)

    attach = sub.add_parser(
        "attach",
        help=HELP["attach"],
        description="Re-attach to a detached job: its log continues where it stopped. "
        "Ctrl-C stops following and leaves the job running. On a slurm target JOB_ID may be "
        "the Slurm job id.",
    )
    attach.add_argument("job_id", metavar="JOB_ID",
                        help="pto-tui's job id (`pto-tui jobs`), or a Slurm job id")
    attach.set_defaults(handler=attach_handler)


# ---------------------------------------------------------------- exec


def command_text(words: list[str]) -> str:
    """One word is a shell string as typed; several are quoted and joined."""
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise InputError("no command given", hint="pto-tui exec -- CMD ...")
    return words[0] if len(words) == 1 else shlex.join(words)


def exit_code_of(record: JobRecord) -> int:
    if record.state is JobState.SUCCEEDED:
        return 0
    if record.state is JobState.CANCELLED:
        return 130
    if record.state is JobState.FAILED and record.exit_code:
        return record.exit_code
    if record.state is JobState.FAILED and record.signal:
        number = getattr(signal, f"SIG{record.signal}", None)
        return 128 + int(number) if number is not None else 1
    return 1


def exec_handler(args: argparse.Namespace) -> int:
    layout, project = load_project_file(args)
    spec = JobSpec(
        command=command_text(args.command),
        cwd=exec_folder(project.config, layout.workspace),  # where the project's commands run
        timeout=args.timeout,
        pty=args.pty,
        detached=args.detach,
    )
    sync_from = None if args.no_sync else layout.workspace
    if sync_from is not None and not sync_from.is_dir():
        sync_from = None  # a project without a workspace folder has nothing to upload
    target = project.config.target
    workspace = layout.workspace
    if sync_from is None:
        return asyncio.run(_exec(JobRunner(layout.jobs_dir), target, spec, sync_from, workspace))
    # uploading the workspace while another pto-tui runs a round would change its files
    # under it: the sync and the command hold the project lock
    lock = workspace_upload_lock(layout.state_dir, "pto-tui exec")
    try:
        return asyncio.run(_exec(JobRunner(layout.jobs_dir), target, spec, sync_from, workspace))
    finally:
        lock.release()


async def _exec(
    runner: JobRunner, target: Target, spec: JobSpec, sync_from: Path | None, workspace: Path
) -> int:
    try:
        # the command runs in the workspace's copy on the target, synced or not
        job = await runner.submit(target, spec, sync_from=sync_from, workspace=workspace)
        if spec.detached:
            return await _launch_detached(job)
        return await _follow(job, on_interrupt=job.cancel, interrupt_note="cancelling")
    finally:
        await runner.close()


async def _launch_detached(job: Job) -> int:
    printer = asyncio.create_task(_print_lines(job))
    record = await job.wait_started()
    if record.state.is_final:
        await printer
        return _report_end(record)
    await job.detach()
    await printer
    print(f"pto-tui: job {job.id} runs detached; follow it with `{invoked_as()} attach {job.id}`",
          file=sys.stderr)
    print(job.id)
    return 0


async def _print_lines(job: Job) -> None:
    """The job's lines as they come, a block at a time: one write and one flush per block
    read from the job (a write and a flush per line held a fast command to a third of the
    job layer's speed), so a terminal still sees each block as soon as it arrives."""
    async for batch in job.subscribe().batches():
        if batch.stream == "meta":
            out, text = sys.stderr, "".join(f"pto-tui: {line}\n" for line in batch.texts)
        else:
            out = sys.stdout if batch.stream == "stdout" else sys.stderr
            text = "\n".join(batch.texts) + "\n" if batch.texts else ""
        out.write(text)
        out.flush()


async def _follow(
    job: Job, on_interrupt: Callable[[], object], interrupt_note: str
) -> int:
    """Print the job's lines until it ends; Ctrl-C calls on_interrupt (bounded, once)."""
    loop = asyncio.get_running_loop()
    interrupted: list[asyncio.Task[object]] = []

    def interrupt() -> None:
        if not interrupted:
            print(f"\npto-tui: {interrupt_note} job {job.id} ...", file=sys.stderr)
            interrupted.append(loop.create_task(on_interrupt()))  # type: ignore[arg-type]

    # outside the main thread the signal handler cannot be set: Ctrl-C is not ours then
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        await _print_lines(job)
        record = await job.wait()
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
    return _report_end(record)


def _report_end(record: JobRecord) -> int:
    if record.error:
        print(f"pto-tui: error: {record.error}", file=sys.stderr)
    if record.state is JobState.RUNNING and record.detached:
        print(f"pto-tui: job {record.id} keeps running; `{invoked_as()} attach {record.id}` follows it",
              file=sys.stderr)
        return 130
    return exit_code_of(record)


# ---------------------------------------------------------------- attach, jobs, trust-host


def attach_handler(args: argparse.Namespace) -> int:
    layout, project = load_project_file(args)
    job_id = job_id_for(layout.jobs_dir, args.job_id)  # a Slurm job id names its pto-tui job
    return asyncio.run(_attach(JobRunner(layout.jobs_dir), project.config.target, job_id))


async def _attach(runner: JobRunner, target: Target, job_id: str) -> int:
    try:
        job = await runner.reattach(target, job_id)
        return await _follow(job, on_interrupt=job.detach, interrupt_note="detaching from")
    finally:
        await runner.close()


def jobs_handler(args: argparse.Namespace) -> int:
    layout, project = load_project_file(args)
    records = [r for r in list_records(layout.jobs_dir) if args.all_jobs or not r.internal]
    ended = _ended_on_target(layout.jobs_dir, project.config.target, records)
    if args.json:
        print_json({"jobs": [{**record.to_json(), "shown_state": shown_state(record, record.id in ended),
                              **({"exit_code_on_target": ended[record.id]} if record.id in ended else {})}
                             for record in records]}, schema="jobs")
        return 0
    if not records:
        print("no jobs yet")
        return 0
    for record in records:
        code = ended.get(record.id, record.exit_code)
        outcome = (
            f"exit {code}" if code is not None
            else f"SIG{record.signal}" if record.signal else ""
        )
        detached = " detached" if record.detached else ""
        step = f"{record.name}: " if record.name else ""
        slurm = f" slurm job {record.scheduler_id}" if record.scheduler_id else ""
        print(f"{record.id}  {shown_state(record, record.id in ended):<13} {outcome:<8} "
              f"{record.target}{detached}{slurm}  {step}{record.command}")
    if ended:
        print(f"{ENDED}: finished while no pto-tui followed it; opening the project (or "
              "`pto-tui attach ID`) collects its output and records its round's step")
    return 0


def _ended_on_target(jobs_dir: Path, target: Target, records: list[JobRecord]) -> dict[str, int]:
    """The detached jobs whose pto-tui is gone that have ended on the project's target
    (asked there, bounded: {} when it does not answer), so none is shown still running."""
    left = [r for r in records if shown_state(r) == "re-attachable"]
    if not left:
        return {}

    async def ask() -> dict[str, int]:
        runner = JobRunner(jobs_dir)
        try:
            return await runner.ended_unfollowed(target, left)
        finally:
            await runner.close()

    return asyncio.run(ask())


def trust_handler(args: argparse.Namespace) -> int:
    _layout, project = load_project_file(args)
    target = project.config.target
    if not target_kind(target.kind).host_key or not target.host:  # a slurm target here: none
        raise InputError(f"the project's target is {target.label}: there is no host key to trust",
                         key="target.kind")
    status = asyncio.run(scan_host_key(target))
    if status.trusted:
        print(f"{target.host}: host key {status.fingerprint} is already trusted")
        return 0
    print(f"{target.host} ({status.known_as}) presents the host key {status.fingerprint}")
    if not args.yes:
        try:
            answer = input("Trust this key? Check it with the host's administrator. [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("not trusted", file=sys.stderr)
            return 1
    path = trust_host_key(status.known_as, status.key_line, app_known_hosts())
    print(f"trusted: stored in {path}")
    return 0
