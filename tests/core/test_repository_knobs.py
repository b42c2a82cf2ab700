"""PTO-DSL knobs as pto-kernels decides them, on the fixture repository laid out like
PTO-ISA/pto-kernels: knobs read by a kernel module the operator imports (the mc2 operators
build on matmul_all_reduce's local matmul), a rank the runtime sets per process (never
tunable), variants named by constants, and the variant's dtype (bfloat16)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pto_tui.core.operators.knob_report import KnobReport
from pto_tui.core.operators.repository import (
    OperatorInRepository,
    find_operator_repository,
    repository_report,
)
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, cli_json

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
OPS = "python/pto_kernels/ops"
MM = f"{OPS}/mc2/matmul_all_reduce/kernel.py"
ARN = f"{OPS}/mc2/matmul_all_reduce_add_rms_norm"
LIVE = [
    "PTO_MC2_MM_ARN_BLOCK_DIM",
    "PTO_MC2_MM_AR_BASE_M",
    "PTO_MC2_MM_AR_BASE_N",
    "PTO_MC2_MM_AR_BASE_K",
    "PTO_MC2_MM_AR_BLOCK_DIM",
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "pto-kernels"
    shutil.copytree(REPO, root)
    return root


def _report(repo: Path, op: str) -> tuple[OperatorInRepository, KnobReport]:
    model = find_operator_repository(repo / OPS / op)
    assert model is not None
    return model, repository_report(model)


def test_knobs_read_by_an_imported_kernel_module_are_offered(repo: Path) -> None:
    model, report = _report(repo, "mc2/matmul_all_reduce_add_rms_norm")
    assert model.imports[0] == MM
    assert [t.name for t in report.tunables] == LIVE
    where = {t.name: t.where for t in report.tunables}
    assert where["PTO_MC2_MM_AR_BASE_M"] == f"{MM}:14" and where["PTO_MC2_MM_ARN_BLOCK_DIM"].startswith(ARN)
    # what the adapter sets from the variant is the workload, wherever it is read
    assert {t.name for t in report.workload} == {
        "PTO_MC2_MM_ARN_M", "PTO_MC2_MM_ARN_N",
        "PTO_MC2_MM_AR_WORLD_SIZE", "PTO_MC2_MM_AR_M", "PTO_MC2_MM_AR_K", "PTO_MC2_MM_AR_N",
    }


def test_the_inplace_variant_offers_the_knobs_of_what_it_imports(repo: Path) -> None:
    """Its own kernel reads no knob: it imports matmul_all_reduce_add_rms_norm's, which
    imports matmul_all_reduce's; the IMM_ARN names its adapter and runtime set are read by
    no kernel, so they are no knobs."""
    model, report = _report(repo, "mc2/inplace_matmul_all_reduce_add_rms_norm")
    assert model.imports[:2] == (f"{ARN}/kernel.py", f"{OPS}/common.py") and MM in model.imports
    assert [t.name for t in report.tunables] == LIVE
    assert not any("IMM_ARN" in t.name for t in (*report.tunables, *report.workload))


def test_a_rank_the_runtime_sets_per_process_is_never_tunable(repo: Path) -> None:
    _model, report = _report(repo, "mc2/matmul_reduce_scatter")
    assert [t.name for t in report.tunables] == ["PTO_MC2_BASE_M"]
    assert [t.name for t in report.workload] == ["PTO_MC2_WORLD_SIZE", "PTO_MC2_M"]
    (rank,) = report.left_out
    assert rank.name == "PTO_MC2_RANK"
    assert rank.reason == (
        f"set at run time by {OPS}/mc2/matmul_reduce_scatter/runtime.py:23 (each process sets its own), "
        "never tunable"
    )


def test_variants_named_by_constants_are_listed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rope, _ = _report(repo, "posembedding/apply_rotary_pos_emb")
    layouts = [(v.label, v.fields["layout"]) for v in rope.variants]
    assert layouts == [("tnd_half", "TND"), ("bsnd_half", "BSND")]
    combine, _ = _report(repo, "mc2/moe_distribute_combine")
    assert [v.label for v in combine.variants] == ["t8_h128_w2"]
    rope_source = repo / OPS / "posembedding/apply_rotary_pos_emb"
    assert cli("new", rope_source, "--projects-root", repo.parent / "p") == 2
    err = capsys.readouterr().err
    assert "tnd_half (variant" in err and "bsnd_half (variant" in err


def test_the_case_records_the_variant_dtype(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    projects = repo.parent / "projects"
    source = repo / OPS / "gmm/grouped_matmul"
    data = cli_json(capsys, "new", source, "--case", "groupedmatmulvariant-0", "--projects-root", projects)
    config = ProjectFile(Path(data["project"]) / "project.toml").config
    assert config.case.dtype == "bfloat16"
    assert config.case.options["output_dtype"] == "bfloat16"
    # the bench spec runs every variant: the dtype they share
    cli_json(capsys, "new", source, "--case", "grouped_matmul", "--projects-root", projects, "--overwrite")
    assert ProjectFile(projects / "grouped_matmul" / "project.toml").config.case.dtype == "bfloat16"


def test_new_and_scan_offer_the_imported_knobs(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    projects = repo.parent / "projects"
    data = cli_json(capsys, "new", repo / ARN, "--case", "m128_k256_n128_w2", "--projects-root", projects)
    assert data["tunables"] == LIVE
    config = ProjectFile(Path(data["project"]) / "project.toml").config
    assert config.tunables["PTO_MC2_MM_AR_BASE_M"].kind == "env"
    assert config.case.knobs["PTO_MC2_MM_AR_K"] == 256
    assert cli("scan", repo / OPS / "mc2", "--verbose") == 0
    out = capsys.readouterr().out
    assert "    tunables: PTO_MC2_MM_ARN_BLOCK_DIM=8, PTO_MC2_MM_AR_BASE_M=32," in out
    assert "    not a knob: PTO_MC2_RANK: set at run time by" in out
    scanned = cli_json(capsys, "scan", repo / OPS / "mc2")
    by_name = {c["name"]: c for c in scanned["candidates"]}
    assert [t["name"] for t in by_name["inplace_matmul_all_reduce_add_rms_norm"]["tunables"]] == LIVE
    assert by_name["matmul_reduce_scatter"]["left_out"][0]["name"] == "PTO_MC2_RANK"
