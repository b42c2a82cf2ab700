"""Parsers of what operators' benchmarks write: `report.json`, `report.csv`, printed output.

Owns: turning a benchmark's files into a `BenchResult`, every malformed input a
`ReportError` naming the file and key. Pure functions.
May import: the core base.
"""
