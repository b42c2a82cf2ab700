"""pto-kernels benchmark specs (`bench/specs/<family>/<name>.yaml`): the few keys pto-tui needs.

PyYAML is not a dependency of pto-tui, and the specs use a small subset of YAML, so
this reads that subset line by line: `key: value` mappings nested by indentation, with
`- item` lists (skipped), `#` comments and quoted scalars. Only scalar leaves are kept,
under dotted keys (`pto.kernel`). Anything else (flow collections, multi-line strings)
is not needed here and is ignored rather than guessed at.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.\-]+):(?:\s+(?P<value>.*?))?\s*$")


def _scalar(raw: str) -> str:
    """A plain or quoted scalar, without a trailing comment."""
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        end = raw.find(quote, 1)
        return raw[1:end] if end > 0 else raw[1:]
    return raw.split(" #", 1)[0].strip()


def read_simple_yaml(text: str) -> dict[str, str]:
    """Scalar leaves of a block-mapping YAML document, by dotted key."""
    out: dict[str, str] = {}
    stack: list[tuple[int, str]] = []  # (indent, key) of the open parent mappings
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("- "):
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            continue
        indent = len(match.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = ".".join([k for _i, k in stack] + [match.group("key")])
        value = match.group("value")
        if value and not value.startswith(("|", ">", "[", "{", "&", "*")):
            out[key] = _scalar(value)
        elif not value:
            stack.append((indent, match.group("key")))
    return out


@dataclass(frozen=True)
class BenchSpec:
    """One benchmark spec: where it is and what it names."""

    path: str  # relative to the repository root, e.g. bench/specs/attention/x.yaml
    name: str
    family: str
    kernel: str = ""  # pto.kernel: the operator's kernel.py, relative to the repository root
    adapter: str = ""  # pto.adapter


def read_spec(root: Path, path: Path) -> BenchSpec:
    keys = read_simple_yaml(path.read_text(encoding="utf-8", errors="replace"))
    return BenchSpec(
        path=path.relative_to(root).as_posix(),
        name=keys.get("name", path.stem),
        family=keys.get("family", path.parent.name),
        kernel=keys.get("pto.kernel", ""),
        adapter=keys.get("pto.adapter", ""),
    )


def specs_naming(root: Path, operator_path: str, name: str, family: str) -> tuple[BenchSpec, ...]:
    """The specs under root/bench/specs that name this operator: by its kernel path
    (pto.kernel inside the operator folder), or by name within its family."""
    folder = root / "bench" / "specs"
    if not folder.is_dir():
        return ()
    found = []
    for path in sorted(folder.rglob("*.yaml")):
        spec = read_spec(root, path)
        by_kernel = bool(spec.kernel) and spec.kernel.startswith(operator_path.rstrip("/") + "/")
        by_name = spec.name == name and (not family or spec.family == family)
        if by_kernel or by_name:
            found.append(spec)
    return tuple(found)


# the runner's defaults for what a spec leaves out (its `correctness` among them)
DEFAULT_FLAGS = "bench/canonical_compile_flags.yaml"
TOLERANCE_KEYS = ("atol", "rtol")


@dataclass(frozen=True)
class SpecTolerances:
    """The tolerances a spec's runs are judged by, and the files they were read from."""

    values: dict[str, float] = field(default_factory=dict)
    origin: str = ""


def spec_tolerances(root: Path, spec_path: str) -> dict[str, float]:
    """The correctness tolerances the runner judges a spec's run by: the spec's own
    `correctness.atol` / `correctness.rtol`, else those of bench/canonical_compile_flags.yaml
    (as the runner merges them). {} when neither file exists; a value that is no number
    >= 0 is an InputError naming the file and key."""
    found: dict[str, float] = {}
    for rel in (DEFAULT_FLAGS, spec_path):  # the spec's own values win
        path = root / rel
        if not path.is_file():
            continue
        keys = read_simple_yaml(path.read_text(encoding="utf-8", errors="replace"))
        for name in TOLERANCE_KEYS:
            raw = keys.get(f"correctness.{name}")
            if raw is not None:
                found[name] = _tolerance(raw, path, f"correctness.{name}")
    return found


def _tolerance(raw: str, path: Path, key: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{key} {raw!r} is not a tolerance (a number >= 0)", file=path, key=key)
    return value
