"""runs/closed.log is a hash chain anchored in the pto-tui home: every edit of the project
folder below (a log line rewritten with its hash, a forged round and line, lines reordered,
a field changed, the log or .pto-tui deleted, a closed round's notes.md, patch.diff,
files.txt or ITERATIONS.md row changed, the torch baseline changed) is named by `status`
and makes `pto-tui verify` exit non-zero; an untouched project verifies clean."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.rounds.history import anchor_path
from pto_tui.core.summary.campaign_report import ReportContext, render_report
from pto_tui.core.summary.chart_model import build_model
from tests.core.helpers import cli, cli_json, ready_project, run_round

LOG = "runs/closed.log"


def project(tmp_path: Path) -> Path:
    """Three rounds after the baseline (neutral; neutral, slower; neutral) and a torch baseline."""
    root = ready_project(tmp_path)
    header = "workspace/kernel/fa_kernel.h"
    for preload, samples in ((5, "120,121,119"), (6, "130,131,129"), (7, "119,120,121")):
        edit = (header, f"kFaQkPreload = {preload - 1}", f"kFaQkPreload = {preload}")
        assert run_round(root, samples, hypothesis=f"preload {preload}", edit=edit) == 0
    assert cli("--project", root, "torch-baseline", "--avg", "63", "--min", "60", "--max", "66") == 0
    return root


def status(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, Any]:
    capsys.readouterr()
    assert cli("--project", root, "status", "--json") == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def verify(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = cli("--project", root, "verify", "--json")
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, data


def lines(root: Path) -> list[str]:
    return (root / LOG).read_text().splitlines()


def write_lines(root: Path, text: list[str]) -> None:
    (root / LOG).write_text("".join(line + "\n" for line in text))


def index_of(text: list[str], number: int) -> int:
    """The last line of round `number`."""
    return max(i for i, line in enumerate(text) if json.loads(line)["round"] == number)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def broken(capsys: pytest.CaptureFixture[str], root: Path, *words: str) -> dict[str, Any]:
    """verify exits non-zero, a break names each of `words`; returns status --json."""
    code, result = verify(capsys, root)
    assert code == 1 and not result["clean"], result
    for word in words:
        assert any(word in b for b in result["breaks"]), (word, result["breaks"])
    return status(capsys, root)


def context_pane(summary: CampaignStatus) -> str:
    """The Context pane's campaign rows (frontier, verdicts, rules, records) as plain text."""
    from rich.console import Console
    from rich.table import Table

    from pto_tui.tui.widgets.context_pane import _progress_rows

    pane = Table.grid()
    _progress_rows(pane, summary)
    console = Console(width=240, record=True, color_system=None)
    console.print(pane)
    return " ".join(console.export_text().split())


def test_an_untouched_project_verifies_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code, result = verify(capsys, root)
    assert code == 0 and result["clean"] and result["breaks"] == [], result
    assert result["anchored"] and result["rounds_checked"] == 4
    st = status(capsys, root)
    history = st["history"]
    assert history["anchored"] and history["problems"] == [] and st["tampered_rounds"] == {}
    anchor = json.loads(anchor_path(root).read_text())
    assert history["head"] == {"seq": anchor["seq"], "sha256": anchor["head"]}
    assert history["entries"] == len(lines(root)) == anchor["seq"] + 1
    # every line names the one before it
    text = lines(root)
    for before, line in zip(text, text[1:], strict=False):
        assert json.loads(line)["prev"] == sha(before.encode())
    capsys.readouterr()
    assert cli("--project", root, "verify") == 0
    assert "history intact" in capsys.readouterr().out


def test_a_verdict_edited_with_its_hash_recomputed_and_its_line_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    before = status(capsys, root)
    path = root / "runs/iter-002/round.toml"
    path.write_text(path.read_text().replace('verdict = "neutral"', 'verdict = "kept"'))
    text = lines(root)
    at = index_of(text, 2)
    line = json.loads(text[at])
    line["verdict"], line["record"]["verdict"] = "kept", "kept"
    line["sha256"] = sha(path.read_bytes())
    text[at] = json.dumps(line, sort_keys=True)
    write_lines(root, text)
    st = broken(capsys, root, "chain is broken")
    assert "2" in st["tampered_rounds"]
    assert st["frontier_round"] == before["frontier_round"]  # a forged kept never leads
    assert any("chain is broken" in n for n in st["notices"])


