"""docs/benchmarks.md's cold starts: each function's import CPU beside the baseline's and the goal, and the model of
the wall time at each sizing profile's memory (bench/measurement/coldstart.py)."""

from __future__ import annotations

from typing import Any

from bench.models.duration import LAMBDA_MB_PER_VCPU
from bench.report.tables import markdown_table


def _verdict(f: dict[str, Any], share: float) -> str:
    met = f["import_cpu_ms"] <= f["goal_ms"] and f["share_of_baseline"] <= share
    return "met" if met else "**missed**"


def _span(functions: dict[str, Any], figure: str) -> str:
    values = [f[figure] for f in functions.values()]
    return f"{min(values):,.0f}-{max(values):,.0f}"


def _missed_shares(functions: dict[str, Any], share: float) -> list[str]:
    """For each function over its share of the baseline: the arithmetic of what meeting it takes."""
    lines = []
    for name, f in functions.items():
        if f["share_of_baseline"] > share:
            most = share * f["baseline_import_cpu_ms"]
            lines.append(
                f"`{name}` misses the share: {share:g} of its baseline's {f['baseline_import_cpu_ms']:,.0f} ms is {most:,.0f} ms, "
                f"{f['import_cpu_ms'] - most:,.0f} ms below its {f['import_cpu_ms']:,.0f} ms."
            )
    return ["", *lines] if lines else []


def _first_request(functions: dict[str, Any]) -> list[str]:
    """What a function's first request adds to its import (the API's routers, imported by the paths requests name)."""
    lines = []
    for name, f in functions.items():
        if first := f.get("first_request"):
            lines.append(
                f"`{name}` imports a router's module, and its request models, when a request first names one of its paths"
                f" (`hookline.entrypoints.api.ROUTERS`): its first `POST /v1/events` adds {first['routers_cpu_ms']:,.0f} CPU ms to the"
                f" import above (`{first['routers_key']}`'s router, with `hookline.core.models`), and loading every other router would add"
                f" {first['other_routers_cpu_ms']:,.0f} ms more, which a cold start no longer pays for routes it does not serve."
            )
    return ["", *lines] if lines else []


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
            f"{f['traced_import_cpu_ms']:,.0f}" if "traced_import_cpu_ms" in f else "",
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
        "the runtime's boto3, in Lambda's environment as the stack sets it by default: `HOOKLINE_TRACING` off (no Tracer, no X-Ray).",
        "CPU time (`time.process_time`) of the import alone, the median of",
        f"{len(next(iter(functions.values()))['samples_ms'])} processes per function. `before` is commit `{cold['baseline_commit']}` measured the same way in",
        "the same run, its samples taken in turn with these: its layers as it shipped them, without bytecode, so each of its cold starts",
        "compiled its modules (its jobs function was `functions/replay`).",
        "",
        markdown_table(["function", f"{cold['baseline_commit']} (CPU ms)", "now (CPU ms)", "share", "goal", "", "modules", "traced (CPU ms)"], rows),
        "",
        "What the functions no longer import at cold start: boto3 and botocore's client machinery (about half of each before; made",
        "with the first client, `hookline.adapters.aws`), X-Ray unless tracing is on (`hookline.core.tracing`), the API's pydantic",
        "models outside the API (`hookline.wiring.container` imports a service when it builds it), and in the API the composition",
        "root itself and every adapter (the routes reach it through `routing.lazy_module`, on a request). `tests/unit/test_cold_start_imports.py`",
        "holds each function's deny list. The API's models are built when a request first uses them (pydantic's `defer_build`). The",
        "first request that calls AWS imports boto3: that CPU moved to it, it did not go away (the authorizer's reads use botocore's",
        "client alone, `hookline.adapters.dynamo.lookup`, so it never imports boto3's resource layer). `traced` is the same import",
        "with `HOOKLINE_TRACING` on, sampled in turn with the others: each function then has active X-Ray tracing and Powertools'",
        "Tracer is made at import, which imports the X-Ray SDK and, to patch them, botocore's client and requests; the goals are",
        "the default's.",
        *_first_request(functions),
        *_missed_shares(functions, share),
        "",
        "Modelled wall time of the import at each sizing profile's memory for the function: its CPU stretched by the share of a vCPU",
        f"Lambda gives at that memory (one vCPU at {LAMBDA_MB_PER_VCPU:,} MB, `bench.models.duration.cpu_at_memory_ms`); Lambda's own init (the",
        "runtime, downloading the code) is not in it.",
        "",
        markdown_table(["function (ms, at memory)", *sizes], modelled),
        "",
        f"The machine's load average (1 min) was {' at the start and '.join(f'{x:g}' for x in load)} at the end. Load does not weigh on"
        " both columns alike: the baseline compiles every module it imports, and reads the higher for it (commit 6e44c8e's run, at a"
        f" load of 11-14, read the baseline at 1,506-1,694 ms and this tree at 173-513 ms; this run, {_span(functions, 'baseline_import_cpu_ms')}"
        f" and {_span(functions, 'import_cpu_ms')} ms), so a share measured on a loaded machine flatters."
        if len(load) == 2
        else "",
        "",
    ]
