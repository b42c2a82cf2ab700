"""The README's picture of the application is drawn by scripts/readme_screenshot.py: the
script draws a project's screen as an SVG (here a fixture project, quickly; by hand, a
fresh run of the demo), and the README shows the file it writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "readme_screenshot.py"


def load_script():
    spec = importlib.util.spec_from_file_location("readme_screenshot", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_the_script_draws_the_application(campaign_root: Path, tmp_path: Path) -> None:
    script = load_script()
    output = await script.draw(campaign_root, tmp_path / "shot.svg")
    svg = output.read_text()
    assert svg.startswith("<svg") and "fa_tilelib" in svg and "Rounds" in svg
    assert "inconclusive" in svg  # the verdict counts are drawn


def test_the_readme_shows_the_picture_the_script_writes() -> None:
    script = load_script()
    relative = script.OUTPUT.relative_to(REPO).as_posix()
    assert f"]({relative})" in (REPO / "README.md").read_text()
    assert script.OUTPUT.is_file()
