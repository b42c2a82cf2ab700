"""What a tile-lib operator's host driver prints and takes, read from its C++ text (never run):
how pto-tui can time a run (pto-isa's report.csv, `Average time: X ms`, `avg=X us`) and tell
its verdict (`test success`, `All tests PASSED`, ...), and whether it takes `--cases`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.operators.kernel_knobs import CPP_SUFFIXES
from pto_tui.core.operators.tilelib_cpp import blank_comments
from pto_tui.core.project.config import ResultConfig
from pto_tui.core.workspace.files import iter_workspace_files

# (format, what the source holds when its driver prints it), in the order they are preferred
_TIMINGS = (
    ("report-csv", re.compile(r'"(?:\./)?report\.csv"')),
    ("average-time", re.compile(r'"[^"\n]*Average time:')),
    ("avg-us", re.compile(r'avg="[^;]*" us"|"[^"\n]*avg=[^"\n]*us')),
)
_VERDICTS = re.compile(
    r'"[^"\n]*(test success|All tests PASSED|All tests passed!|\[SUCCESS\]|verify=PASS|verify=")'
)
KNOWN_VERDICTS = "test success, All tests PASSED, All tests passed!, [SUCCESS], verify=PASS"
_CASES = re.compile(r'"--cases?\b')


@dataclass(frozen=True)
class DriverOutput:
    timing: str  # the result format that reads its time ("" when it prints none pto-tui reads)
    timing_at: str  # file:line where the source prints it
    verdict_at: str  # file:line of a pass/fail line pto-tui knows ("" when none)
    takes_cases: bool  # its main() reads --cases / --case

    @property
    def result(self) -> ResultConfig:
        """[result] for this driver: report.csv is the tile-lib kind's own ("")."""
        return ResultConfig(format="" if self.timing == "report-csv" else self.timing)


def _first(texts: dict[str, str], pattern: re.Pattern[str]) -> str:
    for rel, text in texts.items():
        match = pattern.search(text)
        if match:
            return f"{rel}:{text.count(chr(10), 0, match.start()) + 1}"
    return ""


def driver_output(operator: Path) -> DriverOutput:
    """How the operator folder's driver reports a run."""
    texts = {
        rel: blank_comments((operator / rel).read_text(encoding="utf-8", errors="replace"))
        for rel in iter_workspace_files(operator)
        if Path(rel).suffix in CPP_SUFFIXES
    }
    timing, timing_at = "", ""
    for name, pattern in _TIMINGS:
        timing_at = _first(texts, pattern)
        if timing_at:
            timing = name
            break
    return DriverOutput(timing, timing_at, _first(texts, _VERDICTS), bool(_first(texts, _CASES)))
