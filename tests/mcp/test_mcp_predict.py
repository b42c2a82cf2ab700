"""The official MCP client over stdio on a project that predicts with perf_sim ([target]
predict): `suggest_review`, `diff` and `rounds` give what `pto-tui suggest --review
--json`, `diff --json` and `rounds --json` give, each valid against its schema."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.core.perf_sim_build import predicting_project
from tests.json_check import validate
from tests.mcp.client import agent


async def drive(root: Path) -> None:
    async with agent(root) as a:
        table = await a.ok("rounds")
        validate("rounds", table)
        rounds = table["rounds"]
        cycles = [r["predicted_cycles"] for r in rounds]
        assert all(isinstance(c, int) for c in cycles) and cycles[0] != cycles[1]
        changed = await a.ok("diff", number=1)
        validate("diff", changed)
        prediction = changed["prediction"]
        assert (prediction["cycles_before"], prediction["cycles_after"]) == tuple(cycles)
        assert prediction["predicted_change"] == pytest.approx(cycles[1] / cycles[0] - 1)
        assert prediction["measured_change"] == pytest.approx(rounds[1]["measured_change"])
        review = await a.ok("suggest_review")
        validate("suggest-review", review)
        assert review["perf_sim"]["rounds"][0]["round"] == 1 and review["perf_sim"]["judged"] <= 1
        # the stand-in has no costmodel engine: the knobs are not reviewed, and it says why
        assert review["review"] == [] and "pto-isa checkout" in review["costmodel_problem"]


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_predictions_over_mcp(tmp_path: Path) -> None:
    asyncio.run(drive(predicting_project(tmp_path)))
