"""A round that sets a case field or generator option (kind case) records the change and
keeps it: the value reaches the build as a command argument, so the default that discovery
reads in the generator is no hand edit that would undo it."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from tests.core.helpers import cli, ready_project, run_round

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
FA_LIKE = REPO / "kernels" / "manual" / "common" / "fa_like"


def _changes(root: Path, number: int) -> dict[str, object]:
    data = tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())
    changes = data["changes"]
    assert isinstance(changes, dict)
    return changes


def test_a_case_field_set_by_a_round_is_recorded_and_kept(tmp_path: Path) -> None:
    source = tmp_path / "src" / "fa_like"
    shutil.copytree(FA_LIKE, source)
    assert cli("new", source, "--projects-root", tmp_path / "projects") == 0
    root = tmp_path / "projects" / "fa_like"
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok") == 0
    baseline = ["baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99"]
    assert cli("--project", root, *baseline) == 0
    # a bigger tile is a high-risk change: recorded, so the rule asks for a justification
    justify = "S1 = 512 leaves room for 256-wide tiles in UB"
    assert run_round(root, "90,91,92", params=("TILE_S1=256",), justify=justify) == 0
    first = _changes(root, 1)
    assert first["parameters"] == [{"name": "TILE_S1", "old": 128, "new": 256}]
    assert first["snapshot"]["TILE_S1"] == 256  # type: ignore[index]
    assert run_round(root, "80,81,82", params=("QK_PRELOAD=3",)) == 0
    second = _changes(root, 2)
    assert second["parameters"] == [{"name": "QK_PRELOAD", "old": 2, "new": 3}]
    snapshot = second["snapshot"]
    assert isinstance(snapshot, dict) and (snapshot["TILE_S1"], snapshot["QK_PRELOAD"]) == (256, 3)
    tunables = tomllib.loads((root / "project.toml").read_text())["tunables"]
    assert (tunables["TILE_S1"]["value"], tunables["QK_PRELOAD"]["value"]) == (256, 3)


def test_a_generator_option_of_the_generic_discovery_is_kept_too(tmp_path: Path) -> None:
    root = ready_project(tmp_path, "fa_tilelib")
    assert run_round(root, "90,91,92", params=("QK_PRELOAD=2",)) == 0
    changes = _changes(root, 1)
    assert changes["parameters"] == [{"name": "QK_PRELOAD", "old": 4, "new": 2}]
    assert changes["snapshot"]["QK_PRELOAD"] == 2  # type: ignore[index]
