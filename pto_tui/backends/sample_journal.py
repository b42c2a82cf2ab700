"""Samples kept as each benchmark run ends, so a client killed mid-round loses none.

A round's measurement is recorded in round.toml only once every step has finished (a
half-measured round must not get a verdict). Until then each run's sample is written
here, in pto-tui's folder of the project, atomically after every run: a run that did
not finish leaves its samples readable (`pto-tui status` lists them). A new run of the
same round keeps the earlier file beside it, never overwrites it.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import InputError, PtoError, bounded_json, read_text
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.rounds.records import Measurement

if TYPE_CHECKING:
    from pto_tui.core.campaign.campaign import Campaign

FOLDER = "measuring"


@dataclass(frozen=True)
class SampleJournal:
    path: Path
    round_number: int
    planned: int  # benchmark runs the discipline asks for

    @classmethod
    def begin(cls, layout: ProjectLayout, number: int, planned: int) -> SampleJournal:
        """A new run's journal, written at once (nothing measured yet): the run is known to
        have begun, and when, so a job it leaves running is told from an older run's."""
        path = layout.state_dir / FOLDER / f"{round_name(number)}.json"
        if path.exists():  # an earlier run that did not finish: keep what it measured
            if read_kept(path, number).measurement in (None, Measurement()):
                path.unlink(missing_ok=True)
            else:
                path.rename(path.with_name(f"{path.stem}.{time.strftime('%Y%m%dT%H%M%S')}.json"))
        journal = cls(path, number, planned)
        journal.write(Measurement())
        return journal

    @classmethod
    def resume(cls, layout: ProjectLayout, number: int, planned: int) -> tuple[SampleJournal, Kept]:
        """The round's journal, to go on from it: what it holds (nothing when there is
        none or it cannot be read, so every step runs)."""
        journal = cls(layout.state_dir / FOLDER / f"{round_name(number)}.json", number, planned)
        return journal, read_kept(journal.path, number)

    def write(self, measurement: Measurement) -> None:
        data = {
            "round": self.round_number,
            "planned_runs": self.planned,
            "written_at": time.time(),
            "measurement": asdict(measurement),
        }
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n")

    def finished(self) -> None:
        """The measurement is in round.toml now: the journal has served."""
        self.path.unlink(missing_ok=True)


def discard(layout: ProjectLayout, number: int) -> Path | None:
    """Set the round's unfinished journal aside (measuring/discarded/, never deleted), so
    its next run starts over; the file it went to, None when there was none."""
    path = layout.state_dir / FOLDER / f"{round_name(number)}.json"
    if not path.exists():
        return None
    dest = path.parent / "discarded" / f"{path.stem}.{time.strftime('%Y%m%dT%H%M%S')}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    path.rename(dest)
    return dest


@dataclass(frozen=True)
class Kept:
    """What a journal holds: the measurement so far, and when its last step ended."""

    measurement: Measurement | None = None
    written_at: float = 0.0


def read_kept(path: Path, number: int) -> Kept:
    try:
        data = bounded_json(read_text(path))
        if int(data["round"]) != number:
            return Kept()
        known = {f.name for f in fields(Measurement)}
        values = {k: v for k, v in dict(data["measurement"]).items() if k in known}
        if values.get("pipes"):  # a perf-sim run's
            from pto_tui.core.reports.perf_sim import PipeBusy  # `status` reads journals without it

            values["pipes"] = [PipeBusy(**pipe) for pipe in values["pipes"]]
        return Kept(Measurement(**values), float(data["written_at"]))
    except (OSError, InputError, ValueError, KeyError, TypeError):  # a FIFO, deep JSON: no journal
        return Kept()


def unfinished(layout: ProjectLayout) -> list[dict[str, Any]]:
    """Journals of runs that did not finish: round, samples so far, planned runs, file, and
    when the last step of the run ended (written_at)."""
    folder = layout.state_dir / FOLDER
    found = []
    for path in sorted(folder.glob("iter-*.json")) if folder.is_dir() else []:
        try:
            data = bounded_json(read_text(path))
            samples = list(data["measurement"]["samples_us"])
            found.append({"round": int(data["round"]), "samples_us": samples,
                          "planned_runs": int(data["planned_runs"]), "file": str(path),
                          "written_at": float(data["written_at"])})
        except (OSError, InputError, ValueError, KeyError, TypeError):
            found.append({"round": None, "samples_us": [], "planned_runs": 0, "file": str(path),
                          "written_at": 0.0})
    return found


def unfinished_of(campaign: Campaign) -> list[dict[str, Any]]:
    """`unfinished` less the journals of closed rounds: those are left over from a run that
    another measurement replaced, not unfinished ones (what `status` lists)."""

    def closed(number: int | None) -> bool:
        try:
            record = campaign.reads.record(number) if number is not None else None
        except PtoError:
            return False
        return record is not None and record.is_closed

    return [j for j in unfinished(campaign.layout) if not closed(j["round"])]
