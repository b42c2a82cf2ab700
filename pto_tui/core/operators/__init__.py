"""Operators in a source tree: finding them, where they sit in their repository, their
cases and their knobs. Pure: reads files (ast for Python, regexes for C++), never runs them.

Owns:
- each operator kind's part in source (`kinds/`: its scan evidence, cases, tunables,
  repository; `kinds/registry.py` lists them);
- the scan: `scan` walks a tree, `evidence` reads each file for a kernel definition,
  `skip_rules` names what is no operator and why, `nesting` folds nested duplicates,
  `candidate` is what the scan lists, `marker` reads `pto-operator.toml`;
- operators inside their repository: `repository` (a PTO-DSL package operator: root,
  family, specs, variants, shape knobs), `operator_sources` and `bench_specs` (reading its
  files), `repository_choices` (its cases and effective commands), `tilelib_repository`
  (the folders a tile-lib operator's CMake reaches);
- knobs: `tunables` (discovery and writing a value back), and for tile-lib operators whose
  cases are generated into an X-macro: `tilelib_generator`, `tilelib_cpp`, `tilelib_trace`,
  `tilelib_knobs` (live or dead, and why), `tilelib_build` (tunables, generator arguments,
  the check that a value reached the build);
- `case_strings`: an operator's case string parsed into named fields.
May import: `project`, `workspace`, the core base.
"""
