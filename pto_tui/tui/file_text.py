"""A file's text as the panes show it: bounded, and never an error (apart from the
document screen, which brings Textual's Markdown widget: panes need only the text)."""

from __future__ import annotations

from pathlib import Path

MAX_BYTES = 2_000_000  # beyond this only the head is shown (logs belong in the log pane)


def read_text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return f"(cannot read {path.name}: {error.strerror})"
    text = data[:MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_BYTES:
        text += f"\n… (only the first {MAX_BYTES // 1_000_000} MB shown)"
    return text
