"""project.toml on disk: the parsed config plus a tomlkit document for faithful rewrites.

The file is the source of truth; nothing here caches it across instances. The tomlkit
document is parsed at its first use (a write, or a read of what only it holds): a read
command asks only the plain tables, which tomllib reads several times faster.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import ConfigError, InputError, read_text
from pto_tui.core.project import completeness
from pto_tui.core.project.parse import parse_config

if TYPE_CHECKING:
    import tomlkit


class ProjectFile:
    """project.toml on disk: parsed config plus the tomlkit document for faithful rewrites."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read()
        try:
            completeness.check(path, self._data)
        except ConfigError:
            # another process may have saved the file (and its table note) since we read
            # it: a table it added is then missing from our older text, so read it again
            before = self.text
            self._read()
            if self.text == before:
                raise
            completeness.check(path, self._data)

    def _read(self) -> None:
        path = self.path
        try:
            self.text = read_text(path)  # a FIFO or a directory is refused, never waited on
        except InputError as error:
            raise ConfigError(error.message, file=path) from None
        except FileNotFoundError:
            raise ConfigError("no project.toml here", file=path) from None
        except UnicodeDecodeError as error:
            raise ConfigError(f"not UTF-8 text ({error.reason})", file=path) from None
        except OSError as error:
            raise ConfigError(f"cannot read: {error.strerror}", file=path) from None
        self.config = parse_config(path, self.text)  # raises on invalid TOML, naming the line
        self._data: dict[str, Any] = tomllib.loads(self.text)
        self.__dict__.pop("document", None)  # parsed again from this text when asked for

    @functools.cached_property
    def document(self) -> tomlkit.TOMLDocument:
        """The file as tomlkit reads it, comments and layout kept for a faithful rewrite."""
        import tomlkit
        import tomlkit.exceptions

        try:
            return tomlkit.parse(self.text)
        except tomlkit.exceptions.ParseError as error:  # tomllib accepted it; be safe anyway
            raise ConfigError(f"invalid TOML: {error}", file=self.path, line=error.line) from None

    def set(self, dotted: str, value: Any) -> None:
        """Set a dotted key in the document (creating tables as needed); call save() after."""
        import tomlkit

        parts = dotted.split(".")
        table: Any = self.document
        for part in parts[:-1]:
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[parts[-1]] = value

    def get_state(self, key: str, default: Any = None) -> Any:
        # the document once parsed (it may hold a set() not saved yet), else the plain tables
        tables = self.__dict__.get("document", self._data)
        state = tables.get("state", {})
        return state.get(key, default)

    def save(self) -> None:
        """Validate the edited document, then write it atomically."""
        import tomlkit

        text = tomlkit.dumps(self.document)
        self.config = parse_config(self.path, text)
        atomic_write_text(self.path, text)
        self.text = text
        completeness.note(self.path, self.document)
