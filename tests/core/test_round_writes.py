"""A new round's folder is put together aside and appears whole in runs/ by one rename,
its notes.md and round.toml in it, each written once; what a crashed write left aside is
not carried into it. project.toml's table note is written only when it changes."""

from __future__ import annotations

import errno
import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import StartRequest
from pto_tui.core.project import completeness
from pto_tui.core.rounds import toml_text
from tests.core.test_read_model import pre_edit, project_with_rounds


def test_a_new_round_appears_whole_each_file_written_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_with_rounds(tmp_path, 2)
    rendered: list[int] = []
    real_dumps = toml_text.dumps

    def counting_dumps(data: dict[str, Any]) -> str:
        rendered.append(int(data["number"]))
        return real_dumps(data)

    monkeypatch.setattr(toml_text, "dumps", counting_dumps)
    # a crashed write's leftovers aside: never carried into the new round
    leftover = root / "runs" / ".iter-003.new"
    leftover.mkdir()
    (leftover / "patch.diff").write_text("stale\n")
    with Campaign(root, write=True) as campaign:
        record = campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))
    folder = root / "runs" / "iter-003"
    assert record.number == 3 and rendered == [3]  # round.toml rendered and written once
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md", "round.toml"]
    assert not leftover.exists()
    data = tomllib.loads((folder / "round.toml").read_text(encoding="utf-8"))
    assert data["notes_sha"] == hashlib.sha256((folder / "notes.md").read_bytes()).hexdigest()
    assert (folder / "notes.md").stat().st_mode & 0o777 == 0o644


def test_the_table_note_is_written_only_when_it_changes(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 1)
    witness = root / completeness.WITNESS
    before = witness.stat()
    with Campaign(root, write=True) as campaign:
        campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))  # saves project.toml
    after = witness.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    witness.write_text("[]\n")  # not what the file holds: written again at the next save
    with Campaign(root, write=True) as campaign:
        campaign.set_phase(campaign.config.phases[-1])
    assert witness.read_text() != "[]\n"


def test_a_write_by_way_of_scratch_space_leaves_nothing_there(tmp_path: Path) -> None:
    target, scratch = tmp_path / "runs" / "iter-001" / "notes.md", tmp_path / ".pto-tui" / "tmp"
    target.parent.mkdir(parents=True)
    target.write_text("old\n")
    target.chmod(0o600)
    atomic_write_text(target, "new\n", scratch=scratch)
    assert target.read_text() == "new\n" and target.stat().st_mode & 0o777 == 0o600
    assert list(scratch.iterdir()) == []


def test_scratch_space_on_another_file_system_falls_back_beside_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, scratch = tmp_path / "notes.md", tmp_path / "elsewhere"
    real_replace = os.replace

    def replace(src: str, dst: Path) -> None:
        if Path(src).parent == scratch:  # as a rename across file systems fails
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    atomic_write_text(target, "text\n", scratch=scratch)
    assert target.read_text() == "text\n" and list(scratch.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "notes.md"]
