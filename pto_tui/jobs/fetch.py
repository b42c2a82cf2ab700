"""Result fetch (target → local): files a job wrote on the target, copied into a local folder."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pto_tui.jobs.errors import FetchError
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.shell import join_path, quote_path


async def fetch_with(
    executor: Executor, remote_paths: Iterable[str], local_dir: Path, base: str = ""
) -> list[Path]:
    """Copy result files back into local_dir (relative paths keep their sub-folders).

    Relative remote paths are taken from `base`, else the target's work dir. Every
    missing file is named in one FetchError.
    """
    target = executor.target
    base = base or target.work_dir
    wanted = list(remote_paths)
    if not wanted:
        return []
    checks = " ".join(quote_path(join_path(base, p)) for p in wanted)
    script = f'for f in {checks}; do [ -f "$f" ] || printf "%s\\0" "$f"; done'
    result = await executor.run(script)
    missing = [m.decode(errors="replace") for m in result.stdout.split(b"\0") if m]
    if missing:
        raise FetchError(
            f"result file not found on {target.label}: {', '.join(missing)}",
            hint="did the command write it? check the job's log",
        )
    pairs: list[tuple[str, Path]] = []
    for path in wanted:
        relative = not path.startswith(("/", "~"))
        local_rel = Path(path) if relative and ".." not in Path(path).parts else Path(path).name
        pairs.append((join_path(base, path), local_dir / local_rel))
    await executor.get_files(pairs)
    return [dst for _src, dst in pairs]
