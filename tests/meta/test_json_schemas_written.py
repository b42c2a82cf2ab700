"""docs/json/*.schema.json are what scripts/json_schemas.py writes now (so the parts the
schemas share cannot drift apart), and every property of every schema is documented."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def test_the_schemas_are_what_the_script_writes() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location("json_schemas", REPO / "scripts" / "json_schemas.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert module.main(["--check"]) == 0, "run .venv/bin/python scripts/json_schemas.py"
    finally:
        sys.path.remove(str(REPO / "scripts"))


def _undescribed(schema: Any, path: str) -> list[str]:
    found: list[str] = []
    if not isinstance(schema, dict):
        return found
    for name, child in schema.get("properties", {}).items():
        if "description" not in child and "$ref" not in child:
            found.append(f"{path}.{name}")
        found += _undescribed(child, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        found += _undescribed(schema.get(key), f"{path}[]")
    for key in ("oneOf", "anyOf", "allOf"):
        for index, branch in enumerate(schema.get(key, [])):
            found += _undescribed(branch, f"{path}|{index}")
    return found


def test_every_field_of_every_schema_is_documented_and_required_fields_are_listed() -> None:
    for path in sorted((REPO / "docs" / "json").glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert _undescribed(schema, path.name) == []
        branches = schema.get("oneOf", [schema])
        for branch in branches:
            required = {*schema.get("required", []), *branch.get("required", [])}
            assert "schema_version" in required, path.name
