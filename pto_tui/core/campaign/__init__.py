"""A project's optimisation campaign, as core calls the CLI and the TUI both drive.

Owns: creating a project (`scaffold` with its `plan` and `requirements`, `demo`), the
round life-cycle (`Campaign`, composed of one module per step: `context` and the ledger's
`read_model`, `opening`, `changes`, `measuring`, `closing`, `amendments`, with the shared
`checks`) and the campaign at a glance (`status`).
May import: `rules`, `rounds`, `operators`, `reports`, `project`, `workspace`, the base.
"""
