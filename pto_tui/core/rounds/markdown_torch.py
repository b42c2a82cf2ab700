"""The torch_npu baseline section of ITERATIONS.md (docs/formats.md §9, §13), as a table or as
prose: `| avg | min | max | TFLOPS |` with its row, or a sentence such as "avg 1.284 ms,
min 1.270 ms, max 1.301 ms, 13.38 TFLOPS" (平均 / 最小 / 最大 too), with the warm-up and
timed-run counts and the reference named in the text. The section's prose is kept as
written (`TorchBaseline.note`)."""

from __future__ import annotations

import re
from pathlib import Path

from pto_tui.core.rounds.markdown_read import cells, parse_duration_us, read_text, tflops_in
from pto_tui.core.rounds.records import TorchBaseline
from pto_tui.core.rounds.render import torch_section

_SECTION = re.compile(r"^##\s+(.+?)\s*$")
_WARMUP = re.compile(r"(?:warm-?up\D{0,3}(\d+)|(\d+)\s*(?:次)?\s*warm-?up|预热\D{0,3}(\d+))", re.IGNORECASE)
_TIMED = re.compile(
    r"(?:(\d+)\s*(?:次)?\s*(?:timed|计时)|(?:timed|计时|测量)\D{0,3}(\d+))", re.IGNORECASE
)
_NUMBER = r"([0-9]+(?:\.[0-9]+)?\s*(?:us|µs|μs|ms|s)\b)"
_PROSE = {
    "avg": re.compile(r"(?:\bavg|\baverage|\bmean|平均(?:值)?)\s*[:：=]?\s*" + _NUMBER, re.IGNORECASE),
    "min": re.compile(r"(?:\bmin(?:imum)?|最小(?:值)?)\s*[:：=]?\s*" + _NUMBER, re.IGNORECASE),
    "max": re.compile(r"(?:\bmax(?:imum)?|最大(?:值)?)\s*[:：=]?\s*" + _NUMBER, re.IGNORECASE),
}
_REFERENCE = re.compile(r"\btorch(?:_npu)?(?:\.[A-Za-z_][\w]*)+")


def _count(pattern: re.Pattern[str], text: str) -> int:
    match = pattern.search(text)
    return int(next(g for g in match.groups() if g)) if match else 0


def _label(prose: str) -> str:
    """The reference the text names: a dotted torch call (torch.nn.functional.scaled_dot_
    product_attention), pto-tui's own 'Reference: <label> (...)', else torch_npu."""
    dotted = _REFERENCE.search(prose)
    if dotted:
        return dotted.group(0)
    if prose.startswith("Reference:"):
        text = prose.removeprefix("Reference:").strip()
        text = re.split(r"\s\(\d+ warm-up|[:：]\s|\s\d+\s*(?:次)?\s*warm|warm-?up", text, maxsplit=1)[0]
        return text.strip(" ,.:") or "torch_npu"
    return "torch_npu"


def _from_table(body: list[str], first: int, path: Path) -> tuple[dict[str, str] | None, str]:
    """The avg/min/max row of the section's table as {column: text} and its place, None when
    the section has no such table."""
    header: list[str] | None = None
    for offset, line in enumerate(body, start=first):
        if not line.strip().startswith("|") or set(line.strip()) <= set("|-: "):
            continue
        lowered = [c.lower() for c in cells(line)]
        if header is None:
            header = lowered if {"avg", "min", "max"} <= set(lowered) else None
            continue
        return dict(zip(header, cells(line), strict=False)), f"{path}:{offset}"
    return None, ""


def _from_prose(prose: str) -> dict[str, str] | None:
    found = {key: pattern.search(prose) for key, pattern in _PROSE.items()}
    if not all(found.values()):
        return None
    values = {key: match.group(1) for key, match in found.items() if match is not None}
    tflops = tflops_in(prose)
    values["tflops"] = f"{tflops:g}" if tflops is not None else ""
    return values


def parse_torch_section(path: Path) -> tuple[TorchBaseline | None, list[str]]:
    """The `## torch_npu ...` section's baseline, and what could not be read in it."""
    return parse_torch_text(read_text(path, "ITERATIONS.md"), path)


def section_holds(text: str, torch: TorchBaseline) -> bool:
    """ITERATIONS.md (`text`) still shows the recorded torch_npu baseline: pto-tui's own
    section as it wrote it, or a hand-written (imported) one whose numbers read back the same."""
    if not torch.note:
        return "\n".join(torch_section(torch)) in text
    found, _problems = parse_torch_text(text, Path("ITERATIONS.md"))
    return found is not None and (found.avg_us, found.min_us, found.max_us, found.tflops) == (
        torch.avg_us, torch.min_us, torch.max_us, torch.tflops)


def parse_torch_text(text: str, path: Path) -> tuple[TorchBaseline | None, list[str]]:
    """parse_torch_section of ITERATIONS.md's text (`path` names it in what is listed)."""
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if _SECTION.match(line) and "torch" in line.lower()), None
    )
    if start is None:
        return None, []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = lines[start + 1 : end]
    prose = " ".join(line.strip() for line in body if line.strip() and not line.strip().startswith("|"))
    values, where = _from_table(body, start + 2, path)
    if values is None:
        values, where = _from_prose(prose), f"{path}:{start + 1}"
    if values is None:
        if "not measured" in prose.lower() or "未测" in prose:
            return None, []
        return None, [
            f"{path}:{start + 1}: torch_npu section with neither an avg | min | max table nor "
            "'avg X ms, min Y ms, max Z ms' in its text; not imported"
        ]
    try:
        avg, low, high = (parse_duration_us(values[k]) for k in ("avg", "min", "max"))
    except ValueError as error:
        return None, [f"{where}: torch_npu baseline: {error}; not imported"]
    if avg is None or low is None or high is None:
        return None, [f"{where}: torch_npu baseline: avg, min and max are all needed"]
    tflops_text = values.get("tflops", "").strip()
    tflops = float(tflops_text) if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", tflops_text) else None
    baseline = TorchBaseline(
        avg, low, high, tflops, _label(prose), _count(_WARMUP, prose), _count(_TIMED, prose), note=prose
    )
    return baseline, []
