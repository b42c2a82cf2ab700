"""On-chip capacities: read from the checkout's buffer_limits.hpp, applied to every family."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.cycles.capacity import (
    DEFAULT_CAPACITIES,
    LIMITS_FILE,
    capacities_from,
    check_fit,
    parse_buffer_limits,
)
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, run_queries

STUB_LIMITS = Path(__file__).resolve().parents[1] / "fixtures" / "pto_isa_stub" / LIMITS_FILE


def one(text: str):
    (query,) = expand_sweep(text.split())
    return query


def test_the_a2a3_branch_is_read() -> None:
    caps = parse_buffer_limits(STUB_LIMITS.read_text(), "stub")
    assert caps.sizes == {"UB": 196608, "L1": 524288, "L0A": 65536, "L0B": 65536,
                          "L0C": 131072}
    assert caps.source == "stub"
    a5 = parse_buffer_limits(STUB_LIMITS.read_text(), "stub", arch="A5")
    assert a5.size("UB") == 256 * 1024 and a5.size("L0C") == 256 * 1024


def test_no_file_means_the_documented_table() -> None:
    assert capacities_from(None, None) is DEFAULT_CAPACITIES
    assert capacities_from(None, "constexpr int REPEAT_MAX = 127;").repeat_max == 127


@pytest.mark.parametrize(
    ("text", "buffer"),
    [
        ("TADD half -r 64 -c 64", None),
        ("TADD half -r 512 -c 64", "repeats"),  # 64 KiB a tile: 256 repeats
        ("TADD float -r 128 -c 128", "repeats"),  # 3 x 64 KiB fits UB exactly; 256 repeats
        ("TEXP half -r 512 -c 512", "UB"),
        ("TROWSUM half -r 512 -c 64", None),  # reduces are not repeat-limited
        ("TROWSUM float -r 256 -c 128", "UB"),
        ("TCVT float half -r 256 -c 256", "UB"),
        ("TMATMUL half half float --m 128 --k 128 --n 128", None),
        ("TMATMUL half half float --m 256 --k 128 --n 128", None),  # A = 64 KiB exactly
        ("TMATMUL half half float --m 257 --k 128 --n 128", "L0A"),  # padded to 272
        ("TMATMUL half half float --m 16 --k 128 --n 257", "L0B"),
        ("TMATMUL half half float --m 256 --k 16 --n 256", "L0C"),  # 256*256*4 = 256 KiB
        ("TMATMUL int8 int8 int32 --m 16 --k 2048 --n 16", None),  # 32 KiB each
    ],
)
def test_each_family_against_its_buffers(text: str, buffer: str | None) -> None:
    overflow = check_fit(one(text))
    assert (overflow.buffer if overflow else None) == buffer, overflow and overflow.message


def test_l1_holds_a_and_b_together() -> None:
    caps = parse_buffer_limits(STUB_LIMITS.read_text().replace("(512u * 1024u)", "(64u * 1024u)"),
                               "edited")
    overflow = check_fit(one("TMATMUL half half float --m 256 --k 128 --n 128"), caps)
    assert overflow is not None and overflow.buffer == "L1"
    assert "A and B together need 98304 bytes of L1, which holds 65536" in overflow.message


async def test_the_checkout_s_own_numbers_are_used(fresh_stub: Path) -> None:
    limits = fresh_stub / LIMITS_FILE
    limits.write_text(limits.read_text().replace("(192u * 1024u)", "(16u * 1024u)"))
    results = await run_queries(expand_sweep(["TADD", "half", "-r", "16,64", "-c", "64"]),
                                BuiltinEngine(fresh_stub, jobs=1))
    small, big = results
    assert small.ok and not small.oversized
    assert big.oversized and "which holds 16384 bytes" in big.error
