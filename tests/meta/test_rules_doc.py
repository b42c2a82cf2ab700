"""Every rule has one home and one entry in the registry, and docs/rules.md is what
scripts/rules_doc.py writes from them now (so the reference cannot rot)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pto_tui.core.rules
from pto_tui.core.rules.registry import RULES
from pto_tui.core.rules.rule import STEPS, Rule

REPO = Path(__file__).resolve().parents[2]
RULE_FILE = REPO / "pto_tui/core/rules/rule.py"
# a rule id written into a message: "[same-workload] ...", "rule 'same-workload'", "(rule same-workload)"
WRITTEN_ID = re.compile(r"\[([a-z]+(?:-[a-z]+)+)\] |rule '([a-z]+(?:-[a-z]+)+)'|\(rule ([a-z]+(?:-[a-z]+)+)")


def rules_doc() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rules_doc", REPO / "scripts/rules_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_files() -> list[Path]:
    return sorted((REPO / "pto_tui").rglob("*.py"))


def test_docs_rules_md_is_what_the_script_writes() -> None:
    script = rules_doc()
    committed = (REPO / "docs/rules.md").read_text(encoding="utf-8")
    assert committed == script.render(), f"docs/rules.md is stale; regenerate it: {script.REGENERATE}"


def test_every_rule_declared_in_core_rules_is_registered() -> None:
    declared: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(pto_tui.core.rules.__path__, "pto_tui.core.rules."):
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, Rule):
                declared[value.id] = value
    assert declared and set(declared) == set(RULES)
    assert all(RULES[rule_id] is rule for rule_id, rule in declared.items())


def test_every_rule_says_what_it_refuses_where_and_how_to_answer_it() -> None:
    for rule in RULES.values():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.id), rule.id
        assert rule.refuses and rule.fix and rule.steps, rule.id
        assert set(rule.steps) <= set(STEPS), (rule.id, rule.steps)


def test_only_a_rule_refuses() -> None:
    """RuleViolation and Finding are built in core/rules/rule.py alone: every refusal is a
    finding of a registered rule, raised by `refuse`."""
    built = []
    for path in source_files():
        if path == RULE_FILE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        built += [
            f"{path.relative_to(REPO)}:{node.lineno} {node.func.id}(...)"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("RuleViolation", "Finding")
        ]
    assert not built, "build findings with a rule of core/rules (Rule.finding):\n" + "\n".join(built)


def test_every_rule_id_written_in_a_message_is_registered() -> None:
    """Text that names a rule (the flags of a hand-written round, a report's problem)
    names one the registry knows."""
    unknown = []
    for path in source_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for match in WRITTEN_ID.finditer(node.value):
                    rule_id = next(group for group in match.groups() if group)
                    if rule_id not in RULES:
                        unknown.append(f"{path.relative_to(REPO)}:{node.lineno} {rule_id}")
    assert not unknown, "\n".join(unknown)


def test_every_rule_is_named_by_a_test() -> None:
    script = rules_doc()
    names = script.constant_names()
    tests = list(script.test_functions())
    untested = [rule_id for rule_id in RULES if not script.naming_tests(rule_id, names, tests)]
    assert not untested, f"no test names these rules (by id or constant): {untested}"
