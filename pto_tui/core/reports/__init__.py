"""Parsers of what operators' benchmarks write: `report.json`, `report.csv`, printed output.

Owns: turning a benchmark's files into a `BenchResult`, every malformed input a
`ReportError` naming the file and key. Pure functions. `parsers` is the entry point
(report.json dispatch, the flat schema, PTO-tile-lib output and report.csv);
`runner_report` reads the pto-kernels runner's schema (outcome from `pto.benchmark`,
dry runs, `variant_reports`); `result` holds the records, `fields` the typed JSON reads.
May import: the core base.
"""
