"""Checking a real output against its schema in docs/json/: it validates, carries its
schema's version, and holds no field the schema does not document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "json"


def schema_of(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    return loaded


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        found: Any = root
        for part in ref[2:].split("/"):
            found = found[part]
        return _resolve(found, root)
    return schema


def _branch(data: Any, schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The oneOf/anyOf branch `data` is valid against, None when the schema has none."""
    for key in ("oneOf", "anyOf"):
        for branch in schema.get(key, []):
            if jsonschema.Draft202012Validator(branch | {"$defs": root.get("$defs", {})}).is_valid(data):
                return _resolve(branch, root)
    return None


def undocumented(data: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "") -> list[str]:
    """The fields of `data` its schema does not describe (a table's keys are its data)."""
    schema = _resolve(schema, root)
    branch = _branch(data, schema, root)
    properties = {**schema.get("properties", {}), **(branch or {}).get("properties", {})}
    extra = (branch or {}).get("additionalProperties", schema.get("additionalProperties"))
    found: list[str] = []
    if isinstance(data, dict) and (properties or isinstance(extra, dict)):
        for key, value in data.items():
            if key in properties:
                found += undocumented(value, properties[key], root, f"{path}.{key}")
            elif isinstance(extra, dict):
                found += undocumented(value, extra, root, f"{path}.{key}")
            else:
                found.append(f"{path}.{key}")
    items = (branch or schema).get("items")
    if isinstance(data, list) and isinstance(items, dict):
        for index, item in enumerate(data):
            found += undocumented(item, items, root, f"{path}[{index}]")
    return found


def validate(name: str, data: Any) -> None:
    """`data` is a valid, versioned, fully documented output of schema `name`."""
    schema = schema_of(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(data, schema)
    if isinstance(data, dict):
        assert data.get("schema_version") == schema["schema_version"], (name, data.get("schema_version"))
    missing = undocumented(data, schema, schema)
    assert missing == [], f"{name}: undocumented fields {missing}"
