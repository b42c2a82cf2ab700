"""The JSON schemas of pto-tui's outputs: docs/json/, shipped in the package through the
pto_tui/docs link. Every `--json` output and the data of every MCP tool
carries `schema_version`, its schema's version (docs/json/README.md)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

# the package's docs/json/ (a link in a checkout, its files in a wheel); read without
# importlib.resources, which loads tempfile: a read command's start-up never needs it
FOLDER = Path(__file__).resolve().parents[1] / "docs" / "json"


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """The schema docs/json/<name>.schema.json."""
    text = (FOLDER / f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def version(name: str) -> int:
    return int(schema(name)["schema_version"])


def stamped(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its schema's version first."""
    return {"schema_version": version(name), **{k: v for k, v in data.items() if k != "schema_version"}}
