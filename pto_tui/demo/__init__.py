"""The built-in CPU demo operators: the built-in demo target.

They let anyone run the optimisation loop without an NPU. Each is declared a demo by its
pto-operator.toml (`demo = true`) and is honestly CPU code: NumPy for the PTO-DSL-style
operator, g++ for the PTO-tile-lib-style one. Neither imports ptodsl nor includes PTO headers.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DEMO_OPERATORS = ("demo_attention", "demo_fa")


def demo_operator_dir(name: str) -> Path:
    """The folder holding demo operator `name` inside the installed package."""
    if name not in DEMO_OPERATORS:
        raise ValueError(f"unknown demo operator {name!r}; expected one of {DEMO_OPERATORS}")
    # The package is installed as plain files (never zipped), so the Traversable is a real path.
    return Path(str(files("pto_tui") / "demo" / "operators" / name))
