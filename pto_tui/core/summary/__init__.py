"""The campaign's summary: the two-panel chart and the Markdown campaign report.

Owns: what the chart shows (`chart_model`, pure), drawing it (`chart`, matplotlib), its
fonts, and `REPORT.md` (`campaign_report`).
May import: everything else in core.
"""
