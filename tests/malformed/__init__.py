"""The malformed-input driver: project.toml, case strings, reports, round records and the
CLI fed input that must be refused with a named error.

Each test counts the inputs it fed and asserts at least its share in MINIMUM, so the
driver cannot silently shrink; together the shares are at least 500 inputs."""

MINIMUM = {
    "project keys": 230,
    "project cut short": 150,
    "project not UTF-8": 100,
    "project nesting and numbers": 12,
    "case strings": 120,
    "report.json": 120,
    "report.csv": 23,
    "round records": 40,
    "cli new": 30,
    "cli reading": 40,
}
