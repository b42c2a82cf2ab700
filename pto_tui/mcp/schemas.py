"""The tools' schemas as the server lists them: each tool's outputSchema (its result
envelope with, as `data`, the schema of the same command's `--json` output, docs/json/),
and its input schema made strict (no unknown argument) with the enums of the fixed words
(change kind, verdict, amended field, target mode, operator kind, bottleneck class,
hardware checklist keys)."""

from __future__ import annotations

import copy
from typing import Any

from pto_tui.core.campaign.amendments import AMENDABLE
from pto_tui.core.campaign.what_changed import FRONTIER, PREVIOUS
from pto_tui.core.project.modes import chosen_modes
from pto_tui.core.schemas import schema
from pto_tui.core.vocabulary import ChangeKind, OperatorKind, Verdict
from pto_tui.mcp.catalog import TOOLS
from pto_tui.mcp.envelope import RESULT

_MODES = [m.value for m in chosen_modes()]
_KINDS = ["", *(k.value for k in OperatorKind)]
# tool -> argument -> what the argument's schema gains
INPUT_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "round_changes": {"kind": {"enum": ["", *(k.value for k in ChangeKind)]}},
    "round_close": {"verdict": {"enum": ["", *(v.value for v in Verdict)]}},
    "amend": {"field": {"enum": list(AMENDABLE)}},
    "new": {"kind": {"enum": _KINDS}, "mode": {"enum": _MODES}, "target": {"pattern": r"^(local|ssh:.+)$"}},
    "import": {"kind": {"enum": _KINDS}, "mode": {"enum": ["", *_MODES]},
               "target": {"pattern": r"^(|local|ssh:.+)$"}},
    "diff": {"against": {"pattern": rf"^({PREVIOUS}|{FRONTIER}|[0-9]+)$"}},
    **{tool: {"engine": {"enum": ["", "builtin", "external"]}}
       for tool in ("costmodel_query", "costmodel_sweep", "suggest")},
}


def strict_input(tool: str, given: dict[str, Any]) -> dict[str, Any]:
    """The tool's input schema (as the SDK made it from its signature) with no unknown
    argument allowed and its enums."""
    made = copy.deepcopy(given)
    made["additionalProperties"] = False
    for name, rule in INPUT_RULES.get(tool, {}).items():
        made["properties"][name].update(rule)
    return made


def _steps() -> dict[str, Any]:
    step = {
        "type": "object",
        "properties": {
            "step": {"type": "string", "description": "the step: build, correctness, benchmark 3/7, a probe"},
            "state": {"type": "string", "description": "running, succeeded, failed, cancelled, timed out"},
            "exit_code": {"type": ["integer", "null"], "description": "the step's exit code (null: none)"},
            "tail": {"type": "array", "items": {"type": "string"}, "description": "its last output lines"},
        },
        "required": ["step", "state", "exit_code", "tail"],
    }
    return {"type": "array", "items": step,
            "description": "the steps a long tool ran (env, baselines, round_run), in order"}


def output_schema(tool: str) -> dict[str, Any]:
    """outputSchema of `tool`: mcp-result.schema.json with its data's schema in place."""
    envelope = copy.deepcopy(schema(RESULT))
    data = copy.deepcopy(schema(TOOLS[tool].schema))
    defs = {**envelope.pop("$defs", {}), **data.pop("$defs", {})}  # refs resolve at the root
    for key in ("$schema", "$id"):
        data.pop(key, None)
    success, failure = envelope["oneOf"]
    success["properties"]["data"] = data
    success["properties"]["steps"] = _steps()
    return {
        "type": "object",
        "title": f"{tool}: {TOOLS[tool].title}",
        "schema_version": envelope["schema_version"],
        "oneOf": [success, failure],
        **({"$defs": defs} if defs else {}),
    }
