"""The demo's copy of the `tuned_int` knob helper of PTO-DSL operators (docs/formats.md §2).

A tuning knob is an environment variable holding an integer from a fixed set. pto-tui finds
the `tuned_int("NAME", default, valid_values=(...))` calls in the source and offers them as
tunable parameters; a round sets the variable for the build and the benchmark.
"""

from __future__ import annotations

import os


def tuned_int(name: str, default: int, valid_values: tuple[int, ...]) -> int:
    """The knob's value from the environment (unset or empty: the default).

    Raises ValueError("NAME must be one of (...), got X") for anything outside valid_values,
    so a bad knob fails loudly at build time instead of running an unintended plan.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        value: int | str = default
    else:
        try:
            value = int(raw)
        except ValueError:
            value = raw
    if value not in valid_values:
        raise ValueError(f"{name} must be one of {tuple(valid_values)}, got {value}")
    return int(value)
