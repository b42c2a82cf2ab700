"""What an agent can reach through `pto-tui mcp` (the official client over stdio): exec
only with --allow-exec, in the workspace's copy; paths only inside the server's roots;
never a folder of secrets as a source."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema

from pto_tui.core.campaign.demo import create_demo_project
from tests.core.helpers import FIXTURES
from tests.mcp.client import REPO, agent

RESULT_SCHEMA = json.loads((REPO / "docs" / "json" / "mcp-result.schema.json").read_text())


def refusal(result: dict[str, Any], kind: str) -> dict[str, Any]:
    assert result["is_error"], result
    jsonschema.validate({k: v for k, v in result.items() if k != "is_error"}, RESULT_SCHEMA)
    error: dict[str, Any] = result["error"]
    assert error["type"] == kind, error
    return error


async def exec_calls(root: Path, cwd: Path, allow_exec: bool) -> list[dict[str, Any]]:
    async with agent(root, cwd=cwd, allow_exec=allow_exec) as a:
        return [await a.call("exec", command="pwd", sync=sync) for sync in (True, False)]


def test_exec_is_off_without_allow_exec_and_runs_in_the_workspace_with_it(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "projects")
    caller = tmp_path / "caller"
    caller.mkdir()
    marker = root / "workspace" / "ran.txt"
    for result in asyncio.run(exec_calls(root, caller, allow_exec=False)):
        error = refusal(result, "exec_disabled")
        assert "--allow-exec" in error["message"] and "--allow-exec" in error["fix"]
    assert not marker.exists() and not list((root / ".pto-tui").glob("jobs/*"))

    synced, unsynced = asyncio.run(exec_calls(root, caller, allow_exec=True))
    for result in (synced, unsynced):
        assert not result["is_error"], result
        assert result["data"]["job"]["state"] == "succeeded"
        # a local target without a work dir: the workspace, not the server's folder, and
        # there the folder the project's own commands run from (changed on purpose: exec ran
        # at the workspace's root, where the operator's commands do not run)
        assert result["data"]["stdout"].strip() == str((root / "workspace" / "pto-kernels").resolve())
    assert (synced["data"]["synced"], unsynced["data"]["synced"]) == (True, False)


def secret_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return home


async def secret_calls(home: Path) -> list[dict[str, Any]]:
    # the whole home is a root: the refusal below is for the secrets, not the roots
    async with agent(cwd=home, roots=(home,), env={"HOME": str(home)}) as a:
        return [
            await a.call("new", source=str(home / ".ssh"), projects_root=str(home / "projects"),
                         kind="pto-dsl"),
            await a.call("scan", dir=str(home / ".ssh")),
            await a.call("new", source=str(home), projects_root=str(home / "projects"),
                         kind="pto-dsl"),
        ]


def test_new_and_scan_refuse_a_folder_of_secrets(tmp_path: Path) -> None:
    home = secret_home(tmp_path)
    inside, scanned, holding = asyncio.run(secret_calls(home))
    for result in (inside, scanned):
        error = refusal(result, "input_error")
        assert str(home / ".ssh") in error["message"] and "folder of secrets" in error["message"]
    assert f"holds {home / '.ssh'}" in refusal(holding, "input_error")["message"]
    assert not (home / "projects").exists()


async def outside_calls(root: Path, other: Path, source: Path, roots: tuple[Path, ...]
                        ) -> list[dict[str, Any]]:
    async with agent(root, cwd=other.parent, roots=roots) as a:
        return [
            await a.call("status", project=str(other)),
            await a.call("scan", dir=str(source.parent)),
            await a.call("new", source=str(source), projects_root=str(other.parent)),
            await a.call("status"),  # the server's own project is always inside
        ]


def test_a_path_outside_the_roots_is_refused_naming_it_and_the_roots(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "mine")
    other = create_demo_project("dsl", tmp_path / "theirs")
    source = tmp_path / "src" / "attention_dsl"
    shutil.copytree(FIXTURES / "attention_dsl", source)
    status_other, scanned, made, own = asyncio.run(outside_calls(root, other, source, ()))
    for result, path in ((status_other, other), (scanned, source.parent), (made, source.parent)):
        error = refusal(result, "outside_roots")
        assert error["roots"] == [str(root.resolve())]
        assert error["path"].startswith(str(path.resolve()))
        assert str(root.resolve()) in error["message"] and "--root" in error["fix"]
    assert not own["is_error"], own

    # the user names the folders at start: the same calls go through
    roots = (other.parent, source.parent)
    status_other, scanned, made, own = asyncio.run(outside_calls(root, other, source, roots))
    for result in (status_other, scanned, own):
        assert not result["is_error"], result
    assert made["is_error"] and made["error"]["type"] == "input_error"  # no case chosen
    assert "no case chosen" in made["error"]["message"]


async def link_out(root: Path, link: Path) -> dict[str, Any]:
    async with agent(root) as a:
        return await a.call("scan", dir=str(link))


def test_a_link_out_of_the_roots_is_outside(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "projects")
    (tmp_path / "src").mkdir()
    shutil.copytree(FIXTURES / "attention_dsl", tmp_path / "src" / "attention_dsl")
    link = root / "context" / "src"
    link.symlink_to(tmp_path / "src")
    error = refusal(asyncio.run(link_out(root, link)), "outside_roots")
    assert error["path"] == str((tmp_path / "src").resolve())


async def client_root_calls(root: Path, other: Path, third: Path, offered: list[str] | None
                            ) -> tuple[list[dict[str, Any]], int]:
    async with agent(root, cwd=root, client_roots=offered) as a:
        results = [await a.call("status", project=str(other)), await a.call("status", project=str(third))]
        if offered is not None:  # the client's roots change, and it says so
            a.roots = [third.parent.as_uri()]
            await a.roots_changed()
            await a.session.send_ping()  # the notification is handled before the next call
        results += [await a.call("status", project=str(other)), await a.call("status", project=str(third))]
        results.append(await a.call("status"))  # the server's own project stays a root
        return results, a.roots_asked


def test_the_clients_roots_are_roots_of_the_server_while_it_offers_them(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "mine")
    other = create_demo_project("dsl", tmp_path / "theirs")
    third = create_demo_project("dsl", tmp_path / "later")
    offered = [other.parent.as_uri(), (tmp_path / "gone").as_uri()]  # a root not on this machine: none
    (inside, outside, old, new, own), asked = asyncio.run(client_root_calls(root, other, third, offered))
    assert not inside["is_error"], inside
    error = refusal(outside, "outside_roots")
    assert error["roots"] == [str(root.resolve()), str(other.parent.resolve())]
    assert str(other.parent.resolve()) in error["message"] and str(third.resolve()) in error["message"]
    assert "root of the MCP client" in error["fix"]
    # after the client said its roots changed: its new root, not its old one
    assert refusal(old, "outside_roots")["roots"] == [str(root.resolve()), str(third.parent.resolve())]
    assert not new["is_error"] and not own["is_error"], (new, own)
    assert asked == 2  # asked once, then again only after the change was announced

    # a client that offers no roots: only the server's own
    results, asked = asyncio.run(client_root_calls(root, other, third, None))
    for result in results[:-1]:
        assert refusal(result, "outside_roots")["roots"] == [str(root.resolve())]
    assert not results[-1]["is_error"] and asked == 0


async def new_ssh_project(root: Path, source: Path, ssh_config: Path) -> dict[str, Any]:
    async with agent(root, cwd=root) as a:
        return await a.call(
            "new", source=str(source), projects_root=str(root / "context" / "made"), case_spec="128,128,1024",
            target="ssh:npu-lab", work_dir="/home/me/fa", ssh_config=str(ssh_config), npu=3,
            commands={"reference": "python ref.py"},
        )


def test_new_takes_every_answer_pto_tui_new_takes_and_an_ssh_config_only_inside_the_roots(
    tmp_path: Path,
) -> None:
    import tomllib

    root = create_demo_project("dsl", tmp_path / "projects")
    source = root / "context" / "fa"  # inside the server's only root, the project
    shutil.copytree(FIXTURES / "fa_tilelib", source)
    outside = tmp_path / "elsewhere" / "ssh_config"
    error = refusal(asyncio.run(new_ssh_project(root, source, outside)), "outside_roots")
    assert error["key"] == "ssh_config" and not (root / "context" / "made").exists()

    inside = root / "context" / "lab_ssh_config"
    made = asyncio.run(new_ssh_project(root, source, inside))
    assert not made["is_error"], made
    data = tomllib.loads((Path(made["data"]["project"]) / "project.toml").read_text())
    assert data["target"]["ssh_config"] == str(inside)
    assert (data["target"]["host"], data["target"]["npu_id"]) == ("npu-lab", 3)
    assert data["commands"]["reference"] == "python ref.py"
