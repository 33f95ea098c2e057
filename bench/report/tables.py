"""Markdown tables, and whose run a section's figures are."""

from __future__ import annotations

from typing import Any

from bench.report.results import Scenario


def markdown_table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def compare(result: Scenario, keys: list[tuple[str, str]]) -> str:
    rows = []
    for key, label in keys:
        h, b = result["hookline"].get(key), result["baseline"].get(key)
        ratio = result["ratio"].get(key, "")
        rows.append([label, h, b, ratio])
    return markdown_table(["", "hookline", "naive baseline", "ratio"], rows)


def measured_by(found: dict[str, Any], made: str) -> str:
    """Whose run a section's figures are: `make bench`'s (`made`), or the module's own run into an earlier results file."""
    if "command" not in found:
        return made
    return (
        f"Measured by `{found['command']}` on {found['generated_at']} ({found['machine']}, {found['seconds']} s),"
        " into the results of the `make bench` run above."
    )
