"""The empty lists and tables a sealed record shares.

A round has some twenty list and table fields, nearly all empty in a closed round; the
read model keeps every closed round in memory, and 10,000 of them would hold 200,000
empty containers (13 MiB). A sealed record (one the model keeps, which callers only
read) shares one empty list and one empty table instead. Changing either raises at once,
naming the fix, where a change to the model's own record would otherwise go unseen;
copying one (copy_record, copy.copy, copy.deepcopy) gives a new, ordinary container.
The few text fields that take a handful of values over a campaign (status, phase,
bottleneck class, build and correctness words, snapshots, fingerprint) are interned.
"""

from __future__ import annotations

import sys
from dataclasses import fields, is_dataclass
from typing import Any, NoReturn

READ_ONLY = "a sealed record is read-only: change a copy of it (copy_record)"


def _refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError(READ_ONLY)


class SharedEmptyList(list[Any]):
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list[Any]:
        return []

    def __deepcopy__(self, _memo: dict[int, Any]) -> list[Any]:
        return []


class SharedEmptyDict(dict[Any, Any]):
    update = pop = popitem = clear = setdefault = _refuse
    __setitem__ = __delitem__ = __ior__ = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return {}

    def __deepcopy__(self, _memo: dict[int, Any]) -> dict[Any, Any]:
        return {}


EMPTY_LIST = SharedEmptyList()
EMPTY_DICT = SharedEmptyDict()
# the fields, of a round or a record nested in it, whose words repeat from round to round
FEW_VALUES = frozenset({
    "status", "phase", "base_snapshot", "snapshot", "stability", "verdict_rule", "kernel",
    "bottleneck", "build", "correctness", "fingerprint", "target_mode", "unit",
})


def seal(record: Any) -> Any:
    """`record` (a dataclass just parsed, not yet shared) with every empty list and table
    field, its nested records' too, replaced by the shared ones; returns it."""
    for spec in fields(record):
        value = getattr(record, spec.name)
        kind = type(value)
        if kind is str and spec.name in FEW_VALUES:
            object.__setattr__(record, spec.name, sys.intern(value))
        elif kind is list and not value:
            object.__setattr__(record, spec.name, EMPTY_LIST)
        elif kind is dict and not value:
            object.__setattr__(record, spec.name, EMPTY_DICT)
        elif is_dataclass(value) and not isinstance(value, type):
            seal(value)
    return record
