"""The JSON schemas of docs/json/ that share no part with a round record: making and
reading a project, the costmodel, the verdict rule and diff, and the MCP result envelope
(scripts/json_schemas.py writes them with the others)."""

from __future__ import annotations

from typing import Any

from json_schema_parts import (
    OPERATOR_KINDS,
    SCALAR,
    TORCH,
    VERDICTS,
    Schema,
    arr,
    b,
    enum,
    i,
    n,
    null,
    obj,
    s,
    strings,
    table,
    top,
)

from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST

FINDING = obj("what blocks: one rule's finding", {"rule": s("the rule's id (docs/rules.md)"),
                                                   "message": s("what is wrong, and what answers it")})
CASE = obj("a case the operator lists", {
    "name": s("the case's name"), "spec": s("its case string"),
    "shape": table({"type": SCALAR}, "its shape"), "dtype": s("its data type"), "causal": b("causal mask"),
})
_CANDIDATE = {
    "path": s("the operator's folder"),
    "name": s("its name"),
    "kind": null(enum(OPERATOR_KINDS, "its kind (null: mixed or unclear)")),
    "status": enum(["declared", "detected", "mixed", "unclear"], "how the kind was found"),
    "evidence": strings("what the classification rests on"),
    "files": strings("its source files"),
    "cases": arr(CASE, "the cases it lists"),
    "demo": b("a built-in CPU demo operator, not PTO code"),
    "description": s("its marker's description"),
    "commands": table({"type": "string"}, "the commands its marker gives"),
}
TUNABLE = obj("a tunable parameter", {
    "name": s("its name"), "kind": enum(["env", "constexpr", "template", "case"], "what kind of knob"),
    "value": {"type": SCALAR, "description": "its current value"},
    "default": {"type": [*SCALAR, "null"], "description": "its default"},
    "allowed": arr({"type": SCALAR}, "the values it may take (empty: any)"),
    "file": s("the file it was found in"), "where": s("file:line"),
})
DERIVED = obj("a value the source computes from the tunables: it follows them, never offered alone", {
    "name": s("its name"), "expr": s("its expression as written"), "where": s("file:line"),
})
LEFT_OUT = obj("a candidate knob that is no tunable", {
    "name": s("its name"),
    "reason": s("why: workload, host-only, profiling, set at run time, overridden, unused"),
    "where": s("file:line"),
})
_KNOBS = {
    "derived": arr(DERIVED, "values derived from the tunables"),
    "left_out": arr(LEFT_OUT, "candidate knobs left out, with the reason"),
}
_RATIO = {"type": ["number", "null"]}
_SIDE = obj("one side of the comparison", {
    "round": i("the round"), "median_us": null(n("its median")), "runs": i("its runs"),
    "spread": null(n("its spread (max-min over the median)")),
    "stability": enum(["stable", "noisy", ""], "its stability"),
})
_VERDICT = obj("what the verdict rule says of two sets of durations", {
    "verdict": enum(VERDICTS, "the verdict"),
    "gain": null(n("the Hodges-Lehmann gain (a fraction; positive: faster)")),
    "low": null(n("the gain's lower bound")), "high": null(n("the gain's upper bound")),
    "confidence": n("the bounds' confidence"), "settled": b("more runs could not change it"),
    "pending": s("why it is not settled yet (\"\": settled)"), "reason": s("the verdict's reason"),
    "stability": enum(["stable", "noisy", ""], "the samples' stability"),
    "held": b("held for review (a large gain)"), "flags": strings("what the rule flagged"),
    "runs": i("the samples"), "frontier_runs": i("the frontier's samples"), "rule": s("the rule's name"),
})
_STAMP = obj("the costmodel that answered", {
    "engine": s("builtin or external"), "costmodel": s("its version (the pto-isa commit)"),
    "compiler": s("the compiler of the builtin engine"), "flags": s("its flags"),
})
_RESULT = obj("one query's cycles", {
    "instr": s("the PTO instruction"), "family": s("its family (matmul, unary, binary, ...)"),
    "dtypes": strings("its data types"), "label": s("the query as shown"),
    "m": null(i("matmul M")), "k": null(i("matmul K")), "n": null(i("matmul N")),
    "rows": null(i("tile rows")), "cols": null(i("tile columns")),
    "cycles": null(n("predicted cycles (null: failed)")), "flops": null(n("its work")),
    "flops_kind": s("how the work is counted"), "cycles_per_flop": null(n("cycles per unit of work")),
    "flop_per_cycle": null(n("work per cycle")), "ideal_cycles": null(n("the ideal cycles")),
    "efficiency": null(n("ideal over predicted")), "cached": b("answered from the cache"),
    "oversized": b("refused: its operands overflow a buffer"), "error": null(s("why it failed")),
    "stamp": _STAMP,
}, optional=("m", "k", "n", "rows", "cols"))
_QUERY = obj("one costmodel query of a ranked value", {
    "query": s("the query"), "label": s("as shown"), "cycles": null(n("its cycles")),
    "repeat": i("how often the plan runs it"), "error": null(s("why it failed")),
    "oversized": b("refused: its operands overflow a buffer"),
})
_RANKED = obj("one value of the knob, ranked", {
    "value": {"type": SCALAR, "description": "the value"}, "cycles": null(n("the plan's cycles")),
    "work": null(n("its work")), "cycles_per_unit": null(n("cycles per unit of work (the rank)")),
    "refused": null(s("why the value is refused (its tiles do not fit)")),
    "cube_cycles": null(n("the cube side's cycles")), "vector_cycles": null(n("the vector side's")),
    "overlap": b("the cube and vector sums overlap"), "queries": arr(_QUERY, "its queries"),
})
_REVIEWED = obj("a round that changed a ranked knob", {
    "round": i("the round"), "knob": s("the knob"),
    "old": {"type": SCALAR, "description": "its value before"},
    "new": {"type": SCALAR, "description": "its value after"},
    "predicted_cycles_per_unit": obj("the costmodel's prediction", {
        "old": null(n("before")), "new": null(n("after"))}),
    "predicted_ratio": null(n("new over old (below 1: predicted faster)")),
    "before_us": null(n("the measured median before")), "after_us": null(n("after")),
    "measured_speedup": null(n("before over after")),
    "held": {"type": ["boolean", "null"], "description": "the prediction held (null: not judged)"},
    "refused": null(s("why it was not predicted")),
})
_ERROR_TYPES = ["rule_violation", "input_error", "config_error", "locked", "outside_roots",
                "exec_disabled", "error"]

