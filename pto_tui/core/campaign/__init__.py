"""A project's optimisation campaign, as core calls the CLI and the TUI both drive.

Owns: creating a project (`scaffold`, `demo`), the round life-cycle (`Campaign`: open a
round, record its changes and measurements, close it with a verdict) and the campaign at
a glance (`status`).
May import: `rules`, `rounds`, `operators`, `reports`, `project`, `workspace`, the base.
"""
