"""docs/rules.md, generated from the rules themselves (pto_tui/core/rules): for each rule
its id, what it refuses, the steps that enforce it, the functions that check it and the
code that calls them, its fix, and the tests that name it (by its id or its constant).

    .venv/bin/python scripts/rules_doc.py           write docs/rules.md
    .venv/bin/python scripts/rules_doc.py --check   exit 1 when docs/rules.md is stale

tests/meta/test_rules_doc.py fails when docs/rules.md is not what this writes now.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the checkout's pto_tui, also when run from elsewhere

from pto_tui.core.rules.registry import RULE_MODULES, RULES  # noqa: E402
from pto_tui.core.rules.rule import STEPS, Rule  # noqa: E402

DOCS_FILE = REPO / "docs" / "rules.md"
RULES_DIR = REPO / "pto_tui" / "core" / "rules"
REGENERATE = ".venv/bin/python scripts/rules_doc.py"

Functions = dict[str, set[str]]  # a function's name -> the names its body uses


def constant_names() -> dict[str, str]:
    """The name each rule is declared under (SAME_WORKLOAD) -> its id (same-workload)."""
    return {
        name: value.id
        for module in RULE_MODULES
        for name, value in vars(module).items()
        if isinstance(value, Rule)
    }


def defined_functions(path: Path) -> Iterator[tuple[str, set[str]]]:
    """Each function of a module (methods as Class.method) and the names its body uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        prefix = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for item in members:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                used = {n.id for n in ast.walk(item) if isinstance(n, ast.Name)}
                used |= {n.attr for n in ast.walk(item) if isinstance(n, ast.Attribute)}
                yield prefix + item.name, used


def checks_of(rule_id: str, names: dict[str, str], rules_code: dict[str, Functions]) -> list[str]:
    """`module.function` of every function in core/rules that names the rule."""
    constants = {name for name, value in names.items() if value == rule_id}
    return sorted(
        f"{module}.{function}"
        for module, functions in rules_code.items()
        for function, used in functions.items()
        if used & constants
    )


def callers_of(checks: list[str], rules_code: dict[str, Functions], code: dict[str, Functions]) -> list[str]:
    """The functions outside core/rules that call a check, directly or through another
    function of core/rules (start_findings calls pre_edit_findings)."""
    reached = {check.rsplit(".", 1)[1] for check in checks}
    grew = True
    while grew:
        more = {
            function
            for functions in rules_code.values()
            for function, used in functions.items()
            if used & reached and function not in reached
        }
        reached |= more
        grew = bool(more)
    return sorted(
        f"{path}: {function}"
        for path, functions in code.items()
        for function, used in functions.items()
        if used & reached
    )


def read_code() -> tuple[dict[str, Functions], dict[str, Functions]]:
    """The functions of core/rules by module name, and of the rest of pto_tui by path."""
    rules_code: dict[str, Functions] = {}
    code: dict[str, Functions] = {}
    for path in sorted((REPO / "pto_tui").rglob("*.py")):
        functions = dict(defined_functions(path))
        if path.parent == RULES_DIR:
            rules_code[path.stem] = functions
        else:
            code[path.relative_to(REPO / "pto_tui").as_posix()] = functions
    return rules_code, code


def test_functions() -> Iterator[tuple[str, str, str]]:
    """(test file, test name, its text with its decorators and the module-level tables it
    uses) of every test function under tests/."""
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        tables = {
            target.id: "\n".join(lines[node.lineno - 1 : node.end_lineno])
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                body = "\n".join(lines[first - 1 : node.end_lineno])
                used = [tables[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in tables]
                yield path.relative_to(REPO).as_posix(), node.name, "\n".join([body, *used])


def naming_tests(rule_id: str, names: dict[str, str], sources: list[tuple[str, str, str]]) -> list[str]:
    """The tests whose text names the rule: its id, or the constant it is declared under."""
    constants = [name for name, value in names.items() if value == rule_id]
    pattern = re.compile("|".join([re.escape(rule_id), *(rf"\b{name}\b" for name in constants)]))
    return sorted({f"{path}::{name}" for path, name, text in sources if pattern.search(text)})


def rule_section(rule: Rule, checks: list[str], callers: list[str], tests: list[str]) -> list[str]:
    fix = [f"- **Fix**: {rule.fix}."]
    if rule.cli:
        fix.append(f"  - command line: {rule.cli}")
    if rule.mcp:
        fix.append(f"  - MCP: {rule.mcp}")
    if rule.tui:
        fix.append(f"  - terminal application: {rule.tui}")
    return [
        f"### `{rule.id}`",
        "",
        f"- **Refuses**: {rule.refuses}.",
        f"- **Enforced at**: {', '.join(rule.steps)}.",
        *fix,
        "- **Checked by**: " + ", ".join(f"`{c}`" for c in checks) + " (in `pto_tui/core/rules/`).",
        "- **Called from**: " + (", ".join(f"`{c}`" for c in callers) or "nothing outside core/rules") + ".",
        "- **Tests**: " + (", ".join(f"`{t}`" for t in tests) or "none names it") + ".",
        "",
    ]


def render() -> str:
    """docs/rules.md as the code and the tests are now."""
    names = constant_names()
    rules_code, code = read_code()
    sources = list(test_functions())
    out = [
        "# The rules of the workflow",
        "",
        f"<!-- Generated from pto_tui/core/rules by scripts/rules_doc.py; regenerate with: {REGENERATE} -->",
        "",
        "Every rule pto-tui enforces, as `pto_tui/core/rules/registry.py` lists them. A refusal",
        "names its rule (`refused by rule 'ID': ...`; over MCP the error's `rule` and `fix`).",
        "Each rule is declared in the module that checks it; the campaign's steps call its",
        "checks and refuse with their findings (`rule.refuse`). Every reason a rule asks",
        "for is checked by one function, `reasons.reason_problem`: at least 2 words and 12",
        "characters.",
        "",
        "| Step | When |",
        "| --- | --- |",
        *(f"| {step} | {text} |" for step, text in STEPS.items()),
        "",
        "| Rule | Enforced at | Refuses |",
        "| --- | --- | --- |",
        *(f"| [`{r.id}`](#{r.id}) | {', '.join(r.steps)} | {r.refuses} |" for r in RULES.values()),
        "",
        "## Each rule",
        "",
    ]
    for rule in RULES.values():
        checks = checks_of(rule.id, names, rules_code)
        callers = callers_of(checks, rules_code, code)
        out += rule_section(rule, checks, callers, naming_tests(rule.id, names, sources))
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = render()
    if argv[1:] == ["--check"]:
        if DOCS_FILE.exists() and DOCS_FILE.read_text(encoding="utf-8") == text:
            return 0
        print(f"{DOCS_FILE.relative_to(REPO)} is stale; regenerate it: {REGENERATE}", file=sys.stderr)
        return 1
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    DOCS_FILE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
