"""The loop over SSH (a real sshd on loopback), hostile values that reach a shell, and
benchmarks whose results are missing or malformed."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import run_baseline, run_round
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import RuleViolation
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.vocabulary import Verdict
from tests.backends.helpers import DSL_KERNEL, bring_up, demo_project, open_loop, pre_edit, start
from tests.plugins.sshd import SshTestTarget

HOSTILE = ("128;touch {sentinel}", "$(touch {sentinel})", "`touch {sentinel}`", "1' ; touch '{sentinel}")


@pytest.mark.sshd
async def test_dsl_demo_over_ssh(tmp_path: Path, ssh_target: SshTestTarget) -> None:
    root = demo_project(tmp_path, "dsl", target=ssh_target.target)
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner)
        assert notes.passed, notes.problems
        assert notes.first_valid_result.startswith(f"ssh:{ssh_target.alias}:")
        # the workspace went to the remote work dir, exec bits and all
        remote = ssh_target.work_dir / "pto-kernels"
        assert (remote / "attention_kernel.py").is_file()
        await run_baseline(campaign, runner)
        start(
            campaign,
            ["DEMO_ATTN_BLOCK_KV", "DEMO_ATTN_BLOCK_Q"],
            {"DEMO_ATTN_BLOCK_KV": 128, "DEMO_ATTN_BLOCK_Q": 128},
        )
        kept = await run_round(campaign, runner)
        assert kept.verdict is Verdict.KEPT, kept.verdict_reason
        # a code edit made locally reaches the remote before the build
        start(
            campaign,
            ["attention_kernel.py"],
            edit=(DSL_KERNEL, "acc = acc * correction + probs @ v_blk", "acc = acc + probs @ v_blk"),
        )
        wrong = await run_round(campaign, runner)
        assert wrong.verdict is Verdict.FAILURE and wrong.measurement.correctness == "fail"
        assert "acc = acc + probs @ v_blk" in (remote / "attention_kernel.py").read_text()


@pytest.mark.sshd
@pytest.mark.parametrize("where", ["local", "ssh"])
async def test_hostile_case_strings_stay_inert(
    tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    target = request.getfixturevalue("ssh_target").target if where == "ssh" else None
    root = demo_project(tmp_path, "tile-lib", repeats=1, target=target)
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner)
        assert notes.passed, notes.problems
        await run_baseline(campaign, runner)
        for index, template in enumerate(HOSTILE):
            sentinel = tmp_path / f"pwned-{index}"
            project = ProjectFile(root / "project.toml")
            project.set("case.spec", template.format(sentinel=sentinel))
            project.save()
            campaign.project = ProjectFile(root / "project.toml")
            start(campaign, ["CUBE_S0"])
            with pytest.raises(RuleViolation, match="same-workload"):
                await run_round(campaign, runner)  # the changed case is refused anyway...
            # ...and when it does reach a shell (the build), it is one inert argument
            site_cmd = campaign.config.commands.build
            from pto_tui.backends.loop import site_for

            site = site_for(campaign, runner)
            out = await site.run(
                "hostile build", site.render(site_cmd, {"CUBE_S0": 2, "TILE_S1": 256, "QK_PRELOAD": 4})
            )
            assert not out.ok  # generate_cases.py rejects the string
            assert not sentinel.exists(), f"{template!r} was executed"
            project = ProjectFile(root / "project.toml")
            project.set("case.spec", "64,256,1024")
            project.save()
            campaign.project = ProjectFile(root / "project.toml")
            campaign.record_measurement(_failed_build())
            campaign.close_round(CloseRequest())


def _failed_build():
    from pto_tui.core.rounds.records import Measurement

    return Measurement(build="failed", problem="hostile case string rejected")


BROKEN_HARNESS = {
    "empty": (
        "Path('bench/results/x').mkdir(parents=True, exist_ok=True); "
        "Path('bench/results/x/report.json').write_text('')",
        "report is empty",
    ),
    "truncated": (
        "Path('bench/results/x').mkdir(parents=True, exist_ok=True); "
        "Path('bench/results/x/report.json').write_text('{\"pto\": {')",
        "not valid JSON",
    ),
    "blocked": (
        "Path('bench/results/x').mkdir(parents=True, exist_ok=True); "
        "Path('bench/results/x/report.json').write_text(json.dumps({'status': 'ok', 'pto': "
        "{'benchmark': {'status': 'blocked', 'reason': 'no NPU'}}}))",
        "blocked: no NPU",
    ),
    "missing": ("print('I wrote nothing')", "no report.json written by this run"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_HARNESS))
async def test_bad_dsl_reports_make_a_failure_with_the_reason(tmp_path: Path, case: str) -> None:
    code, reason = BROKEN_HARNESS[case]
    root = demo_project(tmp_path, "dsl", repeats=2)
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)  # leaves real reports behind: never to be re-read
        campaign.start_round(StartRequest(pre_edit(["bench_attention.py"]), restore=True))
        bench = root / "workspace/pto-kernels/bench_attention.py"
        bench.write_text(f"import json\nfrom pathlib import Path\n{code}\n")
        campaign.record_changes(ChangesRequest(bug_fix="fault injection: a harness that writes a bad report"))
        record = await run_round(campaign, runner)
        assert record.verdict is Verdict.FAILURE
        assert reason in record.verdict_reason


async def test_missing_test_success_line_is_a_failure(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "tile-lib", repeats=1)
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        # a binary that crashes before printing its verdict (exit code 0 all the same)
        campaign.start_round(StartRequest(pre_edit(["main.cpp"]), restore=True))
        main_cpp = root / "workspace/kernel/main.cpp"
        text = main_cpp.read_text().replace("int main(int argc", "int real_main(int argc")
        main_cpp.write_text(text + '\nint main() { std::puts("max diff: 0.0"); return 0; }\n')
        campaign.record_changes(ChangesRequest(bug_fix="fault injection: a harness without a verdict line"))
        record = await run_round(campaign, runner)
        assert record.verdict is Verdict.FAILURE
        assert "no 'test success' or 'test failed' line" in record.verdict_reason
