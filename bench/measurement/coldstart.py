"""Each function's cold start: the CPU its handler module's import takes, beside commit BASELINE_COMMIT's in the same run.

- **What is imported:** exactly what Lambda would put on the path, in its order: the function's folder, the hookline
  layer as synth builds it (infra.layers.compiled_layer: the sources and their python3.13 bytecode), the
  dependencies layer as `make deps-layer` builds it (its bytecode compiled the same way, into a copy), and the
  runtime's boto3 (linked from this venv). The layer's compiled packages are arm64 builds this machine cannot load
  where it is not arm64: this venv's build of the same pinned version is placed before them (as
  tests/infrastructure/test_packaging.py does). In Lambda's environment as the stack sets it by default: HOOKLINE_TRACING
  off, so POWERTOOLS_TRACE_DISABLED=true and no Tracer is made (hookline.core.tracing). This tree is also sampled with
  it on (`traced_import_cpu_ms`, what the setting costs): Powertools' Tracer is made, which imports the X-Ray SDK and,
  to patch them, botocore's client and requests.
- **How:** a fresh `python -I -S -B` per sample, which times `import handler` with `time.process_time()` (CPU, not
  wall: on a shared machine wall time measures the machine); the median of RUNS samples, the two trees' samples
  taken in turn so a load on the machine weighs on both alike.
- **Before:** BASELINE_COMMIT's layers and functions (`git archive`), as that release shipped them: no bytecode in
  either layer (`--no-compile`, `*.pyc` excluded), so its cold start compiled its modules (`-B`: /opt is read-only).
  Its runtime's boto3 and the compiled packages are the same as this tree's (its requirements are the same).
- **Modelled wall time:** the import's CPU at each sizing profile's memory for that function, stretched by the CPU
  share Lambda gives at that memory (bench.models.duration.cpu_at_memory_ms): Lambda's own init (the runtime, the
  download of the code) is not in it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.models.duration import cpu_at_memory_ms
from hookline.core import tracing
from hookline.core.profiles import SIZES
from hookline.core.settings import Settings
from hookline.wiring.topology import API, AUTHORIZER, DELIVERY, JOBS, FunctionSpec
from infra import DEPS_LAYER_DIR, FUNCTIONS_DIR, HOOKLINE_LAYER_DIR, REPO_ROOT
from infra.layers import compile_layer, compiled_layer

FUNCTIONS: tuple[FunctionSpec, ...] = (AUTHORIZER, API, DELIVERY, JOBS)
BASELINE_COMMIT = "2fa16c5"  # the release whose imports took 889 / 982 / 974 / 1,189 ms (median of 5, a quiet machine)
RUNS = 7
# The goals: import CPU ms per function, and at most this share of the baseline's in the same run.
GOAL_MS = {AUTHORIZER.name: 300.0, API.name: 600.0, DELIVERY.name: 500.0, JOBS.name: 600.0}
GOAL_SHARE_OF_BASELINE = 0.35
# The jobs function was named replay then (functions/replay): the same entry, renamed since.
BASELINE_SOURCE_DIRS = {JOBS.name: "replay"}
# What the Lambda Python runtime ships besides the standard library (as tests/infrastructure/test_packaging.py).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")

PROBE = """
import json, sys, time
sys.path[:0] = json.loads(sys.argv[1])
started = time.process_time()
import handler
took = time.process_time() - started
found = {"import_cpu_ms": took * 1000, "modules": len(sys.modules)}
if json.loads(sys.argv[2]):  # the API: what its first request adds, loading the routers of its path, then every other
    from hookline.entrypoints import api
    started = time.process_time()
    api.include(api.ROUTERS[json.loads(sys.argv[2])])
    found["first_request_routers_cpu_ms"] = (time.process_time() - started) * 1000
    started = time.process_time()
    api.include(api.MODULES)
    found["other_routers_cpu_ms"] = (time.process_time() - started) * 1000
print(json.dumps(found))
"""
# The API's routers are imported when a request first names their paths (hookline.entrypoints.api.ROUTERS): its
# samples also time what the first request of ingest (`POST /v1/events`) adds, and what the other routers would.
FIRST_REQUEST_KEY = {API.name: "v1/events"}


def lambda_environment(traced: bool) -> dict[str, str]:
    """What Lambda and the stack set that the import reads, with HOOKLINE_TRACING `traced` (infra.functions)."""
    lambda_env = {"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13", "LANG": "C.UTF-8"}
    return lambda_env | {"LAMBDA_TASK_ROOT": "/var/task"} | tracing.function_env(traced)


def _host_builds(deps: Path, into: Path) -> list[str]:
    """This venv's builds of the layer's compiled packages, where this machine cannot load the layer's (not arm64)."""
    if platform.machine() in ("aarch64", "arm64"):
        return []
    into.mkdir(parents=True, exist_ok=True)
    distributions = metadata.packages_distributions()
    for package in sorted(p for p in deps.iterdir() if p.is_dir() and any(p.rglob("*.so"))):
        [distribution] = distributions[package.name]
        [shipped] = deps.glob(f"{distribution.replace('-', '_')}-*.dist-info")
        if shipped.name != f"{distribution.replace('-', '_')}-{metadata.version(distribution)}.dist-info":
            raise RuntimeError(f"this venv's {distribution} is not the layer's version ({shipped.name})")
        spec = importlib.util.find_spec(package.name)
        assert spec is not None and spec.origin is not None, package
        (into / package.name).symlink_to(Path(spec.origin).resolve().parent)
    return [str(into)]


def _runtime(into: Path) -> str:
    site_packages = Path(__import__("boto3").__file__ or "").resolve().parent.parent
    into.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_PACKAGES:
        (into / name).symlink_to(site_packages / name)
    return str(into)


