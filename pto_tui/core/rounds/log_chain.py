"""What the links of runs/closed.log show (core/rounds/closed_log.py reads them), and the
summary of it kept between reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Chain:
    """What the links of the log show."""

    entries: int = 0  # chained lines
    head_seq: int = -1  # the last chained line's sequence number (-1: no chained line)
    head: str = ""  # the SHA-256 of the last chained line
    unchained: int = 0  # lines from before the chain
    prefix: str = ""  # the SHA-256 of the unchained lines, what the first chained line names
    breaks: list[str] = field(default_factory=list)  # each naming file and line
    torch: dict[str, Any] | None = None  # the newest torch baseline logged
    torch_logged: bool = False  # a torch line (or a chained round line) was read
    seqs: dict[int, str] = field(default_factory=dict)  # seq -> line hash (not in a summary)

    def summary(self) -> dict[str, Any]:
        return {
            "entries": self.entries, "head_seq": self.head_seq, "head": self.head,
            "unchained": self.unchained, "prefix": self.prefix, "breaks": list(self.breaks),
            "torch": self.torch, "torch_logged": self.torch_logged,
        }

    @staticmethod
    def from_summary(data: dict[str, Any]) -> Chain:
        torch = data["torch"]
        if torch is not None and not isinstance(torch, dict):
            raise ValueError("not a torch baseline")
        return Chain(
            entries=int(data["entries"]), head_seq=int(data["head_seq"]), head=str(data["head"]),
            unchained=int(data["unchained"]), prefix=str(data["prefix"]),
            breaks=[str(b) for b in data["breaks"]], torch=torch,
            torch_logged=bool(data["torch_logged"]),
        )
