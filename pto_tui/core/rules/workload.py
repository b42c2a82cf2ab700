"""The same workload as the baseline's, the rule every comparison rests on. It is checked
on what a round declares (the workload's fingerprint: case, shapes, benchmark settings;
no shape knob set by a round), on the kernel's source (every read of the workload the
baseline's made is still made) and on what a run says it ran: the shape in a benchmark
report must be the case's shape, and a report of several variants is read at the case's
own entry. A harness file changed to run a smaller problem (a case parser returning S//4)
would otherwise show up as a huge "gain" on an unchanged fingerprint; an aggregate over
every variant as the time of one of them, as a loss."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.reports.result import BenchResult, VariantReport
from pto_tui.core.rules.rule import Finding, Rule

SAME_WORKLOAD = Rule(
    "same-workload",
    refuses="a measurement of another workload than the baseline's: a changed case, shape "
    "or benchmark setting, a shape knob set by a round, a read of the workload in the "
    "kernel removed or replaced by a literal, a report that ran another shape",
    fix="restore the case, shapes and benchmark settings the baseline ran, and the "
    "kernel's reads of them; a different workload is a new project",
    steps=("changes", "measure", "run", "close", "report"),
    cli="project.toml's [case] as the baseline had it; `pto-tui new` for another workload",
    mcp="project.toml's [case] as the baseline had it; the `new` tool for another workload",
)


def same_fingerprint(baseline: str, current: str) -> bool:
    """The workload fingerprints agree (or one is unknown: nothing to compare)."""
    return not (baseline and current and current != baseline)


def fingerprint_findings(baseline: str, current: str) -> list[Finding]:
    """The workload a round measures is the baseline's, by its fingerprint."""
    if same_fingerprint(baseline, current):
        return []
    return [
        SAME_WORKLOAD.finding(
            "the workload (case, shapes, benchmark settings) differs from the baseline's: "
            "the comparison is refused"
        )
    ]


def workload_knob_findings(requested: Mapping[str, object], knobs: Mapping[str, object]) -> list[Finding]:
    """A round may not set a shape knob: it is the workload (the adapter sets it from each
    variant), and a different workload makes the comparison with the baseline meaningless."""
    return [
        SAME_WORKLOAD.finding(
            f"{name} is a shape knob of the workload ([case] knobs: {name} = {knobs[name]!r}), "
            f"not a tuning knob; setting it to {value!r} would change the workload"
        )
        for name, value in requested.items()
        if name in knobs
    ]


def workload_read_findings(
    baseline: Sequence[WorkloadRead], current: Sequence[WorkloadRead], folder: str
) -> list[Finding]:
    """Same workload inside the kernel: every read of the workload the baseline's source
    made (a shape knob's env read, a case field passed to the kernel) is still made, in the
    same file. A read replaced by a literal measures another workload. `folder` is the
    operator folder the reads' files are relative to, for the message."""
    now = Counter((r.name, r.file) for r in current)
    lost: list[WorkloadRead] = []
    for read in baseline:
        key = (read.name, read.file)
        if now[key] > 0:
            now[key] -= 1
        else:
            lost.append(read)
    return [
        SAME_WORKLOAD.finding(
            f"{folder}/{read.where} read the workload's {read.name} at the baseline "
            f"({read.text or 'its read'}); this round removed or replaced that read (a literal "
            "there is another workload inside the kernel): restore it"
        )
        for read in lost
    ]


def timing_findings(timing: CaseTiming) -> list[Finding]:
    """A report that does not time the case ran another workload: refused when the report
    was given by hand (a run's own report makes the round invalid instead)."""
    return [SAME_WORKLOAD.finding(timing.problem)] if timing.problem else []


def reported_shape_mismatch(
    shape: Mapping[str, object], dtype: str, reported: object, causal: bool | None = None
) -> str:
    """Why the report's own `variant` (shape fields, dtype, its causal mask when `causal`
    is known) is not the case, or "" when it is or when the report names none of the
    case's fields (nothing to compare)."""
    if not isinstance(reported, Mapping):
        return ""
    said = reported.get("causal")
    if causal is not None and said is not None and _flag(said) is not causal:
        return (
            f"the report says it ran causal={said}, but the case is "
            f"{'causal' if causal else 'not causal'}: a different workload (rule "
            f"{SAME_WORKLOAD.id}), the run is invalid"
        )
    wanted: dict[str, object] = dict(shape)
    if dtype:
        wanted["dtype"] = dtype
    common = [key for key in wanted if key in reported]
    if not any(key in shape for key in common):
        return ""
    if all(str(reported[key]) == str(wanted[key]) for key in common):
        return ""
    ran = ",".join(f"{key}={reported[key]}" for key in common)
    case = ",".join(f"{key}={wanted[key]}" for key in common)
    return (
        f"the report says it ran {ran}, but the case is {case}: a different workload "
        f"(rule {SAME_WORKLOAD.id}), the run is invalid"
    )


