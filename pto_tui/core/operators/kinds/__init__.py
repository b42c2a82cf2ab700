"""What an operator kind means in source: how the scan recognises it, the cases and
tunables found beside it, the repository it sits in, what its source reads of the
workload (one module per kind, `registry.py` lists them). Its project defaults are in
`core/project/kinds/`, its build and benchmark in `backends/kinds/`
(docs/architecture.md §8)."""
