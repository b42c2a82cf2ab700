"""docs/screenshot.svg, the picture of the application the README shows: the built-in DSL
demo after `pto-tui demo --run` (real runs on this machine), drawn by Textual at 120x40.

    .venv/bin/python scripts/readme_screenshot.py                 run the demo and draw it
    .venv/bin/python scripts/readme_screenshot.py --project DIR   draw an existing project

The demo's timings are this machine's, so the picture differs from run to run; run it
again when the screens change (tests/meta checks the script draws a picture).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the checkout's pto_tui, also when run from elsewhere

from pto_tui.tui.app import PtoApp  # noqa: E402

OUTPUT = REPO / "docs" / "screenshot.svg"
SIZE = (120, 40)


async def draw(project: Path, output: Path, size: tuple[int, int] = SIZE) -> Path:
    """The application on `project` at `size`, its first pane once the project is read and
    every pane is mounted, saved as an SVG."""
    app = PtoApp(project)
    async with app.run_test(size=size) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            session = getattr(app, "session", None)
            if session is not None and session.loaded is not None:
                break
        else:
            raise SystemExit(f"the project at {project} never loaded")
        await app.screen.mount_panes()  # type: ignore[attr-defined]
        await pilot.pause(0.3)
        await pilot.wait_for_scheduled_animations()
        output.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(filename=output.name, path=str(output.parent))
    return output


def demo_project(folder: Path) -> Path:
    """The DSL demo, run headless through its scripted rounds."""
    from pto_tui.cli.main import main

    projects = folder / "projects"
    code = main(["demo", "--run", "--quiet", "--projects-root", str(projects)])
    if code != 0:
        raise SystemExit(f"pto-tui demo --run failed with exit code {code}")
    return projects / "demo_attention"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, help="draw this project instead of a fresh demo")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"default {OUTPUT.relative_to(REPO)}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("PTO_TUI_HOME", str(Path(tmp) / "home"))  # anchors stay in tmp
        project = args.project or demo_project(Path(tmp))
        print(asyncio.run(draw(project, args.output)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