def test_a_rounds_only_line_rewritten_in_place_counts_it_as_unverified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """neutral -> kept in round.toml and in its one log line, the hash recomputed: every
    count counts it apart, as unverified, and says so."""
    root = project(tmp_path)
    before = status(capsys, root)
    assert before["counts"] == {"kept": 0, "neutral": 3, "failure": 0, "inconclusive": 0}
    path = root / "runs/iter-002/round.toml"
    edited = path.read_text().replace('verdict = "neutral"', 'verdict = "kept"')
    assert edited != path.read_text()
    path.write_text(edited)
    text = lines(root)
    assert [json.loads(x)["round"] for x in text].count(2) == 1  # its only line
    at = index_of(text, 2)
    line = json.loads(text[at])
    line["verdict"], line["record"]["verdict"] = "kept", "kept"
    line["sha256"] = sha(path.read_bytes())
    text[at] = json.dumps(line, sort_keys=True)
    write_lines(root, text)

    st = broken(capsys, root, "chain is broken")
    # the break is between round 2's line and the next (round 3's): either may be the one
    # rewritten, so neither verdict is counted
    assert json.loads(text[at + 1])["round"] == 3
    assert st["counts"] == {"kept": 0, "neutral": 1, "failure": 0, "inconclusive": 0, "unverified": 2}
    assert st["unverified_rounds"] == [2, 3]
    # nor does the forged kept end the rounds without gain (the three-round rule)
    assert before["rounds_without_gain"] == st["rounds_without_gain"] == 3 and st["three_round_rule"]
    assert st["frontier_round"] == before["frontier_round"]
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    out = capsys.readouterr().out
    assert "verdicts: kept 0, neutral 1, failure 0, inconclusive 0, unverified 2" in out
    assert "!tampered iter-002 (counted as unverified, not as its verdict)" in out
    table = cli_json(capsys, "--project", root, "rounds")
    assert isinstance(table, dict)
    rows = {r["round"]: r for r in table["rounds"]}
    assert rows[2]["unverified"] and rows[2]["tampered"] and not rows[1]["unverified"]
    assert rows[2]["verdict"] == "kept"  # what it claims, beside the word that it is unverified
    capsys.readouterr()
    assert cli("--project", root, "export", "--format", "md") == 0
    assert "| kept (unverified) |" in capsys.readouterr().out
    with Campaign(root) as campaign:
        rounds = campaign.rounds()
        torch = campaign.torch_baseline()
        summary = campaign.status(rounds)
    pane = context_pane(summary)
    assert "verdicts kept 0 neutral 1 failure 0 inconclusive 0 unverified 2" in pane
    assert "!tampered iter-002 (counted as unverified)" in pane
    model = build_model(rounds, torch, (), "fa")
    assert model.counts == st["counts"] and model.round(2).verdict == "unverified"
    assert "kept 0, neutral 1, failure 0, unverified 2" in model.header
    assert "2 rounds unverified" in model.conclusion
    report = render_report(rounds, torch, ReportContext("fa"))
    assert "## Unverified rounds" in report and "iter-002** (claims kept)" in report
    assert "(kept 0, neutral 1, failure 0, inconclusive 0, unverified 2)" in report
    assert "### iter-002" not in report and "- **iter-002** (neutral" not in report  # in no list
    capsys.readouterr()
    assert cli("--project", root, "chart", "--svg") == 0  # drawn, with the unverified markers
    svg = (root / "summary_chart.svg").read_text()
    assert 'id="markers-unverified"' in svg and 'id="markers-kept"' not in svg


def test_a_forged_round_with_a_well_linked_line_is_not_the_frontier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    forged = root / "runs/iter-004"
    shutil.copytree(root / "runs/iter-003", forged)
    toml = forged / "round.toml"
    toml.write_text(toml.read_text().replace("number = 3", "number = 4")
                    .replace('verdict = "neutral"', 'verdict = "kept"'))
    text = lines(root)
    line = json.loads(text[index_of(text, 3)])
    line.update(round=4, verdict="kept", sha256=sha(toml.read_bytes()),
                seq=json.loads(text[-1])["seq"] + 1, prev=sha(text[-1].encode()))
    line["record"].update(number=4, verdict="kept")
    write_lines(root, [*text, json.dumps(line, sort_keys=True)])
    st = broken(capsys, root, "after the head pto-tui wrote")
    assert st["frontier_round"] != 4 and "4" in st["tampered_rounds"]
    # the forged round: tampered, and counted apart, never as the kept it claims
    assert st["counts"]["kept"] == 0 and st["counts"]["unverified"] == 1
    assert st["unverified_rounds"] == [4]


