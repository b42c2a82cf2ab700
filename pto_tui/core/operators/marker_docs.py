"""docs/pto-operator-toml.md, generated from the marker's declared shape (marker_schema.py):
every key, with its type, default and what it allows, and the result formats."""

from __future__ import annotations

from pto_tui.core.operators.marker_schema import TABLES, TOP_KEYS
from pto_tui.core.project.schema_docs import key_table, section_docs, top_level_docs
from pto_tui.core.project.sections_result import RESULT_FORMATS

MARKER_DOCS_FILE = "docs/pto-operator-toml.md"
REGENERATE_MARKER_DOCS = f"pto-tui config marker-docs > {MARKER_DOCS_FILE}"

_INTRO = (
    "A folder declares its operator in `pto-operator.toml`. The scan reads it before the "
    "folder's sources: its `kind` classifies the folder, its keys override what pto-tui would "
    "find (cases, commands, tunables, how a run is read), and `new` follows it. Every key is "
    "checked as project.toml's are: an unknown key, a value of the wrong type or one it does "
    "not allow is refused naming the file, the line and the key."
)

_EXAMPLE = """```toml
# csrc/kernel/pto-operator.toml of huawei-csl/pto-kernels: kernel_abs.cpp, built by the
# repository's root CMakeLists.txt into the pto_kernels Python extension
kind = "pto-tile-lib"
name = "abs"
sources = ["kernel_abs.cpp"]

[repository]
root = "../.."
needs = ["CMakeLists.txt", "scripts", "csrc/host", "python", "tests", "benchmarking"]

[commands]
build = "cd ../.. && bash scripts/build.sh"
correctness = "cd ../.. && python3 -m pytest -q tests/test_abs.py"
benchmark = "cd ../.. && python3 benchmarking/bench_abs.py"

[result]
format = "pattern"
time = 'abs: ([0-9.]+) ms'
unit = "ms"
passed = '[0-9]+ passed'
failed = '[0-9]+ (failed|error)'
```"""


def marker_markdown() -> str:
    """docs/pto-operator-toml.md: every key of the operator's marker."""
    lines = [
        "# pto-operator.toml",
        "",
        f"<!-- Generated from pto_tui/core/operators/marker_schema.py; regenerate with: "
        f"{REGENERATE_MARKER_DOCS} -->",
        "",
        _INTRO,
        "",
        _EXAMPLE,
        "",
        "Top level:",
        "",
        *key_table(top_level_docs(TOP_KEYS)),
    ]
    for section in TABLES:
        header = "[[cases]]" if section.name == "cases" else f"[{section.name}]"
        lines += ["", f"## {header}", "", section.help]
        if section.entries is not None:
            lines += ["", f"Free-form: each entry is named by a {section.entries.what}."]
        lines += ["", *key_table(list(section_docs(section)))]
    lines += ["", "## Result formats", "", "What `[result] format` names (core/reports/printed.py):", ""]
    lines += [f"- `{name or '(empty)'}`: {text}" for name, text in RESULT_FORMATS.items()]
    lines += [
        "",
        "A run passes when a passed line is printed and no failed line; with neither, it cannot "
        "be told and the run is invalid. Its time is the time lines' (after the `label` line, "
        "else all of them summed), in microseconds from `unit`. `new` writes the format it "
        "found (or the marker's) into project.toml's `[result]`; where an operator's driver "
        "prints no time or verdict pto-tui reads, `new` refuses it and says to declare `[result]`.",
    ]
    return "\n".join(lines) + "\n"
