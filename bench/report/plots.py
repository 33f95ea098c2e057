"""The report's plots (PNG files beside docs/benchmarks.md), one function per figure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

from bench.report.results import Cost, Scenario, Throughput

COLORS = {"hookline": "#1f77b4", "baseline": "#d62728", "seed": "#7f7f7f"}

# The flaky-receivers scenario's specified table: cumulative success by attempt at a 30 % failure rate (attempt 6 is its DLQ step).
FLAKY_TABLE_CUMULATIVE = [0.70, 0.91, 0.973, 0.9919, 0.9975, 1.0]


def _both_modes(ax: Any, r: Scenario, x: Callable[[dict[str, Any]], float], y: Callable[[dict[str, Any]], float], label: str = "{mode}", **style: Any) -> None:
    """One line per mode (hookline, baseline) from the scenario's time series."""
    for mode in ("hookline", "baseline"):
        s = r[mode]["series"]
        ax.plot([x(p) for p in s], [y(p) for p in s], label=label.format(mode=mode), color=COLORS[mode], **style)


def _save(fig: Any, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def plot_outage(r: Scenario, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(8, 4))
    _both_modes(ax, r, lambda p: p["minute"], lambda p: max(p["healthy_p99_s"], 0.01))
    ax.axvspan(10, 50, color="#eee", label="200 endpoints time out")
    ax.set_yscale("log")
    ax.set(
        xlabel="minute (by event creation)", ylabel="healthy endpoints' p99 latency (s)", title="Outage isolation: healthy deliveries during a 40-minute outage"
    )
    ax.legend()
    return _save(fig, img / "bench-outage-isolation.png")


def plot_storm(r: Scenario, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(8, 4))
    _both_modes(ax, r, lambda p: p["t"] - 600, lambda p: p["rps"])
    ax.axhline(r["hookline"]["limit_rps"], color=COLORS["seed"], linestyle="--", label="configured limit")
    ax.set(
        xlabel="seconds since the receiver recovered",
        ylabel="requests/s seen by the receiver (10 s mean)",
        title="Retry storm: 50,000 queued events after a 10-minute outage",
    )
    ax.legend()
    return _save(fig, img / "bench-retry-storm.png")


def plot_slow(r: Scenario, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(8, 4))
    _both_modes(ax, r, lambda p: p["t"] / 60, lambda p: p["others_backlog"], label="{mode}: 49 fast endpoints' backlog")
    _both_modes(ax, r, lambda p: p["t"] / 60, lambda p: p["slow_backlog"], label="{mode}: slow endpoint's backlog", linestyle=":")
    ax.set(xlabel="minute", ylabel="tasks waiting", title="Slow subscriber: one 900 ms receiver at 4,000 events/min")
    ax.legend(fontsize=8)
    return _save(fig, img / "bench-slow-subscriber.png")


def plot_flaky(r: Scenario, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(8, 4))
    for mode in ("hookline", "baseline"):
        y = r[mode]["cumulative_success_by_attempt"][:8]
        ax.plot(range(1, len(y) + 1), [v * 100 for v in y], marker="o", label=mode, color=COLORS[mode])
    ax.plot(
        range(1, len(FLAKY_TABLE_CUMULATIVE) + 1),
        [v * 100 for v in FLAKY_TABLE_CUMULATIVE],
        marker="s",
        linestyle="--",
        label="the scenario's specified table",
        color=COLORS["seed"],
    )
    ax.set(xlabel="attempt", ylabel="cumulative success (%)", title="Flaky receivers: 50,000 webhooks, 30 % of attempts fail", ylim=(65, 100.5))
    ax.legend()
    return _save(fig, img / "bench-flaky-receivers.png")


def plot_cost(cost: Cost, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels, stacks = [], []
    for size, by_rate in cost["per_million_usd"].items():
        for rate, by_ingest in by_rate.items():
            for ingest, row in by_ingest.items():
                labels.append(f"{size}\n{rate}\n{ingest}")
                stacks.append(row["breakdown"])
    services = sorted({s for b in stacks for s in b}, key=lambda s: -sum(b.get(s, 0) for b in stacks))
    bottom = [0.0] * len(stacks)
    for service in services:
        values = [b.get(service, 0.0) for b in stacks]
        ax.bar(range(len(stacks)), values, bottom=bottom, label=service)
        bottom = [x + y for x, y in zip(bottom, values, strict=True)]
    eb = [row["eventbridge_api_destinations"] for by_rate in cost["per_million_usd"].values() for by_ingest in by_rate.values() for row in by_ingest.values()]
    ax.scatter(range(len(eb)), eb, marker="_", s=600, color="black", label="EventBridge API destinations", zorder=3)
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.set(ylabel="USD per million delivered webhooks", title="Cost per million delivered webhooks (us-east-1 list prices)")
    ax.legend(fontsize=7, ncol=2)
    return _save(fig, img / "bench-cost.png")


def plot_throughput(tp: Throughput, img: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    batches = list(tp["batches"])
    x = range(len(batches))
    ax.bar([i - 0.2 for i in x], [tp["batches"][b]["ideal_per_second"] for b in batches], width=0.4, label="ideal (batch / receiver latency)", color="#ccc")
    ax.bar([i + 0.2 for i in x], [tp["batches"][b]["deliveries_per_second"] for b in batches], width=0.4, label="achieved", color=COLORS["hookline"])
    ax.set_xticks(list(x), [f"batch {b}" for b in batches])
    ax.set(ylabel="deliveries per second", title="One delivery invocation, 100 ms receiver, moto server")
    ax.legend(fontsize=8)
    return _save(fig, img / "bench-throughput.png")
