"""The live tile-lib knobs as tunables, the generator arguments that carry them into a
build, and the check that a round's value reached the build: the generated X-macro header
(or generated_cases.json) that the generator wrote into the build folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pto_tui.core.operators.driver_output import driver_output
from pto_tui.core.operators.knob_report import Derived, KnobReport, LeftOut
from pto_tui.core.operators.tilelib_executables import executable_for
from pto_tui.core.operators.tilelib_knobs import (
    CASE_FIELD,
    CONSTANT,
    GENERATOR_OPTION,
    Knob,
    resolve_knobs,
)
from pto_tui.core.project.config import Scalar, Tunable
from pto_tui.core.project.modes import DEFAULT_MODE, mode_spec
from pto_tui.core.vocabulary import TargetMode

GENERATED_HEADER = "generated_cases.h"
GENERATED_JSON = "generated_cases.json"
_KINDS = {CASE_FIELD: "case", GENERATOR_OPTION: "case", CONSTANT: "constexpr"}


def as_tunable(knob: Knob) -> Tunable:
    """Case fields and generator options reach the build as {placeholders} of the build
    command (kind case); constants are edited in the source (constexpr); literals passed at
    the instantiation site too (template)."""
    detail = knob.flag or (f"case field {knob.key}" if knob.key else knob.decided_by)
    return Tunable(
        name=knob.name,
        value=knob.value if knob.value is not None else 0,
        kind=_KINDS.get(knob.decided_by, "template"),
        default=knob.value,
        where=f"{knob.where} ({detail})",
    )


def tilelib_report(root: Path) -> KnobReport | None:
    """The live knobs of a generated-cases tile-lib operator (a derived one shown as such,
    the dead ones with the reason), or None when its cases are not generated (the generic
    discovery applies)."""
    knobs = resolve_knobs(root)
    if not knobs:
        return None
    offered = [k for k in knobs if k.live and k.value is not None]
    return KnobReport(
        tunables=tuple(as_tunable(k) for k in offered if not k.derived),
        derived=tuple(Derived(k.name, k.expr, k.where) for k in offered if k.derived),
        left_out=tuple(LeftOut(k.name, k.reason, k.where) for k in knobs if k not in offered),
    )


def tilelib_commands(
    root: Path, defaults: dict[str, str], mode: TargetMode = DEFAULT_MODE
) -> dict[str, tuple[str, str]]:
    """The default build and benchmark commands made for this operator: the generator's
    arguments in place of the bare `--cases {case}`, so a round on a case field or a
    generator option reaches the generated case header (and the data generator, which
    takes the same case entries); and the executable the CMakeLists.txt builds for the
    target's mode in place of `{binary}` (in the benchmark, or in a perf-sim target's
    correctness command, which runs the CPU-simulation binary)."""
    out: dict[str, tuple[str, str]] = {}
    executable = executable_for(root, mode)
    runs = [key for key in RUNS_BINARY if "{binary}" in defaults.get(key, "")]
    if executable is not None and runs:
        run = executable.name
        origin = f"operator: {executable.where} builds {executable.name}"
        tick = _tick_option(root) if mode_spec(mode).cpu_simulation else None
        if tick is not None:
            # its ticks are nanoseconds of the CPU clock: scaled by 1, duration_us is CPU time
            run += f" {TICK_OPTION}=1"
            origin += f"; {tick} reads {TICK_OPTION} (CPU-sim ticks are ns: scale 1)"
        out[runs[0]] = (defaults[runs[0]].replace("{binary}", run), origin)
    for key, step, script in _SCRIPT_STEPS:  # a script the operator does not have is no step
        command, before = out.get(key, (defaults.get(key, ""), ""))
        if step in command and not (root / "scripts" / script).is_file():
            said = "; ".join(filter(None, (before, f"operator: no scripts/{script}")))
            out[key] = (command.replace(step, ""), said)
        elif step in command and script == DATA_SCRIPT and (made := data_step(root)) is not None:
            out[key] = (command.replace(step, made[0]), "; ".join(filter(None, (before, made[1]))))
    _binary_arguments(root, defaults, out)
    knobs = resolve_knobs(root)
    if not knobs:
        return out
    origin = "operator: generate_cases.py arguments of its live knobs"
    # gen_data.py takes the same case entries but none of the generator's options
    markers = [("build", "generate_cases.py --cases {case}", generator_arguments(knobs))]
    data = generator_arguments(knobs, options=False)
    markers += [(key, "gen_data.py --cases {case}", data) for key in RUNS_BINARY]
    for key, marker, arguments in markers:
        command = out.get(key, (defaults.get(key, ""), ""))[0]
        if marker in command:
            script = marker.split(" ", 1)[0]
            before = out.get(key, ("", ""))[1]
            origins = "; ".join(filter(None, (before, origin)))
            out[key] = (command.replace(marker, f"{script} {arguments}"), origins)
    return out


DATA_SCRIPT = "gen_data.py"
# a binary that reads its data from the operator folder, not from build/ where it runs
_PARENT_DATA = re.compile(r'"\.\./(?:input|output)/')
_CASES = " --cases {case}"


def _binary_arguments(root: Path, defaults: dict[str, str], out: dict[str, tuple[str, str]]) -> None:
    """The commands that run the binary, as its driver takes them: a binary whose main()
    reads no --cases (pto-isa's gemm_performance) gets none; the data step before it keeps
    its own."""
    if driver_output(root).takes_cases:
        return
    for key in RUNS_BINARY:
        command, before = out.get(key, (defaults.get(key, ""), ""))
        head, sep, run = command.rpartition(" && ")
        if _CASES in run:
            said = "; ".join(filter(None, (before, "operator: its main() reads no --cases")))
            out[key] = (head + sep + run.replace(_CASES, ""), said)


# the command keys whose default may run the operator's binary ({binary}), first the one
# the benchmark reads
RUNS_BINARY = ("benchmark", "correctness")
# the default commands' steps that run one of the operator's scripts (pto-isa's gemm has
# neither: its shape and tiling are constants)
_SCRIPT_STEPS = (
    ("build", " && python3 ../scripts/generate_cases.py --cases {case}", "generate_cases.py"),
    *((key, "python3 ../scripts/gen_data.py --cases {case} && ", DATA_SCRIPT) for key in RUNS_BINARY),
)


def data_step(root: Path) -> tuple[str, str] | None:
    """The data generator's step as this operator needs it, when not as the default says
    (`python3 ../scripts/gen_data.py --cases {case}` run in build/, where flash attention's
    binary reads its data): a generator that takes no --cases gets none, and one whose
    binary reads `../input/` (pto-isa's gemm_performance) runs from the operator folder, where
    it writes. (step, origin), or None when the default fits."""
    text = (root / "scripts" / DATA_SCRIPT).read_text(encoding="utf-8", errors="replace")
    cases = "--cases" in text
    reads = next(((source, found) for source in sorted(root.glob("*.cpp"))
                  if (found := _PARENT_DATA.search(source.read_text(encoding="utf-8", errors="replace")))),
                 None)
    if cases and reads is None:
        return None
    said = [] if cases else [f"operator: scripts/{DATA_SCRIPT} takes no --cases"]
    run = f"scripts/{DATA_SCRIPT}" + (" --cases {case}" if cases else "")
    if reads is None:
        return f"python3 ../{run} && ", "; ".join(said)
    source, found = reads
    text = source.read_text(encoding="utf-8", errors="replace")
    line = text.count("\n", 0, found.start()) + 1
    said.append(f"operator: {source.name}:{line} reads its data from the operator folder, where "
                f"{DATA_SCRIPT} runs")
    return f"(cd .. && python3 {run}) && ", "; ".join(said)


# pto-isa's manual kernels scale their tick counts to time by this factor (20 for the
# A2/A3 50 MHz counter); in CPU simulation a tick is one nanosecond of the host's wall
# clock (pto-isa's get_sys_cnt() reads std::chrono::steady_clock there)
TICK_OPTION = "--sys_cnt_multiple"


def _tick_option(root: Path) -> str | None:
    """The source file (and line) whose main() reads --sys_cnt_multiple, if any."""
    for source in sorted(root.glob("*.cpp")):
        text = source.read_text(encoding="utf-8", errors="replace")
        at = text.find(f'"{TICK_OPTION}')
        if at >= 0:
            return f"{source.name}:{text.count(chr(10), 0, at) + 1}"
    return None


def generator_arguments(knobs: list[Knob], case: str = "{case}", *, options: bool = True) -> str:
    """The generator's arguments for a build: the case string (the workload, `case`, then
    the live case fields in their positions) and one `--flag {NAME}` per live option.
    E.g. `--cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD}`."""
    fields = sorted(
        (k for k in knobs if k.decided_by == CASE_FIELD and k.live),
        key=lambda k: _position(k),
    )
    workload = [k for k in knobs if k.decided_by == CASE_FIELD and k.reason.startswith("workload")]
    last_workload = max((_position(k) for k in workload), default=-1)
    if fields and _position(fields[0]) < last_workload:
        raise ValueError(f"{fields[0].name} precedes a workload field in the case string")
    parts = [f"--cases {','.join([case, *('{' + k.name + '}' for k in fields)])}"]
    if options:
        parts += [f"{k.flag} {{{k.name}}}" for k in knobs if k.decided_by == GENERATOR_OPTION and k.live]
    return " ".join(parts)


def _position(knob: Knob) -> int:
    return -1 if knob.position is None else knob.position


def generated_rows(text: str) -> list[list[str]]:
    """The MACRO(...) rows of a generated X-macro header, fields as written."""
    rows = []
    for match in re.finditer(r"^\s*MACRO\(([^)]*)\)", text, re.M):
        rows.append([f.strip() for f in match.group(1).split(",")])
    return rows


def knob_reached_build(build_dir: Path, knob: Knob, value: Scalar) -> bool | None:
    """Whether every generated case of the build carries `value` for a generator-decided
    knob: True or False from the header the build compiled (else generated_cases.json);
    None when the knob is not decided by the generator or nothing was generated."""
    header, listing = _read(build_dir / GENERATED_HEADER), _read(build_dir / GENERATED_JSON)
    return knob_in_generated(header, listing, knob, value)


def knob_in_generated(header: str | None, listing: str | None, knob: Knob, value: Scalar) -> bool | None:
    """knob_reached_build over the generated files' texts (None: the file is absent), so a
    build on a remote target can be checked from what was read back."""
    if knob.row_position is None or not knob.key:
        return None
    rows = generated_rows(header) if header is not None else []
    if rows:
        return all(len(r) > knob.row_position and r[knob.row_position] == str(value) for r in rows)
    if listing is None:
        return None
    try:
        cases = json.loads(listing)
    except json.JSONDecodeError:
        return None
    if isinstance(cases, list) and cases:
        return all(isinstance(c, dict) and c.get(knob.key) == value for c in cases)
    return None


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
