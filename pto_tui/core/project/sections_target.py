"""[target] in project.toml: where jobs run (its target kind, and the host and work dir
of a kind that reaches another machine) and what they run there (its mode). A new
target kind adds its keys and their checks here (docs/architecture.md §8)."""

from __future__ import annotations

from pto_tui.core.project.config import Target
from pto_tui.core.project.schema import BOOLEAN, INTEGER, STRING, Check, Key, Range, Section, Written
from pto_tui.core.vocabulary import TargetKind, TargetMode

TARGET_KINDS = tuple(kind.value for kind in TargetKind)
TARGET_MODES = tuple(mode.value for mode in TargetMode)
PREDICTORS = ("", TargetMode.PERF_SIM.value)  # [target] predict: none, or perf_sim's cycles
PREDICTOR_ERROR = 'unknown predictor {value!r}; expected perf-sim (or "" for none)'

TARGET = Section(
    "target",
    'kind = "local" runs here; kind = "ssh" needs host (an SSH config alias) and work_dir.',
    keys=(
        Key(
            "kind",
            STRING,
            "where jobs run: this machine, or an SSH host",
            Target.kind,
            choices=TARGET_KINDS,
            choice_error="unknown target kind {value!r}; expected " + " or ".join(map(repr, TARGET_KINDS)),
        ),
        Key(
            "host",
            STRING,
            "SSH alias (HostName, User, Port, IdentityFile, ProxyJump come from config)",
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
    ),
    commented=True,
)
