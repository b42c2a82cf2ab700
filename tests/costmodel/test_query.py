"""The query language, labels, [CYCLE] lines, metrics, sorting and exports (pure)."""

from __future__ import annotations

import csv
import io
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pto_tui.core.cycles.cycle_lines import parse_cycle_lines
from pto_tui.core.cycles.metrics import flop_count, ideal_cycles
from pto_tui.core.cycles.query import (
    DTYPE_SIZES,
    INSTRUCTIONS,
    PROMPT_CVT,
    PROMPT_DTYPE,
    PROMPT_INSTRUCTION,
    PROMPT_MATMUL,
    PROMPT_MATMUL_TYPES,
    PROMPT_SHAPE,
    Family,
    Query,
    QueryError,
    canonical_dtype,
    canonical_instruction,
)
from pto_tui.core.cycles.results import (
    SORT_COLUMNS,
    CycleResult,
    VersionStamp,
    best_result,
    format_evidence,
    sort_results,
    to_csv,
    to_markdown,
)
from pto_tui.core.cycles.sweep import expand_sweep, parse_dim_values, parse_query_text
from pto_tui.core.errors import InputError

# the three label forms the tool prints; parsing one back gives the query that made it
LABEL_FORMS = (
    re.compile(
        r"^(?P<instr>TMATMUL)\.(?P<out>\w+)<(?P<a>\w+),(?P<b>\w+)>_(?P<m>[0-9]+)x(?P<k>[0-9]+)x(?P<n>[0-9]+)$"
    ),
    re.compile(r"^(?P<instr>TCVT)\.(?P<dst>\w+)<-(?P<src>\w+)_(?P<rows>[0-9]+)x(?P<cols>[0-9]+)$"),
    re.compile(r"^(?P<instr>T[A-Z]+)\.(?P<dt>\w+)_(?P<rows>[0-9]+)x(?P<cols>[0-9]+)$"),
)


def query_from_label(label: str) -> Query:
    """The query a label names: a label is unambiguous when this gives the query back."""
    for regex in LABEL_FORMS:
        match = regex.match(label)
        if not match:
            continue
        parts = match.groupdict()
        instr = canonical_instruction(parts["instr"])
        if "out" in parts:
            dtypes = tuple(canonical_dtype(parts[x]) for x in ("a", "b", "out"))
            return Query(instr, dtypes, m=int(parts["m"]), k=int(parts["k"]), n=int(parts["n"]))
        if "dst" in parts:
            dtypes = (canonical_dtype(parts["dst"]), canonical_dtype(parts["src"]))
        else:
            dtypes = (canonical_dtype(parts["dt"]),)
        return Query(instr, dtypes, rows=int(parts["rows"]), cols=int(parts["cols"]))
    raise QueryError(f"not a costmodel label: {label!r}")


STAMP = VersionStamp("builtin", "git:abc123", "g++ 12.2.0", "-O2")


def sweep(text: str) -> list:
    """A command line written as one string (readable in tests)."""
    return expand_sweep(text.split())



def q(text: str) -> Query:
    """A command line naming exactly one query."""
    [query] = expand_sweep(text.split())
    return query


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("TEXP float -r 16 -c 16", "TEXP.float_16x16"),
        ("TADD half -r 64 -c 64", "TADD.half_64x64"),
        ("TADDS fp16 -r 64 -c 64", "TADDS.half_64x64"),
        ("TROWSUM fp32 -r 64 -c 64", "TROWSUM.float_64x64"),
        ("TCOLSUM half -r 16 -c 256", "TCOLSUM.half_16x256"),
        ("TCVT half float -r 16 -c 64", "TCVT.half<-float_16x64"),
        ("TMATMUL half half float --m 128 --k 64 --n 128", "TMATMUL.float<half,half>_128x64x128"),
        ("TMATMUL int8 int8 int32 --m=40 --k=50 --n=60", "TMATMUL.int32<int8,int8>_40x50x60"),
        ("tadd bf16 -r=8 -c=32", "TADD.bf16_8x32"),
        ("TADD half 64x64", "TADD.half_64x64"),
        ("TMATMUL half half float 128x64x128", "TMATMUL.float<half,half>_128x64x128"),
        ("TCMP int32 -r 8 -c 32", "TCMP.int32_8x32"),
    ],
)
def test_labels_match_the_tool(text: str, label: str) -> None:
    assert q(text).label == label


