"""The scripted demo campaigns (`pto-tui demo --run`) get through the rules they run under:
every scripted round whose change the high-risk rule calls high risk carries its
justification, or the campaign stops there, refused (the tile-lib demo's head-unroll round
did, once the rule knew the kernel steps through the head dimension by it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pto_tui.backends.demo_campaign import SCRIPTS, ScriptedRound
from pto_tui.core.operators.tunables import discover
from pto_tui.core.rules.risk import diff_risks, parameter_risks, tile_knobs

DEMO = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators"
ASSIGNED = re.compile(r"\b(\w+)\s*=\s*(\d+)\b")


def risks_of(step: ScriptedRound, folder: Path) -> list[str]:
    """What the high-risk rule finds in the scripted round's change, as `round changes`
    finds it: its parameters, or the constant its edit rewrites, against the defaults."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()
               if p.suffix in (".py", ".h", ".cpp")}
    defaults = {t.name: t.value for t in discover(folder)}
    changes = [(name, defaults.get(name), new) for name, new in step.parameters.items()]
    found: list[str] = []
    if step.edit:
        _file, old, new = step.edit
        found += diff_risks(f"--- a\n+++ b\n-{old}\n+{new}\n")
        before, after = dict(ASSIGNED.findall(old)), dict(ASSIGNED.findall(new))
        changes += [(name, int(before[name]), int(value)) for name, value in after.items()
                    if name in before]
    names = [name for name, _old, _new in changes]
    return found + parameter_risks(changes, tile_knobs(sources, names))


@pytest.mark.parametrize("folder", sorted(SCRIPTS))
def test_every_scripted_high_risk_change_is_justified(folder: str) -> None:
    risky = 0
    for step in SCRIPTS[folder]:
        risks = risks_of(step, DEMO / folder)
        risky += bool(risks)
        assert not risks or step.justification.strip(), (step.title, risks)
    assert risky  # the check sees the scripts' bigger tiles
