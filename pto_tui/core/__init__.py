"""The domain: project files, operator scan, iteration ledger, rules. No Textual, no SSH."""
