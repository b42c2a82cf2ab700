"""A project folder `projects/<op>/` and its `project.toml`.

Owns: the shape of `project.toml` (sections, keys, types, defaults, help), reading it into
frozen dataclasses with errors that name file, line and key, rewriting it with comments
kept; where files live inside a project; the one-writer lock; filling command templates.
May import: the core base (`errors`, `atomic`, `vocabulary`, `paths`).
"""
