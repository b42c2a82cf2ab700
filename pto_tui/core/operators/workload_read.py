"""One read of the workload in the operator's source, as a round records it: a module of
its own so that reading rounds does not load the source scanner (workload_reads)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorkloadRead:
    """One read of the workload in the operator's source."""

    name: str  # the shape knob (PTO_ATTENTION_SEQ_LEN) or the case field (s1)
    file: str  # relative to the operator folder
    line: int
    text: str = ""  # the source line, stripped

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"
