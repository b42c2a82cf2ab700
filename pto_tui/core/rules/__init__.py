"""The workflow's rules as pure functions; each finding names its rule.

Owns: the gates that refuse a step (`gates`), the editable scope (`scope`), high-risk
change detection (`risk`) and the verdict statistics (`verdict`: where kept, neutral,
failure or inconclusive is decided).
May import: `rounds` (the records), `project`, `workspace`, the core base.
"""
