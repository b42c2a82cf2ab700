"""The documents the code cites are in the repository, with the sections it cites.

- A file under pto_tui/ (its code, comments and docstrings, the demo operators' notes) or a
  help text of the CLI that names a Markdown document (`docs/workflow.md`, `README.md`)
  names a file of this repository.
- A cited section (`docs/workflow.md §6`, `§1-§4`, `§8, §9`, `§11.2`) is a numbered heading
  of that document (`## 6. ...`, `### 11.2 ...`), and a `§` in the code always follows the
  document it points into.
- The tests and the benchmarks are held to it for the sections they cite and the documents
  they name in capitals (they name other .md files as test data); the Markdown documents
  in full (a bare `§N` in one points into itself).

Files a project holds (notes.md, ITERATIONS.md, ...) are files pto-tui reads and writes,
not documents it cites: they are left out by name.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# the Markdown files of a project folder (docs/formats.md §1), named by the code as data
PROJECT_FILES = frozenset(
    {"notes.md", "notes.pto-tui.md", "ITERATIONS.md", "TASK_REQUIREMENTS.md", "REPORT.md", "SKILL.md"}
)
CODE_SUFFIXES = {".py", ".h", ".hpp", ".cpp", ".tcss", ".toml", ".md", ".txt", ".sh"}
DOCS = ("README.md", "CONTRIBUTING.md", "docs")
SECTION = r"§\d+(?:\.\d+)*"
# a document's name, then the sections cited right after it: "x.md §8, §9", "x.md §1-§4"
CITATION = re.compile(
    r"(?<![\w./-])(?P<doc>[\w./-]*[\w-]\.md)\b(?P<sections>(?:\s*(?:,|-|–|and)?\s*" + SECTION + r")*)"
)
DOCUMENT_NAME = re.compile(r"[A-Z][A-Z0-9_-]*\.md")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)


def citations(text: str) -> Iterator[tuple[str, list[str]]]:
    """(document, its cited section numbers) of every document named in `text`."""
    for match in CITATION.finditer(text):
        yield match["doc"], re.findall(r"§(\d+(?:\.\d+)*)", match["sections"])


def bare_sections(text: str) -> list[str]:
    """Section numbers cited with no document before them."""
    return re.findall(r"§(\d+(?:\.\d+)*)", CITATION.sub("", text))


def sections_of(path: Path) -> set[str]:
    return set(HEADING.findall(path.read_text(encoding="utf-8")))


def resolve(doc: str, *bases: Path) -> Path | None:
    for base in bases:
        path = (base / doc).resolve()
        if path.is_file() and path.is_relative_to(REPO):
            return path
    return None


def problems_in(text: str, where: str, bases: tuple[Path, ...], *, strict: bool, own: Path | None = None
                ) -> list[str]:
    """What is wrong with the citations of `text`. `strict`: every document named must exist
    (else those with a section cited, and those named in capitals as documents are, e.g.
    README.md: tests name other .md files as data); `own`: the document a bare `§N` points
    into."""
    found = []
    for doc, numbers in citations(text):
        name = Path(doc).name
        if name in PROJECT_FILES or not (strict or numbers or DOCUMENT_NAME.fullmatch(name)):
            continue
        path = resolve(doc, *bases)
        if path is None:
            found.append(f"{where}: cites {doc}, which is not in the repository")
            continue
        missing = [n for n in numbers if n not in sections_of(path)]
        if missing:
            found.append(f"{where}: cites {doc} §{', §'.join(missing)}, not a section of it")
    bare = bare_sections(text)
    if bare and own is None:
        found.append(f"{where}: §{', §'.join(bare)} with no document before it")
    elif bare and own is not None:
        missing = [n for n in bare if n not in sections_of(own)]
        if missing:
            found.append(f"{where}: §{', §'.join(missing)} is not a section of this document")
    return found


def code_files() -> list[Path]:
    """The text files of the package (project_template/ is a link to a project's files)."""
    found = []
    for folder, dirs, names in os.walk(REPO / "pto_tui"):  # links to folders are not followed
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [Path(folder) / n for n in names if Path(n).suffix in CODE_SUFFIXES]
    return sorted(found)


def help_texts() -> Iterator[tuple[str, str]]:
    """(command, raw help text) of every parser of the CLI, sub-commands included."""
    from pto_tui.cli.main import build_parser

    def walk(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
        texts = [parser.description or "", parser.epilog or ""]
        for action in parser._actions:
            texts.append(str(action.help or ""))
            if isinstance(action, argparse._SubParsersAction):
                texts += [str(choice.help or "") for choice in action._choices_actions]
                for sub in dict.fromkeys(action.choices.values()):
                    yield from walk(sub)
        yield parser.prog, "\n".join(texts)

    yield from walk(build_parser())


def test_the_package_cites_documents_that_exist() -> None:
    found = []
    for path in code_files():
        rel = path.relative_to(REPO)
        found += problems_in(path.read_text(encoding="utf-8"), str(rel), (REPO,), strict=True)
    assert not found, "\n".join(found)


def test_the_cli_help_cites_documents_that_exist() -> None:
    found = []
    texts = dict(help_texts())
    assert "pto-tui round start" in texts  # the walk reached the nested sub-commands
    for prog, text in texts.items():
        found += problems_in(text, f"`{prog} --help`", (REPO,), strict=True)
    assert not found, "\n".join(found)


def test_tests_and_benchmarks_cite_sections_that_exist() -> None:
    found = []
    for name in ("tests", "benchmarks", "scripts"):
        for path in sorted((REPO / name).rglob("*.py")):
            if "fixtures" in path.relative_to(REPO).parts or path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            found += problems_in(text, str(path.relative_to(REPO)), (REPO,), strict=False)
    assert not found, "\n".join(found)


def test_the_documents_cite_sections_that_exist() -> None:
    paths = [REPO / name for name in DOCS if (REPO / name).is_file()]
    paths += sorted((REPO / "docs").glob("*.md"))
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        found += problems_in(text, str(path.relative_to(REPO)), (path.parent, REPO), strict=True, own=path)
    assert not found, "\n".join(found)


def test_the_cited_documents_number_their_sections() -> None:
    for name in ("workflow", "formats", "remote", "architecture"):
        assert "1" in sections_of(REPO / "docs" / f"{name}.md"), name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see docs/workflow.md §6.", [("docs/workflow.md", ["6"])]),
        ("(docs/workflow.md §1-§4)", [("docs/workflow.md", ["1", "4"])]),
        ("(docs/formats.md §8, §9)", [("docs/formats.md", ["8", "9"])]),
        ("docs/workflow.md §11.2: scope", [("docs/workflow.md", ["11.2"])]),
        ("in notes.md and README.md", [("notes.md", []), ("README.md", [])]),
        ("the chart (WORKFLOW.md step 7)", [("WORKFLOW.md", [])]),
        ("no document here, section 5", []),
    ],
)
def test_the_citation_pattern_itself(text: str, expected: list[tuple[str, list[str]]]) -> None:
    assert list(citations(text)) == expected


def test_the_checks_themselves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path.resolve())
    tmp_path = tmp_path.resolve()
    (tmp_path / "guide.md").write_text("# Guide\n\n## 1. One\n\n### 1.2 Part\n\n## 2. Two\n")
    base = (tmp_path,)
    assert problems_in("guide.md §1, §1.2 and §2", "x", base, strict=True) == []
    assert problems_in("guide.md §3", "x", base, strict=True) == ["x: cites guide.md §3, not a section of it"]
    assert problems_in("SPEC.md step 6", "x", base, strict=True) == [
        "x: cites SPEC.md, which is not in the repository"
    ]
    assert problems_in("spec.md is test data", "x", base, strict=False) == []  # no section cited
    assert problems_in("SPEC.md step 6", "x", base, strict=False) == [  # named as a document
        "x: cites SPEC.md, which is not in the repository"
    ]
    assert problems_in("runs/iter-001/notes.md", "x", base, strict=True) == []
    assert problems_in("see §2", "x", base, strict=True) == ["x: §2 with no document before it"]
    own = tmp_path / "guide.md"
    assert problems_in("see §2 and §7", "x", base, strict=True, own=own) == [
        "x: §7 is not a section of this document"
    ]
