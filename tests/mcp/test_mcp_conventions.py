"""The MCP surface follows the protocol's conventions, seen from the official SDK client:
every tool listed with a title, annotations and an outputSchema (the `--json` output's own
schema as its data), strict input schemas with the fixed words as enums, the {error} result
for an unknown argument or a wrong type, increasing progress with a total during round_run,
real prompts, and errors phrased for the tools."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.rules.registry import RULES
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST
from pto_tui.mcp.catalog import TOOLS
from pto_tui.mcp.wording import for_agent
from tests.json_check import schema_of, validate
from tests.mcp.client import agent
from tests.mcp.test_mcp_campaign import PRE_EDIT, demo_project

CLI_WORDING = re.compile(
    r"(?<![\w`-])--(?!allow-exec|root)[a-z][\w-]*|pto-tui (?:round|amend|env|import|baseline)\b"
)


def _data_schema(output: dict[str, Any]) -> dict[str, Any]:
    success = output["oneOf"][0]
    data: dict[str, Any] = success["properties"]["data"]
    return data


async def listing(root: Path) -> dict[str, Any]:
    async with agent(root) as a:
        tools = (await a.session.list_tools()).tools
        prompts = (await a.session.list_prompts()).prompts
        review = await a.session.get_prompt("review_campaign", {})
        return {"tools": tools, "prompts": prompts, "review": review}


def test_every_tool_has_a_title_annotations_an_output_schema_and_strict_inputs(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "listing")
    listed = asyncio.run(listing(root))
    tools = {tool.name: tool for tool in listed["tools"]}
    assert set(tools) == set(TOOLS)
    for name, tool in tools.items():
        info = TOOLS[name]
        assert tool.title == info.title and tool.annotations is not None, name
        hints = tool.annotations
        assert hints.read_only_hint is info.read_only and hints.open_world_hint is info.target, name
        assert hints.destructive_hint is (info.destructive and not info.read_only), name
        assert hints.idempotent_hint is not None, name
        # the data of its result is the --json output's schema, the same file
        data = _data_schema(tool.output_schema)
        assert data["properties"] == schema_of(info.schema)["properties"], name
        assert tool.input_schema["additionalProperties"] is False, name
    writers = [n for n, t in tools.items() if not t.annotations.read_only_hint]
    assert {"round_run", "exec", "env", "amend", "round_start"} <= set(writers)
    assert tools["exec"].annotations.destructive_hint and tools["status"].annotations.read_only_hint
    enum = {
        ("round_changes", "kind"): "environment variable", ("round_close", "verdict"): "inconclusive",
        ("amend", "field"): "analysis", ("new", "mode"): "perf-sim", ("import", "kind"): "pto-dsl",
    }
    for (name, argument), member in enum.items():
        assert member in tools[name].input_schema["properties"][argument]["enum"], (name, argument)
    answers = tools["round_start"].input_schema["$defs"]["PreEditAnswers"]
    assert set(BOTTLENECK_CLASSES) < set(answers["properties"]["bottleneck"]["enum"])
    assert set(answers["properties"]["checklist"]["properties"]) == set(HARDWARE_CHECKLIST)
    assert answers["additionalProperties"] is False
    # prompts are real: the capability is not advertised empty
    assert {p.name for p in listed["prompts"]} == {"next_round", "review_campaign"}
    text = listed["review"].messages[0].content.text
    assert "| round | hypothesis |" in text and "round_confirm" in text


async def strictness(root: Path) -> dict[str, Any]:
    async with agent(root) as a:
        return {
            "unknown": await a.call("status", projcet=str(root)),
            "several": await a.call("show", number=0, prefill=True, verbose=1),
            "type": await a.call("show", number="abc"),
            "nested": await a.call("gates", pre_edit={**PRE_EDIT, "bottleneck": "slow"}),
            "key": await a.call("gates", pre_edit={**PRE_EDIT, "hypothsis": "typo"}),
            "verdict": await a.call("round_close", verdict="great"),
            "early": await a.call("round_start", pre_edit=PRE_EDIT),  # no env, no baseline yet
        }


def test_an_unknown_argument_or_a_wrong_type_is_the_error_envelope_naming_it(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "strict")
    found = asyncio.run(strictness(root))
    early = found.pop("early")["error"]  # every finding of a refusal, each with its fix
    assert [f["rule"] for f in early["findings"]] == ["environment-round", "baseline-first"], early
    assert all(f["fix"] and not CLI_WORDING.search(f["fix"] + f["message"]) for f in early["findings"])
    expected = {"unknown": ("status", "projcet"), "several": ("show", "prefill"), "type": ("show", "number"),
                "nested": ("gates", "pre_edit.bottleneck"), "key": ("gates", "pre_edit.hypothsis"),
                "verdict": ("round_close", "verdict")}
    for case, (tool, argument) in expected.items():
        result = found[case]
        assert result["is_error"] is True, (case, result)
        validate("mcp-result", {k: v for k, v in result.items() if k != "is_error"})
        error = result["error"]
        assert (error["type"], error["tool"], error["key"]) == ("input_error", tool, argument), (case, error)
        assert argument.rsplit(".", 1)[-1] in error["message"] and error["fix"], error
    assert "'prefill', 'verbose'" in found["several"]["error"]["message"]


async def run_with_progress(root: Path) -> tuple[list[tuple[float, float | None, str]], dict[str, Any]]:
    seen: list[tuple[float, float | None, str]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message or ""))

    async with agent(root) as a:
        await a.ok("env")
        await a.ok("torch_baseline")
        await a.ok("baseline")
        await a.ok("round_start", pre_edit=PRE_EDIT, title="wider KV tiles", restore=True)
        await a.ok("round_changes", parameters={"DEMO_ATTN_BLOCK_KV": 64},
                   justify="a 4 KiB tile fits the cache with room")
        no_arguments: dict[str, Any] = {}
        result = await a.session.call_tool("round_run", no_arguments, progress_callback=progress)
        assert not result.is_error, result
        return seen, result.structured_content or {}


@pytest.mark.e2e
def test_round_run_reports_increasing_progress_with_a_total(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "progress")
    seen, result = asyncio.run(run_with_progress(root))
    values = [value for value, _total, _message in seen]
    assert len(values) >= 4 and all(b > a for a, b in zip(values, values[1:], strict=False)), seen
    assert all(total is not None and value <= total for value, total, _m in seen), seen
    assert seen[0][2] == "build: started" and seen[-1][0] == seen[-1][1] and seen[-1][2] == "done"
    assert any(m.startswith("benchmark 1/") for _v, _t, m in seen)
    validate("round", result["data"])
    assert [s["step"] for s in result["steps"]][0] == "build"


def test_every_rule_has_a_fix_phrased_for_the_tools() -> None:
    for rule in RULES.values():
        fix = rule.fix_for("mcp")
        assert fix.strip(), rule.id
        assert not CLI_WORDING.search(fix), (rule.id, fix)
    said = for_agent("refused: (`round changes --bug-fix REASON`); keep it with "
                     "`pto-tui round confirm 3 --reason ...`; pass --kind pto-dsl; "
                     "restart with `pto-tui mcp --allow-exec`")
    assert not CLI_WORDING.search(said), said
    assert "`round_changes` bug_fix" in said and "the `round_confirm` tool (number, reason)" in said
    assert "`kind` pto-dsl" in said and "pto-tui mcp --allow-exec" in said