def _flag(value: object) -> bool | None:
    """A report's causal flag (true, 1, "true", "yes"); None when it is none of those."""
    text = str(value).strip().lower()
    return True if text in ("true", "1", "yes") else False if text in ("false", "0", "no") else None


AGGREGATE = "pto.benchmark.timings_ms"


@dataclass(frozen=True)
class CaseTiming:
    """What a report says the case took: its own variant's entry when the report times
    several variants (the aggregate is the slowest one's, another workload), else the
    report's timings. `problem`: why the report does not time the case (the run is invalid)."""

    median_us: float | None
    reference_us: float | None = None
    source: str = AGGREGATE  # where the timing was read
    problem: str = ""
    reference_problem: str = ""  # why no reference of the case's own variant is known


def case_timing(
    shape: Mapping[str, object],
    dtype: str,
    options: Mapping[str, object],
    result: BenchResult,
    causal: bool | None = None,
) -> CaseTiming:
    """The report's timing of the case. A report of one variant (`variant`) is checked
    against the case as a whole; a report of several (`variants`, `variant_reports`) must
    hold exactly one entry of the case's shape, and that entry is the case's timing. A case
    naming none of the variants' shape fields (a bench spec: every variant is the workload)
    is timed by the aggregate."""
    reported = result.extra.get("variant")
    shapes: list[Mapping[str, object]] = [v.variant for v in result.variants] or (
        [v for v in reported if isinstance(v, Mapping)] if isinstance(reported, list) else []
    )
    aggregate = CaseTiming(result.duration_us, result.reference_us)
    if len(shapes) <= 1 and not result.variants:
        one = shapes[0] if shapes else reported
        return replace(aggregate, problem=reported_shape_mismatch(shape, dtype, one, causal))
    if not any(key in variant for key in shape for variant in shapes):
        return aggregate
    if not result.variants:
        return replace(aggregate, median_us=None, problem=(
            f"the report times {len(shapes)} variants together (pto.benchmark.variants) and has no "
            "variant_reports: the case's own timing is not in it (rule "
            f"{SAME_WORKLOAD.id}), the run is invalid"
        ))
    entry, problem = _case_entry(shape, dtype, options, result.variants, "pto.benchmark")
    if entry is None:
        return replace(aggregate, median_us=None, reference_us=None, problem=problem)
    causal_problem = reported_shape_mismatch({}, "", entry.variant, causal)
    if causal_problem:
        return replace(aggregate, median_us=None, reference_us=None, problem=causal_problem)
    reference, reference_problem = _case_reference(shape, dtype, options, result)
    return CaseTiming(entry.median_us, reference, entry.label, reference_problem=reference_problem)


def _case_entry(
    shape: Mapping[str, object],
    dtype: str,
    options: Mapping[str, object],
    entries: tuple[VariantReport, ...],
    side: str,
) -> tuple[VariantReport | None, str]:
    """The one entry of `entries` that ran the case (its shape and dtype; then its other
    settings, such as the seed, when the shape alone does not tell), or why there is none."""
    matching = [v for v in entries if _same_shape(shape, dtype, v.variant)]
    if len(matching) > 1:
        narrowed = [v for v in matching if _same_settings(options, v.variant)]
        matching = narrowed or matching
    case = ",".join(f"{key}={value}" for key, value in {**shape, "dtype": dtype}.items() if value != "")
    if not matching:
        ran = "; ".join(v.label for v in entries)
        return None, (
            f"no entry of {side}.variant_reports ran the case ({case}); the report ran: {ran}: "
            f"a different workload (rule {SAME_WORKLOAD.id}), the run is invalid"
        )
    if len(matching) > 1:
        which = "; ".join(v.label for v in matching)
        return None, (
            f"{len(matching)} entries of {side}.variant_reports match the case ({case}): {which}; "
            f"which one is the case cannot be told (rule {SAME_WORKLOAD.id})"
        )
    return matching[0], ""


def _case_reference(
    shape: Mapping[str, object], dtype: str, options: Mapping[str, object], result: BenchResult
) -> tuple[float | None, str]:
    """The baseline's timing of the case's own variant; its aggregate times every variant
    (another workload), so without the entry there is no reference."""
    if result.reference_us is None:
        return None, ""
    if not result.reference_variants:
        return None, (
            "baseline.benchmark has no variant_reports: its timings_ms covers every variant, "
            "not the case's, so no reference is recorded"
        )
    entry, problem = _case_entry(shape, dtype, options, result.reference_variants, "baseline.benchmark")
    return (entry.median_us, "") if entry is not None else (None, problem)


def _same_shape(shape: Mapping[str, object], dtype: str, variant: Mapping[str, object]) -> bool:
    common = [key for key in shape if key in variant]
    return bool(common) and not reported_shape_mismatch(shape, dtype, variant)


def _same_settings(options: Mapping[str, object], variant: Mapping[str, object]) -> bool:
    return all(str(variant[key]) == str(value) for key, value in options.items() if key in variant)
