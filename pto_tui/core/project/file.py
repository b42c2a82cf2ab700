"""project.toml on disk: the parsed config plus a tomlkit document for faithful rewrites.

The file is the source of truth; nothing here caches it across instances.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import ConfigError
from pto_tui.core.project import completeness
from pto_tui.core.project.parse import parse_config


class ProjectFile:
    """project.toml on disk: parsed config plus the tomlkit document for faithful rewrites."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read()
        try:
            completeness.check(path, self.document)
        except ConfigError:
            # another process may have saved the file (and its table note) since we read
            # it: a table it added is then missing from our older text, so read it again
            before = self.text
            self._read()
            if self.text == before:
                raise
            completeness.check(path, self.document)

    def _read(self) -> None:
        path = self.path
        try:
            self.text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError("no project.toml here", file=path) from None
        except UnicodeDecodeError as error:
            raise ConfigError(f"not UTF-8 text ({error.reason})", file=path) from None
        except OSError as error:
            raise ConfigError(f"cannot read: {error.strerror}", file=path) from None
        self.config = parse_config(path, self.text)
        try:
            self.document = tomlkit.parse(self.text)
        except tomlkit.exceptions.ParseError as error:  # tomllib accepted it; be safe anyway
            raise ConfigError(f"invalid TOML: {error}", file=path, line=error.line) from None

    def set(self, dotted: str, value: Any) -> None:
        """Set a dotted key in the document (creating tables as needed); call save() after."""
        parts = dotted.split(".")
        table: Any = self.document
        for part in parts[:-1]:
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[parts[-1]] = value

    def get_state(self, key: str, default: Any = None) -> Any:
        state = self.document.get("state", {})
        return state.get(key, default)

    def save(self) -> None:
        """Validate the edited document, then write it atomically."""
        text = tomlkit.dumps(self.document)
        self.config = parse_config(self.path, text)
        atomic_write_text(self.path, text)
        self.text = text
        completeness.note(self.path, self.document)
