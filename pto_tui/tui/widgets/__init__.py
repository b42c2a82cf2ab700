"""One pane per module."""
