"""The API function's cold start, its CPU per request, and the size of what a Lambda loads for it.

- **Cold start:** a fresh interpreter imports the API function's module (`functions/api/handler.py`, which builds
  the resolver and its routes' models) and answers its first request (`GET /health`). Measured as that
  process's CPU (`time.process_time`), the fastest of `runs`: on a busy machine wall time measures the
  machine, while CPU time is the work the import does. Lambda's own init (the runtime, the code download) is
  not in it.
- **CPU per request:** the API's requests against moto server in a process of its own, so the CPU counted is
  the handler's Python (validation, the services, boto3): the fastest of `runs` per route. An invalid body
  (422) shows what validation alone costs.
- **Each function's import** (authorizer, API, delivery, jobs) beside an earlier release's: bench.measurement.coldstart,
  into `cold_start.functions`.
- **Layer size:** the hookline package and the dependencies layer (`make deps-layer`), unzipped and zipped,
  against Lambda's limit for a function and its layers (250 MB unzipped).

`before` is the same measurement of the release before the API's models (commit `BEFORE_COMMIT`), kept in
`bench/measurement/api_before.json`: copy this file into a checkout of that commit and run, there,
`python -m bench.measurement.api --as-before /path/to/this/bench/measurement/api_before.json` (on a quiet machine, like `make bench`).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.measurement import coldstart

REPO = Path(__file__).resolve().parents[2]
BEFORE_PATH = Path(__file__).resolve().parent / "api_before.json"
BEFORE_COMMIT = "2ac51d4"
LAMBDA_UNZIPPED_LIMIT_MB = 250  # https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html

# The probe a fresh interpreter runs: import the API function as Lambda does, then answer one request.
_COLD_PROBE = """
import json, os, sys, time
sys.path[:0] = [os.path.join({root!r}, "layers", "hookline", "python"), os.path.join({root!r}, "functions", "api")]
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
started = time.process_time()
import handler
imported = time.process_time()
event = {{"version": "2.0", "routeKey": "$default", "rawPath": "/health", "rawQueryString": "", "headers": {{}},
          "requestContext": {{"http": {{"method": "GET", "path": "/health"}}, "domainName": "x", "stage": "$default",
                              "requestId": "cold"}}, "isBase64Encoded": False}}
from hookline.entrypoints.api import handle
answer = handle(event, None)
answered = time.process_time()
assert answer["statusCode"] == 200, answer
print(json.dumps({{"import_ms": (imported - started) * 1000, "first_request_ms": (answered - imported) * 1000}}))
"""


def cold_start(root: Path = REPO, runs: int = 7) -> dict[str, Any]:
    """The API function's import and first request in a fresh interpreter: CPU ms, the fastest of `runs`."""
    samples: list[dict[str, float]] = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _COLD_PROBE.format(root=str(root))], capture_output=True, text=True, check=True, timeout=120)
        samples.append(json.loads(done.stdout.strip().splitlines()[-1]))
    best = min(samples, key=lambda s: s["import_ms"] + s["first_request_ms"])
    return {"runs": runs, "import_ms": round(best["import_ms"], 1), "first_request_ms": round(best["first_request_ms"], 1)}


def _cpu_ms(run: Callable[[], Any]) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1000


