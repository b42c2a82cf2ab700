"""The repository model of a PTO-DSL operator: root, path, family, specs, variants,
adapter, shape knobs, on the fixture repository laid out like pto-kernels."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pto_tui.core.operators.bench_specs import read_simple_yaml
from pto_tui.core.operators.repository import find_operator_repository, repository_tunables

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
GMM = "python/pto_kernels/ops/gmm/grouped_matmul"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "pto-kernels"
    shutil.copytree(REPO, root)
    return root


def test_operator_in_its_repository(repo: Path) -> None:
    model = find_operator_repository(repo / FA)
    assert model is not None
    assert model.root == repo.resolve()
    assert model.path == FA
    assert (model.name, model.family, model.family_from) == ("flash_attention_score", "attention", "meta.py")
    assert (model.package, model.python_path) == ("python/pto_kernels", "python")
    assert model.module == "pto_kernels.ops.attention.flash_attention_score.kernel"
    assert [s.path for s in model.specs] == ["bench/specs/attention/flash_attention_score.yaml"]
    assert model.specs[0].kernel == f"{FA}/kernel.py"
    assert model.adapter == "bench/adapters/ptodsl/attention/flash_attention_score.py"
    assert model.shared == ("python/pto_kernels/ops/attention/common.py", "python/pto_kernels/ops/common.py")


def test_variants_with_fields_and_labels(repo: Path) -> None:
    model = find_operator_repository(repo / FA)
    assert model is not None
    assert [v.label for v in model.variants] == ["b1_n1_s128_d64", "b1_n1_s256_d64"]
    first = model.variants[0]
    assert first.fields["seq_len"] == 128 and first.fields["dtype"] == "float16"  # class default
    assert first.where == f"{FA}/runtime.py:32"


def test_positional_variant_fields_and_fallback_label(repo: Path) -> None:
    model = find_operator_repository(repo / GMM)
    assert model is not None
    assert model.family == "gmm"
    (variant,) = model.variants
    assert variant.fields == {
        "groups": 2, "m": 128, "k": 64, "n": 64, "seed": 0,
        "input_dtype": "bfloat16", "output_dtype": "bfloat16",
    }
    assert variant.label == "groupedmatmulvariant-0"  # the class has no label property


def test_shape_knobs_come_from_the_variant_not_the_environment(repo: Path) -> None:
    model = find_operator_repository(repo / FA)
    assert model is not None
    assert {(k.name, k.field) for k in model.shape_knobs} == {
        ("PTO_ATTENTION_SEQ_LEN", "seq_len"),
        ("PTO_ATTENTION_HEAD_DIM", "head_dim"),
    }
    tuning, workload = repository_tunables(model)
    assert [t.name for t in tuning] == [
        "PTO_ATTENTION_QK_BASE_M",
        "PTO_ATTENTION_QK_BASE_N",
        "PTO_ATTENTION_PV_BASE_M",
    ]
    assert [t.name for t in workload] == ["PTO_ATTENTION_SEQ_LEN", "PTO_ATTENTION_HEAD_DIM"]
    assert tuning[0].where == f"{FA}/kernel.py:11"  # relative to the repository root
    gmm = find_operator_repository(repo / GMM)
    assert gmm is not None and [k.name for k in gmm.shape_knobs] == ["PTO_GMM_M"]  # env["X"] = ...


def test_family_from_the_path_without_meta(repo: Path) -> None:
    (repo / FA / "meta.py").unlink()
    model = find_operator_repository(repo / FA)
    assert model is not None and (model.family, model.family_from) == ("attention", "path")


def test_root_by_git_folder_and_by_package_root(tmp_path: Path, repo: Path) -> None:
    outer = tmp_path / "outer"
    shutil.copytree(repo, outer / "pto-kernels")
    (outer / ".git").mkdir()
    (outer / "pto-kernels" / "pyproject.toml").unlink()  # nothing marks the inner root now
    model = find_operator_repository(outer / "pto-kernels" / FA)
    assert model is not None and model.root == outer.resolve()
    assert model.path == f"pto-kernels/{FA}" and model.python_path == "pto-kernels/python"
    (outer / ".git").rmdir()
    model = find_operator_repository(outer / "pto-kernels" / FA)
    assert model is not None and model.root == (outer / "pto-kernels").resolve()  # above python/


def test_not_in_a_repository(tmp_path: Path) -> None:
    loose = tmp_path / "attention"
    loose.mkdir()
    (loose / "kernel.py").write_text("from pto_kernels.utils.tuning import tuned_int\n")
    assert find_operator_repository(loose) is None


def test_simple_yaml_subset() -> None:
    text = (
        "name: x  # a comment\nfamily: 'fam'\nnotes:\n  - one\n  - two\npto:\n"
        "  adapter: a.py\n  nested:\n    deep: \"q\"\nafter: 3\n"
    )
    assert read_simple_yaml(text) == {
        "name": "x",
        "family": "fam",
        "pto.adapter": "a.py",
        "pto.nested.deep": "q",
        "after": "3",
    }
