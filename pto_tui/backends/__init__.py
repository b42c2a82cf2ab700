"""Operator backends and the loop's services: environment round, baseline, rounds,
torch_npu reference. asyncio + the job layer; no Textual."""
