"""Operators in a source tree: finding and classifying them, and their tunables.

Owns: the scan (PTO-DSL or PTO-tile-lib, with the evidence), the `pto-operator.toml`
marker, tunable discovery and writing a tunable's value back into the source.
May import: `project`, `workspace`, the core base.
"""
