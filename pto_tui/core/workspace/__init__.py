"""The operator's working copy inside a project.

Owns: which workspace files count (shared by snapshots and the remote sync) and the
snapshots each round's `patch.diff` is computed against.
May import: the core base.
"""
