"""Writing a fresh project.toml: commented so a person can edit it by hand."""

from __future__ import annotations

from collections.abc import Mapping

import tomlkit

from pto_tui.core.project.config import (
    SCHEMA_VERSION,
    CaseConfig,
    CostmodelConfig,
    Discipline,
    OperatorConfig,
    Target,
    Tunable,
)
from pto_tui.core.vocabulary import DEFAULT_PHASES


def new_project_document(
    operator: OperatorConfig,
    case: CaseConfig,
    tunables: list[Tunable],
    target: Target,
    costmodel: CostmodelConfig,
    commands: Mapping[str, str] | None = None,
) -> str:
    """The text of a fresh project.toml, commented so a person can edit it by hand."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment("pto-tui project file. Edit freely: comments and key order are kept."))
    doc.add(tomlkit.comment("Commands default per operator kind; set [commands] keys to override."))
    doc.add("schema", SCHEMA_VERSION)

    op = tomlkit.table()
    op.add("name", operator.name)
    op.add("kind", operator.kind.value)
    op.add("source", operator.source)
    if operator.entry:
        op.add("entry", operator.entry)
    if operator.family:
        op.add("family", operator.family)
    if operator.demo:
        op.add("demo", True)
    doc.add("operator", op)

    c = tomlkit.table()
    c.add(
        tomlkit.comment(
            "The workload. Fixed for the campaign: changing it invalidates comparisons."
        )
    )
    if case.name:
        c.add("name", case.name)
    c.add("dtype", case.dtype)
    c.add("causal", case.causal)
    if case.spec:
        c.add("spec", case.spec)
    shape = tomlkit.table()
    for key, value in case.shape.items():
        shape.add(key, value)
    c.add("shape", shape)
    if case.options:
        options = tomlkit.table()
        for key, value in case.options.items():
            options.add(key, value)
        c.add("options", options)
    doc.add("case", c)

    tun = tomlkit.table()
    tun.add(
        tomlkit.comment("Tunable parameters found in the source: current value, allowed values.")
    )
    for t in tunables:
        entry = tomlkit.inline_table()
        entry.add("value", t.value)
        entry.add("kind", t.kind)
        if t.default is not None:
            entry.add("default", t.default)
        if t.allowed:
            entry.add("allowed", list(t.allowed))
        if t.where:
            entry.add("where", t.where)
        tun.add(t.name, entry)
    doc.add("tunables", tun)

    if commands:
        cmd = tomlkit.table()
        cmd.add(tomlkit.comment("Declared by the operator; {placeholders} are filled in shell-quoted."))
        for key, value in commands.items():
            cmd.add(key, value)
        doc.add("commands", cmd)

    tgt = tomlkit.table()
    tgt.add(
        tomlkit.comment(
            'kind = "local" runs here; kind = "ssh" needs host (an SSH config alias) and work_dir.'
        )
    )
    tgt.add("kind", target.kind)
    if target.host:
        tgt.add("host", target.host)
    if target.work_dir:
        tgt.add("work_dir", target.work_dir)
    tgt.add("env_setup", target.env_setup)
    tgt.add("npu_id", target.npu_id)
    if target.ssh_config:
        tgt.add("ssh_config", target.ssh_config)
    doc.add("target", tgt)

    cm = tomlkit.table()
    cm.add("enabled", costmodel.enabled)
    cm.add("engine", costmodel.engine)
    cm.add("pto_isa", costmodel.pto_isa)
    cm.add("tool", costmodel.tool)
    cm.add("compiler", costmodel.compiler)
    doc.add("costmodel", cm)

    d = Discipline()
    disc = tomlkit.table()
    disc.add(
        tomlkit.comment("How measurements become verdicts; fractions are relative to the median.")
    )
    disc.add("repeats", d.repeats)
    disc.add("warmup", d.warmup)
    disc.add("noise_floor", d.noise_floor)
    disc.add("max_spread", d.max_spread)
    disc.add("review_gain", d.review_gain)
    doc.add("discipline", disc)

    ph = tomlkit.table()
    ph.add("names", list(DEFAULT_PHASES))
    ph.add("current", DEFAULT_PHASES[0])
    doc.add("phases", ph)
    return tomlkit.dumps(doc)