def relinked(text: list[str], start: int) -> list[str]:
    """Every line from `start` on naming the hash of the line before it again: the forger's
    whole chain recomputed after an edit."""
    out = list(text)
    for i in range(max(start, 1), len(out)):
        line = json.loads(out[i])
        line["prev"] = sha(out[i - 1].encode())
        out[i] = json.dumps(line, sort_keys=True)
    return out


def test_a_verdict_forged_with_the_whole_chain_recomputed_is_named_by_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """failure -> kept in round.toml and its line, its hash recomputed and every later
    line relinked: the chain holds together, its head is not the one anchored."""
    root = project(tmp_path)
    path = root / "runs/iter-002/round.toml"
    before = status(capsys, root)
    path.write_text(path.read_text().replace('verdict = "neutral"', 'verdict = "kept"'))
    text = lines(root)
    at = index_of(text, 2)
    line = json.loads(text[at])
    line["verdict"], line["record"]["verdict"] = "kept", "kept"
    line["sha256"] = sha(path.read_bytes())
    text[at] = json.dumps(line, sort_keys=True)
    write_lines(root, relinked(text, at + 1))
    st = broken(capsys, root, "was rewritten")
    assert not any("chain is broken" in p for p in st["history"]["problems"])  # it links up
    assert st["counts"]["kept"] == 0 and st["unverified_rounds"] == [1, 2, 3]
    assert st["frontier_round"] == before["frontier_round"] == 0


def test_reordered_lines_relinked_are_named_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    text = lines(root)
    a, b = index_of(text, 1), index_of(text, 2)
    text[a], text[b] = text[b], text[a]
    write_lines(root, relinked(text, min(a, b)))
    st = broken(capsys, root)
    assert st["history"]["problems"] and st["counts"]["kept"] == 0 and st["unverified_rounds"]


def test_reordered_lines_are_a_broken_chain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    text = lines(root)
    a, b = index_of(text, 1), index_of(text, 2)
    text[a], text[b] = text[b], text[a]
    write_lines(root, text)
    st = broken(capsys, root, "chain is broken")
    assert st["tampered_rounds"] and st["history"]["problems"]


def test_a_line_removed_from_the_middle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    text = lines(root)
    del text[index_of(text, 1)]
    write_lines(root, text)
    st = broken(capsys, root, "chain is broken")
    assert st["history"]["problems"]


def test_a_lines_verdict_field_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    text = lines(root)
    at = index_of(text, 1)
    text[at] = text[at].replace('"verdict": "neutral"', '"verdict": "kept"', 1)
    write_lines(root, text)
    st = broken(capsys, root, "a line rewritten")
    assert "1" in st["tampered_rounds"]


def test_the_last_line_changed_is_named_by_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    text = lines(root)
    text[-1] = text[-1].replace('"avg_us": 63.0', '"avg_us": 6.3')
    assert text[-1] != lines(root)[-1]
    write_lines(root, text)
    st = broken(capsys, root, "was rewritten")
    assert any("rewritten" in p for p in st["history"]["problems"])
    # the whole chain may have been recomputed: no verdict up to the head is vouched for
    assert st["unverified_rounds"] == [1, 2, 3] and st["counts"]["unverified"] == 3


def test_a_log_cut_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    write_lines(root, lines(root)[:-2])
    st = broken(capsys, root, "cut short")
    assert any("cut short" in p for p in st["history"]["problems"])


@pytest.mark.parametrize("removed", ["log-and-marker", "state-dir"])
def test_a_deleted_log_after_an_edit_stays_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], removed: str
) -> None:
    root = project(tmp_path)
    path = root / "runs/iter-002/round.toml"
    path.write_text(path.read_text().replace('verdict = "neutral"', 'verdict = "kept"'))
    (root / LOG).unlink()
    if removed == "state-dir":
        shutil.rmtree(root / ".pto-tui")
    else:
        (root / ".pto-tui/closed-log-started").unlink()
    for _again in range(2):  # not one notice and then accepted: every time
        st = broken(capsys, root, "closed.log is gone")
        assert sorted(st["tampered_rounds"]) == ["0", "1", "2", "3"]
        # nothing vouches for any verdict now: none counted as one, the edited kept least
        assert st["counts"]["kept"] == 0 and st["counts"]["unverified"] == 3
        assert st["unverified_rounds"] == [1, 2, 3] and st["frontier_round"] == 0
        assert any("closed.log is gone" in n for n in st["notices"])
        assert not (root / LOG).exists()  # not begun again from the edited records


