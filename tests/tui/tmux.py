"""A real tmux server of its own for one test: launch the real `pto-tui` in it, send keys
as a person at a terminal would (a burst is one tmux invocation: no pause between keys),
read the screen with capture-pane and poll it until what is expected shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SESSION = "app"


@dataclass(frozen=True)
class Typed:
    """Literal text for send-keys -l (a key name otherwise, e.g. "Tab", "C-s")."""

    text: str


def burst_args(items: list[Typed | str]) -> list[str]:
    """One tmux argv sending every item in order: `send-keys -l A ; send-keys Tab ; ...`."""
    argv: list[str] = []
    for item in items:
        if argv:
            argv.append(";")
        if isinstance(item, Typed):
            argv += ["send-keys", "-t", SESSION, "-l", item.text]
        else:
            argv += ["send-keys", "-t", SESSION, item]
    return argv


class Tmux:
    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.socket = f"pto-tui-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height
        self.last = ""

    def tmux(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *argv],
                              capture_output=True, text=True, check=check, timeout=30)

    def launch(self, project: Path, *, no_color: bool = False) -> None:
        """The app on the project, in a new session; the session ends when the app exits."""
        env = ["env", "-u", "NO_COLOR", f"PYTHONPATH={REPO}", "EDITOR=true",
               f"PTO_TUI_HOME={os.environ.get('PTO_TUI_HOME', '')}"]
        if no_color:
            env.append("NO_COLOR=1")
        command = [*env, sys.executable, "-m", "pto_tui.cli.main", "--project", str(project)]
        self.tmux("new-session", "-d", "-s", SESSION, "-x", str(self.width),
                  "-y", str(self.height), shlex.join(command))

    def resize(self, width: int, height: int) -> None:
        """The terminal made smaller or bigger, as a person drags a window."""
        self.tmux("resize-window", "-t", SESSION, "-x", str(width), "-y", str(height))

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", SESSION, check=False).returncode == 0

    def keys(self, *keys: str) -> None:
        self.burst(list(keys))

    def burst(self, items: list[Typed | str]) -> None:
        self.tmux(*burst_args(items))

    def escaped(self) -> str:
        """The screen with its colours and attributes (SGR escapes)."""
        return self.tmux("capture-pane", "-p", "-e", "-t", SESSION).stdout

    def screen(self) -> str:
        done = self.tmux("capture-pane", "-p", "-t", SESSION, check=False)
        if done.returncode == 0:
            self.last = done.stdout
        return self.last

    def wait(self, ready: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        """The screen once ready(screen) holds; fails naming what and the last screen."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if ready(shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"after {timeout:.0f}s the screen never showed {what}; "
                                     f"last screen:\n{shown}")
            time.sleep(0.1)

    def wait_screen(self, text: str, timeout: float = 30.0) -> str:
        return self.wait(lambda shown: text in shown, repr(text), timeout)

    def wait_ended(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                raise AssertionError(f"the app did not exit; last screen:\n{self.screen()}")
            time.sleep(0.1)

    def kill(self) -> None:
        self.tmux("kill-server", check=False)


def chromatic_colours(escaped: str) -> set[str]:
    """The SGR colours of a `capture-pane -e` screen that are not greys (NO_COLOR in
    Textual leaves greys: the 256-colour grey ramp 232-255 and black 16)."""
    found: set[str] = set()
    for params in re.findall(r"\x1b\[([0-9;]*)m", escaped):
        codes = params.split(";")
        for i, code in enumerate(codes[:-2]):
            if code in ("38", "48") and codes[i + 1] == "5":
                number = int(codes[i + 2])
                if number != 16 and number < 232:
                    found.add(f"{code};5;{number}")
            elif code in ("38", "48") and codes[i + 1] == "2" and len(set(codes[i + 2:i + 5])) > 1:
                found.add(";".join(codes[i:i + 5]))
    return found
