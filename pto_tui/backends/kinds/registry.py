"""Every operator kind's run-time part, by kind: `backend_for` and the environment round
look it up here."""

from __future__ import annotations

from pto_tui.backends.kinds.backend import Backend
from pto_tui.backends.kinds.pto_dsl import PTO_DSL
from pto_tui.backends.kinds.pto_tile_lib import PTO_TILE_LIB
from pto_tui.backends.kinds.spec import KindRuntime
from pto_tui.backends.site import OperatorSite
from pto_tui.core.vocabulary import OperatorKind

RUNTIME_KINDS: dict[OperatorKind, KindRuntime] = {
    OperatorKind.PTO_DSL: PTO_DSL,
    OperatorKind.PTO_TILE_LIB: PTO_TILE_LIB,
}


def runtime_kind(kind: OperatorKind) -> KindRuntime:
    return RUNTIME_KINDS[kind]


def backend_for(site: OperatorSite, flops: float | None = None) -> Backend:
    """The backend of the site's operator kind, for its target's mode."""
    config = site.config
    return runtime_kind(config.operator.kind).backend_class(config.target.mode)(site, flops)
