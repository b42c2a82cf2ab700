"""The JSON schemas of pto-tui's outputs: docs/json/, shipped in the package through the
pto_tui/docs link. Every `--json` output and the data of every MCP tool
carries `schema_version`, its schema's version (docs/json/README.md)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """The schema docs/json/<name>.schema.json."""
    text = resources.files("pto_tui").joinpath("docs", "json", f"{name}.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def version(name: str) -> int:
    return int(schema(name)["schema_version"])


def stamped(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its schema's version first."""
    return {"schema_version": version(name), **{k: v for k, v in data.items() if k != "schema_version"}}
