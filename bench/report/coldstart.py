"""docs/benchmarks.md's cold starts: each function's import CPU beside the baseline's and the goal, and the model of
the wall time at each sizing profile's memory (bench/measurement/coldstart.py)."""

from __future__ import annotations

from typing import Any

from bench.models.duration import LAMBDA_MB_PER_VCPU
from bench.report.tables import markdown_table


def _verdict(f: dict[str, Any], share: float) -> str:
    met = f["import_cpu_ms"] <= f["goal_ms"] and f["share_of_baseline"] <= share
    return "met" if met else "**missed**"


def cold_start_section(found: dict[str, Any] | None) -> list[str]:
    """The per-function table and the modelled wall times; nothing when the run measured no function."""
    cold = (found or {}).get("cold_start", {})
    functions: dict[str, Any] = cold.get("functions") or {}
    if not functions:
        return []
    share = cold["goal_share_of_baseline"]
    rows = [
        [
            f"`{name}`",
            f"{f['baseline_import_cpu_ms']:,.0f}",
            f"{f['import_cpu_ms']:,.0f}",
            f"{f['share_of_baseline']:.2f}",
            f"≤ {f['goal_ms']:,.0f} and ≤ {share:g}",
            _verdict(f, share),
            f["modules_imported"],
        ]
        for name, f in functions.items()
    ]
    sizes = list(next(iter(functions.values()))["modelled_wall_ms"])
    modelled = [
        [f"`{name}`", *(f"{f['modelled_wall_ms'][s]['wall_ms']:,.0f} ({f['modelled_wall_ms'][s]['memory_mb']:,} MB)" for s in sizes)]
        for name, f in functions.items()
    ]
    load = cold.get("load_average_1m", [])
    return [
        "## Cold starts: each function's import",
        "",
        "`bench/measurement/coldstart.py`: a fresh `python -I -S -B` imports the function's `handler` module from exactly what Lambda",
        "would put on its path: the function's folder, the hookline layer as synth builds it (`infra/layers.py`: its sources and their",
        "python3.13 bytecode, compiled with unchecked hashes), the dependencies layer with its bytecode compiled the same way (as",
        "`make deps-layer` does; this venv's build of its compiled packages, of the same version, where the machine is not arm64) and",
        "the runtime's boto3. Tracing off. CPU time (`time.process_time`) of the import alone, the median of",
        f"{len(next(iter(functions.values()))['samples_ms'])} processes per function. `before` is commit `{cold['baseline_commit']}` measured the same way in",
        "the same run, its samples taken in turn with these: its layers as it shipped them, without bytecode, so each of its cold starts",
        "compiled its modules (its jobs function was `functions/replay`).",
        "",
        markdown_table(["function", f"{cold['baseline_commit']} (CPU ms)", "now (CPU ms)", "share", "goal", "", "modules"], rows),
        "",
        "What the functions no longer import at cold start: boto3 and botocore's client machinery (about half of each before; made",
        "with the first client, `hookline.adapters.aws`), X-Ray unless tracing is on (`hookline.core.tracing`), the API's pydantic",
        "models outside the API (`hookline.wiring.container` imports a service when it builds it). `tests/unit/test_cold_start_imports.py`",
        "holds each function's deny list. The API's models are built when a request first uses them (pydantic's `defer_build`). The",
        "first request that calls AWS imports boto3: that CPU moved to it, it did not go away. The deployed functions trace",
        "(`Tracing.ACTIVE`), so on AWS Powertools' Tracer is made and X-Ray imported: these figures are with tracing off.",
        "",
        "Modelled wall time of the import at each sizing profile's memory for the function: its CPU stretched by the share of a vCPU",
        f"Lambda gives at that memory (one vCPU at {LAMBDA_MB_PER_VCPU:,} MB, `bench.models.duration.cpu_at_memory_ms`); Lambda's own init (the",
        "runtime, downloading the code) is not in it.",
        "",
        markdown_table(["function (ms, at memory)", *sizes], modelled),
        "",
        f"The machine's load average (1 min) was {' at the start and '.join(f'{x:g}' for x in load)} at the end: on a loaded machine both columns read high alike."
        if len(load) == 2
        else "",
        "",
    ]
