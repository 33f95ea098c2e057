"""Each function's entry imports only what it needs: a fresh `python -X importtime` imports the handler module as a
cold start does (its folder and the hookline layer on the path, the environment tracing off as the stack's default
sets it), and none of the modules it lists may
be on that function's deny list. Module names only, never times: how long they take is `make bench`'s
api.cold_start.functions (bench/measurement/coldstart.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookline.core.settings import Settings
from hookline.core.tracing import function_env
from hookline.wiring.topology import API, AUTHORIZER, DELIVERY, JOBS, FunctionSpec
from infra import FUNCTIONS_DIR, HOOKLINE_LAYER_PYTHON

# No function imports the SDK's client machinery before its first AWS call (hookline.adapters.aws), nor X-Ray with
# tracing off (hookline.core.tracing), nor `cryptography` before it first makes or uses an Ed25519 key (hookline.core.signing) or
# seals or opens a secret (hookline.adapters.sealing).
EVERY_FUNCTION = ("boto3", "botocore.client", "botocore.session", "urllib3", "aws_xray_sdk", "cryptography")
DENIED: dict[str, tuple[str, ...]] = {
    AUTHORIZER.name: (
        *EVERY_FUNCTION,
        "hookline.services.delivery",
        "hookline.core.contract",
        "pydantic",
        "hookline.wiring.container",
        "hookline.entrypoints.api",
        "aws_lambda_powertools.event_handler",
        "jsonschema",
    ),
    # The API's routes reach the composition root (and through it every adapter) on a request, not at the import.
    # Nor a router's module and its request models: a request imports its own (hookline.entrypoints.api.ROUTERS).
    API.name: (
        *EVERY_FUNCTION,
        "hookline.wiring.container",
        "hookline.adapters.dynamo",
        "hookline.adapters.destinations",
        "hookline.adapters.http",
        *(f"hookline.entrypoints.api.{name}" for name in ("portal", "catalog", "endpoints", "filters", "events", "customers", "jobs")),
        "hookline.core.contract.catalog",
        "hookline.core.contract.endpoints",
        "hookline.core.contract.events",
        "hookline.core.contract.customers",
        "hookline.core.contract.jobs",
    ),
    DELIVERY.name: (
        *EVERY_FUNCTION,
        "hookline.core.contract",
        "pydantic",
        "hookline.entrypoints.api",
        "aws_lambda_powertools.event_handler",
        "aws_lambda_powertools.utilities.batch",
    ),
    JOBS.name: (
        *EVERY_FUNCTION,
        "hookline.core.contract",
        "pydantic",
        "hookline.entrypoints.api",
        "hookline.services.delivery",
        "aws_lambda_powertools.event_handler",
    ),
}
# What Lambda sets that turns tracing on (Powertools' rule: hookline.core.tracing)
IN_LAMBDA = {"LAMBDA_TASK_ROOT": "/var/task"}


def imported(spec: FunctionSpec, extra_env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh interpreter imports to import `spec`'s handler module, from -X importtime's report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POWERTOOLS_", "PYTHON", "LAMBDA_", "AWS_SAM", "AWS_CHALICE"))}
    env |= {"PYTHONPATH": os.pathsep.join([str(FUNCTIONS_DIR / spec.source_dir), str(HOOKLINE_LAYER_PYTHON)]), "AWS_DEFAULT_REGION": "us-east-1"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import handler"],
        capture_output=True,
        text=True,
        env=env | (extra_env or {}),
        cwd=Path(env["PYTHONPATH"].split(os.pathsep)[0]),
        check=True,
        timeout=120,
    )
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:") and line.count("|") == 2} - {"package"}


def denied(modules: set[str], deny: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == d or m.startswith(f"{d}.") for d in deny))


@pytest.mark.parametrize("spec", [AUTHORIZER, API, DELIVERY, JOBS], ids=lambda s: s.name)
def test_a_functions_entry_imports_nothing_on_its_deny_list(spec: FunctionSpec) -> None:
    # Given a fresh interpreter with the function's folder and the hookline layer, in Lambda as the stack deploys it by
    # default (HOOKLINE_TRACING off: POWERTOOLS_TRACE_DISABLED=true)
    # When it imports the handler module
    modules = imported(spec, IN_LAMBDA | function_env(Settings().tracing))
    # Then it imported the entry, and nothing the function's deny list names
    assert "handler" in modules and f"hookline.entrypoints.{'api' if spec is API else spec.name}" in modules
    assert denied(modules, DENIED[spec.name]) == []


def test_the_check_sees_x_ray_when_tracing_is_on() -> None:
    # Given the same import where Lambda runs it with tracing on, When the authorizer's handler module is imported,
    # Then Powertools' Tracer is made and X-Ray imported: the check would name it
    assert denied(imported(AUTHORIZER, IN_LAMBDA), ("aws_xray_sdk",)) != []
