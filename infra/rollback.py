"""`make rollback`: put the version each function served before back in service, now.

    python -m infra.rollback [--stack hookline] [--function delivery,retry]

1. Every deployment CodeDeploy is running for the stack's functions (a canary, see infra/deploys.py)
   is stopped with autoRollbackEnabled=True: CodeDeploy moves that function's `live` alias back to the
   version it served before the deployment, and CloudFormation rolls the stack update back. Those
   aliases are CodeDeploy's to move; this command does not touch them.
2. Every other function's `live` alias (all of them with HOOKLINE_DEPLOY_STRATEGY=all_at_once, or once
   the canaries are done) is pointed at the function's previous published version: the newest one older
   than the version it serves, with no traffic left on any other. A function the last deploy did not
   change steps back one version too: name the functions to roll back with --function to avoid that.
   The alias then differs from the template until a deploy changes that function again.

Stopping runs first, so no canary moves on while the other aliases are set. The stack's functions are
found by their tags (infra.deploy_names), its deployment groups by their names. The boto3 clients are
arguments, so the logic runs against moto and a fake CodeDeploy in tests/infrastructure/test_rollback.py.
Each line printed says what happened to one function.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import boto3

from hookline.wiring.topology import FUNCTIONS
from infra import stack_settings
from infra.deploy_names import FUNCTION_TAG, LIVE_ALIAS, STACK_TAG, deployment_application_name, deployment_group_name

# The statuses of a deployment that StopDeployment can still stop.
RUNNING_STATUSES = ("Created", "Queued", "InProgress", "Baking", "Ready")


class RollbackError(RuntimeError):
    """Nothing to roll back: no function of the stack found, or one asked for that the stack does not have."""


@dataclass(frozen=True)
class Outcome:
    """What happened to one function's live alias."""

    function: str  # the topology name, e.g. "delivery"
    action: Literal["stopped", "moved", "unchanged"]  # stopped: CodeDeploy rolls it back; moved: done here
    detail: str

    def line(self) -> str:
        return f"{self.function}: {self.action}, {self.detail}"


def stack_functions(lambda_client: Any, stack: str) -> dict[str, str]:
    """Topology name -> function name, for the stack's functions, by their tags.

    Only names starting with `<stack>-` are looked at: CloudFormation's generated names start with the
    stack's name, and the jobs function's fixed name does too.
    """
    found: dict[str, str] = {}
    for page in lambda_client.get_paginator("list_functions").paginate():
        for function in page["Functions"]:
            if not function["FunctionName"].startswith(f"{stack}-"):
                continue
            tags = lambda_client.list_tags(Resource=function["FunctionArn"]).get("Tags", {})
            if tags.get(STACK_TAG) == stack and FUNCTION_TAG in tags:
                found[tags[FUNCTION_TAG]] = function["FunctionName"]
    return found


def deployment_groups(codedeploy: Any, application: str) -> set[str]:
    """The application's deployment groups; none when it does not exist (HOOKLINE_DEPLOY_STRATEGY=all_at_once)."""
    groups: set[str] = set()
    try:
        for page in codedeploy.get_paginator("list_deployment_groups").paginate(applicationName=application):
            groups.update(page["deploymentGroups"])
    except codedeploy.exceptions.ApplicationDoesNotExistException:
        return set()
    return groups


def running_deployments(codedeploy: Any, application: str, group: str) -> list[str]:
    pages = codedeploy.get_paginator("list_deployments").paginate(
        applicationName=application, deploymentGroupName=group, includeOnlyStatuses=list(RUNNING_STATUSES)
    )
    return [deployment for page in pages for deployment in page["deployments"]]


def previous_version(lambda_client: Any, function_name: str, serving: str) -> str | None:
    """The newest published version older than `serving`; None if there is none (or it serves $LATEST)."""
    if not serving.isdigit():
        return None
    pages = lambda_client.get_paginator("list_versions_by_function").paginate(FunctionName=function_name)
    published = [int(v["Version"]) for page in pages for v in page["Versions"] if v["Version"].isdigit()]  # not $LATEST
    older = [v for v in published if v < int(serving)]
    return str(max(older)) if older else None


def _stop(codedeploy: Any, function: str, deployments: list[str]) -> Outcome:
    for deployment in deployments:
        codedeploy.stop_deployment(deploymentId=deployment, autoRollbackEnabled=True)
    ids = ", ".join(deployments)
    return Outcome(function, "stopped", f"deployment {ids} stopped; CodeDeploy moves {LIVE_ALIAS} back to the version before it")


def _step_back(lambda_client: Any, function: str, function_name: str) -> Outcome:
    alias = lambda_client.get_alias(FunctionName=function_name, Name=LIVE_ALIAS)
    serving = str(alias["FunctionVersion"])
    weights = (alias.get("RoutingConfig") or {}).get("AdditionalVersionWeights") or {}
    # Traffic shifted by hand, with no deployment running: the primary version is the one served before the shift.
    target = serving if weights else previous_version(lambda_client, function_name, serving)
    if target is None:
        return Outcome(function, "unchanged", f"{LIVE_ALIAS} serves version {serving} and no earlier version is published")
    lambda_client.update_alias(FunctionName=function_name, Name=LIVE_ALIAS, FunctionVersion=target, RoutingConfig={"AdditionalVersionWeights": {}})
    shifted = ", ".join(f"{weight:.0%} on {version}" for version, weight in weights.items())
    was = f"version {serving}" + (f" ({shifted})" if shifted else "")
    return Outcome(function, "moved", f"{LIVE_ALIAS} now serves version {target} (was {was})")


def rollback(*, lambda_client: Any, codedeploy: Any, stack: str, only: Iterable[str] = ()) -> list[Outcome]:
    """Roll the stack's functions (or only those named) back, as the module docstring says; one outcome each, in topology order."""
    functions = stack_functions(lambda_client, stack)
    if not functions:
        raise RollbackError(f"no function tagged {STACK_TAG}={stack} in this account and region")
    wanted = set(only) or set(functions)
    if unknown := wanted - set(functions):
        raise RollbackError(f"the stack {stack} has no function {', '.join(sorted(unknown))} (it has {', '.join(sorted(functions))})")
    order = [spec.name for spec in FUNCTIONS if spec.name in wanted] + sorted(wanted - {spec.name for spec in FUNCTIONS})
    application = deployment_application_name(stack)
    groups = deployment_groups(codedeploy, application)
    outcomes: dict[str, Outcome] = {}
    for function in order:
        group = deployment_group_name(stack, function)
        deployments = running_deployments(codedeploy, application, group) if group in groups else []
        if deployments:
            outcomes[function] = _stop(codedeploy, function, deployments)
    for function in order:
        if function not in outcomes:
            outcomes[function] = _step_back(lambda_client, function, functions[function])
    return [outcomes[function] for function in order]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.rollback", description=(__doc__ or "").splitlines()[0])
    stack = stack_settings.stack_name(os.environ)
    parser.add_argument("--stack", default=stack, help=f"the stack's name (default: STACK, here {stack})")
    parser.add_argument("--function", action="append", default=[], help="only these functions (topology names, comma-separated or repeated)")
    args = parser.parse_args(argv)
    only = [name.strip() for value in args.function for name in value.split(",") if name.strip()]
    try:
        outcomes = rollback(lambda_client=boto3.client("lambda"), codedeploy=boto3.client("codedeploy"), stack=args.stack, only=only)
    except RollbackError as exc:
        print(f"rollback: {exc}", file=sys.stderr)
        return 1
    for outcome in outcomes:
        print(outcome.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
