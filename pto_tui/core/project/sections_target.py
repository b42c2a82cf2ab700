"""[target] in project.toml: where jobs run (its target kind, and the host and work dir
of a kind that reaches another machine), what they run there (its mode), and [target.slurm],
how a Slurm target asks for its jobs. A new target kind adds its keys and their checks here
(docs/architecture.md §8)."""

from __future__ import annotations

import re

from pto_tui.core.project.config import SLURM_BUILD_PLACES, SlurmSettings, Target
from pto_tui.core.project.schema import (
    BOOLEAN,
    INTEGER,
    LIST,
    STRING,
    STRINGS,
    TABLE,
    Check,
    Condition,
    Key,
    Range,
    Section,
    Written,
)
from pto_tui.core.vocabulary import TargetKind, TargetMode

TARGET_KINDS = tuple(kind.value for kind in TargetKind)
TARGET_MODES = tuple(mode.value for mode in TargetMode)
PREDICTORS = ("", TargetMode.PERF_SIM.value)  # [target] predict: none, or perf_sim's cycles
PREDICTOR_ERROR = 'unknown predictor {value!r}; expected perf-sim (or "" for none)'

# sbatch's own forms: a gres is name[:type]:count; a time is minutes, [D-]H:M[:S] or M:S
_GRES = re.compile(r"^[A-Za-z][\w.-]*(:[\w.-]+)?(:\d+)?$")
_TIME = re.compile(r"^(\d+-)?\d+(:\d+){0,2}$")
_NAME = re.compile(r"^[\w.,+-]*$")


def _npu_ids(ids: list[object]) -> bool:
    numbers = [i for i in ids if isinstance(i, int) and not isinstance(i, bool) and i >= 0]
    return len(numbers) == len(ids) == len(set(numbers))


def _sbatch_options(options: list[object]) -> bool:
    return all(isinstance(o, str) and o.startswith("-") and "\n" not in o for o in options)


SLURM_KEYS = (
    Key("partition", STRING, "sbatch --partition; empty: the cluster's default", SlurmSettings.partition,
        condition=Condition(lambda v: bool(_NAME.match(v)), "invalid partition {value!r}",
                            "a partition name")),
    Key("gres", STRING, "sbatch --gres of a step that needs an NPU, e.g. npu:1 (Ascend "
        "clusters name the resource npu; some count davinci cards)", SlurmSettings.gres,
        condition=Condition(lambda v: bool(_GRES.match(v)),
                            "invalid gres {value!r}; expected name[:type]:count, e.g. npu:1",
                            "name[:type]:count")),
    Key("time_limit", STRING, "sbatch --time of each job: minutes, H:M:S or D-H:M:S; empty: the "
        "partition's default", SlurmSettings.time_limit,
        condition=Condition(lambda v: not v or bool(_TIME.match(v)), "invalid time_limit {value!r}; expected "
                  "minutes, H:M:S or D-H:M:S", "minutes, H:M:S or D-H:M:S")),
    Key("account", STRING, "sbatch --account", SlurmSettings.account,
        condition=Condition(lambda v: bool(_NAME.match(v)), "invalid account {value!r}", "an account name")),
    Key("options", STRINGS, "further sbatch options, one argument each, e.g. [\"--qos=high\"]",
        SlurmSettings.options,
        condition=Condition(_sbatch_options, "options must be sbatch options (each a string starting with -)",
                  "sbatch options")),
    Key("build", STRING, "where builds run: on the login node, or in a job of their own (no NPU asked)",
        SlurmSettings.build, choices=SLURM_BUILD_PLACES,
        choice_error="unknown build place {value!r}; expected login or job"),
    Key("same_node", BOOLEAN, "run every NPU step on the node the baseline ran on (sbatch --nodelist), "
        "so rounds never compare runs from different nodes", SlurmSettings.same_node),
)

