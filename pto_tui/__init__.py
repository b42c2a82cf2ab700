"""pto-tui: a terminal workbench for optimising PTO operators on Ascend NPUs."""

__version__ = "0.1.0"
