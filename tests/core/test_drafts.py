"""Drafts of the round forms: kept in .pto-tui/drafts/ one file a form and round, read
back as written, gone once cleared or blank, and a garbled file named when read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.drafts import (
    clear_draft,
    draft_path,
    list_drafts,
    read_draft,
    write_draft,
)


def test_a_draft_is_read_back_as_written_and_cleared(tmp_path: Path) -> None:
    layout = ProjectLayout(tmp_path)
    fields: dict[str, str | bool] = {"pe-title": "bigger [q] tile", "pe-tick-tile_shape": True,
                                     "pe-scope": ""}
    write_draft(layout, "pre-edit", None, fields)
    path = draft_path(layout, "pre-edit", None)
    assert path == tmp_path / ".pto-tui" / "drafts" / "pre-edit.json"
    draft = read_draft(layout, "pre-edit", None)
    assert draft is not None and draft.fields == fields and draft.round is None
    assert draft.saved.endswith("Z")
    assert draft.describe() == "the Pre-Edit draft of the next round"

    write_draft(layout, "post-run", 4, {"run-analysis": "the rescale is needed"})
    assert draft_path(layout, "post-run", 4).name == "post-run-iter-004.json"
    assert [d.describe() for d in list_drafts(layout)] == [
        "the Post-Run draft of iter-004", "the Pre-Edit draft of the next round"]
    assert read_draft(layout, "post-run", 5) is None  # another round's form: none

    clear_draft(layout, "pre-edit", None)
    assert read_draft(layout, "pre-edit", None) is None and not path.exists()
    clear_draft(layout, "pre-edit", None)  # twice: nothing to do


def test_a_form_with_nothing_typed_keeps_no_draft(tmp_path: Path) -> None:
    layout = ProjectLayout(tmp_path)
    write_draft(layout, "amend", 2, {"amend-value": "kept", "amend-why": "typo"})
    write_draft(layout, "amend", 2, {"amend-value": "  ", "amend-why": "", "tick": False})
    assert read_draft(layout, "amend", 2) is None
    assert not draft_path(layout, "amend", 2).exists()


def test_no_temporary_file_is_left_beside_the_drafts(tmp_path: Path) -> None:
    layout = ProjectLayout(tmp_path)
    for text in ("a", "ab", "abc"):
        write_draft(layout, "pre-edit", None, {"pe-title": text})
    assert [p.name for p in (tmp_path / ".pto-tui" / "drafts").iterdir()] == ["pre-edit.json"]


@pytest.mark.parametrize(("text", "named"), [
    ("{not json", "not a draft (JSON"),
    ('{"form": "essay", "round": null, "fields": {}}', "[form] unknown form 'essay'"),
    ('{"form": "amend", "round": "two", "fields": {}}', "[round] expected a round number"),
    ('{"form": "amend", "round": 2, "fields": {"a": 3}}', "[fields] expected an object"),
])
def test_a_garbled_draft_is_named_when_read(tmp_path: Path, text: str, named: str) -> None:
    layout = ProjectLayout(tmp_path)
    path = draft_path(layout, "amend", 2)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_draft(layout, "amend", 2)
    assert str(path) in raised.value.render() and named in raised.value.render()
    assert list_drafts(layout) == []  # left out of the list, not a crash