def test_every_instruction_parses_in_its_family_form() -> None:
    for instr, family in INSTRUCTIONS.items():
        if family is Family.MATMUL:
            query = q(f"{instr} half half float --m 16 --k 16 --n 16")
        elif family is Family.CVT:
            query = q(f"{instr} half float -r 16 -c 64")
        else:
            query = q(f"{instr} half -r 16 -c 64")
        assert query.family is family
        assert expand_sweep(query.argv()) == [query]  # argv round-trips
        assert query_from_label(query.label) == query


@pytest.mark.parametrize(
    ("text", "prompt"),
    [
        ("", PROMPT_INSTRUCTION),
        ("-r 16 -c 16", PROMPT_INSTRUCTION),
        ("TADD -r 16 -c 16", PROMPT_DTYPE),
        ("TADD half", PROMPT_SHAPE),
        ("TADD half -r 16", PROMPT_SHAPE),
        ("TEXP half -c 16", PROMPT_SHAPE),
        ("TROWMAX float", PROMPT_SHAPE),
        ("TCOLMIN float -r 4", PROMPT_SHAPE),
        ("TMATMUL half half float", PROMPT_MATMUL),
        ("TMATMUL half half float --m 128 --k 64", PROMPT_MATMUL),
        ("TMATMUL half half --m 128 --k 64 --n 128", PROMPT_MATMUL_TYPES),
        ("TMATMUL --m 128 --k 64 --n 128", PROMPT_DTYPE),
        ("TCVT half -r 16 -c 64", PROMPT_CVT),
        ("TCVT half half -r 16 -c 64", PROMPT_CVT),
        ("TCVT fp16 half -r 16 -c 64", PROMPT_CVT),
        ("TCVT -r 16 -c 64", PROMPT_DTYPE),
    ],
)
def test_missing_information_gets_the_guides_prompt(text: str, prompt: str) -> None:
    with pytest.raises(QueryError) as info:
        expand_sweep(text.split())
    assert info.value.message == prompt
    assert isinstance(info.value, InputError) and info.value.exit_code == 2


def test_unknown_instruction_lists_the_valid_ones() -> None:
    with pytest.raises(QueryError) as info:
        q("TFOO half -r 16 -c 16")
    for name in ("TADD", "TMATMUL", "TCVT", "TROWSUM", "TCOLSUM", "TEXP", "TSELS"):
        assert name in info.value.message


def test_unknown_dtype_lists_the_valid_ones() -> None:
    with pytest.raises(QueryError) as info:
        q("TADD double -r 16 -c 16")
    assert "'double'" in info.value.message
    for name in DTYPE_SIZES:
        assert name in info.value.message


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("TADD half -r 0 -c 64", "positive"),
        ("TADD half -r -4 -c 64", "positive"),
        ("TMATMUL half half float --m 0 --k 16 --n 16", "positive"),
        ("TADD half -r 16 -c 60", "multiple of 32 bytes"),
        ("TADD int8 -r 16 -c 16", "cols a multiple of 32"),
        ("TCVT half float -r 16 -c 24", "multiple of 32 bytes"),  # 24 float = 96 B, 24 half = 48 B
        ("TCMP float -r 8 -c 16", "uint8"),  # the uint8 mask tile is cols wide
        ("TMATMUL half half float -r 16 -c 16", "--m/--k/--n"),
        ("TADD half --m 16 -r 16 -c 16", "-r ROWS -c COLS"),
        ("TADD half float -r 16 -c 64", "takes 1 dtype"),
        ("TADD half -r 16 -c 64 --bogus", "unknown option"),
        ("TADD half -r 16x -c 64", "not an integer"),
    ],
)
def test_shapes_that_cannot_be_laid_out_are_rejected(text: str, needle: str) -> None:
    with pytest.raises(QueryError) as info:
        expand_sweep(text.split())
    assert needle in info.value.message


def test_matmul_accepts_unaligned_dims_because_they_are_padded() -> None:
    assert q("TMATMUL half half float --m 40 --k 50 --n 60").shape == "40x50x60"
    assert q("TMATMUL int8 int8 int32 --m 6 --k 7 --n 8").shape == "6x7x8"


# ---------------------------------------------------------------- sweeps


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("64", [64]),
        ("16,32,64", [16, 32, 64]),
        ("16:256:x2", [16, 32, 64, 128, 256]),
        ("16:200:x2", [16, 32, 64, 128]),
        ("16:128:16", [16, 32, 48, 64, 80, 96, 112, 128]),
        ("16-64/16", [16, 32, 48, 64]),
        ("16:20", [16, 17, 18, 19, 20]),
        ("16:64:+16,128", [16, 32, 48, 64, 128]),
        ("32,16:32:x2", [32, 16]),  # repeats dropped, order kept
    ],
)
def test_sweep_values(text: str, values: list[int]) -> None:
    assert parse_dim_values(text, "m") == values


