"""The Textual front end of pto-tui. Nothing outside this package imports Textual."""

import os

# Bound the redraw rate before Textual reads it at import time: over a slow SSH link the
# bytes sent follow the redraw rate, not the line rate (docs/architecture.md §7). A user's own
# TEXTUAL_FPS still wins.
os.environ.setdefault("TEXTUAL_FPS", "30")
