"""Canary deploys: every function serves through its `live` alias, and HOOKLINE_DEPLOY_STRATEGY says how a new version gets there.

`canary` (the default): a CodeDeploy deployment group per function shifts 10 % for 5 minutes, then all, and rolls back
on a failure, a stop, or the new version's own alarms: a rate of its failures per invocation, from a few failures up.
`all_at_once`: no CodeDeploy resource; CloudFormation moves the alias itself.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline.core.settings import Settings, SettingsError
from hookline.wiring.topology import (
    API,
    AUTHORIZER,
    DELIVERY,
    FUNCTIONS,
    JOBS,
    ORDERED,
    RETRY,
    STATE_MACHINES,
    FunctionSpec,
)
from infra.deploy_names import CANARY_LEAST, CANARY_PERCENT
from infra.deploys import rollback_alarms
from tests.infrastructure.conftest import BASE_SETTINGS, HANG_SECONDS, SENDER, Synth, references, synthesize

CFN_LINT = Path(sys.executable).parent / "cfn-lint"

# Written out here rather than derived as infra/deploy_names.py derives them, so a wrong rule there shows up: what
# says the new version of each function failed, each beside the version's Invocations. A receiver out of retries (the
# delivery and ordered DLQs) is never one of them. EMF counts are the functions' own (namespace hookline).
ROLLBACK_METRICS: dict[str, tuple[str, ...]] = {
    API.name: ("Errors", "ServerErrors"),
    AUTHORIZER.name: ("Errors",),
    DELIVERY.name: ("Errors", "InternalFailures"),
    RETRY.name: ("Errors", "InternalFailures"),
    ORDERED.name: ("Errors", "InternalFailures"),
    JOBS.name: ("Errors", "InternalFailures"),
}
ROLLBACK_EVENTS = {"DEPLOYMENT_FAILURE", "DEPLOYMENT_STOP_ON_REQUEST", "DEPLOYMENT_STOP_ON_ALARM"}


@pytest.fixture(scope="module")
def twins(synth: Synth, tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> tuple[Synth, Synth]:
    """The stack with each strategy, canary (the default: the session's synth) and all_at_once, synthesized from the
    same source tree in one run.

    A version's logical id hashes the function and its layers, so only twins compare version for version.
    """
    return synth, synthesize(tmp_path_factory.mktemp("cdk.out.all_at_once"), replace(BASE_SETTINGS, deploy_strategy="all_at_once"))


@pytest.fixture(scope="module")
def all_at_once(twins: tuple[Synth, Synth]) -> Synth:
    """The stack with deploy_strategy="all_at_once"."""
    return twins[1]


def _of_type(synth: Synth, cfn_type: str) -> dict[str, Any]:
    return {k: v for k, v in synth.resources.items() if v["Type"] == cfn_type}


def _function_ids(synth: Synth) -> set[str]:
    return set(_of_type(synth, "AWS::Lambda::Function"))


def _alias_ids(synth: Synth) -> set[str]:
    return set(_of_type(synth, "AWS::Lambda::Alias"))


def _names_an_alias_only(synth: Synth, value: Any) -> bool:
    """The value names a live alias, and no function unqualified (Ref of a function is its bare name, GetAtt Arn its bare ARN)."""
    named = references(value)
    return bool(named & _alias_ids(synth)) and not named & _function_ids(synth)


def _stats(alarm: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An expression alarm's metrics by their id in the expression."""
    return {q["Id"]: q["MetricStat"] for q in alarm["Metrics"] if "MetricStat" in q}


def _expression(alarm: dict[str, Any]) -> str:
    (query,) = [q for q in alarm["Metrics"] if "Expression" in q]
    assert query.get("ReturnData", True)
    expression: str = query["Expression"]
    return expression


def _deployment_group(synth: Synth, spec: FunctionSpec) -> tuple[str, dict[str, Any]]:
    """(logical id, resource) of the function's deployment group, found by its name."""
    groups = [
        (k, g) for k, g in _of_type(synth, "AWS::CodeDeploy::DeploymentGroup").items() if g["Properties"]["DeploymentGroupName"] == f"hookline-{spec.name}"
    ]
    assert len(groups) == 1, spec.name
    return groups[0]


# --- the live alias --------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["canary", "all_at_once"])
def test_every_function_serves_through_a_live_alias_on_a_retained_version(synth: Synth, all_at_once: Synth, stack: str) -> None:
    # Given either deploy strategy
    chosen = synth if stack == "canary" else all_at_once
    # When the stack is synthesized
    aliases = _of_type(chosen, "AWS::Lambda::Alias")
    # Then every function has exactly one alias, named live, on a published version of that function
    assert len(aliases) == len(FUNCTIONS)
    for spec in FUNCTIONS:
        alias = chosen.resources[chosen.alias_id(spec)]
        assert alias["Properties"]["Name"] == "live"
        assert alias["Properties"]["FunctionName"] == {"Ref": chosen.function_id(spec)}
        version_id, attribute = alias["Properties"]["FunctionVersion"]["Fn::GetAtt"]
        assert attribute == "Version"
        version = chosen.resources[version_id]
        assert version["Type"] == "AWS::Lambda::Version"
        assert version["Properties"]["FunctionName"] == {"Ref": chosen.function_id(spec)}
        # And a replaced version stays, so `make rollback` can put it back in service
        assert version["DeletionPolicy"] == version["UpdateReplacePolicy"] == "Retain", spec.name


def test_functions_carry_the_tags_the_rollback_finds_them_by(synth: Synth) -> None:
    # Given the functions' generated names, which say neither stack nor function
    for spec in FUNCTIONS:
        # When a function's tags are read
        tags = {t["Key"]: t["Value"] for t in synth.resources[synth.function_id(spec)]["Properties"]["Tags"]}
        # Then they name the stack and the topology function
        assert tags["hookline:stack"] == "hookline"
        assert tags["hookline:function"] == spec.name


@pytest.mark.parametrize("stack", ["canary", "all_at_once"])
def test_every_invoker_names_the_live_alias_never_the_bare_function(synth: Synth, all_at_once: Synth, stack: str) -> None:
    chosen = synth if stack == "canary" else all_at_once
    # Given the SQS event source mappings: each invokes its consumer's live alias
    mappings = _of_type(chosen, "AWS::Lambda::EventSourceMapping")
    assert len(mappings) == len([spec for spec in FUNCTIONS if spec.sqs_source])
    for spec in FUNCTIONS:
        if spec.sqs_source is not None:
            (mapping,) = [m for m in mappings.values() if chosen.alias_id(spec) in references(m["Properties"]["FunctionName"])]
            assert _names_an_alias_only(chosen, mapping["Properties"]["FunctionName"]), spec.name
    assert all(_names_an_alias_only(chosen, m["Properties"]["FunctionName"]) for m in mappings.values())
    # And every API integration calls the api function's alias
    integrations = _of_type(chosen, "AWS::ApiGatewayV2::Integration")
    assert integrations
    for integration in integrations.values():
        assert integration["Properties"]["IntegrationUri"] == {"Ref": chosen.alias_id(API)}
    # And the Lambda authorizer calls the authorizer's alias
    (authorizer,) = _of_type(chosen, "AWS::ApiGatewayV2::Authorizer").values()
    assert references(authorizer["Properties"]["AuthorizerUri"]) == {chosen.alias_id(AUTHORIZER)}
    # And every invoke permission is granted on an alias (what API Gateway calls), none on a bare function
    permissions = _of_type(chosen, "AWS::Lambda::Permission")
    assert permissions
    for permission in permissions.values():
        assert permission["Properties"]["FunctionName"] in [{"Ref": chosen.alias_id(API)}, {"Ref": chosen.alias_id(AUTHORIZER)}]
    # And no state machine names a function: the one workflow sends to SQS directly; a Lambda task would have to name an alias
    for machine in STATE_MACHINES:
        props = chosen.resources[chosen.state_machine_id(machine)]["Properties"]
        assert not references(props) & _function_ids(chosen), machine.key
        states = json.loads(props["DefinitionString"] if isinstance(props["DefinitionString"], str) else "{}").get("States", {})
        lambda_tasks = [s for s in states.values() if s.get("Type") == "Task" and ":lambda:" in s.get("Resource", "")]
        assert all(str(task.get("Parameters", {}).get("FunctionName", "")).endswith(":live") for task in lambda_tasks), machine.key


# --- canary ----------------------------------------------------------------------------------


def test_one_codedeploy_application_for_the_stack(synth: Synth) -> None:
    # Given the default deploy strategy
    assert BASE_SETTINGS.deploy_strategy == "canary"
    # When the stack is synthesized
    (application,) = _of_type(synth, "AWS::CodeDeploy::Application").values()
    # Then one Lambda application, named after the stack, holds a deployment group per function
    assert application["Properties"] == {"ApplicationName": "hookline", "ComputePlatform": "Lambda"}
    assert len(_of_type(synth, "AWS::CodeDeploy::DeploymentGroup")) == len(FUNCTIONS)


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[f.name for f in FUNCTIONS])
def test_each_function_deploys_as_a_canary_that_rolls_back_on_its_alarms(synth: Synth, spec: FunctionSpec) -> None:
    # Given the function's deployment group, named hookline-<function> (what `make rollback` looks for)
    group_id, group = _deployment_group(synth, spec)
    props = group["Properties"]
    application_id = next(iter(_of_type(synth, "AWS::CodeDeploy::Application")))
    # Then it shifts the function's traffic 10 % for 5 minutes, then all of it
    assert props["DeploymentConfigName"] == "CodeDeployDefault.LambdaCanary10Percent5Minutes"
    assert props["DeploymentStyle"] == {"DeploymentType": "BLUE_GREEN", "DeploymentOption": "WITH_TRAFFIC_CONTROL"}
    assert props["ApplicationName"] == {"Ref": application_id}
    # And CloudFormation hands the live alias's moves to it
    update = synth.resources[synth.alias_id(spec)]["UpdatePolicy"]["CodeDeployLambdaAliasUpdate"]
    assert update == {"ApplicationName": {"Ref": application_id}, "DeploymentGroupName": {"Ref": group_id}}
    # And it rolls back on a failed or stopped deployment and on an alarm
    assert props["AutoRollbackConfiguration"]["Enabled"] is True
    assert set(props["AutoRollbackConfiguration"]["Events"]) == ROLLBACK_EVENTS
    assert props["AlarmConfiguration"]["Enabled"] is True
    assert not props["AlarmConfiguration"].get("IgnorePollAlarmFailure", False)
    assert len(props["AlarmConfiguration"]["Alarms"]) == len(ROLLBACK_METRICS[spec.name])
    # And only CodeDeploy may assume its service role
    role = synth.resources[props["ServiceRoleArn"]["Fn::GetAtt"][0]]["Properties"]
    assert [s["Principal"] for s in role["AssumeRolePolicyDocument"]["Statement"]] == [{"Service": "codedeploy.amazonaws.com"}]


