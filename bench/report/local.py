"""Local mode under load, and the API function's cold start and CPU per request."""

from __future__ import annotations

from typing import Any

from bench.report.tables import markdown_table


def local_mode_section(lm: dict[str, Any] | None, made: str) -> list[str]:
    if not lm:
        return []
    batch = lm["batch_answer_s"]
    rows = [
        [
            "`POST /v1/events/batch`, 100 events, fan-out 5 (s)",
            batch["median"],
            batch["max"],
            f"<= {batch['goal']:g}",
            "yes" if batch["max"] <= batch["goal"] else "NO",
        ]
    ]
    for name, r in lm["reads_ms"].items():
        rows.append([f"`{name}` with the backlog (ms)", r["median"], r["max"], f"< {r['goal']:g}", "yes" if r["max"] < r["goal"] else "NO"])
    return [
        "## Local mode under load",
        "",
        "`make run`'s local mode (`bench/measurement/localmode.py`: `local.run.LocalHookline` with its default settings, through its",
        "HTTP front door): five endpoints subscribed to every event, at their default limits, and a receiver answering",
        f"200 after 20 ms; ten batches of 100 events make {lm['deliveries']:,} deliveries, then the reads run while the",
        f"pollers work the backlog off ({lm['backlog_at_reads']:,} deliveries still to go when they ran).",
        "",
        markdown_table(["", "median", "max", "goal", "met"], rows),
        "",
        "Where the time went, and what changed: a batch took 15 s (when local mode's goals were set), then 30 s as the backlog grew.",
        "(1) moto's SendMessage read every attribute of the queue to learn one, three of them scans of every queued",
        "message, so each send cost more per message waiting (fixed for local mode in `local/moto_speedups.py`: 30 s -> 9 s);",
        "(2) ingest wrote a delivery item per delivery, 500 per batch (a new event's pending deliveries are now only planned",
        "on its event item, a cost lever); (3) the API, the pollers and moto share one Python process, and the pollers' work",
        "under a backlog (at the default limits the waiting deliveries cycle through the retry queue every 1-2 s) took",
        "the interpreter from the API: the same batch took 0.5 s with the pollers stopped. Local mode now serves a",
        "request first (`local/priority.py`: a poller holds off its next batch while a request is answered, at most",
        "0.5 s): 9 s -> under 3 s. Reads of one endpoint then missed their goal (about 420 ms), and a sampling profile",
        "(py-spy, of the whole process under the backlog) showed where: (4) moto's ReceiveMessage read every attribute",
        "of the queue, with its scans, for each message it handed out (to check the retention period), two thirds of all",
        "samples; (5) moto answers every Query by listing the whole table sorted (an O(n log n) sort of its typed keys)",
        "before keeping one partition, 53 ms per query at 15,000 items, 100 ms on an index; (6) moto's server lists its",
        "own package's folders on disk to route each request; (7) full garbage collections of the grown heap took",
        "100-250 ms each, and one that lands on a request delays it by that. `local/moto_speedups.py` answers (4) to (6)",
        "as moto would, faster (a table query 53 -> 1.5 ms; the same results in the same order, tested against moto's own",
        "path), local mode runs (7) a tenth as often, and `GET /v1/endpoints/{id}` makes its four reads side by side.",
        "",
        made,
        "",
    ]


def api_section(found: dict[str, Any] | None, made: str) -> list[str]:
    """The API function: its cold start and CPU per request, with and without the request and response models."""
    if not found:
        return []
    before = found.get("before") or {}
    cold, was = found["cold_start"], before.get("cold_start", {})

    def shown(then: float | None) -> str:
        return "" if then is None else f"{then:g}"

    rows = [
        ["import of the API function (CPU ms)", shown(was.get("import_ms")), cold["import_ms"]],
        ["its first request, `GET /health` (CPU ms)", shown(was.get("first_request_ms")), cold["first_request_ms"]],
    ]
    for name, ms in found["request_cpu"]["ms"].items():
        rows.append([f"`{name}` (CPU ms)", shown(before.get("request_cpu", {}).get("ms", {}).get(name)), ms])
    layer = found["layer"]
    sizes = [f"{name} {v['unzipped_mb']:g} MB unzipped ({v['zipped_mb']:g} MB zipped)" for name, v in layer.items() if isinstance(v, dict)]
    pydantic = layer.get("dependencies", {}).get("pydantic_mb")
    return [
        "## The API function: cold start and CPU per request",
        "",
        "`bench/measurement/api.py`. The cold start is a fresh interpreter importing `functions/api/handler.py` (the resolver, its",
        f"routes and their pydantic models) and answering one request; CPU time, the fastest of {cold['runs']} runs. Each request's CPU is the",
        f"handler's own Python against moto server in another process, the fastest of {found['request_cpu']['runs']} runs. `before` is commit",
        f"`{before.get('commit', '?')}`, the last release whose API read raw dicts (no models, no Powertools validation).",
        "",
        markdown_table(["", "before", "now"], rows),
        "",
        "Layers: "
        + "; ".join(sizes)
        + (f"; pydantic and pydantic-core are {pydantic:g} MB of it" if pydantic is not None else "")
        + f". Lambda's limit for a function and its layers is {layer['limit_unzipped_mb']} MB unzipped.",
        "",
        f"Measured on {found['generated_at']} by `python -m bench.measurement.api`." if "generated_at" in found else made,
        "",
    ]