TARGET = Section(
    "target",
    'kind = "local" runs here; kind = "ssh" needs host (an SSH config alias) and work_dir; '
    'kind = "slurm" submits NPU steps to a Slurm cluster ([target.slurm]) from its login node '
    "(host, or this machine).",
    keys=(
        Key(
            "kind",
            STRING,
            "where jobs run: this machine, an SSH host, or a Slurm cluster from its login node",
            Target.kind,
            choices=TARGET_KINDS,
            choice_error="unknown target kind {value!r}; expected " + " or ".join(map(repr, TARGET_KINDS)),
        ),
        Key(
            "host",
            STRING,
            "SSH alias (HostName, User, Port, IdentityFile, ProxyJump come from config); for a "
            "slurm target, its login node (empty: this machine is the login node)",
            Target.host,
            written=Written.IF_SET,
        ),
        Key(
            "work_dir",
            STRING,
            "remote work dir; for local, empty means the project's workspace/",
            Target.work_dir,
            written=Written.IF_SET,
        ),
        Key("env_setup", STRING, 'prefixed to every command, e.g. "source .../set_env.sh"', Target.env_setup),
        Key(
            "npu_id",
            INTEGER,
            "the NPU jobs run on",
            Target.npu_id,
            range=Range(low=0, message="npu_id must be 0 or more"),
        ),
        Key(
            "npu_ids",
            LIST,
            "the NPUs of this host `explore` measures candidates on at once, e.g. [0, 1, 2, 3] "
            "(empty: npu_id alone; a slurm target asks Slurm for each instead)",
            Target.npu_ids,
            condition=Condition(_npu_ids, "npu_ids must list distinct NPU numbers, 0 or more",
                                "distinct NPU numbers"),
            written=Written.IF_SET,
        ),
        Key(
            "ssh_config",
            STRING,
            "an SSH config file to use instead of ~/.ssh/config",
            Target.ssh_config,
            written=Written.IF_SET,
        ),
        Key(
            "mode",
            STRING,
            "what the target runs: npu (Bisheng, CANN, an NPU), cpu-sim (pto-isa's CPU simulation, "
            "tile-lib only: timings are the host's wall-clock time of the simulation), perf-sim "
            "(pto-isa's perf_sim cycle model, tile-lib only: samples are cycles, correctness from "
            "the CPU simulation) or demo (the "
            "built-in CPU demo operators); default demo for a demo operator, else npu",
            Target.mode,
            choices=TARGET_MODES,
            choice_error="unknown target mode {value!r}; expected one of: " + ", ".join(TARGET_MODES),
        ),
        Key(
            "compiler",
            STRING,
            "the C++ compiler of a cpu-sim build, {compiler} in commands (e.g. clang++-16)",
            Target.compiler,
            written=Written.IF_SET,
        ),
        Key(
            "cxx_flags",
            STRING,
            "compile and link flags of a cpu-sim build, {cxx_flags} in commands "
            '(e.g. "-stdlib=libc++ -fexperimental-library")',
            Target.cxx_flags,
            written=Written.IF_SET,
        ),
        Key("perf_sim_compiler", STRING, "the C++ compiler of a perf-sim build's perf_sim driver (C++23, "
            "pto-isa's costmodel headers; g++ needs no libc++)", Target.perf_sim_compiler,
            written=Written.IF_SET),
        Key("predict", STRING, "perf-sim: each round of an npu or cpu-sim target (tile-lib) also records "
            "the cycles pto-isa's perf_sim counts for its configuration beside its measurement "
            "(docs/formats.md §14)",
            Target.predict, choices=PREDICTORS, choice_error=PREDICTOR_ERROR, written=Written.IF_SET),
        Key(
            "forward_agent",
            BOOLEAN,
            "forward your ssh-agent to the SSH host for jobs (its SSH_AUTH_SOCK lets commands "
            "there use your keys); off by default whatever ForwardAgent says in the SSH "
            "config; X11 forwarding is always off",
            Target.forward_agent,
            written=Written.IF_SET,
        ),
        Key("slurm", TABLE, "a slurm target's job options (the keys below)", Target.slurm,
            table=SLURM_KEYS, written=Written.IF_SET),
    ),
    checks=(
        Check(
            "host",
            lambda t: t["kind"] != TargetKind.SSH or bool(t["host"]),
            "an ssh target needs 'host' (an alias from your SSH config)",
        ),
        Check(
            "work_dir",
            lambda t: t["kind"] != TargetKind.SSH or bool(t["work_dir"]),
            "an ssh target needs 'work_dir' (the remote work directory)",
        ),
        Check(
            "work_dir",
            lambda t: t["kind"] != TargetKind.SLURM or not t["host"] or bool(t["work_dir"]),
            "a slurm target reached over SSH needs 'work_dir' (a folder the login node and the "
            "compute nodes share)",
        ),
    ),
    commented=True,
)
