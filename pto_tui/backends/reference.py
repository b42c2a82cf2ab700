"""The torch_npu baseline (docs/workflow.md §7): the PyTorch reference for the case, on the
target, >= 5 warm-up and >= 10 timed runs with device synchronisation.

The project's `commands.reference` runs when set (the demo uses a CPU stand-in, labelled
as such); otherwise a scaled_dot_product_attention script is generated for the case.
Either must print one JSON line with avg_us, min_us, max_us (and tflops, label).
"""

from __future__ import annotations

import json

from pto_tui.backends.loop import case_flops, site_for
from pto_tui.backends.site import EventSink
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.operators.case_strings import ATTENTION_DIMS, attention_dims
from pto_tui.core.project.limits import BENCHMARK
from pto_tui.core.rounds.records import TorchBaseline
from pto_tui.jobs.model import NEEDS_NPU
from pto_tui.jobs.runner import JobRunner

MIN_WARMUP = 5
MIN_RUNS = 10

_SDPA_SCRIPT = """\
import json, time
import torch, torch_npu  # noqa: F401  (registers the NPU device)
B, N, SQ, SKV, D = {b}, {n}, {sq}, {skv}, {d}
dtype = getattr(torch, {dtype!r})
dev = "npu:{npu}"
q = torch.randn(B, N, SQ, D, dtype=dtype, device=dev)
k = torch.randn(B, N, SKV, D, dtype=dtype, device=dev)
v = torch.randn(B, N, SKV, D, dtype=dtype, device=dev)
f = torch.nn.functional.scaled_dot_product_attention
for _ in range({warmup}):
    f(q, k, v, is_causal={causal})
torch.npu.synchronize()
times = []
for _ in range({runs}):
    start = torch.npu.Event(enable_timing=True)
    end = torch.npu.Event(enable_timing=True)
    start.record()
    f(q, k, v, is_causal={causal})
    end.record()
    torch.npu.synchronize()
    times.append(start.elapsed_time(end) * 1000.0)  # ms -> us
avg = sum(times) / len(times)
print(json.dumps({{"label": "torch_npu scaled_dot_product_attention", "avg_us": avg,
    "min_us": min(times), "max_us": max(times), "tflops": {flops} / (avg * 1e-6) / 1e12,
    "warmup": {warmup}, "runs": {runs}}}))
"""


def sdpa_command(campaign: Campaign) -> str:
    """A generated torch_npu SDPA benchmark for an attention-shaped case."""
    case = campaign.config.case
    # [case.shape], or the case string's fields by the operator's format (B = N = 1 for the
    # tile-lib flash attention); a spec that does not fit its format raises, naming the field
    dims = attention_dims(case, campaign.config.operator)

    def dim(name: str, default: int | None = None) -> int:
        if name in dims:
            return dims[name]
        if default is None:
            also = ", ".join(ATTENTION_DIMS[name][1:])
            raise InputError(
                f"cannot build the torch_npu reference: the case has no {ATTENTION_DIMS[name][0]} "
                f"(nor {also}; set [case.shape], a case spec the operator's format reads, a variant "
                "with those fields, or commands.reference in project.toml)"
            )
        return default

    flops = case_flops(case, campaign.config.operator)
    dtype = {
        "float16": "float16",
        "fp16": "float16",
        "half": "float16",
        "bfloat16": "bfloat16",
        "bf16": "bfloat16",
        "float32": "float32",
        "float": "float32",
    }.get(case.dtype)
    if dtype is None:
        raise InputError(f"unsupported dtype for the torch reference: {case.dtype!r}")
    script = _SDPA_SCRIPT.format(
        b=dim("b", default=1),
        n=dim("n", default=1),
        sq=dim("sq"),
        skv=dim("skv"),
        d=dim("d"),
        dtype=dtype,
        npu=campaign.config.target.npu_id,
        causal=bool(case.causal),
        warmup=max(MIN_WARMUP, campaign.config.discipline.warmup),
        runs=MIN_RUNS,
        flops=flops or 0.0,
    )
    return f"python3 - <<'PTO_TUI_REFERENCE'\n{script}PTO_TUI_REFERENCE"


def parse_reference_output(lines: list[str]) -> TorchBaseline:
    """The last JSON line with avg_us/min_us/max_us."""
    for line in reversed(lines):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
            baseline = TorchBaseline(
                avg_us=float(data["avg_us"]),
                min_us=float(data["min_us"]),
                max_us=float(data["max_us"]),
                tflops=float(data["tflops"]) if data.get("tflops") is not None else None,
                label=str(data.get("label", "torch_npu")),
                warmup=int(data.get("warmup", 0)),
                runs=int(data.get("runs", 0)),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise PtoError(f"reference output is not a valid result: {error!r}: {line[:200]}") from None
        if not 0 < baseline.min_us <= baseline.avg_us <= baseline.max_us:
            raise PtoError(f"reference numbers are inconsistent (min <= avg <= max): {line[:200]}")
        if baseline.runs and (baseline.runs < MIN_RUNS or baseline.warmup < MIN_WARMUP):
            raise PtoError(
                f"the reference used {baseline.warmup} warm-up and {baseline.runs} timed runs; "
                f"at least {MIN_WARMUP} and {MIN_RUNS} are required"
            )
        return baseline
    raise PtoError("the reference printed no JSON result line (avg_us, min_us, max_us)")


async def run_reference(
    campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None
) -> TorchBaseline:
    with campaign.running(None, "torch baseline"):  # it uploads the workspace
        return await _reference(campaign, runner, on_event)


async def _reference(campaign: Campaign, runner: JobRunner, on_event: EventSink | None) -> TorchBaseline:
    site = site_for(campaign, runner, on_event)
    site.for_round(0)  # the reference belongs with the baseline's records
    await site.sync()
    template = campaign.config.commands.reference
    command = site.render(template, {}) if template else sdpa_command(campaign)
    # a benchmark of its own: under the benchmark limit (timing out raises, naming it)
    out = await site.run("torch_npu baseline", command, timeout=await site.limit(BENCHMARK), needs=NEEDS_NPU)
    if not out.ok:
        raise PtoError(f"the reference benchmark failed (exit code {out.record.exit_code}): {out.tail(4)}")
    baseline = parse_reference_output(out.stdout)
    campaign.set_torch_baseline(baseline)
    return baseline
