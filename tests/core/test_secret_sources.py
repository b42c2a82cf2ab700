"""`new` and `scan` never take a folder of secrets (~/.ssh, ~/.gnupg, ...) as a source."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.helpers import FIXTURES, cli


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with an SSH key and a GnuPG folder, as $HOME."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (home / ".gnupg" / "private-keys-v1.d").mkdir(parents=True)
    (home / ".local" / "share" / "keyrings").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize("rel", [".ssh", ".gnupg/private-keys-v1.d", ".local/share/keyrings"])
def test_new_refuses_a_secret_folder_naming_it(
    home: Path, tmp_path: Path, rel: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("new", home / rel, "--kind", "pto-dsl", "--projects-root", tmp_path / "p") == 2
    err = capsys.readouterr().err
    assert "folder of secrets" in err and str(home / rel.split("/")[0]) in err
    assert "Traceback" not in err
    assert not (tmp_path / "p").exists()


def test_new_refuses_a_source_that_would_copy_one_along(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an operator folder that is the home itself: its copy would carry ~/.ssh
    shutil.copytree(FIXTURES / "attention_dsl", home, dirs_exist_ok=True)
    assert cli("new", home, "--projects-root", tmp_path / "p") == 2
    err = capsys.readouterr().err
    assert f"holds {home / '.ssh'}" in err
    assert not (tmp_path / "p").exists()


def test_a_link_into_the_secret_folder_is_refused_too(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "innocent"
    link.symlink_to(home / ".ssh")
    assert cli("new", link, "--kind", "pto-dsl", "--projects-root", tmp_path / "p") == 2
    assert "folder of secrets" in capsys.readouterr().err


def test_scan_refuses_a_secret_folder_and_skips_one_inside(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("scan", home / ".ssh") == 2
    assert f"{home / '.ssh'}" in capsys.readouterr().err
    shutil.copytree(FIXTURES / "attention_dsl", home / "ops" / "attention_dsl")
    assert cli("scan", home, "--verbose") == 0
    out = capsys.readouterr().out
    assert "attention_dsl" in out
    assert ".ssh: a folder of secrets" in out and ".gnupg: a folder of secrets" in out
    assert "id_ed25519" not in out


def test_an_ordinary_source_is_still_taken(home: Path, tmp_path: Path) -> None:
    source = home / "src" / "attention_dsl"
    shutil.copytree(FIXTURES / "attention_dsl", source)
    assert cli("new", source, "--projects-root", tmp_path / "p", "--case", "attention_s1024") == 0
