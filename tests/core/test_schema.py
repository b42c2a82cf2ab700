"""project.toml's declared shape: parsing, the fresh file, `pto-tui config` and the docs agree."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from pto_tui.core.operators.marker_docs import MARKER_DOCS_FILE, REGENERATE_MARKER_DOCS, marker_markdown
from pto_tui.core.operators.marker_schema import TABLES as MARKER_TABLES
from pto_tui.core.operators.marker_schema import TOP_KEYS
from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    Discipline,
    OperatorConfig,
    ResultConfig,
    Target,
    Tunable,
    default_commands,
    default_protected,
)
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.schema import Range
from pto_tui.core.project.schema_docs import DOCS_FILE, REGENERATE, key_docs, schema_markdown
from pto_tui.core.project.sections import SECTIONS, TUNABLE_KEYS
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.vocabulary import DEFAULT_PHASES, OperatorKind
from tests.core.helpers import cli, cli_json

REPO = Path(__file__).resolve().parents[2]
MINIMAL = '[operator]\nname = "fa"\nkind = "pto-tile-lib"\n'
RECORDS = {
    "operator": OperatorConfig,
    "case": CaseConfig,
    "commands": Commands,
    "target": Target,
    "costmodel": CostmodelConfig,
    "discipline": Discipline,
    "result": ResultConfig,
}


def test_committed_docs_match_the_schema() -> None:
    committed = (REPO / DOCS_FILE).read_text(encoding="utf-8")
    assert committed == schema_markdown(), f"{DOCS_FILE} is stale; regenerate it: {REGENERATE}"


@pytest.mark.parametrize("table", sorted(RECORDS))
def test_declared_keys_are_the_record_fields(table: str) -> None:
    section = next(s for s in SECTIONS if s.name == table)
    assert [k.name for k in section.keys] == [f.name for f in fields(RECORDS[table])]


def test_tunable_keys_are_the_tunable_fields() -> None:
    assert {k.name for k in TUNABLE_KEYS} == {f.name for f in fields(Tunable)} - {"name"}


@pytest.mark.parametrize("kind", list(OperatorKind))
def test_defaults_are_the_records_defaults(kind: OperatorKind) -> None:
    config = parse_config(Path("project.toml"), MINIMAL.replace("pto-tile-lib", kind.value))
    assert config.case == CaseConfig() and config.target == Target()
    assert config.costmodel == CostmodelConfig() and config.discipline == Discipline()
    assert config.commands == default_commands(kind)
    assert config.protected == default_protected(kind) and config.phases == DEFAULT_PHASES
    assert config.tunables == {} and config.tolerances == {}


def test_choice_errors_name_every_choice() -> None:
    for section in SECTIONS:
        for key in (*section.keys, *(section.entries.keys if section.entries else ())):
            for choice in key.choices:
                assert choice in key.choice_error, (section.name, key.name, choice)


def test_range_descriptions() -> None:
    assert Range(low=1).describe() == ">= 1"
    assert Range(low=0, low_open=True).describe() == "> 0"
    assert Range(low=0, high=1).describe() == "0 <= value < 1"
    assert not Range(low=0, high=1).contains(float("nan"))


def test_fresh_file_carries_the_schema_help_and_parses_back() -> None:
    operator = OperatorConfig(name="fa", kind=OperatorKind.PTO_TILE_LIB, source="/src/fa")
    case = CaseConfig(shape={"S1": 1024}, spec="1,2")
    tunables = [Tunable("kTile", 128, "constexpr", 128, (64, 128), "fa.cpp:3")]
    result = ResultConfig(format="average-time", label="Benchmarking Basic Kernel")
    text = new_project_document(operator, case, tunables, Target(), CostmodelConfig(), result=result)
    for section in SECTIONS:
        if section.commented:
            assert f"# {section.help}\n" in text, section.name
    config = parse_config(Path("project.toml"), text)
    assert config.operator == operator and config.case == case
    assert list(config.tunables.values()) == tunables
    assert config.result == result
    # [result] is written only when a run is read from what it prints
    assert "[result]" not in new_project_document(operator, case, tunables, Target(), CostmodelConfig())


def test_cli_config_keys_json_lists_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    listed = cli_json(capsys, "config", "keys")
    assert isinstance(listed, dict) and listed["schema_version"] == 2
    rows = listed["keys"]
    assert [row["path"] for row in rows] == [d.path for d in key_docs()]
    by_path = {row["path"]: row for row in rows}
    assert by_path["discipline.repeats"]["default"] == "5"
    assert by_path["discipline.repeats"]["allowed"] == "1 <= value <= 1000"
    assert by_path["operator.name"]["required"] is True
    assert by_path["commands.results"]["default_by_kind"]["pto-tile-lib"] == '"build/report.csv"'
    assert by_path["tunables.<name>.kind"]["allowed"] == "one of: env, constexpr, template, case"


def test_cli_config_keys_text(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli("config", "keys") == 0
    out = capsys.readouterr().out
    for section in SECTIONS:
        assert f"[{section.name}]" in out and section.help in out
    for doc in key_docs():
        assert f"{doc.key}  {doc.type}" in out and doc.help in out


def test_cli_config_docs_prints_the_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli("config", "docs") == 0
    assert capsys.readouterr().out == schema_markdown()


def test_cli_config_help_teaches_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli("config", "--help")
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "project.toml" in out and "config keys --json" in out and DOCS_FILE in out
    with pytest.raises(SystemExit) as info:
        cli("config")
    assert info.value.code == 2


def test_committed_marker_docs_match_the_marker_schema() -> None:
    committed = (REPO / MARKER_DOCS_FILE).read_text(encoding="utf-8")
    stale = f"{MARKER_DOCS_FILE} is stale; regenerate it: {REGENERATE_MARKER_DOCS}"
    assert committed == marker_markdown(), stale
    # every key the marker knows is in it
    for key in TOP_KEYS:
        assert f"| `{key.name}` |" in committed
    for table in MARKER_TABLES:
        assert f"## [{table.name}]" in committed or f"## [[{table.name}]]" in committed
        for key in table.keys or (table.entries.keys if table.entries else ()):
            assert f"| `{key.name}` |" in committed or f"| `<name>.{key.name}` |" in committed
