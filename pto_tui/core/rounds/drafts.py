"""Drafts of the forms a person types a round's answers into (Pre-Edit, Post-Run, Amend).

A draft is the form's fields as typed, kept in the project (`.pto-tui/drafts/`) so that
quitting, a crash or a dropped terminal loses nothing: the form reads it back when it
opens again, and it is cleared once the form is submitted. One file per form and round
(the Pre-Edit form has no round yet: its draft is the next round's), written atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import ProjectLayout, round_name

# form name -> how a person calls it
FORMS: dict[str, str] = {"pre-edit": "Pre-Edit", "post-run": "Post-Run", "amend": "Amend"}
DRAFTS_DIR = "drafts"

FieldValue = str | bool  # a text field's text, a tick's state


@dataclass(frozen=True)
class Draft:
    form: str
    round: int | None  # None: the Pre-Edit form of the next round
    fields: dict[str, FieldValue] = field(default_factory=dict)
    saved: str = ""  # UTC, ISO 8601

    def describe(self) -> str:
        """e.g. "the Post-Run draft of iter-004"."""
        of = "the next round" if self.round is None else round_name(self.round)
        return f"the {FORMS.get(self.form, self.form)} draft of {of}"


def drafts_dir(layout: ProjectLayout) -> Path:
    return layout.state_dir / DRAFTS_DIR


def draft_path(layout: ProjectLayout, form: str, number: int | None) -> Path:
    if form not in FORMS:
        raise ValueError(f"no form {form!r}")
    name = form if number is None else f"{form}-{round_name(number)}"
    return drafts_dir(layout) / f"{name}.json"


def is_blank(fields: dict[str, FieldValue]) -> bool:
    return not any(value.strip() if isinstance(value, str) else value for value in fields.values())


def write_draft(layout: ProjectLayout, form: str, number: int | None,
                fields: dict[str, FieldValue]) -> None:
    """Keep the form's fields; a form with nothing typed in it keeps no draft."""
    if is_blank(fields):
        clear_draft(layout, form, number)
        return
    saved = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    data = {"form": form, "round": number, "saved": saved, "fields": fields}
    path = draft_path(layout, form, number)
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                      scratch=layout.state_dir)


def clear_draft(layout: ProjectLayout, form: str, number: int | None) -> None:
    draft_path(layout, form, number).unlink(missing_ok=True)


def read_draft(layout: ProjectLayout, form: str, number: int | None) -> Draft | None:
    """The form's draft, None when there is none; InputError naming the file when it
    cannot be read as one."""
    path = draft_path(layout, form, number)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the draft: {error}", file=path) from None
    return _parse(text, path)


def _parse(text: str, path: Path) -> Draft:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not a draft (JSON: {error.msg})", file=path, line=error.lineno) from None
    if not isinstance(data, dict):
        raise InputError("not a draft: expected a JSON object", file=path)
    form, number, fields = data.get("form"), data.get("round"), data.get("fields")
    if form not in FORMS:
        raise InputError(f"unknown form {form!r} (one of {', '.join(FORMS)})", file=path, key="form")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        raise InputError("expected a round number or null", file=path, key="round")
    if not isinstance(fields, dict) or not all(
            isinstance(k, str) and isinstance(v, str | bool) for k, v in fields.items()):
        raise InputError("expected an object of field names to text or true/false",
                         file=path, key="fields")
    saved = data.get("saved", "")
    return Draft(form, number, dict(fields), saved if isinstance(saved, str) else "")


def list_drafts(layout: ProjectLayout) -> list[Draft]:
    """Every draft of the project that reads as one, by file name (a garbled file is left
    out here; reading it by its form says what is wrong)."""
    folder = drafts_dir(layout)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            found.append(_parse(path.read_text(encoding="utf-8"), path))
        except (OSError, UnicodeDecodeError, InputError):
            continue
    return found
