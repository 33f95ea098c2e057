"""`make rollback` (infra.rollback) against moto's Lambda and CodeDeploy: no AWS account, no network.

moto 5.2.5 keeps Lambda versions, aliases (with weighted routing) and tags, and CodeDeploy applications,
deployment groups and deployments, but has no StopDeployment: `CodeDeployWithStop` adds that one call,
checking the request against botocore's model of the API and marking the deployment Stopped.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from botocore.validate import validate_parameters
from moto.codedeploy.models import codedeploy_backends
from moto.core import DEFAULT_ACCOUNT_ID

from infra import rollback
from infra.deploy_names import FUNCTION_TAG, LIVE_ALIAS, STACK_TAG
from infra.rollback import RollbackError

REGION = "us-east-1"
STACK = "hookline"


class CodeDeployWithStop:
    """moto's CodeDeploy client, plus the StopDeployment call moto lacks."""

    def __init__(self) -> None:
        self._client = boto3.client("codedeploy", region_name=REGION)
        self.stopped: list[dict[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def stop_deployment(self, **params: Any) -> dict[str, Any]:
        validate_parameters(params, self._client.meta.service_model.operation_model("StopDeployment").input_shape)
        self.stopped.append(params)
        codedeploy_backends[DEFAULT_ACCOUNT_ID][REGION].deployments[params["deploymentId"]].status = "Stopped"
        return {"status": "Pending", "statusMessage": "Stopping"}


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handler.py", "def handler(event, context):\n    return event\n")
    return buffer.getvalue()


@pytest.fixture
def lambda_client(aws: None) -> Any:
    return boto3.client("lambda", region_name=REGION)


@pytest.fixture
def codedeploy(aws: None) -> CodeDeployWithStop:
    return CodeDeployWithStop()


@pytest.fixture
def role_arn(aws: None) -> str:
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    return str(boto3.client("iam", region_name=REGION).create_role(RoleName="fn", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"])


def _function(lambda_client: Any, role_arn: str, name: str, *, versions: int, tags: dict[str, str], live: str, weights: dict[str, float] | None = None) -> str:
    """A function with `versions` published versions and its live alias on `live` (plus `weights`)."""
    lambda_client.create_function(FunctionName=name, Runtime="python3.13", Role=role_arn, Handler="handler.handler", Code={"ZipFile": _zip()}, Tags=tags)
    for number in range(1, versions + 1):
        lambda_client.update_function_configuration(FunctionName=name, Description=f"build {number}")
        assert lambda_client.publish_version(FunctionName=name)["Version"] == str(number)
    lambda_client.create_alias(FunctionName=name, Name=LIVE_ALIAS, FunctionVersion=live, RoutingConfig={"AdditionalVersionWeights": weights or {}})
    return name


def _hookline_function(lambda_client: Any, role_arn: str, function: str, **kwargs: Any) -> str:
    # Named as CloudFormation names them: <stack>-<logical id>-<suffix>.
    name = f"{STACK}-Functions{function.capitalize()}Function-ABC123"
    return _function(lambda_client, role_arn, name, tags={STACK_TAG: STACK, FUNCTION_TAG: function}, **kwargs)


def _live(lambda_client: Any, name: str) -> tuple[str, dict[str, float]]:
    alias = lambda_client.get_alias(FunctionName=name, Name=LIVE_ALIAS)
    return alias["FunctionVersion"], (alias.get("RoutingConfig") or {}).get("AdditionalVersionWeights") or {}


def _canary_groups(codedeploy: CodeDeployWithStop, *functions: str) -> None:
    codedeploy.create_application(applicationName=STACK, computePlatform="Lambda")
    for function in functions:
        codedeploy.create_deployment_group(
            applicationName=STACK,
            deploymentGroupName=f"{STACK}-{function}",
            serviceRoleArn="arn:aws:iam::123456789012:role/codedeploy",
            deploymentConfigName="CodeDeployDefault.LambdaCanary10Percent5Minutes",
            deploymentStyle={"deploymentType": "BLUE_GREEN", "deploymentOption": "WITH_TRAFFIC_CONTROL"},
        )


def _deployment(codedeploy: CodeDeployWithStop, function: str, status: str) -> str:
    deployment_id = str(
        codedeploy.create_deployment(
            applicationName=STACK, deploymentGroupName=f"{STACK}-{function}", revision={"revisionType": "AppSpecContent", "appSpecContent": {"content": "{}"}}
        )["deploymentId"]
    )
    codedeploy_backends[DEFAULT_ACCOUNT_ID][REGION].deployments[deployment_id].status = status
    return deployment_id


def test_a_running_canary_is_stopped_with_rollback_and_the_other_aliases_step_back(lambda_client: Any, codedeploy: CodeDeployWithStop, role_arn: str) -> None:
    # Given the canary strategy: delivery is mid-canary (version 2 live, 10 % on the new version 3),
    # api's canary to version 2 has finished, the authorizer's deploy has been stopped before
    delivery = _hookline_function(lambda_client, role_arn, "delivery", versions=3, live="2", weights={"3": 0.1})
    api = _hookline_function(lambda_client, role_arn, "api", versions=2, live="2")
    authorizer = _hookline_function(lambda_client, role_arn, "authorizer", versions=2, live="2")
    _canary_groups(codedeploy, "api", "authorizer", "delivery")
    running = _deployment(codedeploy, "delivery", "InProgress")
    _deployment(codedeploy, "api", "Succeeded")
    _deployment(codedeploy, "authorizer", "Stopped")
    # And functions of another stack, and not of any stack, which share the name prefix
    other_stack = _function(lambda_client, role_arn, f"{STACK}-staging-api", versions=2, live="2", tags={STACK_TAG: f"{STACK}-staging", FUNCTION_TAG: "api"})
    untagged = _function(lambda_client, role_arn, f"{STACK}-scratch", versions=2, live="2", tags={})

    # When the rollback runs
    outcomes = rollback.rollback(lambda_client=lambda_client, codedeploy=codedeploy, stack=STACK)

    # Then the running deployment, and only it, is stopped with auto-rollback, so CodeDeploy moves delivery back to 2
    assert codedeploy.stopped == [{"deploymentId": running, "autoRollbackEnabled": True}]
    # And delivery's alias is left to CodeDeploy, untouched here
    assert _live(lambda_client, delivery) == ("2", {"3": 0.1})
    # And api and the authorizer, with no deployment running, serve their previous version, all traffic on it
    assert _live(lambda_client, api) == ("1", {})
    assert _live(lambda_client, authorizer) == ("1", {})
    # And nothing outside the stack moved
    assert _live(lambda_client, other_stack) == ("2", {})
    assert _live(lambda_client, untagged) == ("2", {})
    # And one outcome per function, in topology order
    assert [(o.function, o.action) for o in outcomes] == [("api", "moved"), ("authorizer", "moved"), ("delivery", "stopped")]
    assert running in outcomes[2].detail
    assert outcomes[0].line() == "api: moved, live now serves version 1 (was version 2)"


def test_all_at_once_points_each_alias_at_the_version_before_the_one_it_serves(lambda_client: Any, codedeploy: CodeDeployWithStop, role_arn: str) -> None:
    # Given the all_at_once strategy (no CodeDeploy application) and
    # delivery serving 3 of 4 published versions (it was rolled back once already),
    # retry shifted by hand (2 live, 25 % on 3), replay with a single version
    delivery = _hookline_function(lambda_client, role_arn, "delivery", versions=4, live="3")
    retry = _hookline_function(lambda_client, role_arn, "retry", versions=3, live="2", weights={"3": 0.25})
    replay = _hookline_function(lambda_client, role_arn, "replay", versions=1, live="1")

    # When the rollback runs
    outcomes = rollback.rollback(lambda_client=lambda_client, codedeploy=codedeploy, stack=STACK)

    # Then nothing is stopped, delivery serves 2 (older than 3, not the newest published 4),
    # retry its primary version 2 with the hand-shifted traffic removed, and replay stays where it is
    assert codedeploy.stopped == []
    assert _live(lambda_client, delivery) == ("2", {})
    assert _live(lambda_client, retry) == ("2", {})
    assert _live(lambda_client, replay) == ("1", {})
    assert [(o.function, o.action) for o in outcomes] == [("delivery", "moved"), ("retry", "moved"), ("replay", "unchanged")]
    assert outcomes[1].line() == "retry: moved, live now serves version 2 (was version 2 (25% on 3))"


def test_only_the_named_functions_are_rolled_back(lambda_client: Any, codedeploy: CodeDeployWithStop, role_arn: str) -> None:
    # Given two functions, each on its second version, and a running canary of one of them
    api = _hookline_function(lambda_client, role_arn, "api", versions=2, live="2")
    delivery = _hookline_function(lambda_client, role_arn, "delivery", versions=2, live="1", weights={"2": 0.1})
    _canary_groups(codedeploy, "api", "delivery")
    _deployment(codedeploy, "delivery", "InProgress")
    # When the rollback is asked for api only
    outcomes = rollback.rollback(lambda_client=lambda_client, codedeploy=codedeploy, stack=STACK, only=["api"])
    # Then api steps back, and delivery's canary runs on
    assert [o.function for o in outcomes] == ["api"]
    assert _live(lambda_client, api) == ("1", {})
    assert codedeploy.stopped == []
    assert _live(lambda_client, delivery) == ("1", {"2": 0.1})


def test_a_stack_without_functions_or_an_unknown_function_is_an_error(lambda_client: Any, codedeploy: CodeDeployWithStop, role_arn: str) -> None:
    # Given no function of the stack
    # When the rollback runs, Then it says so instead of reporting success
    with pytest.raises(RollbackError, match="no function tagged hookline:stack=hookline"):
        rollback.rollback(lambda_client=lambda_client, codedeploy=codedeploy, stack=STACK)
    # And given one, a rollback of a function the stack does not have changes nothing
    api = _hookline_function(lambda_client, role_arn, "api", versions=2, live="2")
    with pytest.raises(RollbackError, match="no function nope"):
        rollback.rollback(lambda_client=lambda_client, codedeploy=codedeploy, stack=STACK, only=["api", "nope"])
    assert _live(lambda_client, api) == ("2", {})


def test_a_missing_codedeploy_application_means_no_deployment_groups() -> None:
    # Given CodeDeploy answering as it does for the all_at_once stack, which has no application
    client = boto3.client("codedeploy", region_name=REGION)
    with Stubber(client) as stub:
        stub.add_client_error("list_deployment_groups", service_error_code="ApplicationDoesNotExistException", expected_params={"applicationName": STACK})
        # When the deployment groups are listed, Then there are none
        assert rollback.deployment_groups(client, STACK) == set()
        stub.assert_no_pending_responses()


def test_main_prints_one_line_per_function(lambda_client: Any, role_arn: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Given an all_at_once stack whose api serves its second version
    api = _hookline_function(lambda_client, role_arn, "api", versions=2, live="2")
    # When `python -m infra.rollback --function api` runs
    code = rollback.main(["--function", "api"])
    # Then it exits 0 having printed what it did
    assert code == 0
    assert capsys.readouterr().out == "api: moved, live now serves version 1 (was version 2)\n"
    assert _live(lambda_client, api) == ("1", {})
    # And with no such stack, it exits 1 with the reason on stderr
    assert rollback.main(["--stack", "elsewhere"]) == 1
    assert "no function tagged hookline:stack=elsewhere" in capsys.readouterr().err
