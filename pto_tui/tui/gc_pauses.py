"""No collector pauses under the keys: a project's records, once loaded, are left out of
Python's cyclic garbage collection.

A campaign of a few hundred rounds is some 160,000 long-lived objects (records, rows,
widgets). Python's full collection walks all of them, about 100 ms at a time, and it came
at random under a burst of keys or as a form opened (a key's or Amend's worst times were
twice their medians). Frozen once the project is loaded and shown, they are never walked
again; what is made later is collected as usual. What was frozen is still freed when its
last reference goes; only a cycle among frozen objects stays, until the app ends (a test
runs many apps in one process: each gives its objects back).
"""

from __future__ import annotations

import gc


def settle_after_load() -> None:
    """Collect what loading left behind, then freeze the rest (call once, when shown)."""
    gc.collect()
    gc.freeze()


def keep_loaded() -> None:
    """Freeze what a load just read (call as it is handed to the panes): at 10,000 rounds
    the next full collection would walk a million records' objects for most of a second,
    and it came as the table filled, under `G`. Not collected first (that walk is the
    cost); what the load left behind is collected at settle_after_load."""
    gc.freeze()


def release() -> None:
    """Give the frozen objects back to the collector (the app is ending)."""
    gc.unfreeze()
