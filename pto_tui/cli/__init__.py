"""The `pto-tui` command: the TUI by default, headless sub-commands for scripts and agents."""
