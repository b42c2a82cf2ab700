"""The MCP server (`pto-tui mcp`): pto-tui's commands as tools for a coding agent.

A coding agent (Claude Code, Codex, Cursor, ...) speaks the Model Context Protocol over
stdio; each tool calls the same core, backend and costmodel functions the CLI calls, so
every rule the CLI enforces refuses the agent too, and each refusal comes back as a
structured error naming the rule and the fix. Writing tools take the project lock for
the length of one call only: the agent's writes and a person's never interleave.

Modules: `envelope` (results and structured errors), `inputs` (the tools' argument
records and their conversion to core records), `progress` (step events as progress
notifications), `tools_project`, `tools_round`, `tools_summary`, `tools_ledger` (amend,
confirm, phase, rerun, diff), `tools_exec` (the tools, by group),
`resources` (the project's Markdown files), `server` (assembly and the stdio entry).

May import: pto_tui.backends, pto_tui.costmodel, pto_tui.jobs, pto_tui.core and the
`mcp` SDK; never pto_tui.tui or pto_tui.cli (the CLI imports this package).
"""