def request_cpu(runs: int = 7) -> dict[str, Any]:
    """CPU ms per request of the API's common routes, the fastest of `runs`, against moto server in another process."""
    from bench.measurement.harness import moto_hookline, quiet
    from bench.measurement.payloads import event_body

    samples: dict[str, list[float]] = {}
    with quiet(), moto_hookline(server=True) as h:
        status, endpoint = h.api("POST", "/v1/endpoints", {"url": "https://receiver.example.com/hook", "event_types": ["cpu.t"]})
        assert status == 201, endpoint
        calls: dict[str, Callable[[int], tuple[int, Any]]] = {
            "POST /v1/events (1 KB)": lambda i: h.api("POST", "/v1/events", event_body(1024, i, "cpu.t")),
            "GET /v1/endpoints/{id}": lambda _i: h.api("GET", f"/v1/endpoints/{endpoint['id']}"),
            "GET /v1/endpoints": lambda _i: h.api("GET", "/v1/endpoints?limit=20"),
            "PUT /v1/customers/{uid}": lambda i: h.api("PUT", f"/v1/customers/cpu-{i}", {"name": "CPU Ltd", "metadata": {"plan": "pro"}}),
            "POST /v1/endpoints (422, invalid body)": lambda _i: h.api("POST", "/v1/endpoints", {"url": 5, "event_types": ["cpu.t"]}),
        }
        expected = {"POST /v1/events (1 KB)": 202, "GET /v1/endpoints/{id}": 200, "GET /v1/endpoints": 200, "PUT /v1/customers/{uid}": 201}
        for run in range(runs + 1):  # the first is a warm-up: imports, clients, connections
            for name, call in calls.items():
                answer: list[tuple[int, Any]] = []

                def one(call: Callable[[int], tuple[int, Any]] = call, run: int = run, answer: list[tuple[int, Any]] = answer) -> None:
                    answer.append(call(run))

                ms = _cpu_ms(one)
                assert answer[0][0] == expected.get(name, 422), (name, answer)
                if run:
                    samples.setdefault(name, []).append(round(ms, 3))
    return {"runs": runs, "ms": {k: round(min(v), 2) for k, v in samples.items()}}


def _tree_bytes(root: Path) -> tuple[int, int]:
    """A directory's bytes, unzipped and zipped (deflate, as a layer's archive)."""
    raw = 0
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                raw += path.stat().st_size
                archive.write(path, path.relative_to(root))
    return raw, buffer.getbuffer().nbytes


def layer_size(root: Path = REPO) -> dict[str, Any]:
    """The hookline layer and the dependencies layer (when built), in MB."""
    sizes: dict[str, Any] = {}
    for name, path in (("hookline", root / "layers" / "hookline" / "python"), ("dependencies", root / "build" / "deps" / "python")):
        if path.is_dir():
            raw, zipped = _tree_bytes(path)
            sizes[name] = {"unzipped_mb": round(raw / 2**20, 2), "zipped_mb": round(zipped / 2**20, 2)}
    if "dependencies" in sizes:
        sizes["dependencies"]["pydantic_mb"] = round(
            sum(_tree_bytes(p)[0] for p in (root / "build" / "deps" / "python").glob("pydantic*") if p.is_dir()) / 2**20, 2
        )
    sizes["limit_unzipped_mb"] = LAMBDA_UNZIPPED_LIMIT_MB
    return sizes


def measure(runs: int = 7, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    found: dict[str, Any] = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "cold_start": cold_start(runs=runs)}
    progress("cold start")
    found["cold_start"] |= coldstart.measure(runs=runs, progress=progress)  # each function's import, and the baseline's
    found["request_cpu"] = request_cpu(runs=runs)
    progress("cpu per request")
    found["layer"] = layer_size()
    found["before"] = json.loads(BEFORE_PATH.read_text()) if BEFORE_PATH.exists() else None
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measurement.api", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--as-before", type=Path, help="measure this checkout as the release before and write the figures there")
    parser.add_argument("--into", type=Path, help="put the figures into this results.json (then: python -m bench --report-only)")
    args = parser.parse_args(argv)
    if args.as_before:
        found = {"commit": BEFORE_COMMIT, "cold_start": cold_start(), "request_cpu": request_cpu()}
        args.as_before.write_text(json.dumps(found, indent=1) + "\n")
    else:
        found = measure()
        if args.into:  # the API's figures alone, into an earlier `make bench`'s results (its docs rendered again)
            results = json.loads(args.into.read_text())
            results["api"] = found
            args.into.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
