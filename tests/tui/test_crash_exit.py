"""A crash inside the application ends `pto-tui` with a non-zero exit code (it once printed
a ModuleNotFoundError and exited 0). The fault is injected: the launcher's module made
unimportable, as a broken install would leave it."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from tests.tui.tmux import REPO, SESSION, Tmux

CRASHING = (
    "import sys; sys.modules['pto_tui.tui.screens.launcher'] = None; "
    "from pto_tui.cli.main import main; code = main([]); "
    "open(sys.argv[1], 'w').write(str(code))"
)


def test_a_crash_in_the_app_exits_non_zero(tmp_path: Path) -> None:
    out = tmp_path / "exit-code"
    empty = tmp_path / "no-project-here"
    empty.mkdir()
    command = ["env", f"PYTHONPATH={REPO}", f"PTO_TUI_HOME={os.environ.get('PTO_TUI_HOME', '')}",
               sys.executable, "-c", CRASHING, str(out)]
    tmux = Tmux(80, 24)
    try:
        tmux.tmux("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24", "-c", str(empty),
                  shlex.join(command))
        tmux.wait_ended(timeout=60)
    finally:
        tmux.kill()
    assert out.read_text() == "1"