# --- all at once -----------------------------------------------------------------------------


def test_all_at_once_has_no_codedeploy_resource_but_the_same_functions(twins: tuple[Synth, Synth]) -> None:
    # Given the stack synthesized with deploy_strategy="all_at_once", and with canary from the same tree
    synth, all_at_once = twins
    # Then it holds no CodeDeploy resource, and no role CodeDeploy could assume
    assert not [t for t in (r["Type"] for r in all_at_once.resources.values()) if t.startswith("AWS::CodeDeploy::")]
    assert "codedeploy.amazonaws.com" not in json.dumps(all_at_once.resources)
    # And its aliases have no CodeDeploy update policy: CloudFormation moves them to the new version itself
    for spec in FUNCTIONS:
        assert "UpdatePolicy" not in all_at_once.resources[all_at_once.alias_id(spec)], spec.name
    # And the functions and their versions are the canary stack's: switching the strategy publishes no new version
    for spec in FUNCTIONS:
        assert all_at_once.resources[all_at_once.function_id(spec)] == synth.resources[synth.function_id(spec)], spec.name
        canary_version = synth.resources[synth.alias_id(spec)]["Properties"]["FunctionVersion"]
        assert all_at_once.resources[all_at_once.alias_id(spec)]["Properties"]["FunctionVersion"] == canary_version, spec.name