@pytest.mark.parametrize("name", ["notes.md", "patch.diff", "files.txt"])
def test_a_closed_rounds_side_file_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = project(tmp_path)
    path = root / "runs/iter-002" / name
    assert path.is_file()
    path.write_text(path.read_text() + "\nrewritten by hand\n")
    st = broken(capsys, root, f"iter-002/{name}")
    assert any(name in why for why in st["tampered_rounds"]["2"])
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    assert "!tampered" in capsys.readouterr().out


def test_an_iterations_row_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    table = root / "ITERATIONS.md"
    text = table.read_text().splitlines()
    table.write_text("\n".join(line for line in text if not line.startswith("| 2 |")) + "\n")
    st = broken(capsys, root, "row of iter-002 is gone")
    assert any("ITERATIONS.md row was removed" in w for w in st["tampered_rounds"]["2"])
    assert list(st["tampered_rounds"]) == ["2"] and "unverified" not in st["counts"]  # the record stands
    table = cli_json(capsys, "--project", root, "rounds")
    shown = cli_json(capsys, "--project", root, "show", "2")
    assert isinstance(table, dict) and isinstance(shown, dict)
    assert [r["round"] for r in table["rounds"] if r["tampered"]] == [2]
    assert any("ITERATIONS.md row was removed" in w for w in shown["tampered"])
    # the terminal application: the round table's mark and the Context pane
    from pto_tui.tui.widgets.rounds_rows import verdict_cell

    with Campaign(root) as campaign:
        rounds = campaign.rounds()
        summary = campaign.status(rounds)
    cells = {r.number: verdict_cell(r, r.number in summary.tampered).plain for r in rounds}
    assert cells[2] == "= neutral !tampered" and "!tampered" not in cells[1] + cells[3]
    assert ("!tampered iter-002 (counted as it was closed): its ITERATIONS.md row was removed by hand"
            in context_pane(summary))


def test_the_torch_row_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    table = root / "ITERATIONS.md"
    table.write_text("\n".join(line for line in table.read_text().splitlines()
                               if not line.startswith("| 63")) + "\n")
    st = broken(capsys, root, "torch_npu baseline section")
    assert any("torch_npu baseline section" in n for n in st["notices"])


def test_the_torch_baseline_in_project_toml_times_ten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    before = status(capsys, root)
    toml = root / "project.toml"
    assert "avg_us = 63.0" in toml.read_text()
    toml.write_text(toml.read_text().replace("avg_us = 63.0", "avg_us = 630.0"))
    st = broken(capsys, root, "state.torch_baseline")
    assert st["speedup_vs_torch"] == before["speedup_vs_torch"]  # the recorded one is used
    assert st["torch_baseline"]["avg_us"] == 63.0
    assert any("torch_baseline" in n and "recorded one is used" in n for n in st["notices"])


def test_a_log_from_before_the_chain_is_chained_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    old = []
    for line in lines(root):
        data = json.loads(line)
        if data["event"] == "torch":
            continue
        old.append(json.dumps({k: data[k] for k in ("round", "event", "sha256", "verdict",
                                                     "median_us", "record")}, sort_keys=True))
    write_lines(root, old)
    anchor_path(root).unlink()  # the pto-tui of that log kept no anchor
    first = status(capsys, root)
    assert first["tampered_rounds"] == {}
    assert any("chained from the log as found" in n for n in first["notices"])
    assert lines(root)[: len(old)] == old  # the old lines stay, the chain follows them
    assert json.loads(lines(root)[len(old)])["prev"] == sha("".join(x + "\n" for x in old).encode())
    second = status(capsys, root)
    assert second["notices"] == [] and second["history"]["problems"] == []
    code, result = verify(capsys, root)
    assert code == 0, result
    # and the chain now covers the side files
    notes = root / "runs/iter-001/notes.md"
    notes.write_text(notes.read_text() + "\nlater\n")
    broken(capsys, root, "iter-001/notes.md")


def test_a_first_use_without_the_anchor_is_anchored_as_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    anchor_path(root).unlink()
    code, result = verify(capsys, root)
    assert code == 1 and any("no anchor on this machine" in b for b in result["breaks"])
    st = status(capsys, root)
    assert any("anchored on this machine for the first time" in n for n in st["notices"])
    assert verify(capsys, root)[0] == 0


def test_a_break_stays_named_after_pto_tui_appends_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    write_lines(root, lines(root)[:-1])  # cut short, then a legitimate write
    assert cli("--project", root, "torch-baseline", "--avg", "64", "--min", "60", "--max", "66") == 0
    st = broken(capsys, root, "rewritten or cut short")
    assert st["history"]["problems"]
