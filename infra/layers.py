"""The hookline layer as Lambda gets it: its sources and their bytecode, compiled for the functions' runtime.

Lambda's /opt is read-only, so a layer without bytecode is compiled again on every cold start (about a fifth of the
authorizer's). The layer ships `__pycache__/*.cpython-313.pyc` beside each module, compiled with
`--invalidation-mode unchecked-hash`: no source mtime in them (the asset stays byte-for-byte the same for the same
sources, so an unchanged layer publishes no new version), and the runtime loads them without reading the source.
Unchecked pycs would go stale beside a source edited afterwards, so they are never written into the source tree:
the layer is a copy under build/layers/, named by its sources' hash, made again when they change.

The dependencies layer gets the same compilation from `make deps-layer` (`python -m infra.layers build/deps/python`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Where a layer's `python/` folder is mounted in Lambda: the file names compiled into the bytecode (tracebacks).
LAMBDA_LAYER_PYTHON = "/opt/python"
# Hash randomisation changes the order a set constant is marshalled in: a fixed seed keeps the bytecode the same.
COMPILE_ENV = {"PYTHONHASHSEED": "0"}
SKIPPED_PARTS = frozenset({"__pycache__"})


def compile_command(python_dir: Path, python: str = sys.executable) -> list[str]:
    """compileall over a layer's python/ folder: unchecked-hash pycs whose file names are the ones Lambda sees."""
    return [
        python,
        "-m",
        "compileall",
        "-q",
        "--invalidation-mode",
        "unchecked-hash",
        "-s",
        str(python_dir),
        "-p",
        LAMBDA_LAYER_PYTHON,
        str(python_dir),
    ]


def compile_layer(python_dir: Path) -> None:
    """Bytecode beside every module of a layer's python/ folder, in place (`make deps-layer`'s built folder)."""
    # Without PYTHONPYCACHEPREFIX (the Makefile's, for the tests' own bytecode): it would send the layer's elsewhere.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPYCACHEPREFIX"}
    subprocess.run(compile_command(python_dir), check=True, env={**env, **COMPILE_ENV})  # noqa: S603  - a fixed argv, no shell


def sources(layer_dir: Path) -> list[Path]:
    """The layer's files (relative to it) in a stable order; bytecode and its caches are not sources."""
    found = [p.relative_to(layer_dir) for p in layer_dir.rglob("*") if p.is_file()]
    return sorted(p for p in found if not SKIPPED_PARTS.intersection(p.parts) and p.suffix != ".pyc")


def sources_hash(layer_dir: Path) -> str:
    """A hash of the layer's sources' names and bytes, and of the Python that compiles them."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag}\n".encode())
    for relative in sources(layer_dir):
        digest.update(f"{relative.as_posix()}\n".encode())
        digest.update((layer_dir / relative).read_bytes())
    return digest.hexdigest()[:16]


def compiled_layer(layer_dir: Path, build_dir: Path, runtime: str) -> Path:
    """`layer_dir` (holding python/) copied to `build_dir/<name>-<hash of its sources>` with its bytecode.

    `runtime` is the functions' runtime (`python3.13`): bytecode is only read by the Python that wrote it, so
    this one must be that Python. Made once per set of sources (again only when one changes), into a temporary
    folder renamed into place, so two synths at once (tests in parallel) never see a half-made layer.
    """
    running = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if running != runtime:
        raise RuntimeError(f"the layer's bytecode is compiled by the Python that runs synth ({running}), not the functions' {runtime}")
    target = build_dir / f"{layer_dir.name}-{sources_hash(layer_dir)}"
    if target.is_dir():
        return target
    build_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=build_dir, prefix=f".{layer_dir.name}-"))
    for relative in sources(layer_dir):
        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(layer_dir / relative, staging / relative)
    compile_layer(staging / "python")
    try:
        staging.rename(target)
    except OSError:  # another synth made it first: the same bytes
        shutil.rmtree(staging, ignore_errors=True)
    for stale in build_dir.glob(f"{layer_dir.name}-*"):
        if stale != target and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return target


if __name__ == "__main__":
    compile_layer(Path(sys.argv[1]))
