"""`make bench`: every benchmark, with a progress bar; writes bench/results.json, docs/benchmarks.md and its plots.

python -m bench            # full scale (a few minutes)
python -m bench --scale 0.05 --out /tmp/bench   # quick look, nothing in the repo touched
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.measurement import api, coldstart, connections, destinations, latency, localmode, ordered, profile, standin, throughput
from bench.models import cost, duration, goals, scale
from bench.report import costs, document, floor
from bench.scenarios import catalog

REPO = Path(__file__).resolve().parent.parent


class Progress:
    """A one-line progress bar on stderr: [#####-----] 5/10 what is running, elapsed."""

    def __init__(self, total: int):
        self.total = total
        self.done = 0
        self.started = time.monotonic()

    def step(self, label: str) -> None:
        self.done = min(self.total, self.done + 1)
        self.show(label)

    def show(self, label: str) -> None:
        width = 30
        filled = round(width * self.done / self.total)
        line = f"\r[{'#' * filled}{'-' * (width - filled)}] {self.done}/{self.total} {time.monotonic() - self.started:5.0f}s  {label[:60]:<60}"
        sys.stderr.write(line)
        sys.stderr.flush()

    def finish(self) -> None:
        sys.stderr.write("\n")


def _goals(results: dict[str, Any]) -> str:
    return goals.printed(goals.rows(results, {r["configuration"]: r["floor"] for r in floor.floor_rows(results["cost"])}))


def _write_scaling(results: dict[str, Any], docs: Path) -> None:
    """docs/scaling.md's table from the scale model; an --out elsewhere gets the table alone."""
    target = docs / "scaling.md"
    if not target.exists():
        target.write_text(scale.rendered(results["scale"]) + "\n")
        return
    scale.write_doc(results["scale"], target)


def _steps(args: argparse.Namespace) -> int:
    """How many steps the progress bar counts."""
    return (
        len(catalog.ALL)
        + len(cost.SIZES) * (4 + args.cpu_runs + 1)
        + len(cost.SIZES) * 2
        + 1
        + 1
        + len(ordered.RECEIVER_MS) * 2
        + len(throughput.BATCHES) * args.runs
        + len(standin.BATCHES)
        + localmode.BATCHES
        + coldstart.RUNS
        + 1
        + latency.STEPS
        + 2
        + 1
        + 1
        + 1
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="scenario size; 1.0 is the seeds' numbers")
    parser.add_argument("--count", type=int, default=30, help="events per measured cost path (a multiple of 10)")
    parser.add_argument("--runs", type=int, default=throughput.RUNS, help="throughput runs per batch size (median kept)")
    parser.add_argument("--cpu-runs", type=int, default=5, help="runs of the handlers' CPU measurement per payload size (the fastest kept)")
    parser.add_argument("--ordered-events", type=int, default=ordered.EVENTS, help="events per run of the ordered endpoint's throughput")
    parser.add_argument("--out", type=Path, default=None, help="write results.json, benchmarks.md and plots here instead of bench/ and docs/")
    parser.add_argument("--report-only", action="store_true", help="measure nothing: render the docs and plots again from results.json")
    return parser


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915 - the run, section after section
    args = _parser().parse_args(argv)
    results_path = (args.out or REPO / "bench") / "results.json"
    docs = args.out or REPO / "docs"
    if args.report_only:
        results = json.loads(results_path.read_text())
        results["scale"] = scale.model(results)  # derived from the measurements alone: the model again, on them
        results_path.write_text(json.dumps(results, indent=1) + "\n")
        document.write(results, docs / "benchmarks.md", docs / "img")
        _write_scaling(results, docs)
        print(_goals(results))
        print(f"wrote {docs / 'benchmarks.md'} and {docs / 'img'}/bench-*.png from {results_path}")
        return 0

    progress = Progress(_steps(args))
    progress.show("starting")
    started = time.monotonic()
    results = {}
    for name, run in catalog.ALL.items():
        progress.show(f"scenario {name}")
        results[name] = run(scale=args.scale)
        progress.step(f"scenario {name}")
    previous = json.loads(results_path.read_text()) if results_path.exists() else None
    paths_by_size = {}
    cpu_by_size: dict[str, Any] = {}
    for size_name, size in cost.SIZES.items():

        def cpu_step(stage: str, label: str = size_name) -> None:
            progress.step(f"cpu {label}: {stage}")

        cpu_by_size[size_name] = duration.measure_cpu(runs=args.cpu_runs, size=size, progress=cpu_step)

        def cost_step(stage: str, label: str = size_name) -> None:
            progress.step(f"cost {label}: {stage}")

        paths_by_size[size_name] = cost.measure_paths(size, count=args.count, progress=cost_step, cpu=cpu_by_size[size_name]["ms"])
        progress.step(f"cost {size_name}: done")
    results["cost"] = cost.cost_report(paths_by_size, cpu=cpu_by_size)
    results["cost"]["previous_run"] = costs.previous_run(previous)
    results["destinations"] = destinations.measure(
        results["cost"], count=args.count, cpu_runs=args.cpu_runs, progress=lambda s: progress.step(f"destinations {s}")
    )
    results["connections"] = connections.measure(progress=lambda s: progress.step(f"handshakes {s}"))
    results["throughput"] = throughput.measure(progress=lambda s: progress.step(f"throughput {s}"), runs=args.runs)
    results["throughput"]["stand_in"] = standin.measure_apart(progress=lambda s: progress.step(f"throughput over stand-ins {s}"))
    results["ordered"] = ordered.measure(progress=lambda s: progress.step(f"ordered endpoint {s}"), events=args.ordered_events)
    results["local_mode"] = localmode.measure(progress=lambda s: progress.step(f"local mode {s}"))
    results["api"] = api.measure(progress=lambda s: progress.step(f"api {s}"))
    results["profile"] = {"after": profile.profile_delivery(), "before": profile.recorded_before()}
    progress.step("profile of the delivery handler")
    results["latency"] = latency.measure(results, progress=lambda s: progress.step(f"latency {s}"))
    results["meta"] = {
        "command": "make bench" if args.scale == 1.0 and args.out is None else "python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "scale": args.scale,
        "seconds": round(time.monotonic() - started, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }
    results["scale"] = scale.model(results)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_text(json.dumps(results, indent=1) + "\n")
    progress.show("plots and docs")
    document.write(results, docs / "benchmarks.md", docs / "img")
    _write_scaling(results, docs)
    progress.step("done")
    progress.finish()
    print(_goals(results))
    print(f"wrote {results_path}, {docs / 'benchmarks.md'} and {docs / 'img'}/bench-*.png in {results['meta']['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
