"""The round ledger: what a round is and how it is written down.

Owns: the round record (`runs/iter-XXX/round.toml`) as dataclasses (`records`) and its
TOML tables (`record_toml`) and their text (`toml_text`, tomlkit's bytes without its cost),
the ledger on disk and the append-only closed-round log,
the Markdown rendered from it (`notes.md`, `ITERATIONS.md`), import of a hand-written
project, and the round table exports (CSV, JSON, Markdown).
May import: `project`, `workspace`, the core base.
"""
