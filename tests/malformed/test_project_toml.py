"""Malformed project.toml files: each is refused with a ConfigError naming the file (and
the key, where there is one); none is read with defaults, none raises anything else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pto_tui.core.errors import ConfigError, PtoError
from pto_tui.core.project import completeness
from pto_tui.core.project.file import ProjectFile
from tests.malformed import MINIMUM
from tests.malformed.project_inputs import (
    Mutation,
    deeply_nested,
    huge_numbers,
    schema_mutations,
    state_mutations,
    tunable_mutations,
)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


class Probe:
    """Writes one malformed project.toml at a time and checks that it is refused."""

    def __init__(self, root: Path) -> None:
        self.path = root / "project.toml"
        self.good = self.path.read_bytes()
        self.count = 0

    def refused(self, data: bytes, check: Callable[[ConfigError], bool] = lambda e: True) -> None:
        self.path.write_bytes(data)
        try:
            ProjectFile(self.path)
        except ConfigError as error:
            assert error.file == str(self.path), error.render()
            assert check(error), f"{error.render()}\nfor input:\n{data[-300:]!r}"
        except PtoError as error:  # pragma: no cover - the wrong kind of error
            raise AssertionError(f"not a ConfigError: {error.render()}") from None
        else:
            raise AssertionError(f"accepted a malformed project.toml:\n{data.decode(errors='replace')}")
        finally:
            self.path.write_bytes(self.good)
        self.count += 1

    def mutated(self, mutation: Mutation) -> None:
        text = mutation.apply(self.good.decode())
        self.refused(text.encode(), lambda e: (e.key or "").startswith(mutation.key))


def test_every_key_refuses_a_bad_value(started_project: Path) -> None:
    probe = Probe(started_project)
    ProjectFile(probe.path)  # the base itself is good
    for mutation in schema_mutations():
        probe.mutated(mutation)
    for mutation in tunable_mutations("kFaTileS1"):
        probe.mutated(mutation)
    for mutation in state_mutations():
        probe.mutated(mutation)
    assert probe.count >= MINIMUM["project keys"], probe.count


def test_a_file_cut_short_is_refused(started_project: Path) -> None:
    """Cut anywhere before the last table the campaign needs: never silent defaults."""
    probe = Probe(started_project)
    text = probe.good.decode()
    headers = [f"[{name}]" for name in completeness.KEPT if not name.startswith("state.last")]
    last = max(text.index(header) for header in headers)
    for line_start in [0] + [i + 1 for i, ch in enumerate(text[:last]) if ch == "\n"]:
        probe.refused(text[:line_start].encode())

    @SETTINGS
    @given(st.integers(min_value=0, max_value=last - 1))
    def cut_at(offset: int) -> None:
        probe.refused(text[:offset].encode())

    cut_at()
    assert probe.count >= MINIMUM["project cut short"], probe.count


def test_non_utf8_bytes_are_named_with_their_line(started_project: Path) -> None:
    probe = Probe(started_project)

    @SETTINGS
    @given(
        st.integers(min_value=0, max_value=len(probe.good)), st.sampled_from([b"\xff", b"\xc3", b"\x80\x80"])
    )
    def spoiled(offset: int, bad: bytes) -> None:
        data = probe.good[:offset] + bad + probe.good[offset:]
        line = probe.good.count(b"\n", 0, offset) + 1
        probe.refused(data, lambda e: "UTF-8" in e.message and e.line in (line, None))

    spoiled()
    assert probe.count >= MINIMUM["project not UTF-8"], probe.count


def test_deep_nesting_and_huge_numbers_are_named(started_project: Path) -> None:
    probe = Probe(started_project)
    for depth in (1000, 5000, 50_000):
        for text in deeply_nested(depth):
            probe.refused(text.encode(), lambda e: "invalid TOML" in e.message)
    for text in huge_numbers():
        probe.refused(text.encode(), lambda e: "invalid TOML" in e.message)
    assert probe.count >= MINIMUM["project nesting and numbers"], probe.count


def test_the_driver_feeds_at_least_500_malformed_inputs() -> None:
    assert sum(MINIMUM.values()) >= 500
