"""docs/json/*.schema.json, written from one place (the parts they share are in
scripts/json_schema_parts.py and scripts/json_schema_more.py), so a round record or an
export row is described the same way in every schema that holds one.

    .venv/bin/python scripts/json_schemas.py           write docs/json/*.schema.json
    .venv/bin/python scripts/json_schemas.py --check   exit 1 when a file is not what this writes

tests/meta/test_json_schemas_written.py fails when a file is stale.
"""

from __future__ import annotations

import json
import sys

from json_schema_more import MORE
from json_schema_parts import (
    ENVIRONMENT,
    EXPORT_ROW,
    JOB,
    REPO,
    ROUND,
    TORCH,
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

DOCS = REPO / "docs" / "json"


def _job_listed() -> Schema:
    """A job as `jobs` lists it: its record, and what its target says of a detached job that
    ended while no pto-tui followed it."""
    ended = i("with shown_state ended: the exit status the job recorded on its target (its "
              "record still says running until its output is collected)")
    return obj(JOB["description"], {**JOB["properties"], "exit_code_on_target": ended},
               optional=("exit_code_on_target",))


def _status() -> Schema:
    return obj("the campaign at a glance", {
        "operator": s("the operator's name"),
        "kind": enum(["pto-dsl", "pto-tile-lib"], "the operator kind"),
        "case": s("the case, described"),
        "target": s("where jobs run (local, ssh:ALIAS)"),
        "target_mode": enum(["npu", "cpu-sim", "perf-sim", "demo"], "what the target runs"),
        "simulated": b("the target's timings come from a CPU simulation"),
        "predict": enum(["", "perf-sim"], "[target] predict: \"perf-sim\" when each round also records "
                        "perf_sim's cycles of its configuration"),
        "unit": enum(["us", "cycles"], "what baseline_us and frontier_us count (speedup_vs_torch is "
                     "null for cycles)"),
        "environment_passed": b("the environment round passed: tuning may start"),
        "environment_declared_by": enum(["", "cli", "mcp", "tui", "import"], "probes given by hand: "
                                        "the surface they came through; \"\" when run on the target"),
        "environment_declared_reason": s("why the declared probes were accepted"),
        "baseline_us": null(n("iter-000's median (null before the baseline)")),
        "baseline_stability": enum(["stable", "noisy", ""], "iter-000's stability"),
        "torch_baseline": null(TORCH),
        "frontier_round": null(i("the best round so far (null: none leads yet)")),
        "frontier_us": null(n("its median")),
        "frontier_passed_over": strings("faster rounds the frontier passes over (written by hand, "
                                        "imported, unverified), each said in words with its way out"),
        "speedup_vs_initial": null(n("the baseline's median over the frontier's")),
        "speedup_vs_torch": null(n("torch_npu's avg over the frontier's median")),
        "open_round": null(i("the open round (null: none)")),
        "counts": obj("closed rounds after the baseline per verdict", {
            "kept": i("kept rounds"), "neutral": i("neutral rounds"), "failure": i("failures"),
            "inconclusive": i("inconclusive rounds"),
            "unverified": i("rounds whose verdict the history does not vouch for (only when any)"),
        }, optional=("unverified",)),
        "recent_failures": arr(obj("a recent failure", {
            "round": i("the round"), "hypothesis": s("its hypothesis"), "reason": s("why it failed"),
        }), "the last failed rounds, newest last"),
        "rounds_without_gain": i("closed rounds in a row without a real gain"),
        "three_round_rule": b("the three-round rule applies to the next round"),
        "missing_rounds": arr({"type": "integer"}, "rounds numbered but missing on disk"),
        "unreadable_rounds": strings("round records that cannot be read, each with why"),
        "tampered_rounds": table(strings("what differs"), "closed rounds changed by hand after they "
                                 "closed, by round number"),
        "unverified_rounds": arr({"type": "integer"}, "rounds whose verdict the history does not "
                                 "vouch for"),
        "notices": strings("what else the records say (ITERATIONS.md edited by hand, ...)"),
        "history": null(obj("runs/closed.log's hash chain against its anchor", {
            "entries": i("chained lines"),
            "head": null(obj("the newest line", {"seq": i("its sequence number"),
                                                 "sha256": s("its SHA-256")})),
            "anchored": b("an anchor for this project exists in the pto-tui home"),
            "problems": strings("what is wrong with the chain"),
        })),
        "commands": obj("the effective commands (project.toml [commands])", {
            key: s(f"the {key} command") for key in ("build", "correctness", "benchmark", "reference",
                                                     "results")
        }),
        "unfinished_measurements": arr(obj("a run that did not finish (its sample journal)", {
            "round": null(i("its round (null: the journal cannot be read)")),
            "samples_us": arr({"type": "number"}, "the samples it recorded"),
            "planned_runs": i("the runs it planned"),
            "file": s("the journal"),
        }), "runs cut short: `round run --resume` (MCP: round_run resume) goes on from them"),
        "last_write": null(obj("who took the write lock last, for a write that happened", {
            "pid": i("its process"), "host": s("its host"), "command": s("what it did"),
            "since": n("when it took the lock (seconds since the epoch)"), "described": s("in words"),
        })),
    })


def _schemas() -> dict[str, Schema]:
    round_title = ("the round record of round start|changes|measure|run|close|confirm|rerun, "
                   "baseline and amend --json; the MCP tools of the same names")
    found = {
        "round": top("round", round_title, ROUND),
        "status": top("status", "pto-tui status --json; the MCP tool status", _status()),
        "show": top("show", "pto-tui show N --json; the MCP tool show", obj("one round", {
            "record": ROUND,
            "folder": s("its folder, runs/iter-XXX"),
            "tampered": strings("what differs from the record pto-tui closed (empty: nothing)"),
            "rerun_of": null(i("the round this one reruns")),
            "reruns": arr({"type": "integer"}, "the rounds that rerun this one"),
            "verdict_rule": s("the rule its verdict was decided with, in words"),
        })),
        "rounds": top("rounds", "pto-tui rounds --json; the MCP tool rounds", obj("the round table", {
            "rounds": arr({**EXPORT_ROW, "properties": {
                **EXPORT_ROW["properties"],
                "tampered": strings("what differs from the record pto-tui closed"),
            }, "required": [*EXPORT_ROW["required"], "tampered"]}, "one row per round, in order"),
            "missing": arr({"type": "integer"}, "rounds numbered but missing on disk"),
            "unreadable": strings("round records that cannot be read, each with why"),
            "notices": strings("what else the records say"),
        })),
        "export": top("export", "pto-tui export --format json (the file names its format: "
                      "\"schema\": \"pto-tui.rounds/1\")", obj("the round table with each round's "
                      "reproducibility record", {
                          "schema": {"const": "pto-tui.rounds/1", "description": "the file's format"},
                          "operator": s("the operator"),
                          "case": s("the case, described"),
                          "torch_baseline": null(TORCH),
                          "rounds": arr(EXPORT_ROW, "one row per round"),
                      })),
        "demo": top("demo", "pto-tui demo --run --json: the demo campaign run headless", obj(
            "the demo campaign", {
                "project": s("the demo project's folder"),
                "status": _status(),
                "rounds": arr(EXPORT_ROW, "one row per round (as the export's)"),
                "chart": null(s("the summary chart drawn")),
            })),
        "env": top("env", "pto-tui env --json; the MCP tool env", {
            **ENVIRONMENT,
            "properties": {"environment_passed": b("the environment round passed: tuning may start"),
                           **ENVIRONMENT["properties"]},
            "required": ["environment_passed", *ENVIRONMENT["required"]],
        }),
        "torch-baseline": top("torch-baseline", "pto-tui torch-baseline --json; the MCP tool "
                              "torch_baseline", TORCH),
        "explore": top("explore", "pto-tui explore --json: an explore group's rounds as closed, and "
                       "those left open", obj("the explore group", {
                           "group": s("the group's name, after its first round: explore-004"),
                           "knob": s("the tunable the group explores"),
                           "based_on": i("the round every round of the group is based on and judged "
                                         "against"),
                           "slots": i("how many rounds ran at once at most (a slurm target: one per "
                                      "round, Slurm places the jobs)"),
                           "rounds": arr(ROUND, "the rounds closed now, in order"),
                           "interrupted": arr(obj("a round whose run stopped", {
                               "round": i("the round"), "why": s("why its run stopped (a lost or "
                                                                "refused job): left open, its samples kept"),
                           }), "rounds left open"),
                       })),
        "jobs": top("jobs", "pto-tui jobs --json: the project's jobs, oldest first",
                    obj("the project's jobs", {"jobs": arr(_job_listed(), "oldest first")}), version=2),
        "exec": top("exec", "the MCP tool exec: a command run on the project's target", obj(
            "the command's outcome (`pto-tui exec` prints its output itself)", {
                "exit_code": null(i("the command's exit code (null: it did not finish); the result "
                                    "is an error when it is not 0")),
                "state": s("the job's state as shown (succeeded, failed, timed_out, ...)"),
                "job": JOB,
                "stdout": s("its standard output's last lines"),
                "stderr": s("its standard error's last lines"),
                "notes": strings("what pto-tui said about the job (sync, timeout)"),
                "synced": b("the workspace was uploaded first"),
            })),
    }
    return {**found, **MORE}


def render(schema: Schema) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for name, schema in _schemas().items():
        path = DOCS / f"{name}.schema.json"
        text = render(schema)
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}; run .venv/bin/python scripts/json_schemas.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
