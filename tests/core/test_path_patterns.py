"""One meaning of path patterns, in every use: a round's scope, protected and editable files,
the workspace excludes, a repository's .gitignore, and the remote sync's two sides.

Each row (patterns, path, expected) is checked in every use against real files, and git
itself (`git check-ignore`) is asked whether it agrees: the patterns are .gitignore's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.operators.scan import scan
from pto_tui.core.paths.patterns import PathPatterns, gitignore_patterns, literal, matches
from pto_tui.core.project.config import default_protected
from pto_tui.core.rules.scope import is_protected, outside_scope, protected_hashes
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import (
    DEFAULT_EXCLUDES,
    copy_filter,
    is_excluded,
    iter_workspace_files,
    repository_excludes,
)
from pto_tui.jobs.sync import scan_local
from pto_tui.jobs.work_dir import MARKER, index_script, parse_index
from tests.core.scan_layouts import write_tree

KERNEL = "from ptodsl import jit\n\n\n@jit(block_dim=1)\ndef k(x):\n    pass\n"

DSL_PROTECTED = default_protected(OperatorKind.PTO_DSL)
TILE_PROTECTED = default_protected(OperatorKind.PTO_TILE_LIB)

# (patterns, path relative to the list's folder, whether the patterns name the path)
ROWS: list[tuple[tuple[str, ...], str, bool]] = [
    # '*' never crosses '/': the pair that used to mean two things
    (("bench/*.py",), "bench/x.py", True),
    (("bench/*.py",), "bench/sub/x.py", False),
    (("kernel/*.h",), "kernel/a.h", True),
    (("kernel/*.h",), "kernel/sub/a.h", False),
    (("kernel/a?.h",), "kernel/ab.h", True),
    (("kernel/a?.h",), "kernel/a/.h", False),
    # '**' crosses folders, also none
    (("**/bench*.py",), "bench_attention.py", True),
    (("**/bench*.py",), "a/b/bench_x.py", True),
    (("**/bench*.py",), "kernel.py", False),
    (("**/scripts/**",), "scripts/gen.py", True),
    (("**/scripts/**",), "kernel/scripts/gen.py", True),
    (("kernel/**",), "kernel/sub/a.h", True),
    (("kernel/**",), "other/kernel/a.h", False),
    (("a/**/b.h",), "a/b.h", True),
    (("a/**/b.h",), "a/x/y/b.h", True),
    # no '/': any depth; a '/' at the start or inside anchors
    (("kernel.h",), "kernel.h", True),
    (("kernel.h",), "op/kernel.h", True),
    (("/kernel.h",), "kernel.h", True),
    (("/kernel.h",), "op/kernel.h", False),
    (("op/kernel.h",), "src/op/kernel.h", False),
    # a pattern naming a folder names what it holds; a trailing '/' names folders only
    (("build",), "build", True),
    (("build",), "build/x.o", True),
    (("build",), "src/build/x.o", True),
    (("build/",), "src/build/x.o", True),
    (("build/",), "build", False),
    (("*.egg-info",), "pkg.egg-info/PKG-INFO", True),
    # '!' takes back, but never inside a folder that stays named
    (("*.pyc", "!keep.pyc"), "a/keep.pyc", False),
    (("*.pyc", "!keep.pyc"), "a/other.pyc", True),
    (("bench/*", "!bench/keep.py"), "bench/keep.py", False),
    (("bench/*", "!bench/keep.py"), "bench/drop.py", True),
    (("bench/", "!bench/keep.py"), "bench/keep.py", True),
    # sets, escapes, comments
    (("[ab]*.log",), "dir/b.log", True),
    (("[ab]*.log",), "c.log", False),
    (("\\#notes",), "#notes", True),
    (("# notes", "", "x"), "notes", False),
    # the built-in excludes
    (DEFAULT_EXCLUDES, "python/bench/results/run1/report.json", True),
    (DEFAULT_EXCLUDES, "bench/results_old/x.json", True),
    (DEFAULT_EXCLUDES, "bench/generated/latest.json", True),
    (DEFAULT_EXCLUDES, "python/pto_kernels/ops/fa/kernel.py", False),
    (DEFAULT_EXCLUDES, "build-arm/z", True),
    (DEFAULT_EXCLUDES, "x/.venv/bin/python", True),
    (DEFAULT_EXCLUDES, "x/__pycache__/m.cpython-311.pyc", True),
    (DEFAULT_EXCLUDES, "lib.so.1", False),
    (DEFAULT_EXCLUDES, "kernel/.gitignore", False),
    # the default protected files of each kind
    (DSL_PROTECTED, "pto-kernels/python/bench/run_bench.py", True),
    (DSL_PROTECTED, "pto-kernels/tests/ops/test_fa.py", True),
    (DSL_PROTECTED, "pto-kernels/specs/fa.yaml", True),
    (DSL_PROTECTED, "pto-kernels/python/pto_kernels/ops/fa/kernel.py", False),
    (TILE_PROTECTED, "kernel/main.cpp", True),
    (TILE_PROTECTED, "kernel/scripts/gen_data.py", True),
    (TILE_PROTECTED, "kernel/fa_kernel.h", False),
]

# A round's scope is also read from the operator folder (the first folder in workspace/)
# and from the project root, so a row may name more there.
SCOPE_ONLY: dict[tuple[str, ...], set[str]] = {
    ("/kernel.h",): {"op/kernel.h"},
    ("op/kernel.h",): {"src/op/kernel.h"},
    ("kernel/**",): {"other/kernel/a.h"},
}

USES = ["scope", "protected", "editable", "exclude", "gitignore", "sync"]


def _ids() -> list[str]:
    return [f"{'+'.join(p) if len(p) < 4 else f'{len(p)} patterns'}~{path}" for p, path, _e in ROWS]


def _tree(root: Path, path: str) -> Path:
    """root holding the one file `path`."""
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("x\n")
    return root


def _named(use: str, patterns: tuple[str, ...], path: str, tmp_path: Path) -> bool:
    """Whether the patterns name path in one use, asked of the real thing."""
    if use == "scope":
        return outside_scope([f"workspace/{path}"], [], patterns) == []
    if use == "protected":
        named = is_protected(path, patterns)
        if not is_excluded(path):  # (build output and caches are never hashed)
            assert (path in protected_hashes(_tree(tmp_path / "ws", path), patterns)) is named
        return named
    if use == "editable":
        return not is_protected(path, (), editable=patterns)
    if use == "exclude":
        named = is_excluded(path, patterns)
        assert (path not in iter_workspace_files(_tree(tmp_path / "ws", path), patterns)) is named
        return named
    if use == "gitignore":
        text = "\n".join(patterns) + "\n"
        root = _tree(tmp_path / "repo", path)
        (root / ".gitignore").write_text(text)
        shutil.copytree(root, tmp_path / "copy", ignore=copy_filter(root, gitignore_patterns(text)))
        return not (tmp_path / "copy" / path).exists()
    assert use == "sync"
    root = _tree(tmp_path / "ws", path)
    named = path not in scan_local(root, patterns)
    # the target's side: the same index command sync runs there, run here on a marked copy
    remote = shutil.copytree(root, tmp_path / "remote")
    (remote / MARKER).write_bytes(b"")
    listing = subprocess.run(["bash", "-c", index_script(str(remote), patterns)], capture_output=True)
    assert (path not in parse_index(listing.stdout, patterns).files) is named
    return named


def _git_ignores(patterns: tuple[str, ...], path: str, tmp_path: Path) -> bool:
    root = _tree(tmp_path / "git", path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("\n".join(patterns) + "\n")
    done = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "--no-index", path])
    assert done.returncode in (0, 1), done
    return done.returncode == 0


@pytest.mark.parametrize("use", USES)
@pytest.mark.parametrize(("patterns", "path", "expected"), ROWS, ids=_ids())
def test_every_use_reads_a_pattern_alike(
    use: str, patterns: tuple[str, ...], path: str, expected: bool, tmp_path: Path
) -> None:
    if use == "scope" and path in SCOPE_ONLY.get(patterns, set()):
        expected = True
    assert _named(use, patterns, path, tmp_path) is expected


@pytest.mark.parametrize(("patterns", "path", "expected"), ROWS, ids=_ids())
def test_git_agrees(patterns: tuple[str, ...], path: str, expected: bool, tmp_path: Path) -> None:
    assert _git_ignores(patterns, path, tmp_path) is expected


def test_a_scope_pattern_is_anchored_where_it_is_read_from() -> None:
    files = ["workspace/kernel/fa_kernel.h", "workspace/kernel/sub/fa_kernel.h"]
    assert outside_scope(files, [], ["/fa_kernel.h"]) == ["workspace/kernel/sub/fa_kernel.h"]
    assert outside_scope(files, [], ["fa_kernel.h"]) == []  # no '/': at any depth
    assert outside_scope(files, [], ["/workspace/kernel/*.h"]) == ["workspace/kernel/sub/fa_kernel.h"]


def test_an_unreadable_pattern_is_named() -> None:
    with pytest.raises(InputError, match=r"not a path pattern: 'kernel\\\\'"):
        PathPatterns(["ok.h", "kernel\\"])
    with pytest.raises(InputError, match="not a path pattern: '!'"):
        outside_scope(["workspace/a.h"], [], ["!"])


def test_a_gitignore_line_git_cannot_read_is_left_out_as_git_does() -> None:
    assert gitignore_patterns("# generated\n*.log\nodd\\\n!\n\nbuild/\n") == (
        "# generated", "*.log", "", "build/"
    )


def test_a_repository_gitignore_cannot_take_back_the_built_in_excludes(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n!*.so\n!build/\n")
    excludes = repository_excludes(tmp_path)
    assert matches("run.log", excludes) and matches("lib.so", excludes)
    assert matches("build/x.o", excludes) and matches("dist/pkg.tar", excludes)
    assert not matches("kernel/a.cpp", excludes)


def test_a_literal_path_names_that_folder_only(tmp_path: Path) -> None:
    pattern = literal("tools/my[1] projects*") + "/"
    assert matches("tools/my[1] projects*/op/x.py", [pattern])
    assert not matches("tools/my1 projects/op/x.py", [pattern])
    assert not matches("a/tools/my[1] projects*/x.py", [pattern])


def test_the_scan_reads_each_gitignore_as_git_does(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".gitignore": "gen*/\n!gen_keep/\n",
        "gen_ops/k.py": KERNEL,
        "gen_keep/k.py": KERNEL,
        "sub/.gitignore": "/local/\n",
        "sub/local/k.py": KERNEL,
        "sub/op/local/k.py": KERNEL,
    })
    result = scan(tmp_path)
    listed = sorted(c.path.relative_to(tmp_path).as_posix() for c in result.candidates)
    assert listed == ["gen_keep", "sub/op/local"]
    reasons = {s.path.relative_to(tmp_path).as_posix(): s.reason for s in result.skipped}
    assert reasons["gen_ops"] == "ignored by .gitignore (gen*/): generated or local files"
    assert reasons["sub/local"] == "ignored by .gitignore (/local/): generated or local files"