_PREDICTED = obj("[target] predict: perf_sim's change beside the measured one", {
    "round": i("the round"), "against": i("the round compared with"),
    "cycles_before": null(i("perf_sim's cycles of the reference's configuration")),
    "cycles_after": null(i("perf_sim's cycles of the round's")),
    "predicted_change": null(n("cycles_after / cycles_before - 1 (negative: fewer cycles)")),
    "measured_change": null(n("the medians' change, after / before - 1 (negative: faster)")),
    "agrees": null(b("both point the same way (null: either missing or exactly zero)")),
    "missing": null(s("why a side has no perf_sim cycles")),
})


def _mcp_result() -> Schema:
    finding = obj("one finding of a refusal", {
        "rule": s("the rule's id"), "message": s("what is wrong"),
        "files": strings("the files it is about (workspace-relative)"), "fix": s("what answers it"),
    })
    error = obj("why the call was refused or failed", {
        "type": enum(_ERROR_TYPES, "what kind of error"),
        "tool": s("the tool called"),
        "rule": null(s("the rule that refuses (rule_violation)")),
        "message": s("what is wrong, phrased for the tools"),
        "file": null(s("the file it is about")), "line": null(i("its line")),
        "key": null(s("the argument (or project.toml key) it is about, e.g. number, pre_edit.checklist")),
        "fix": s("what to do: the argument or tool that answers it"),
        "findings": arr(finding, "every finding of a refusal, the first the rule's"),
        "rendered": s("the whole error as one text"),
        "path": s("outside_roots: the path refused"), "roots": strings("outside_roots: the roots"),
    }, optional=("path", "roots"))
    version = {"const": 1, "description": "this envelope's version"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "pto-tui/mcp-result.schema.json",
        "title": "every MCP tool's structured result: {schema_version, data, warnings} or "
                 "{schema_version, error}",
        "schema_version": 1,
        "oneOf": [
            obj("the tool's answer", {
                "schema_version": version,
                "data": {"description": "the --json output of the same command (the tool's "
                         "outputSchema names its schema)"},
                "warnings": strings("what to read before going on (a round held for review, a "
                                    "file left as it was, a command's non-zero exit)"),
                "steps": arr({"type": "object"}, "the steps a long tool ran (env, baselines, round_run)"),
            }, optional=("steps",)),
            {**obj("a refusal or failure", {"schema_version": version, "error": error}),
             "additionalProperties": False},
        ],
    }


