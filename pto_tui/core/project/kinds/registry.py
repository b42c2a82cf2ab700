"""Every operator kind's project part, by kind: the one table the project layer asks."""

from __future__ import annotations

from pto_tui.core.project.kinds.pto_dsl import PTO_DSL
from pto_tui.core.project.kinds.pto_tile_lib import PTO_TILE_LIB
from pto_tui.core.project.kinds.spec import KindProject
from pto_tui.core.vocabulary import OperatorKind

PROJECT_KINDS: dict[OperatorKind, KindProject] = {
    OperatorKind.PTO_DSL: PTO_DSL,
    OperatorKind.PTO_TILE_LIB: PTO_TILE_LIB,
}


def project_kind(kind: OperatorKind) -> KindProject:
    return PROJECT_KINDS[kind]
