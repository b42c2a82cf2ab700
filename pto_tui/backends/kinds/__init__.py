"""What an operator kind means at run time: the backend that builds, checks and benchmarks
it (per target mode where a mode measures differently), the probes of the environment
round per mode, the reader of a result file given by hand (one module per kind,
`registry.py` lists them and `backend_for` looks them up). Its source and project parts
are in `core/operators/kinds/` and `core/project/kinds/` (docs/architecture.md §8)."""
