"""Each function imports from exactly what Lambda will have: its asset, the two layers and the runtime's boto3.

The folders come from the synthesized cloud assembly (the staged assets CloudFormation
will deploy), not from the source tree, so a missing file or an excluded package shows
up here rather than as an import error at cold start.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import boto3
import pytest

from hookline.wiring.topology import FUNCTIONS, FunctionSpec, KeySpec, StateMachineSpec, TableSpec, TopicSpec
from infra import DEPS_LAYER_DIR, FUNCTIONS_DIR
from infra.functions import RUNTIME
from tests.infrastructure.conftest import Synth

# What the Lambda Python runtime ships besides the standard library: boto3 and its dependencies.
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")

# Runs in `python -I -S -B`: no site-packages, no user site, no PYTHON* variables, no bytecode
# written into the assembly. sys.path is the standard library plus exactly the folders given.
PROBE = """
import json, sys
sys.path[:0] = json.loads(sys.argv[1])
assert not [p for p in sys.path if "site-packages" in p], sys.path
import handler, os
entry = os.environ["_HANDLER"].split(".", 1)[1]  # as the template names it: handler.<entry>
assert callable(getattr(handler, entry, None)), f"handler.{entry} is not callable"
import aws_lambda_powertools, hookline, pydantic
import boto3  # imported by the first AWS call, not by the handler module (hookline.adapters.aws)
print(json.dumps({m: sys.modules[m].__file__ for m in ("handler", "hookline", "aws_lambda_powertools", "pydantic", "boto3")}))
"""


@pytest.fixture(scope="module")
def deps_layer_built() -> Path:
    # make deps-layer marks the folder with the Python it built for, which must be the functions' runtime's
    python_dir = DEPS_LAYER_DIR / "python"
    marker = python_dir / f".built-py{RUNTIME.name.removeprefix('python')}"
    if not marker.is_file():
        pytest.fail(f"{python_dir} is not built for {RUNTIME.name} (no {marker.name} marker): run `make deps-layer`")
    return python_dir


# Compiled packages the handlers import at cold start. The layer holds their arm64 builds, which this machine's
# processor cannot load (elsewhere than on arm64): the probe then takes this venv's build of the same pinned version,
# placed before the layer, and the layer's own build is checked to be the arm64 CPython 3.13 one Lambda runs.
COMPILED_AT_COLD_START = {"pydantic_core": "pydantic-core"}


@pytest.fixture(scope="module")
def host_builds(tmp_path_factory: pytest.TempPathFactory, deps_layer_built: Path) -> list[str]:
    if platform.machine() in ("aarch64", "arm64"):
        return []
    folder = tmp_path_factory.mktemp("host-builds")
    for package, distribution in COMPILED_AT_COLD_START.items():
        [shipped] = deps_layer_built.glob(f"{package}-*.dist-info")
        assert shipped.name == f"{package}-{metadata.version(distribution)}.dist-info", "the venv's build is another version than the layer's"
        installed = Path(__import__(package).__file__).resolve().parent
        (folder / package).symlink_to(installed)
    return [str(folder)]


@pytest.fixture(scope="module")
def lambda_runtime(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding only what the runtime provides, linked from this venv."""
    site_packages = Path(boto3.__file__).resolve().parent.parent
    folder = tmp_path_factory.mktemp("lambda-runtime")
    for name in RUNTIME_PACKAGES:
        (folder / name).symlink_to(site_packages / name)
    return folder


