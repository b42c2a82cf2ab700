"""What an operator kind means for a project: its workspace folder, its default commands
per target mode, its default protected files (one module per kind, `registry.py` lists
them). The kind's scan, cases and tunables are in `core/operators/kinds/`, its build and
benchmark in `backends/kinds/` (docs/architecture.md §8)."""