@pytest.mark.parametrize("text", ["", "16,", "a:b", "64:16", "16:64:x1", "16:64:0", "1:9:2:3",
                                  "1:100000000"])
def test_bad_sweep_values(text: str) -> None:
    with pytest.raises(QueryError):
        parse_dim_values(text, "m")


def test_the_75_point_grid_expands_in_order() -> None:
    queries = sweep(
        "sweep TMATMUL half half float --m 16,32,64,128,256 --k 32,64,128 "
        "--n 16,32,64,128,256")
    assert len(queries) == 75
    assert queries[0].label == "TMATMUL.float<half,half>_16x32x16"
    assert queries[-1].label == "TMATMUL.float<half,half>_256x128x256"
    assert len({x.key for x in queries}) == 75


def test_sweep_over_several_dtypes() -> None:
    queries = sweep("TADD half,float,int32 -r 16,32 -c 64")
    assert [x.label for x in queries] == [
        "TADD.half_16x64", "TADD.half_32x64", "TADD.float_16x64", "TADD.float_32x64",
        "TADD.int32_16x64", "TADD.int32_32x64",
    ]
    cvt = sweep("TCVT half,bf16 float -r 16 -c 64")
    assert [x.label for x in cvt] == ["TCVT.half<-float_16x64", "TCVT.bf16<-float_16x64"]


def test_a_sweep_point_that_cannot_be_laid_out_rejects_the_sweep() -> None:
    with pytest.raises(QueryError, match="cols a multiple of 16"):
        sweep("TADD half -r 16 -c 32,40")


def test_text_form_accepts_the_tool_prefix() -> None:
    queries = parse_query_text("python3 tools/query_pto_cycles.py TADD half -r 64 -c 64")
    assert [x.label for x in queries] == ["TADD.half_64x64"]


# ---------------------------------------------------------------- [CYCLE] lines


def test_cycle_lines_in_all_label_forms() -> None:
    text = (
        "compiling...\n"
        "[CYCLE] TMATMUL.float<half,half>_128x64x128 actual=262\n"
        "noise [CYCLE] TADD.half_64x64 actual=98\n"
        "[CYCLE] TCVT.half<-float_16x64 actual=66\r\n"
        "[CYCLE] TROWSUM.float_64x64   actual=51\n"
        "[CYCLE] broken line\n"
    )
    lines = parse_cycle_lines(text)
    assert [(x.label, x.cycles) for x in lines] == [
        ("TMATMUL.float<half,half>_128x64x128", 262),
        ("TADD.half_64x64", 98),
        ("TCVT.half<-float_16x64", 66),
        ("TROWSUM.float_64x64", 51),
    ]
    queries = [query_from_label(x.label) for x in lines]
    assert queries[0] == Query("TMATMUL", ("half", "half", "float"), m=128, k=64, n=128)
    assert queries[1] == Query("TADD", ("half",), rows=64, cols=64)
    assert queries[2] == Query("TCVT", ("half", "float"), rows=16, cols=64)


def test_labels_with_aliases_and_bad_labels() -> None:
    assert query_from_label("TADD.fp16_16x16").label == "TADD.half_16x16"
    for bad in ("TADD.half_16", "TADD_16x16", "TMATMUL.float<half>_1x2x3", "TFOO.half_16x16"):
        with pytest.raises(QueryError):
            query_from_label(bad)


dims = st.integers(min_value=1, max_value=4096)


@given(m=dims, k=dims, n=dims, a=st.sampled_from(sorted(DTYPE_SIZES)),
       out=st.sampled_from(sorted(DTYPE_SIZES)))
def test_matmul_labels_round_trip(m: int, k: int, n: int, a: str, out: str) -> None:
    query = Query("TMATMUL", (a, a, out), m=m, k=k, n=n)
    line = parse_cycle_lines(f"[CYCLE] {query.label} actual={m}\n")[0]
    assert query_from_label(line.label) == query and line.cycles == m


@given(instr=st.sampled_from(sorted(i for i, f in INSTRUCTIONS.items()
                                    if f not in (Family.MATMUL, Family.CVT))),
       dt=st.sampled_from(sorted(DTYPE_SIZES)), rows=dims, cols=dims)
def test_vector_labels_round_trip(instr: str, dt: str, rows: int, cols: int) -> None:
    query = Query(instr, (dt,), rows=rows, cols=cols)
    assert query_from_label(query.label) == query


# ---------------------------------------------------------------- metrics