def test_the_variants_all_at_once_and_with_a_sender_pass_cfn_lint_and_cdk_nag(checked_variant: tuple[Synth, list[Any]]) -> None:
    # Given the template with both variants' options at once: all_at_once (no CodeDeploy; test_cfn_lint.py and
    # test_nag.py check the canary one) and a customer-email sender (the SES grants)
    variant, findings = checked_variant
    assert (variant.stack.settings.deploy_strategy, variant.stack.settings.notification_sender) == ("all_at_once", SENDER)
    # When cfn-lint checks it
    result = subprocess.run([str(CFN_LINT), "--", str(variant.template_path)], capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
    # Then it reports nothing
    assert result.returncode == 0, result.stdout + result.stderr
    # And the app with cdk-nag's checks synthesized (an unacknowledged finding, or one acknowledged on a missing construct, would raise)
    assert findings == []


# --- the setting -----------------------------------------------------------------------------


def test_the_deploy_strategy_is_canary_unless_the_environment_says_all_at_once() -> None:
    # Given HOOKLINE_DEPLOY_STRATEGY unset, set to all_at_once, or set to anything else
    # Then the strategy is canary, all_at_once, or the settings refuse to load, naming the variable
    assert Settings.from_env({}).deploy_strategy == "canary"
    assert Settings.from_env({"HOOKLINE_DEPLOY_STRATEGY": "all_at_once"}).deploy_strategy == "all_at_once"
    with pytest.raises(SettingsError, match="HOOKLINE_DEPLOY_STRATEGY"):
        Settings.from_env({"HOOKLINE_DEPLOY_STRATEGY": "linear"})
    with pytest.raises(SettingsError, match="HOOKLINE_DEPLOY_STRATEGY"):
        replace(BASE_SETTINGS, deploy_strategy="blue_green")


def test_the_deploy_strategy_configures_the_stack_not_the_functions(synth: Synth) -> None:
    # Given the synthesized functions
    # Then none of them is told the deploy strategy
    for spec in FUNCTIONS:
        assert "HOOKLINE_DEPLOY_STRATEGY" not in synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"], spec.name


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[f.name for f in FUNCTIONS])
def test_each_canary_judges_the_new_version_alone_by_a_rate_of_its_failures(synth: Synth, spec: FunctionSpec) -> None:
    # Given the function's deployment group, and the version its alias moves to (what the deploy publishes)
    _, group = _deployment_group(synth, spec)
    alias = synth.resources[synth.alias_id(spec)]
    version = alias["Properties"]["FunctionVersion"]
    function = {"Ref": synth.function_id(spec)}
    lambda_dimensions = [
        {"Name": "ExecutedVersion", "Value": version},
        {"Name": "FunctionName", "Value": function},
        {"Name": "Resource", "Value": {"Fn::Join": ["", [function, ":live"]]}},
    ]
    emf_dimensions = [{"Name": "function", "Value": function}, {"Name": "service", "Value": "hookline"}, {"Name": "version", "Value": version}]
    # When its alarms are read
    ids = [a["Name"]["Ref"] for a in group["Properties"]["AlarmConfiguration"]["Alarms"]]
    alarms = {i: synth.resources[i]["Properties"] for i in ids}
    # Then they are the ones infra.deploys names (docs/operations.md's table is checked against those), one per signal
    assert [a["AlarmName"] for a in alarms.values()] == list(rollback_alarms("hookline", spec))
    failing = []
    for alarm in alarms.values():
        stats = _stats(alarm)
        # And each is a rate: more than CANARY_PERCENT failures per 100 of the version's invocations in 5 minutes,
        # counted only from CANARY_LEAST failures (one throttle on a last receive is no rollback, at any volume)
        assert _expression(alarm) == f"IF(failed >= {CANARY_LEAST}, 100 * failed / invocations, 0)"
        assert (alarm["Threshold"], alarm["ComparisonOperator"], alarm["EvaluationPeriods"]) == (CANARY_PERCENT, "GreaterThanThreshold", 1)
        assert alarm["TreatMissingData"] == "notBreaching"
        assert {s["Period"] for s in stats.values()} == {300} and {s["Stat"] for s in stats.values()} == {"Sum"}
        # And every metric it reads is the new version's: Lambda's by alias and executed version, the EMF count's by
        # function and version (never the function as a whole, never a service-wide count, never a queue)
        invocations = stats["invocations"]["Metric"]
        assert (invocations["Namespace"], invocations["MetricName"]) == ("AWS/Lambda", "Invocations")
        assert sorted(invocations["Dimensions"], key=lambda d: d["Name"]) == lambda_dimensions
        failed = stats["failed"]["Metric"]
        expected = lambda_dimensions if failed["Namespace"] == "AWS/Lambda" else emf_dimensions
        assert failed["Namespace"] == ("AWS/Lambda" if failed["MetricName"] == "Errors" else "hookline")
        assert sorted(failed["Dimensions"], key=lambda d: d["Name"]) == expected, alarm["AlarmName"]
        failing.append(failed["MetricName"])
        # And it pages no one: the function's own alarms do
        assert not alarm.get("AlarmActions") and not alarm.get("OKActions")
    assert tuple(failing) == ROLLBACK_METRICS[spec.name]
    # And the alias's update, which is the deployment, waits for its alarms to watch the new version
    assert set(ids) <= set(alias.get("DependsOn", []))


def test_the_canary_table_in_operations_md_is_the_stacks(synth: Synth) -> None:
    # Given docs/operations.md's table of what rolls each function's canary back
    text = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
    rows = {}
    for line in text[text.index("| function | alarms that roll its canary back |") :].splitlines()[2:]:
        if not line.startswith("|"):
            break
        functions, alarms = (cell.strip() for cell in line.strip("|").split("|"))
        for function in re.findall(r"`([a-z]+)`", functions):
            rows[function] = tuple(re.findall(r"`([^`]+)`", alarms))
    # Then it has a row for every function, naming its alarms as the stack names them
    assert set(rows) == {spec.name for spec in FUNCTIONS}
    for spec in FUNCTIONS:
        assert tuple(a.replace("<function>", spec.name) for a in rows[spec.name]) == rollback_alarms("hookline", spec), spec.name
