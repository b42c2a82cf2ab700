"""Case strings parsed by their operator's declared format: the flash-attention tile-lib
format as pto-isa's generate_cases.py and main.cpp read it, and what it feeds."""

from __future__ import annotations

import pytest

from pto_tui.backends.loop import case_flops
from pto_tui.core.operators.case_strings import (
    FLASH_ATTENTION_TILE_LIB,
    CaseStringError,
    case_under_tuning,
    format_for,
    parse_case,
    parse_case_string,
    workload_shape,
)
from pto_tui.core.project.config import CaseConfig, OperatorConfig
from pto_tui.core.vocabulary import OperatorKind

FA = FLASH_ATTENTION_TILE_LIB
TILE_LIB = OperatorKind.PTO_TILE_LIB


def fa_operator(name: str = "flash_atten", source: str = "") -> OperatorConfig:
    return OperatorConfig(name=name, kind=TILE_LIB, source=source)


def test_full_case_in_generate_cases_order() -> None:
    """HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1], as _parse_case_entry reads it."""
    case = parse_case("128,128,1024,128", FA)
    assert dict(case.values) == {"HEAD_SIZE": 128, "S0": 128, "S1": 1024, "CUBE_S0": 128}
    assert case.name == "case_float_H_128_S0_128_S1_1024"  # as main.cpp names it
    assert case.shape == {"B": 1, "N": 1, "HEAD_SIZE": 128, "S0": 128, "S1": 1024, "CUBE_S0": 128}
    five = parse_case(" 64 , 256 ,2048, 64, 512 ", FA)
    assert five.values["TILE_S1"] == 512 and five.name == "case_float_H_64_S0_256_S1_2048"


def test_workload_part_and_canonical_name() -> None:
    """main.cpp's filter takes HEAD,S0,S1 alone, or the case name itself."""
    assert dict(parse_case("64,256,1024", FA).values) == {"HEAD_SIZE": 64, "S0": 256, "S1": 1024}
    named = parse_case("case_float_H_128_S0_512_S1_8192", FA)
    assert dict(named.values) == {"HEAD_SIZE": 128, "S0": 512, "S1": 8192}
    assert named.name == "case_float_H_128_S0_512_S1_8192"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("128,x,1024", "case '128,x,1024': field S0 must be a positive integer, got 'x'"),
        ("128,128,0,128", "case '128,128,0,128': field S1 must be a positive integer, got '0'"),
        ("128,-128,1024", "field S0 must be a positive integer, got '-128'"),
        ("128,128,1024,12.5", "field CUBE_S0 must be a positive integer, got '12.5'"),
        ("128,,1024,128", "case '128,,1024,128': field S0 is empty"),
        ("128,128", "case '128,128': too few fields (2); expected 3 to 5: HEAD_SIZE,S0,S1[,CUBE_S0[,"),
        ("128,128,1024,128,256,4", "too many fields (6); expected 3 to 5"),
        ("case_float_H_128_S0_0_S1_1024", "field S0 must be a positive integer, got '0'"),
        ("$(reboot)", "too few fields (1)"),
    ],
)
def test_bad_case_names_the_field(text: str, message: str) -> None:
    with pytest.raises(CaseStringError) as info:
        parse_case_string(text, FA)
    assert message in info.value.render()


def test_several_cases() -> None:
    cases = parse_case_string("128,128,1024,128;128,512,2048,128,256;", FA)
    assert [c.name for c in cases] == ["case_float_H_128_S0_128_S1_1024", "case_float_H_128_S0_512_S1_2048"]
    with pytest.raises(CaseStringError) as info:
        parse_case_string("128,128,1024,128;128,y,2048,128", FA)
    assert "case '128,y,2048,128': field S0 must be a positive integer" in info.value.render()
    with pytest.raises(CaseStringError, match="no case given"):
        parse_case_string(" ; ", FA)


def test_case_under_tuning() -> None:
    one = parse_case_string("64,256,1024", FA)
    assert case_under_tuning(one, "any label").name == "case_float_H_64_S0_256_S1_1024"
    two = parse_case_string("64,256,1024;128,128,1024", FA)
    assert case_under_tuning(two, "case_float_H_128_S0_128_S1_1024").values["HEAD_SIZE"] == 128
    with pytest.raises(CaseStringError) as info:
        case_under_tuning(two, "default")
    text = info.value.render()
    assert "2 cases (case_float_H_64_S0_256_S1_1024, case_float_H_128_S0_128_S1_1024)" in text
    assert "[case] name 'default' is none of them" in text
    same = parse_case_string("64,256,1024,64;64,256,1024,128", FA)
    with pytest.raises(CaseStringError, match="2 of them are named"):
        case_under_tuning(same, "case_float_H_64_S0_256_S1_1024")


def test_format_is_chosen_by_operator() -> None:
    assert format_for(fa_operator()) is FA
    assert format_for(fa_operator("demo_fa")) is FA
    assert format_for(fa_operator("op", source="/src/pto-isa/kernels/manual/common/flash_atten")) is FA
    assert format_for(fa_operator("gemm_performance")) is None
    assert format_for(fa_operator("fast_gemm")) is None  # "fa" only as a word of the name
    assert format_for(OperatorConfig(name="flash_atten", kind=OperatorKind.PTO_DSL)) is None


def test_spec_feeds_flops_and_shape_when_no_shape() -> None:
    case = CaseConfig(name="x", spec="128,128,1024,128", dtype="float32")
    assert workload_shape(case, fa_operator())["S1"] == 1024
    assert case_flops(case, fa_operator()) == 4.0 * 128 * 1024 * 128
    causal = CaseConfig(spec="128,128,1024,128", causal=True)
    assert case_flops(causal, fa_operator()) == 2.0 * 128 * 1024 * 128
    # an explicit shape wins; without an operator (or a format) the spec says nothing
    shaped = CaseConfig(spec="128,128,1024,128", shape={"S0": 64, "S1": 128, "HEAD_SIZE": 16})
    assert case_flops(shaped, fa_operator()) == 4.0 * 64 * 128 * 16
    assert case_flops(case) is None and case_flops(case, fa_operator("gemm_performance")) is None


def test_bad_spec_is_an_error_naming_the_key() -> None:
    case = CaseConfig(spec="128,x,1024,128")
    with pytest.raises(CaseStringError) as info:
        case_flops(case, fa_operator())
    expected = "[case.spec] case '128,x,1024,128': field S0 must be a positive integer, got 'x'"
    assert info.value.render() == expected
    several = CaseConfig(name="", spec="64,256,1024;128,128,1024")
    with pytest.raises(CaseStringError, match=r"\[case.name\].*\[case\] name is not set"):
        workload_shape(several, fa_operator())
