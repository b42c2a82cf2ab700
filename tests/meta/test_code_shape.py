"""The house rules that a reader of the code relies on, checked on the source itself.

- No module over 400 lines and no function over 60, unless a comment saying why
  (`# Long on purpose: ...`) stands at its top.
- No issue numbers in code, docstrings or comments: a reader of the code cannot open them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("pto_tui", "tests", "benchmarks", "scripts")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
REASON = "Long on purpose:"
ISSUE_REF = re.compile(r"\bissues? ?#?\d+\b|\(#\d+\)", re.IGNORECASE)


def python_files(*dirs: str) -> list[Path]:
    files: list[Path] = []
    for name in dirs:
        files += [p for p in (REPO / name).rglob("*.py") if "fixtures" not in p.relative_to(REPO).parts]
    return sorted(files)


def has_reason(lines: list[str], start: int, count: int = 4) -> bool:
    """A reason stands in the first lines from `start` (1-based), docstring or comment."""
    return any(REASON in line for line in lines[start - 1 : start - 1 + count])


def oversized(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    rel = path.relative_to(REPO)
    found = []
    if len(lines) > MAX_MODULE_LINES and not has_reason(lines, 1, 12):
        found.append(f"{rel}: {len(lines)} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(text, filename=str(rel))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            # the reason may stand in the signature's comments or the docstring's first lines
            top = node.body[0].lineno - node.lineno + 3
            if length > MAX_FUNCTION_LINES and not has_reason(lines, node.lineno, top):
                found.append(f"{rel}:{node.lineno} {node.name}: {length} lines (max {MAX_FUNCTION_LINES})")
    return found


def test_modules_and_functions_stay_small() -> None:
    found = [problem for path in python_files("pto_tui") for problem in oversized(path)]
    assert not found, "too long, split it or say why at its top:\n" + "\n".join(found)


def test_no_issue_numbers_in_code() -> None:
    found = []
    for path in python_files(*SOURCE_DIRS):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE_REF.search(line) and path != Path(__file__).resolve():
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "issue numbers in the code:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "problems"),
    [
        ("def f():\n" + "    x = 1\n" * 70, 1),
        ("def f():\n    # Long on purpose: one table of cases.\n" + "    x = 1\n" * 70, 0),
        ("def f():\n" + "    x = 1\n" * 10, 0),
        ("x = 1\n" * 401, 1),
    ],
)
def test_the_size_check_itself(
    tmp_path: Path, source: str, problems: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    path = tmp_path / "m.py"
    path.write_text(source)
    assert len(oversized(path)) == problems


@pytest.mark.parametrize(
    ("line", "hit"),
    [("see issue 7", True), ("(issue 6, the demo)", True), ("fixed in #12", False), ("(#12)", True),
     ("issues show N", False), ("an issue with the cache", False)],
)
def test_the_issue_pattern_itself(line: str, hit: bool) -> None:
    assert bool(ISSUE_REF.search(line)) is hit
