"""A change's cost, measured on the code before it and with it in one session (the machine's drift left out)."""

from __future__ import annotations

from typing import Any

from bench.report.results import Cost
from bench.report.results import headline as headline_rows
from bench.report.tables import markdown_table

SIDE_BY_SIDE_PATHS = ("attempt_ok", "attempt_ok_one_endpoint", "attempt_fail_sqs", "attempt_ok_after_failure", "defer_ratelimit")


SIDE_BY_SIDE_UNITS = (
    ("dynamodb_write_units", "WRU", "{:.2f}"),
    ("dynamodb_read_units", "RRU", "{:.2f}"),
    ("dynamodb_stored_bytes", "stored bytes", "{:,.0f}"),
    ("lambda_gb_seconds", "Lambda GB-s", "{:.4f}"),
)


def side_by_side(before: dict[str, Any], after: dict[str, Any], commit: str, change: str, measured_at: str) -> dict[str, Any]:
    """Two cost sections measured one after the other on one machine, on the code before a change (`commit`) and
    with it: what `side_by_side_section` shows, kept as measured (a later run's cost section may differ in its model)."""

    def paths(cost: dict[str, Any]) -> dict[str, Any]:
        return {p: cost["per_path"]["1KB"][p]["units"] for p in SIDE_BY_SIDE_PATHS if p in cost["per_path"]["1KB"]}

    return {
        "commit": commit,
        "change": change,
        "measured_at": measured_at,
        "before": {"per_million_usd": headline_rows(before), "per_path_units": paths(before)},
        "after": {"per_million_usd": headline_rows(after), "per_path_units": paths(after)},
    }


def side_by_side_section(cost: Cost) -> list[str]:
    """A change's cost: the benchmark run on the code before it and with it, on the same machine in one session, so
    the machine's drift between sessions is left out."""
    found = cost.get("side_by_side")
    if not found or "before" not in found:
        return []
    before, after = found["before"], found["after"]
    totals = [
        [key, f"${b['total']:.4f}", f"${after['per_million_usd'][key]['total']:.4f}", f"{after['per_million_usd'][key]['total'] - b['total']:+.4f}"]
        for key, b in before["per_million_usd"].items()
        if key in after["per_million_usd"]
    ]
    one = "1KB/98.5%/batch"
    b1, a1 = before["per_million_usd"].get(one), after["per_million_usd"].get(one)
    lines = sorted(set(b1["breakdown"]) | set(a1["breakdown"])) if b1 and a1 else []
    breakdown = [[line, f"${b1['breakdown'].get(line, 0):.4f}", f"${a1['breakdown'].get(line, 0):.4f}"] for line in lines] if b1 and a1 else []
    units = [
        [path, label, fmt.format(before["per_path_units"][path].get(unit, 0)), fmt.format(after["per_path_units"][path].get(unit, 0))]
        for path in SIDE_BY_SIDE_PATHS
        if path in before["per_path_units"] and path in after["per_path_units"]
        for unit, label, fmt in SIDE_BY_SIDE_UNITS
    ]
    return [
        f"### A change against the code before it, measured side by side ({found['change']})",
        "",
        f"The same cost benchmark ran on commit {found['commit']} and with the change, one after the other on this machine "
        f"({found['measured_at']}), so the difference is the change's, not the machine's drift between sessions. Both as measured "
        "then: the sections above are this run's.",
        "",
        markdown_table(["configuration", f"before ({found['commit']})", "with the change", "change (USD per million)"], totals),
        "",
        f"Lines of {one} (USD per million delivered):",
        "",
        markdown_table(["line", "before", "with the change"], breakdown),
        "",
        "Units per task of the measured paths (1 KB):",
        "",
        markdown_table(["path", "unit", "before", "with the change"], units),
        "",
    ]
