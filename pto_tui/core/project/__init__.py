"""A project folder `projects/<op>/` and its `project.toml`.

Owns: the shape of `project.toml` (sections, keys, types, defaults, help), reading it into
frozen dataclasses with errors that name file, line and key, rewriting it with comments
kept; where files live inside a project; the one-writer lock; filling command templates.
May import: the core base (`errors`, `atomic`, `vocabulary`, `paths`).

Modules: `config` (the dataclasses, and the per-kind defaults looked up in `kinds/`),
`kinds/` (each operator kind's project part: workspace folder, default commands per mode,
protected files; `kinds/registry.py` lists them), `modes` (what each target mode
changes), `command_table` (the [commands] record), `schema` (the vocabulary of a declared
shape), `sections` (project.toml's shape, declared once), `parse` (text into a
ProjectConfig), `file` (`ProjectFile`: the file on disk), `writer` (a fresh project.toml),
`schema_docs` (the key reference), `layout`, `lock`, `commands`.
"""
