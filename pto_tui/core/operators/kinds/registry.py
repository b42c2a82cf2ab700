"""Every operator kind's source part, by kind, in the order the scan lists their evidence."""

from __future__ import annotations

from pto_tui.core.operators.kinds.pto_dsl import PTO_DSL
from pto_tui.core.operators.kinds.pto_tile_lib import PTO_TILE_LIB
from pto_tui.core.operators.kinds.spec import KindSource
from pto_tui.core.vocabulary import OperatorKind

SOURCE_KINDS: dict[OperatorKind, KindSource] = {
    OperatorKind.PTO_DSL: PTO_DSL,
    OperatorKind.PTO_TILE_LIB: PTO_TILE_LIB,
}


def source_kind(kind: OperatorKind) -> KindSource:
    return SOURCE_KINDS[kind]
