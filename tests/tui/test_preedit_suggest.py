"""The costmodel ranking from the Pre-Edit form: ctrl+g ranks the tile knobs in a worker
and inserts the chosen knob's evidence, the knob into the scope."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TextArea

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded, tab_to, wait_for

PLAN = """[costmodel]
queries = ["TEXP half -r 16 -c {kFaTileS1}"]
work = "{kFaTileS1}"
"""


async def test_ctrl_g_inserts_the_ranking_into_the_evidence(fresh_root: Path) -> None:
    (fresh_root / "workspace" / "pto-operator.toml").write_text(PLAN)
    app = PtoApp(fresh_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await tab_to(pilot, "pe-title")
        await pilot.press("ctrl+g")
        evidence = app.screen.query_one("#pe-evidence", TextArea)
        await wait_for(pilot, lambda: "Costmodel ranking of kFaTileS1" in evidence.text, 60)
        # the stand-in tool makes wider tiles cheaper per column: the widest ranks first
        assert evidence.text.startswith("Suggestion: kFaTileS1 256 -> 1024 (costmodel rank 1")
        assert "1. kFaTileS1=1024: " in evidence.text and "(current)" in evidence.text
        assert "kFaTileS1" in app.screen.query_one("#pe-scope", Input).value


async def test_without_a_plan_the_form_says_why(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    notices: list[str] = []
    async with app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        real = app.notify

        def record(message: str, **kwargs: object) -> None:
            notices.append(message)
            real(message, **kwargs)  # type: ignore[arg-type]

        app.notify = record  # type: ignore[method-assign]
        await pilot.press("3")
        await tab_to(pilot, "pe-title")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: any("no costmodel plan" in n for n in notices), 60)
        assert app.screen.query_one("#pe-evidence", TextArea).text == ""
