"""Costmodel services: engines (built-in, external tool), the result cache, the runner.

The query language, result records and exports are pure and live in
pto_tui.core.cycles.
"""

from pto_tui.costmodel.builtin import BuiltinEngine
from pto_tui.costmodel.cache import CostmodelCache, default_cache_path
from pto_tui.costmodel.engine import Engine, Outcome, Progress, ProgressFn, Runner
from pto_tui.costmodel.external import ExternalEngine, local_runner
from pto_tui.costmodel.service import make_engine, run_queries, run_queries_sync
from pto_tui.costmodel.toolchain import CostmodelError

__all__ = [
    "BuiltinEngine",
    "CostmodelCache",
    "CostmodelError",
    "Engine",
    "ExternalEngine",
    "Outcome",
    "Progress",
    "ProgressFn",
    "Runner",
    "default_cache_path",
    "local_runner",
    "make_engine",
    "run_queries",
    "run_queries_sync",
]