def _cold_start_env(synth: Synth, spec: FunctionSpec) -> dict[str, str]:
    """The function's environment as Lambda sets it, resource references replaced by plausible values."""
    variables = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
    env = {name: value for name, value in variables.items() if isinstance(value, str)}
    for resource in spec.env_resources:
        if isinstance(resource, KeySpec):  # a key's ARN names its id, not a name of the stack's
            env[resource.env] = "arn:aws:kms:us-east-1:123456789012:key/0b0c0d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
            continue
        name = resource.physical_name("hookline")
        if isinstance(resource, TableSpec):
            env[resource.env] = name
        elif isinstance(resource, StateMachineSpec):
            env[resource.env] = f"arn:aws:states:us-east-1:123456789012:stateMachine:{name}"
        elif isinstance(resource, TopicSpec):
            env[resource.env] = f"arn:aws:sns:us-east-1:123456789012:{name}"
        else:
            env[resource.env] = f"https://sqs.us-east-1.amazonaws.com/123456789012/{name}"
    return {
        **env,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_LAMBDA_FUNCTION_NAME": f"hookline-{spec.name}",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_mb),
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
        "_HANDLER": synth.resources[synth.function_id(spec)]["Properties"]["Handler"],
        "LANG": "C.UTF-8",
    }


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[f.name for f in FUNCTIONS])
def test_handler_imports_from_its_deployment_package(
    synth: Synth, spec: FunctionSpec, deps_layer_built: Path, lambda_runtime: Path, host_builds: list[str]
) -> None:
    # Given the function's staged code asset (from functions/<source_dir>), the hookline layer's python/ folder, the built
    # dependencies layer and the runtime's boto3, in Lambda's order
    function = synth.resources[synth.function_id(spec)]["Properties"]
    code_dir = synth.asset_dir(function["Code"])
    hookline_layer = synth.resources[synth.logical_id(synth.stack.functions.hookline_layer)]["Properties"]
    layer_python = synth.asset_dir(hookline_layer["Content"]) / "python"
    paths = [str(code_dir), str(layer_python), *host_builds, str(deps_layer_built), str(lambda_runtime)]
    assert (code_dir / "handler.py").is_file(), sorted(p.name for p in code_dir.iterdir())
    # (the asset is the spec's source folder: functions/delivery for both delivery and retry)
    assert (code_dir / "handler.py").read_bytes() == (FUNCTIONS_DIR / spec.source_dir / "handler.py").read_bytes()
    # (and the template names each function's own entry: the retry function's tells it its lane)
    assert function["Handler"] == spec.handler

    # When a clean interpreter imports the handler module, as a cold start does
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", PROBE, json.dumps(paths)],
        capture_output=True,
        text=True,
        env=_cold_start_env(synth, spec),
        cwd=code_dir,
        timeout=120,
        check=False,
    )

    # Then it imports, the entry its template names is callable, and each package comes from where Lambda puts it
    assert result.returncode == 0, f"{spec.name}: handler failed to import\n{result.stderr}"
    origins = json.loads(result.stdout.strip().splitlines()[-1])
    assert origins["handler"].startswith(str(code_dir))
    assert origins["hookline"].startswith(str(layer_python))
    assert origins["aws_lambda_powertools"].startswith(str(deps_layer_built))
    assert origins["pydantic"].startswith(str(deps_layer_built))
    assert origins["boto3"].startswith(str(lambda_runtime))


def test_the_hookline_layer_ships_bytecode_for_the_runtime(synth: Synth) -> None:
    # Given the hookline layer's staged asset
    hookline_layer = synth.resources[synth.logical_id(synth.stack.functions.hookline_layer)]["Properties"]
    python = synth.asset_dir(hookline_layer["Content"]) / "python"
    # Then every module has its bytecode for the functions' runtime in the standard place (infra/layers.py), and no other
    tag = f"cpython-{RUNTIME.name.removeprefix('python').replace('.', '')}"
    modules = sorted(python.rglob("*.py"))
    assert len(modules) > 100
    assert [m for m in modules if not (m.parent / "__pycache__" / f"{m.stem}.{tag}.pyc").is_file()] == []
    assert sorted({p.name.split(".")[1] for p in python.rglob("*.pyc")}) == [tag]


def test_the_layer_ships_the_portal_page(synth: Synth) -> None:
    # Given the hookline layer's staged asset
    hookline_layer = synth.resources[synth.logical_id(synth.stack.functions.hookline_layer)]["Properties"]
    static = synth.asset_dir(hookline_layer["Content"]) / "python" / "hookline" / "entrypoints" / "portal_static"
    # Then the portal's page, its script modules and style are in it, byte for byte, as the api function serves them
    source = Path(__file__).resolve().parents[2] / "layers" / "hookline" / "python" / "hookline" / "entrypoints" / "portal_static"
    names = sorted(p.name for p in source.iterdir() if p.is_file())
    assert {"index.html", "portal.js", "portal.css", "api.js"} <= set(names)
    assert sorted(p.name for p in static.iterdir() if p.is_file()) == names
    for name in names:
        assert (static / name).read_bytes() == (source / name).read_bytes(), name


def test_the_schema_validator_ships_built_for_the_lambda_runtime(deps_layer_built: Path) -> None:
    # Given the built dependencies layer: jsonschema's compiled dependency (rpds-py) cannot be imported on this
    # machine's processor, so the handlers import it only where a schema is used (hookline.core.versions)
    # Then jsonschema and its dependencies are there, and rpds' extension is the arm64 CPython 3.13 build Lambda runs
    for package in ("jsonschema", "referencing", "jsonschema_specifications", "attrs", "rpds"):
        assert (deps_layer_built / package / "__init__.py").is_file(), package
    [extension] = (deps_layer_built / "rpds").glob("rpds.*.so")
    assert "cpython-313" in extension.name and "aarch64" in extension.name, extension.name


def test_the_compiled_packages_ship_built_for_the_lambda_runtime(deps_layer_built: Path) -> None:
    # Given the built dependencies layer
    # Then each compiled package the handlers import at cold start is there, as the arm64 CPython 3.13 build Lambda runs
    for package in COMPILED_AT_COLD_START:
        assert (deps_layer_built / package / "__init__.py").is_file(), package
        [extension] = (deps_layer_built / package).glob("*.so")
        assert "cpython-313" in extension.name and "aarch64" in extension.name, extension.name