@contextmanager
def _trees(work: Path, baseline: str) -> Iterator[dict[str, dict[str, Path]]]:
    """The layers and functions of this tree (as built, with bytecode) and of `baseline` (as it shipped)."""
    from infra.functions import RUNTIME  # the CDK's, imported by a measurement only (seconds of CPU)

    archive = subprocess.run(["git", "archive", baseline, "layers/hookline", "functions"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    before = work / "before"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(before, filter="data")
    deps = work / "deps"
    shutil.copytree(DEPS_LAYER_DIR / "python", deps / "python", symlinks=True)
    compile_layer(deps / "python")  # as `make deps-layer` does
    yield {
        "after": {
            "functions": FUNCTIONS_DIR,
            "hookline": compiled_layer(HOOKLINE_LAYER_DIR, work / "layers", RUNTIME.name) / "python",
            "deps": deps / "python",
        },
        "before": {"functions": before / "functions", "hookline": before / "layers" / "hookline" / "python", "deps": DEPS_LAYER_DIR / "python"},
    }


def _sample(
    tree: dict[str, Path], source_dir: str, host: list[str], runtime: str, *, traced: bool = False, first_request: str | None = None
) -> dict[str, float]:
    paths = [str(tree["functions"] / source_dir), str(tree["hookline"]), *host, str(tree["deps"]), runtime]
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", PROBE, json.dumps(paths), json.dumps(first_request)],
        capture_output=True,
        text=True,
        env=lambda_environment(traced),
        cwd=paths[0],
        check=True,
        timeout=120,
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def modelled_wall_ms(spec: FunctionSpec, import_cpu_ms: float) -> dict[str, dict[str, float]]:
    """The import's CPU at the function's memory under each sizing profile, stretched to Lambda's CPU share there."""
    modelled = {}
    for size in SIZES:
        memory = spec.memory(Settings.from_env({"HOOKLINE_SIZE": size}))
        modelled[size] = {"memory_mb": memory, "wall_ms": round(cpu_at_memory_ms(import_cpu_ms, memory), 1)}
    return modelled


def measure(runs: int = RUNS, baseline: str = BASELINE_COMMIT, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    """Per function, the median import CPU of `runs` fresh processes, this tree's and `baseline`'s, and the model."""
    samples: dict[str, dict[str, list[float]]] = {spec.name: {"after": [], "before": [], "traced": [], "first": [], "others": []} for spec in FUNCTIONS}
    modules: dict[str, int] = {}
    load = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory(prefix="hookline-coldstart-") as work, _trees(Path(work), baseline) as trees:
        host = _host_builds(DEPS_LAYER_DIR / "python", Path(work) / "host")
        runtime = _runtime(Path(work) / "runtime")
        for _ in range(runs):
            for spec in FUNCTIONS:
                for name, tree in trees.items():
                    source_dir = BASELINE_SOURCE_DIRS.get(spec.name, spec.source_dir) if name == "before" else spec.source_dir
                    found = _sample(tree, source_dir, host, runtime, first_request=FIRST_REQUEST_KEY.get(spec.name) if name == "after" else None)
                    samples[spec.name][name].append(round(found["import_cpu_ms"], 1))
                    if "first_request_routers_cpu_ms" in found:
                        samples[spec.name]["first"].append(round(found["first_request_routers_cpu_ms"], 1))
                        samples[spec.name]["others"].append(round(found["other_routers_cpu_ms"], 1))
                    if name == "after":
                        modules[spec.name] = int(found["modules"])
                        traced = _sample(tree, source_dir, host, runtime, traced=True)
                        samples[spec.name]["traced"].append(round(traced["import_cpu_ms"], 1))
            progress(f"cold starts, {len(samples[AUTHORIZER.name]['after'])} of {runs}")
    load.append(round(os.getloadavg()[0], 2))
    functions: dict[str, Any] = {}
    for spec in FUNCTIONS:
        after = statistics.median(samples[spec.name]["after"])
        before = statistics.median(samples[spec.name]["before"])
        functions[spec.name] = {
            "import_cpu_ms": round(after, 1),
            "baseline_import_cpu_ms": round(before, 1),
            "share_of_baseline": round(after / before, 3),
            "goal_ms": GOAL_MS[spec.name],
            "samples_ms": samples[spec.name]["after"],
            "baseline_samples_ms": samples[spec.name]["before"],
            "baseline_source_dir": f"functions/{BASELINE_SOURCE_DIRS.get(spec.name, spec.source_dir)}",
            "modules_imported": modules[spec.name],
            "traced_import_cpu_ms": round(statistics.median(samples[spec.name]["traced"]), 1),
            "modelled_wall_ms": modelled_wall_ms(spec, after),
        }
        if samples[spec.name]["first"]:
            functions[spec.name]["first_request"] = {
                "routers_key": FIRST_REQUEST_KEY[spec.name],
                "routers_cpu_ms": round(statistics.median(samples[spec.name]["first"]), 1),
                "other_routers_cpu_ms": round(statistics.median(samples[spec.name]["others"]), 1),
            }
    return {
        "baseline_commit": baseline,
        "goal_share_of_baseline": GOAL_SHARE_OF_BASELINE,
        "load_average_1m": load,
        "functions": functions,
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.measurement.coldstart [--into bench/results.json]`: this measurement alone."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.measurement.coldstart", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--into", type=Path, help="put the figures into this results.json's api.cold_start (then: python -m bench --report-only)")
    args = parser.parse_args(argv)
    found = measure(runs=args.runs, progress=lambda s: print(s, file=sys.stderr))
    if args.into:
        results = json.loads(args.into.read_text())
        results["api"]["cold_start"].update(found)
        args.into.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({name: {k: v for k, v in f.items() if "samples" not in k} for name, f in found["functions"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
