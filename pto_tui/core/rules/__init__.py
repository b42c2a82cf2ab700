"""The workflow's rules: every rule in one place, as pure functions; each finding names
its rule.

A rule (`rule.Rule`: its id, what it refuses, where it is enforced, its fix) is declared
in the module that checks it, beside its check functions; the campaign's steps gather
what a check looks at, call it and refuse with `rule.refuse(findings)`, the only place
a RuleViolation is raised. `registry.RULES` lists them all (docs/rules.md is generated
from it by scripts/rules_doc.py), and `reasons` is the one check of every reason a rule
asks for.

Owns, by rule: the order of the loop (`sequence`), the Pre-Edit form and the declared
scope (`pre_edit`), protected files, tolerances and discipline (`protected`), high-risk
changes (`risk`), the same workload (`workload`), correctness before performance and a
valid baseline (`measurement`), the open round's record (`open_round`), an honest
verdict and the review of large gains (`review`), an honest history and reruns
(`history`), one owner per running round (`ownership`). Their tools: glob matching and
protected-file hashes (`scope`), the verdict statistics (`verdict`, `comparison`: where
kept, neutral, failure or inconclusive is decided).
May import: `rounds` (the records), `operators`, `reports`, `project`, `workspace`, the
core base.
"""