def test_flops_ideal_and_efficiency_of_matmul() -> None:
    query = q("TMATMUL half half float --m 128 --k 64 --n 128")
    assert flop_count(query) == 2 * 128 * 64 * 128
    assert ideal_cycles(query) == 128 * 64 * 128 / 4096 == 256
    result = CycleResult(query, 262, STAMP)
    assert result.efficiency == pytest.approx(256 / 262)
    assert result.cycles_per_flop == pytest.approx(262 / flop_count(query))
    assert result.flop_per_cycle == pytest.approx(flop_count(query) / 262)
    # Other cube types: int8 twice the fp16 rate in K, fp32 a quarter.
    assert ideal_cycles(q("TMATMUL int8 int8 int32 --m 64 --k 64 --n 64")) == 32
    assert ideal_cycles(q("TMATMUL float float float --m 64 --k 64 --n 64")) == 256
    assert ideal_cycles(q("TMATMUL int32 int32 int32 --m 64 --k 64 --n 64")) is None


def test_vector_families_count_elements_and_have_no_ideal() -> None:
    query = q("TADD half -r 64 -c 64")
    assert flop_count(query) == 4096
    result = CycleResult(query, 98, STAMP)
    assert result.ideal_cycles is None and result.efficiency is None
    assert result.to_dict()["flops_kind"] == "elements (rows*cols)"


def test_failed_result_has_no_rates() -> None:
    result = CycleResult(q("TADD half -r 64 -c 64"), None, STAMP, error="compile error")
    assert not result.ok
    assert result.cycles_per_flop is None and result.flop_per_cycle is None


# ---------------------------------------------------------------- tables and exports


def _matmul_cycles(query: Query) -> int:
    """Cycles of an fp16 TMATMUL as the tool reports them: ceil(M/16)*ceil(K/16)*ceil(N/16) + 6."""
    return math.ceil(query.m / 16) * math.ceil(query.k / 16) * math.ceil(query.n / 16) + 6


def _results() -> list[CycleResult]:
    grid = sweep("TMATMUL half half float --m 16,64,128 --k 64 --n 64")
    out = [CycleResult(x, _matmul_cycles(x), STAMP) for x in grid]
    out.append(CycleResult(q("TMATMUL half half float --m 13 --k 64 --n 64"), None, STAMP,
                           error="compile error: static assertion failed"))
    return out


def test_sort_by_every_column_and_failures_last() -> None:
    results = _results()
    for column in SORT_COLUMNS:
        ordered = sort_results(results, column)
        assert ordered[-1].error  # the failure has no cycles, and sorts last by cycles
        assert len(ordered) == len(results)
    by_cycles = sort_results(results, "cycles")
    assert [r.cycles for r in by_cycles] == [22, 70, 134, None]
    assert [r.cycles for r in sort_results(results, "cycles", descending=True)] == [
        134, 70, 22, None]
    assert sort_results(results, "cycles/flop")[0].query.m == 128
    with pytest.raises(InputError, match="unknown column"):
        sort_results(results, "speed")


def test_best_is_lowest_cycles_per_flop() -> None:
    results = _results()
    best = best_result(results)
    assert best is not None and best.label == "TMATMUL.float<half,half>_128x64x64"
    assert best_result([r for r in results if not r.ok]) is None


def test_csv_export() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(_results()))))
    assert len(rows) == 4
    assert rows[0]["label"] == "TMATMUL.float<half,half>_16x64x64" and rows[0]["cycles"] == "22"
    assert [r["best"] for r in rows] == ["", "", "*", ""]
    assert rows[3]["cycles"] == "" and "static assertion" in rows[3]["error"]
    assert rows[0]["costmodel"] == "git:abc123"


def test_markdown_export_marks_the_best() -> None:
    text = to_markdown(_results())
    lines = text.strip().splitlines()
    assert len(lines) == 2 + 4
    assert lines[0].startswith("|  | label | cycles")
    assert sum("**best**" in line for line in lines) == 1
    assert "**best** | TMATMUL.float<half,half>_128x64x64 | 134 |" in text
    assert "| error |" in text


def test_evidence_block() -> None:
    text = format_evidence(_results())
    assert text.startswith("Costmodel (A2/A3, simulated cycles; builtin git:abc123")
    assert "best: `TMATMUL.float<half,half>_128x64x64` = 134 cycles" in text
    assert "worst: `TMATMUL.float<half,half>_16x64x64`" in text
    assert "1 configuration(s) failed" in text
    assert "| TMATMUL.float<half,half>_128x64x64 | 134 |" in text
    assert format_evidence([]).startswith("Costmodel")
