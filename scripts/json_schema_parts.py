"""The parts several JSON schemas of docs/json/ share (a round record, an export row, a job
record, the torch_npu baseline, the campaign's status), and the helpers the schemas are
written with (scripts/json_schemas.py writes the files). Every property has a description;
every object lists its properties as required unless said otherwise."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the checkout's pto_tui, also when run from elsewhere

from pto_tui.core.campaign.amendments import AMENDABLE  # noqa: E402
from pto_tui.core.vocabulary import (  # noqa: E402
    HARDWARE_CHECKLIST,
    ChangeKind,
    OperatorKind,
    TargetMode,
    Verdict,
)
from pto_tui.jobs.model import ENDED, JobState  # noqa: E402

Schema = dict[str, Any]
SCALAR = ["string", "number", "boolean"]  # a parameter's value (integers are numbers)
VERDICTS = [v.value for v in Verdict]
CHANGE_KINDS = [k.value for k in ChangeKind]
MODES = [m.value for m in TargetMode]
OPERATOR_KINDS = [k.value for k in OperatorKind]


def s(description: str, **more: Any) -> Schema:
    return {"type": "string", "description": description, **more}


def i(description: str, **more: Any) -> Schema:
    return {"type": "integer", "description": description, **more}


def n(description: str, **more: Any) -> Schema:
    return {"type": "number", "description": description, **more}


def b(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def enum(values: list[Any], description: str) -> Schema:
    return {"enum": list(values), "description": description}


def null(schema: Schema) -> Schema:
    """The schema, or null."""
    made = dict(schema)
    if "enum" in made:
        made["enum"] = [*made["enum"], None]
    elif isinstance(made.get("type"), list):
        made["type"] = [*made["type"], "null"]
    else:
        made["type"] = [made["type"], "null"]
    return made


def arr(items: Schema, description: str) -> Schema:
    return {"type": "array", "items": items, "description": description}


def strings(description: str) -> Schema:
    return arr({"type": "string"}, description)


def numbers(description: str) -> Schema:
    return arr({"type": "number"}, description)


def table(values: Schema, description: str, **more: Any) -> Schema:
    """An object whose keys are names (parameters, probes, ...) and values `values`."""
    return {"type": "object", "additionalProperties": values, "description": description, **more}


def obj(description: str, properties: dict[str, Schema], optional: tuple[str, ...] = ()) -> Schema:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": [key for key in properties if key not in optional],
        "additionalProperties": True,  # a later version may add fields: read the ones you need
    }


def top(name: str, title: str, body: Schema, version: int = 1) -> Schema:
    """A schema file: its id, title and version, and `schema_version` required in the output."""
    head: Schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"pto-tui/{name}.schema.json",
        "title": title,
        "schema_version": version,
    }
    if body.get("type") == "object":
        body = dict(body)
        body["properties"] = {
            "schema_version": {"const": version, "description": "this schema's version: it changes "
                               "only when a field is removed or changes meaning"},
            **body["properties"],
        }
        body["required"] = ["schema_version", *body["required"]]
    return {**head, **body}


# ---------------------------------------------------------------- shared parts

TORCH = obj("the torch_npu reference (or the CPU demo's stand-in): durations in microseconds", {
    "avg_us": n("mean duration (us)"),
    "min_us": n("fastest run (us)"),
    "max_us": n("slowest run (us)"),
    "tflops": null(n("throughput (TFLOPS), when known")),
    "label": s("what was measured, e.g. torch.nn.functional.scaled_dot_product_attention"),
    "warmup": i("warm-up runs before the timed ones (0: not recorded)"),
    "runs": i("timed runs (0: not recorded)"),
    "measured_at": s("when it was measured (\"\": given by hand or imported)"),
    "note": s("an imported ITERATIONS.md section's text as written by hand (\"\": none)"),
})

_PRE_EDIT = obj("the Pre-Edit answers (docs/workflow.md §10)", {
    "kernel": s("the target operator and its current configuration"),
    "bottleneck": s("the bottleneck class (one of `round classes`; a round imported from "
                    "Markdown may hold other words)"),
    "evidence": s("what shows the bottleneck (profiling, costmodel, numbers)"),
    "hypothesis": s("the one hypothesis the round tests"),
    "why_ascend": s("why the change should help on Ascend"),
    "expected_metric": s("which metric should improve"),
    "main_risk": s("the main risk"),
    "correctness_plan": s("how correctness is assured"),
    "scope": strings("the files (patterns as in .gitignore) and parameters the hypothesis changes"),
    "bottleneck_recheck": s("three-round rule: the bottleneck re-checked (\"\": not asked)"),
    "new_direction": s("three-round rule: the new direction (\"\": not asked)"),
    "checklist": table(
        obj("one item of the hardware checklist", {
            "ticked": b("the item was checked this round"),
            "note": s("what the check found"),
        }),
        "the hardware checklist, by key (`round classes` lists the 8 keys)",
        propertyNames={"enum": list(HARDWARE_CHECKLIST)},
    ),
})

PARAMETER = obj("one parameter the round changed", {
    "name": s("the tunable's name"),
    "old": {"type": [*SCALAR, "null"], "description": "its value before (null: it had none)"},
    "new": {"type": SCALAR, "description": "its value in this round"},
})

_CHANGES = obj("what the round changed", {
    "kind": null(enum(CHANGE_KINDS, "the kind of change (修改类型); null: not said")),
    "files": strings("the workspace files changed, relative to the project"),
    "description": s("what changed, in words (具体变更)"),
    "based_on": null(i("the round it was based on (its files and parameters)")),
    "bug_fix": s("the reason a protected file changed as a declared bug fix (\"\": none)"),
    "risk_justification": s("the written justification of a high-risk change (\"\": none)"),
    "high_risk": strings("what the high-risk detector found in the change"),
    "tolerance_approval": s("the user's approval of a loosened tolerance (\"\": none)"),
    "discipline_approval": s("the reason the verdict rules ([discipline]) changed (\"\": none)"),
    "snapshot": table({"type": SCALAR}, "every tunable's value in the round (本轮完整参数快照)"),
    "parameters": arr(PARAMETER, "the parameters changed, old → new"),
})

_MEASUREMENT = obj("build, correctness and benchmark", {
    "build": enum(["ok", "failed", ""], "the build (\"\": not run)"),
    "correctness": enum(["pass", "fail", ""], "the correctness check (\"\": not run)"),
    "samples_us": numbers("the benchmark samples, one per timed run: durations (us), or cycles "
                          "when unit is \"cycles\""),
    "reference_us": numbers("the report's own baseline side's durations (us)"),
    "tflops": null(n("throughput (TFLOPS), when known")),
    "reports": strings("the result files the numbers came from"),
    "problem": s("why the build, correctness or benchmark failed (\"\": none)"),
    "fingerprint": s("the workload's fingerprint when measured (\"\": not recorded)"),
    "target_mode": enum([*MODES, ""], "the target's mode when measured (\"\": before modes)"),
    "workload_reads": arr(obj("where the kernel read a workload setting", {
        "name": s("the workload setting (a shape knob or case field)"),
        "file": s("the file, relative to the workspace"),
        "line": i("its line"),
        "text": s("the line as it was"),
    }), "where the baseline's kernel read the workload: every round must still read it there"),
    "frontier_samples_us": numbers("[discipline] interleave: the frontier's durations, its own build "
                                   "run alternately with this round's; empty when not interleaved"),
    "frontier_round": null(i("[discipline] interleave: the round frontier_samples_us are of")),
    "unit": enum(["", "cycles"], "what the samples count: \"\" microseconds, \"cycles\" pto-isa's "
                 "perf_sim cycles (a perf-sim target)"),
    "pipes": arr(obj("one pipe of a perf-sim run", {
        "name": s("the pipe (Cube, Vector, MTE2, ...)"),
        "busy_cycles": i("its busy cycles, summed over its units"),
        "share": n("its share of those units' active cycles"),
    }), "a perf-sim round: each pipe's busy cycles and share; with [target] predict, the "
        "prediction's; empty otherwise"),
    "predicted_cycles": null(i("[target] predict: perf_sim's cycles of the round's configuration, "
                               "beside its samples, never one of them (null: no prediction)")),
    "prediction_problem": s("[target] predict: why the round has no prediction (\"\": none, or not "
                            "predicting)"),
    "placements": strings("where each timed run ran, when a scheduler said (a slurm target: "
                          "\"node17 npu 3\"), one per sample; empty otherwise"),
})

ENVIRONMENT = obj("the environment round (docs/workflow.md §6)", {
    "versions": table({"type": "string"}, "toolchain and target versions, by name"),
    "build_outcome": s("the one full build's outcome"),
    "first_valid_result": s("the first valid result's path"),
    "problems": strings("the problems met"),
    "probes": table({"type": "boolean"}, "each probe and whether it passed"),
    "passed": b("every probe passed: tuning may start"),
    "at": s("when the attempt was recorded"),
    "declared_by": enum(["", "cli", "mcp", "tui", "import"],
                        "probes given by hand, not run: the surface they came through (\"import\": "
                        "the hand-written notes of an imported project); \"\" when run on the target"),
    "declared_reason": s("why declared probes were accepted (\"\": not declared)"),
})

ROUND = obj("a round's record (runs/iter-XXX/round.toml), every field", {
    "number": i("the round (0: iter-000, the baseline)"),
    "status": enum(["open", "closed"], "open until its verdict is recorded"),
    "phase": s("the campaign phase it fell in"),
    "opened_at": s("when it was opened"),
    "closed_at": s("when it was closed (\"\": open)"),
    "title": s("the short hypothesis shown in tables"),
    "imported": b("read from hand-written Markdown (`import`): pto-tui did not measure it"),
    "as_written": table({"type": "string"}, "an imported round's words kept as written, by where "
                        "they stood (a result word, the Post-Run performance line, prose in "
                        "files.txt, a label or section no field takes)"),
    "notes_sha": s("SHA-256 of the notes.md pto-tui last wrote (\"\": never)"),
    "base_snapshot": s("the workspace snapshot its diff is taken against"),
    "snapshot": s("the workspace snapshot measured (at close)"),
    "stability": enum(["stable", "noisy", ""], "the samples' spread against [discipline] max_spread"),
    "verdict": null(enum(VERDICTS, "the verdict (null: open, the baseline, or none taken)")),
    "verdict_reason": s("why the verdict is what it is"),
    "verdict_rule": s("the rule the verdict was decided with (\"\": before it was recorded)"),
    "flags": strings("what the rules flagged (a large gain, a change written by hand, ...)"),
    "held_for_review": b("the numbers keep it, but the gain needs the user's word (`round confirm`)"),
    "review_confirmation": s("who, when and why a held (or imported) round was confirmed"),
    "analysis": s("the Analysis section"),
    "next": s("the Next section"),
    "rerun_of": null(i("the inconclusive round this one measures again")),
    "group": s("the explore group it started in (explore-004: judged against changes.based_on); "
               "\"\": started alone"),
    "pre_edit": _PRE_EDIT,
    "changes": _CHANGES,
    "measurement": _MEASUREMENT,
    "amendments": arr(obj("a correction kept beside the record", {
        "who": s("who amended"),
        "when": s("when"),
        "why": s("the reason given"),
        "field": enum(list(AMENDABLE), "the field amended"),
        "old": s("its value before"),
        "new": s("its value now"),
    }), "the amendments, oldest first (the record stays as it was closed)"),
    "protected_hashes": table({"type": "string"}, "SHA-256 of each protected workspace file this "
                              "round accepted (the baseline, a declared bug fix)"),
    "tolerances": table({"type": "number"}, "the correctness tolerances in force when measured"),
    "discipline": table({"type": "number"}, "[discipline] in force when it closed"),
    "environment": null(ENVIRONMENT),
    "environment_attempts": arr(ENVIRONMENT, "earlier environment attempts, oldest first"),
})

EXPORT_ROW = obj("one round of the round table", {
    "round": i("the round (0: the baseline)"),
    "status": enum(["open", "closed"], "open until its verdict is recorded"),
    "phase": s("the campaign phase"),
    "title": s("the short hypothesis"),
    "hypothesis": s("the Pre-Edit hypothesis"),
    "bottleneck": s("the bottleneck class"),
    "verdict": null(enum(["baseline", *VERDICTS], "\"baseline\" for iter-000, a verdict after "
                         "amendments, null while open or when none was taken")),
    "reason": s("why the verdict is what it is"),
    "build": enum(["ok", "failed", ""], "the build"),
    "correctness": enum(["pass", "fail", ""], "the correctness check"),
    "stability": enum(["stable", "noisy", ""], "the samples' spread"),
    "median_us": null(n("the median sample (us, or cycles when unit is \"cycles\")")),
    "samples_us": numbers("the samples"),
    "reference_us": numbers("the report's baseline side's durations (us)"),
    "tflops": null(n("throughput (TFLOPS)")),
    "speedup_vs_initial": null(n("the baseline's median over this round's")),
    "speedup_vs_torch": null(n("torch_npu's avg over this round's median (null for cycles)")),
    "flags": strings("what the rules flagged"),
    "amended": b("amendments stand beside the record"),
    "change_kind": enum([*CHANGE_KINDS, ""], "the kind of change (\"\": not said)"),
    "changes": s("what changed, in one line (as in ITERATIONS.md)"),
    "parameters": arr(PARAMETER, "the parameters changed, old → new"),
    "snapshot": table({"type": SCALAR}, "every tunable's value"),
    "files": strings("the files changed"),
    "based_on": null(i("the round it was based on")),
    "fingerprint": s("the workload's fingerprint"),
    "workspace_snapshot": s("the workspace snapshot measured"),
    "reports": strings("the result files the numbers came from"),
    "problem": s("why it failed (\"\": none)"),
    "toolchain": table({"type": "string"}, "toolchain versions (the environment round's, on iter-000)"),
    "opened_at": s("when it was opened"),
    "closed_at": s("when it was closed"),
    "target_mode": enum([*MODES, ""], "the target's mode when measured"),
    "simulated": b("timings from a CPU simulation, not an NPU"),
    "rerun_of": null(i("the inconclusive round it measures again")),
    "frontier_samples_us": numbers("[discipline] interleave: the frontier's runs taken alternately"),
    "frontier_round": null(i("[discipline] interleave: the round those runs are of")),
    "unverified": b("the history (runs/closed.log) does not vouch for its verdict: counted apart"),
    "unit": enum(["us", "cycles"], "what median_us, samples_us and frontier_samples_us count"),
    "predicted_cycles": null(i("[target] predict: perf_sim's cycles of the round's configuration")),
    "predicted_change": null(n("[target] predict: their change against the round it was based on "
                               "(after / before - 1)")),
    "measured_change": null(n("[target] predict: the medians' change against the same round, "
                              "beside predicted_change")),
})

JOB = obj("a job's record (.pto-tui/jobs/ID/record.json)", {
    "id": s("the job id"),
    "command": s("the command run"),
    "target": s("where it ran (local, ssh:ALIAS)"),
    "state": enum([state.value for state in JobState], "its state"),
    "shown_state": enum([*(state.value for state in JobState), "re-attachable", ENDED],
                        "the state to show: a job whose pto-tui is gone is lost, re-attachable, "
                        "or ended on its target (its output collected when it is re-attached)"),
    "name": s("what it was for (iter-003 build, exec (MCP), ...)"),
    "cwd": s("the folder it ran in"),
    "env": table({"type": "string"}, "the environment variables it was given"),
    "workspace_hash": s("the workspace uploaded for it"),
    "detached": b("it runs on the target without this process following it"),
    "submitted_at": n("when it was submitted (seconds since the epoch)"),
    "started_at": null(n("when it started")),
    "ended_at": null(n("when it ended")),
    "exit_code": null(i("its exit code (null: it did not finish)")),
    "signal": null(s("the signal that killed it, e.g. TERM")),
    "error": s("why it failed or was lost, in words"),
    "log_path": s("its output log"),
    "remote_dir": s("its folder on the target"),
    "fetched": strings("files fetched back from the target"),
    "client_pid": i("the pto-tui process that follows it"),
    "client_start": s("that process's start time"),
    "orphan": b("lost, and what may survive of it on the target not yet killed"),
    "round_number": null(i("the round it ran a step of")),
    "timeout": null(n("the seconds it may run (a step's limit, [limits]); null: no limit")),
    "internal": b("pto-tui's own bookkeeping (a clock read, a listing of result files), not a step "
                  "a person ran; `jobs` lists it only with --all"),
    "notes": table({"type": "string"}, "what the step noted as it submitted the job, for whoever "
                   "takes its outcome later (a resumed run): e.g. report_before, the result file's "
                   "size and SHA-256 before the run"),
    "scheduler_id": s("a Slurm batch job's id (\"\": not one)"),
    "scheduler_state": s("its Slurm state as last seen (PENDING, RUNNING, COMPLETED, NODE_FAIL, ...)"),
    "scheduler_reason": s("Slurm's reason for it (Resources, Priority, NodeDown; \"\": none)"),
    "queued_at": null(n("when Slurm queued it")),
    "node": s("the node it ran on, when a scheduler said"),
    "npu": s("the NPU index Slurm gave it (\"\": not said)"),
})
