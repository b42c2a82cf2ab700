"""The Markdown a ledger writes beside its records: a round's notes.md, files.txt and
patch.diff, and ITERATIONS.md (rewritten only while pto-tui wrote the current file, else
the missing rows appended, every hand-written line kept)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text, flush_to_disk, staged_write_text
from pto_tui.core.errors import DiskFullError, bounded_json, disk_full, read_text
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.hashes import sha256_text
from pto_tui.core.rounds.iterations_table import names_rounds, rows_missing
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.rounds.render import (
    iterations_row,
    patched_iterations,
    render_files_txt,
    render_iterations,
    render_notes,
    render_patch,
)


class MarkdownFiles:
    """The ledger's Markdown writing, mixed into `Ledger` (which gives it its layout, the
    path of the rendered-files record and its atomic write)."""

    layout: ProjectLayout
    _rendered_path: Path

    def _write(self, path: Path, text: str) -> None:
        raise NotImplementedError

    def write_round_files(
        self, record: Round, diff_text: str | None = None, folder: Path | None = None
    ) -> list[str]:
        """Render notes.md (and files.txt / patch.diff when diff_text is given), in the
        round's folder or in `folder` (a new round's staging_dir()).

        Returns warnings about hand-edited files that were left alone. The record's
        notes_sha is updated; call save() afterwards.
        """
        warnings: list[str] = []
        write = self._write if folder is None else staged_write_text
        folder = folder or self.layout.round_dir(record.number)
        folder.mkdir(parents=True, exist_ok=True)
        notes_path = folder / "notes.md"
        rendered = render_notes(record)
        if notes_path.exists():
            current = read_text(notes_path, errors="replace")
            hand_edited = record.imported or (
                record.notes_sha and sha256_text(current) != record.notes_sha
            )
            if hand_edited and current != rendered:
                side = folder / "notes.pto-tui.md"
                write(side, rendered)
                warnings.append(
                    f"{notes_path} was edited by hand; left as is, pto-tui's version is in {side.name}"
                )
                rendered = ""
        if rendered:
            write(notes_path, rendered)
            record.notes_sha = sha256_text(rendered)
        if diff_text is not None:
            for name, text in (
                ("files.txt", render_files_txt(record)),
                ("patch.diff", render_patch(record, diff_text)),
            ):
                path = folder / name
                if record.imported and path.exists():
                    warnings.append(f"{path} was written by hand; left as is")
                    continue
                write(path, text)
        return warnings

    def _rendered(self) -> dict[str, str]:
        """The hashes of the files pto-tui last wrote; none known when the file is missing
        or is not such a table (then a hand edit is assumed, and nothing is overwritten)."""
        try:
            known = bounded_json(read_text(self._rendered_path))
        except (FileNotFoundError, ValueError):
            return {}
        if not isinstance(known, dict) or not all(isinstance(v, str) for v in known.values()):
            return {}
        return {str(name): value for name, value in known.items()}

    def update_iterations(
        self, record: Round, rounds: Callable[[], list[Round]], baseline: TorchBaseline | None
    ) -> list[str]:
        """ITERATIONS.md after `record` was written. When pto-tui wrote the current file,
        only that round's row changes: rewritten in place, or appended (the file is not
        rendered again at every write of a 1,000-round campaign); otherwise as
        write_iterations, with every round."""
        path = self.layout.iterations
        try:
            current = read_text(path, errors="replace")
        except FileNotFoundError:
            current = None
        known = self._rendered()
        if current is not None and known.get("ITERATIONS.md") == sha256_text(current):
            patched = patched_iterations(current, record, baseline)
            if patched is not None:
                if patched != current and patched.startswith(current):
                    self._append_owned(patched[len(current) :], patched, known)
                elif patched != current:
                    self._write_owned(patched, known)
                return []
        return self.write_iterations(rounds(), baseline)

    def _append_owned(self, tail: str, text: str, known: dict[str, str]) -> None:
        """A new row at the end: appended, not the whole file written again."""
        path = self.layout.iterations
        with path.open("a", encoding="utf-8") as handle:
            size = handle.tell()
            try:
                handle.write(tail)
                handle.flush()
                flush_to_disk(handle.fileno())
            except OSError as error:  # never half a row (a full disk): cut back off
                os.truncate(path, size)
                raise disk_full(error, path) or error from None
        self._owned(text, known)

    def _write_owned(self, text: str, known: dict[str, str]) -> None:
        atomic_write_text(self.layout.iterations, text)
        self._owned(text, known)

    def _owned(self, text: str, known: dict[str, str]) -> None:
        """Remember the ITERATIONS.md pto-tui wrote. Not remembered (a full disk), the file
        is taken as hand-edited: later writes append the rows it lacks, nothing is lost."""
        known["ITERATIONS.md"] = sha256_text(text)
        with contextlib.suppress(DiskFullError):
            atomic_write_text(self._rendered_path, json.dumps(known, indent=2))

    def write_iterations(
        self, rounds: list[Round], baseline: TorchBaseline | None, *, fresh: bool = False
    ) -> list[str]:
        """Rewrite ITERATIONS.md when pto-tui wrote the current one; otherwise append
        only the rows that are missing, keeping every hand-written line. `fresh` is for a
        new project, whose template file pto-tui owns."""
        path = self.layout.iterations
        rendered = render_iterations(rounds, baseline)
        known = self._rendered()
        if path.exists() and not fresh:
            current = read_text(path, errors="replace")
            if known.get("ITERATIONS.md") != sha256_text(current):
                missing = rows_missing(current, rounds)
                if not missing:
                    return []
                text = current if current.endswith("\n") else current + "\n"
                named = names_rounds(current)  # appended rows read like the hand-written ones
                text += "".join(iterations_row(r, named) + "\n" for r in missing)
                atomic_write_text(path, text)
                return [
                    f"{path} was edited by hand; appended {len(missing)} row(s) and kept the rest"
                ]
        self._write_owned(rendered, known)
        return []
