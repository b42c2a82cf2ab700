"""What differs between a closed round's record as runs/closed.log logged it and as its
round.toml holds it now, key by key: what a tampered round's notice names."""

from __future__ import annotations

from typing import Any


def differences(logged: dict[str, Any], found: dict[str, Any], limit: int = 6) -> list[str]:
    """What differs between the record as logged and as found, key by key (dotted)."""
    out: list[str] = []
    _compare("", logged, found, out)
    return out[:limit] + ([f"and {len(out) - limit} more"] if len(out) > limit else [])


def _compare(prefix: str, old: Any, new: Any, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _compare(f"{prefix}{key}.", old.get(key), new.get(key), out)
        return
    if old != new:
        out.append(f"{prefix.rstrip('.')}: {_short(old)} as closed, now {_short(new)}")


def _short(value: Any) -> str:
    text = "none" if value is None else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
