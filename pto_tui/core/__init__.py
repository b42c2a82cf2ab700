"""The domain of pto-tui: pure rules and files, no Textual, no SSH, no asyncio.

Where things live (each subpackage's docstring says what it owns and may import):

- `errors`, `atomic`, `vocabulary`, `paths/`: the shared base (errors that name where the
  problem is, atomic writes, the workflow's fixed words, pto-tui's own folders and the
  one meaning of path patterns: scope, protected files, excludes, .gitignore, sync).
- `project/`: a project folder and its `project.toml` (schema, parsing, rewriting), the
  layout of `projects/<op>/`, the writer lock, command templates.
- `workspace/`: which workspace files count, and snapshots of them for `patch.diff`.
- `operators/`: finding operators in a source tree (scan) and their tunables.
- `reports/`: parsers of what benchmarks write (`report.json`, `report.csv`, tool output).
- `costmodel/`: the costmodel query language and its results (pure; the engines that run
  queries live in `pto_tui.costmodel`).
- `rounds/`: the round record (`round.toml`), the ledger on disk, the Markdown rendered
  from it, import of hand-written projects, exports.
- `rules/`: the workflow's gates, editable scope, high-risk changes, and the verdict
  statistics.
- `campaign/`: a project's campaign: creating a project, the round life-cycle (open,
  changes, measure, close), and the campaign at a glance.
- `summary/`: the two-panel summary chart and the Markdown campaign report.

Imports run downward only: summary → campaign → rules → rounds → (operators, reports,
costmodel) → (project, workspace) → the base. The test command checks this with
import-linter (`.importlinter`).
"""