MORE: dict[str, Any] = {
    "scan": top("scan", "pto-tui scan DIR --json; the MCP tool scan", obj("the operators found", {
        "root": s("the folder scanned"),
        "candidates": arr(obj("an operator", {
            **_CANDIDATE,
            "tunables": arr(TUNABLE, "its tunables, read as `new` reads them (the marker's win)"),
            **_KNOBS,
            "workload_knobs": arr(TUNABLE, "knobs the case sets (a PTO-DSL operator's shape knobs)"),
        }), "the operators found"),
        "skipped": arr(obj("a folder left out", {"path": s("the folder"), "reason": s("why")}),
                       "folders left out as no operators"),
        "warnings": strings("what the scan could not read"),
    })),
    "new": top("new", "pto-tui new DIR --json; the MCP tool new", obj("the project created", {
        "project": s("its folder"), "operator": s("the operator's name"),
        "kind": enum(OPERATOR_KINDS, "its kind"),
        "classification": null(obj("how the source was classified", {
            **_CANDIDATE, "tunables": strings("the tunables its marker declares")})),
        "tunables": strings("the tunables written into project.toml"),
        **_KNOBS,
        "shared_kernel": s("the shared file the kernel is built in, when not named related (`new "
                           "--related` makes it editable)"),
        "related": strings("the further files a round may edit"),
        "workload_knobs": table({"type": SCALAR}, "shape knobs: part of the case, never tunable"),
        "cases": strings("the cases the operator offered"), "case": s("the case chosen"),
        "repository": s("the repository copied (\"\": the folder alone)"),
        "path": s("the operator folder in it"), "family": s("its bench family"),
        "commands": table({"type": "string"}, "the effective commands"),
        "command_origins": table({"type": "string"}, "where each command came from"),
    })),
    "import": top("import", "pto-tui import --json; the MCP tool import", obj("what the import did", {
        "imported": arr({"type": "integer"}, "the rounds read into records"),
        "skipped": arr({"type": "integer"}, "rounds that had a record already"),
        "problems": strings("what could not be read, by file and line (kept as written when it is "
                            "text no field takes)"),
        "conflicts": strings("where notes.md and the table disagree, by file and line"),
        "flagged": strings("what the rules say of the imported rounds (a removed barrier, ...)"),
        "created_project_file": b("project.toml was written"),
        "operator": s("the operator's name"), "kind": s("its kind"), "case": s("the case"),
        "tunables": strings("the tunables"), "torch_baseline": null(TORCH),
        "workspace": s("the operator source copied into workspace/ (\"\": none was)"),
        "target": s("where jobs run, and the mode"),
        "skill_written": b("SKILL.md was written (a project's own is kept)"),
        "next_steps": strings("what the project still needs before tuning"),
    })),
    "gates": top("gates", "pto-tui round gates --json; the MCP tool gates", obj(
        "what still blocks a round", {"findings": arr(FINDING, "each finding (empty: may start)"),
                                      "may_start": b("nothing blocks: round start may open it")}),
        version=2),
    "prefill": top("prefill", "pto-tui round gates --prefill [N] --json", obj(
        "the Pre-Edit answers drafted from round N, and what still blocks", {
            "prefilled_from": i("the round drafted from"),
            "filled": strings("the fields (and checklist.KEY) taken from it"),
            "left_for_the_user": strings("the fields never copied"),
            "pre_edit": table({}, "the answers (as round.schema.json's pre_edit)"),
            "findings": arr(FINDING, "what still blocks"),
        })),
    "classes": top("classes", "pto-tui round classes --json; the MCP tool classes", obj(
        "the words a Pre-Edit form uses", {
            "bottleneck_classes": obj("each bottleneck class and what it means",
                                      {key: s(value) for key, value in BOTTLENECK_CLASSES.items()}),
            "checklist": obj("each hardware checklist key and what to check",
                             {key: s(value) for key, value in HARDWARE_CHECKLIST.items()}),
        })),
    "config-keys": top("config-keys", "pto-tui config keys --json: every project.toml key", obj(
        "project.toml's keys", {"keys": arr(obj("one key", {
            "path": s("table.key"), "table": s("its table (\"\": top level)"), "key": s("the key"),
            "type": s("its type"), "default": s("its default as TOML"),
            "default_by_kind": table({"type": "string"}, "its default per operator kind"),
            "required": b("it must be given"), "allowed": s("its choices, range or rule"),
            "help": s("what it is for"),
        }), "every key")}), version=2),
    "verify": top("verify", "pto-tui verify --json; the MCP tool verify", obj("the history checked", {
        "project": s("the project"), "clean": b("no break: the command exits 0"),
        "entries": i("chained lines of runs/closed.log"),
        "head": null(obj("the newest line", {"seq": i("its number"), "sha256": s("its SHA-256")})),
        "anchored": b("an anchor exists in the pto-tui home"), "rounds_checked": i("rounds checked"),
        "breaks": strings("each break, naming the file (and line)"),
    })),
    "chart": top("chart", "pto-tui chart --json; the MCP tool chart", obj("the chart written", {
        "png": s("the PNG"), "svg": null(s("the SVG, when asked for")),
        "x_axis": arr(obj("a slot of the x axis", {
            "round": i("the round shown"), "covers": arr({"type": "integer"}, "the rounds it stands for"),
        }), "the rounds on the x axis"),
        "milestones": arr({"type": "integer"}, "rounds labelled on the speedup panel"),
        "units": s("the duration panel's unit"), "log_scale": b("the duration panel is log-scaled"),
        "best_round": i("the best round"),
    })),
    "report": top("report", "pto-tui report --json; the MCP tool report", obj("the report written", {
        "report": s("REPORT.md"), "chart": s("its chart"), "chart_drawn": b("the chart was drawn now"),
    })),
    "phase": top("phase", "pto-tui phase [NAME] --json; the MCP tool phase", obj("the phases", {
        "phases": strings("the campaign's phases"), "current": s("the one new rounds fall in"),
    })),
    "costmodel": top("costmodel", "pto-tui costmodel QUERY --json; the MCP tools costmodel_query and "
                     "costmodel_sweep", obj("the cycles of one query or a sweep", {
                         "results": arr(_RESULT, "one per query"), "best": null(s("the best label")),
                         "failed": i("queries that failed"), "stamp": null(_STAMP),
                     })),
    "suggest": top("suggest", "pto-tui suggest --json; the MCP tool suggest", obj("the knobs ranked", {
        "suggestions": arr(obj("one tile knob", {
            "knob": s("the knob"), "current": {"type": SCALAR, "description": "its value now"},
            "suggested": {"type": [*SCALAR, "null"], "description": "the best-ranked value"},
            "plan": s("where the costmodel plan came from"), "templates": strings("its queries"),
            "costmodel": s("the costmodel's version"), "ranking": arr(_RANKED, "best first"),
            "evidence": s("the ranking in words, for the Pre-Edit evidence"),
        }), "one per knob"),
    })),
    "suggest-review": top("suggest-review", "pto-tui suggest --review --json; the MCP tool "
                          "suggest_review", obj(
        "predicted against measured", {"review": arr(obj("one knob", {
            "knob": s("the knob"),
            "verdict": enum(["held", "did not hold", "mixed", "no prediction"], "the guidance"),
            "held": i("rounds where it held"), "judged": i("rounds judged"),
            "rounds": arr(_REVIEWED, "the rounds that changed it"),
        }), "one per knob"),
            "perf_sim": null(obj("[target] predict: each closed round's perf_sim change against the "
                                 "measured one, both against the round it was based on (null in a "
                                 "project without predictions)", {
                "agreed": i("judged rounds whose measured change went the predicted way"),
                "judged": i("rounds with a change on both sides (neither missing nor zero)"),
                "rounds": arr(_PREDICTED, "one per closed round after the baseline"),
            })),
            "costmodel_problem": s("why the costmodel did not review the knobs while perf_sim's "
                                   "predictions were (absent otherwise)"),
        }, optional=("costmodel_problem",))),
    "diff": top("diff", "pto-tui diff N [--against previous|frontier|M] --json; the MCP tool diff", obj(
        "what changed in a round", {
            "round": i("the round"), "against": i("the round compared with"),
            "against_how": enum(["previous", "frontier", "round"], "how it was chosen"),
            "parameters": arr(obj("a parameter whose value differs", {
                "name": s("its name"), "before": {"type": [*SCALAR, "null"], "description": "before"},
                "after": {"type": [*SCALAR, "null"], "description": "after"}}), "those that differ"),
            "duration": null(obj("the median durations and what the verdict rule says", {
                "before": _SIDE, "after": _SIDE, "delta": null(n("the change (a fraction)")),
                "speedup": null(n("before over after")), "noise_floor": n("[discipline] noise_floor"),
                "max_spread": n("[discipline] max_spread"), "confidence": n("the bounds' confidence"),
                "gain": null(n("the gain")), "low": null(n("its lower bound")),
                "high": null(n("its upper bound")),
                "judged": enum(["beyond the noise floor", "within the noise floor", "slower",
                                "undecided", ""], "the gain as the verdict rule judges it"),
                "interleaved": b("before is the reference's runs taken alternately with the round's"),
                "unit": enum(["", "cycles"], "what the medians count: \"\" microseconds, or cycles"),
            })),
            "tflops_before": _RATIO | {"description": "TFLOPS before"},
            "tflops_after": _RATIO | {"description": "TFLOPS after"},
            "tflops_delta": _RATIO | {"description": "the change"},
            "patch": s("the round's patch.diff"), "patch_against": null(i("the round it is taken against")),
            "verdict": s("the round's verdict"), "verdict_reason": s("its reason"),
            "prediction": null(_PREDICTED),
        }), version=2),
    "verdict": {
        **top("verdict", "pto-tui verdict --samples A --frontier B --json (one object); --pairs FILE "
              "(one object per line)", {"type": "object", "properties": {}, "required": []}),
        "type": "object",
        "oneOf": [
            obj("--samples: the verdict, the discipline it was decided with and its source", {
                **_VERDICT["properties"],
                "discipline": obj("the numbers used", {key: n(key) for key in
                                  ("noise_floor", "max_spread", "review_gain", "confidence")}),
                "source": s("the project.toml read, or \"defaults\"")}),
            obj("--pairs: the verdict of input line `line`", {
                **_VERDICT["properties"], "line": i("the input line", minimum=1)}),
            obj("--pairs: input line `line` was malformed (the command exits 1 at the end)", {
                "line": i("the input line", minimum=1), "error": s("why")}),
        ],
    },
    "mcp-result": _mcp_result(),
}
