"""The Pre-Edit answers on the command line: flags, or a TOML/JSON form file
(`pto-tui round start` and `pto-tui round gates`)."""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path
from typing import Any

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.records import ChecklistItem, PreEdit
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST

FORM_FLAGS = (
    ("kernel", "--kernel", "target operator and current configuration"),
    ("bottleneck", "--bottleneck", "bottleneck class (see `pto-tui round classes`)"),
    ("evidence", "--evidence", "what shows the bottleneck (profiling, costmodel, numbers)"),
    ("hypothesis", "--hypothesis", "the one hypothesis this round tests"),
    ("why_ascend", "--why", "why the change should help on Ascend"),
    ("expected_metric", "--metric", "which metric should improve"),
    ("main_risk", "--risk", "the main risk"),
    ("correctness_plan", "--correctness-plan", "how correctness is assured"),
)


def add_form_args(s: argparse.ArgumentParser) -> None:
    """The Pre-Edit answers, shared by `round start` and `round gates`."""
    for key, flag, text in FORM_FLAGS:
        s.add_argument(flag, dest=key, default=None, help=text)
    s.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="KEY=NOTE",
        help="tick a hardware checklist item with a note (repeat for all 8)",
    )
    s.add_argument(
        "--scope",
        action="append",
        default=[],
        metavar="FILE_OR_PARAM",
        help="a path pattern (as in .gitignore) or parameter the hypothesis will change (repeat)",
    )
    s.add_argument("--recheck", default=None, help="three-round rule: the re-checked bottleneck")
    s.add_argument("--new-direction", default=None, help="three-round rule: the new direction")
    s.add_argument("--form", type=Path, help="read the answers from a TOML or JSON file")


def _read_form(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read form: {error.strerror}", file=path) from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise InputError(f"invalid form file: {error}", file=path) from None
    if not isinstance(data, dict):
        raise InputError("a form file holds a table of answers", file=path)
    return data


def pre_edit_from_args(args: argparse.Namespace) -> PreEdit:
    form = _read_form(getattr(args, "form", None))
    pre = PreEdit()
    for key, _flag, _text in FORM_FLAGS:
        value = getattr(args, key, None)
        setattr(pre, key, str(value if value is not None else form.get(key, "")))
    checklist: dict[str, ChecklistItem] = {}
    for key, note in dict(form.get("checklist", {})).items():
        checklist[key] = ChecklistItem(ticked=True, note=str(note))
    for item in args.check:
        key, sep, note = item.partition("=")
        if not sep:
            raise InputError(f"--check expects KEY=NOTE, got {item!r}")
        checklist[key.strip()] = ChecklistItem(ticked=True, note=note.strip())
    unknown = [k for k in checklist if k not in HARDWARE_CHECKLIST]
    if unknown:
        raise InputError(
            f"unknown checklist item(s): {', '.join(unknown)}; known: {', '.join(HARDWARE_CHECKLIST)}"
        )
    pre.checklist = checklist
    pre.scope = list(getattr(args, "scope", []) or form.get("scope", []))
    pre.bottleneck_recheck = str(
        args.recheck if args.recheck is not None else form.get("bottleneck_recheck", "")
    )
    pre.new_direction = str(
        args.new_direction if args.new_direction is not None else form.get("new_direction", "")
    )
    return pre


_LAST = "last"


def add_prefill_arg(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--prefill",
        nargs="?",
        const=_LAST,
        default=None,
        metavar="N",
        help="fill the answers not given here from round N (default: the last closed round): "
        "kernel, bottleneck class, evidence, correctness plan and the checklist notes; the "
        "hypothesis and what follows from it stay yours to give",
    )


def prefill_number(args: argparse.Namespace) -> int | None:
    """The round --prefill names (None: the last closed one); only call when it is given."""
    text = args.prefill
    if text == _LAST:
        return None
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--prefill expects a round number, got {text!r}") from None
