"""Round records built in memory for the chart, export and report tests."""

from __future__ import annotations

from pto_tui.core.rounds.records import (
    CLOSED,
    OPEN,
    Changes,
    EnvironmentNotes,
    Measurement,
    ParamChange,
    PreEdit,
    Round,
    TorchBaseline,
)
from pto_tui.core.vocabulary import ChangeKind, Verdict

PHASES = ("baseline", "costmodel-guided", "parameter validation", "fine-tune")
TORCH = TorchBaseline(avg_us=180.0, min_us=175.0, max_us=190.0, tflops=95.5, runs=10, warmup=5)


def samples(median: float) -> list[float]:
    """Three repeats around a median (the median is exact)."""
    return [median * 0.995, median, median * 1.004]


def make_round(
    number: int,
    verdict: Verdict | None,
    median: float | None,
    *,
    phase: str = "costmodel-guided",
    title: str = "",
    build: str = "ok",
    correctness: str = "pass",
    params: dict[str, tuple[int, int]] | None = None,
    files: list[str] | None = None,
    status: str = CLOSED,
) -> Round:
    params = params or {}
    return Round(
        number=number,
        status=status,
        phase=phase,
        title=title or f"hypothesis {number}",
        pre_edit=PreEdit(
            kernel="fa_tilelib",
            bottleneck="bad tile shape",
            evidence=f"evidence {number}",
            hypothesis=f"full hypothesis of round {number}",
            why_ascend="fills the cube unit",
        ),
        changes=Changes(
            kind=ChangeKind.TEMPLATE_PARAMETER if params else ChangeKind.CODE,
            files=files if files is not None else ([] if params else ["workspace/kernel/fa.cpp"]),
            parameters=[ParamChange(k, old, new) for k, (old, new) in params.items()],
            parameter_values={"BASE_M": 64, "BASE_N": 128, **{k: new for k, (_o, new) in params.items()}},
            based_on=max(number - 1, 0) if number else None,
        ),
        measurement=Measurement(
            build=build,
            correctness=correctness if build == "ok" else "",
            samples_us=samples(median) if median is not None else [],
            reference_us=[1000.0, 1001.0],
            tflops=12.5 if median is not None else None,
            reports=[f"runs/iter-{number:03d}/report.csv"] if median is not None else [],
            problem="" if median is not None else "error: undefined symbol",
            fingerprint="fp-abc123",
        ),
        verdict=verdict,
        verdict_reason=f"reason {number}",
        analysis=f"analysis of round {number}",
        next=f"next after {number}",
        stability="stable",
    )


def baseline(median: float = 1000.0) -> Round:
    r = make_round(0, None, median, phase="baseline", title="baseline")
    r.environment = EnvironmentNotes(
        versions={"cann": "8.0.RC3", "bisheng": "1.2.3"}, build_outcome="ok", passed=True
    )
    r.changes = Changes(parameter_values={"BASE_M": 64, "BASE_N": 128})
    return r


K, N, F, INC = Verdict.KEPT, Verdict.NEUTRAL, Verdict.FAILURE, Verdict.INCONCLUSIVE


def eight_rounds() -> list[Round]:
    """Baseline + 7 rounds: every verdict, a failed build, a CJK title, two phases."""
    return [
        baseline(1000.0),
        make_round(1, K, 700.0, title="增大 tile BASE_M 到 128", params={"BASE_M": (64, 128)}),
        make_round(2, N, 705.0, title="double buffer the K loop"),
        make_round(3, F, None, build="failed", title="bigger UB tile"),
        make_round(4, K, 450.0, title="合并小搬运", phase="parameter validation"),
        make_round(5, INC, 440.0, title="remove a barrier", phase="parameter validation"),
        make_round(6, F, 300.0, correctness="fail", title="reorder", phase="fine-tune"),
        make_round(7, K, 400.0, title="BLOCK_DIM 8", phase="fine-tune", params={"BLOCK_DIM": (4, 8)}),
    ]


def forty_rounds() -> list[Round]:
    """Baseline + 39 rounds, mostly neutral/failure runs between a few kept rounds."""
    kept = {3: 800.0, 9: 620.0, 10: 560.0, 18: 400.0, 27: 300.0, 35: 240.0}
    phases = [
        (0, "baseline"),
        (1, "costmodel-guided"),
        (15, "parameter validation"),
        (30, "fine-tune"),
    ]
    rounds = [baseline(1000.0)]
    best = 1000.0
    for n in range(1, 40):
        phase = [p for start, p in phases if n >= start][-1]
        if n in kept:
            best = kept[n]
            rounds.append(make_round(n, K, best, phase=phase, title=f"gain {n}"))
        elif n % 5 == 0:
            rounds.append(make_round(n, F, None, build="failed", phase=phase))
        elif n % 7 == 0:
            rounds.append(make_round(n, INC, best * 0.99, phase=phase))
        else:
            rounds.append(make_round(n, N, best * (1.01 + (n % 3) * 0.02), phase=phase))
    return rounds


def open_round(number: int) -> Round:
    return make_round(number, None, None, build="", status=OPEN)


def many_rounds(count: int, kept_every: int = 3) -> list[Round]:
    """Baseline + `count` rounds, a kept round (each a little faster) every `kept_every`:
    far more kept rounds than a short campaign's axis shows."""
    rounds = [baseline(1000.0)]
    best = 1000.0
    for n in range(1, count + 1):
        if n % kept_every == 0:
            best *= 0.999
            rounds.append(make_round(n, K, best, title=f"gain {n}"))
        elif n % 11 == 0:
            rounds.append(make_round(n, F, None, build="failed"))
        else:
            rounds.append(make_round(n, N, best * 1.01))
    return rounds
