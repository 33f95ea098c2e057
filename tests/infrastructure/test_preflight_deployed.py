"""The preflight's look at the deployed stack (infra.preflight's check_deployed, infra.deployed's decisions).

moto's CloudFormation creates a stack from a small template and answers GetTemplate and DescribeStackResource for it;
it cannot create the whole synthesized hookline stack, so the tests that deploy a real template answer DescribeStacks
and GetTemplate for it from botocore's Stubber (which checks each request and answer against the service's model),
beside moto's CDKToolkit stack. The template to deploy is the session's synthesized one (conftest's `synth`).
"""

from __future__ import annotations

import copy
import datetime
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from infra import deployed, preflight, upgrade
from infra.deployed import Change, Removal
from infra.preflight import LeftoverFacts
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize
from tests.infrastructure.test_preflight import REGION, bootstrap_account, line, make_clients, run

ALARM_EMAIL = "ops@example.com"


class DeployedStack:
    """moto's CloudFormation (the bootstrap's CDKToolkit stack), with DescribeStacks and GetTemplate of the stack
    `name` answered by Stubber from `template`, as CloudFormation answers them for a deployed stack."""

    def __init__(self, template: dict[str, Any] | None, *, status: str = "UPDATE_COMPLETE", name: str = "hookline", error: str | None = None) -> None:
        self._moto = boto3.client("cloudformation", region_name=REGION)
        self._stubbed = boto3.client("cloudformation", region_name=REGION)
        self.name = name
        stubber = Stubber(self._stubbed)
        if error is not None:
            stubber.add_client_error("describe_stacks", service_error_code=error, service_message=f"{error} (stubbed)", http_status_code=400)
        else:
            created = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
            stubber.add_response("describe_stacks", {"Stacks": [{"StackName": name, "CreationTime": created, "StackStatus": status}]}, {"StackName": name})
        if template is not None:
            stubber.add_response("get_template", {"TemplateBody": json.dumps(template)}, {"StackName": name, "TemplateStage": "Original"})
        stubber.activate()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._moto, name)

    def describe_stacks(self, **params: Any) -> Any:
        client = self._stubbed if params.get("StackName") == self.name else self._moto
        return client.describe_stacks(**params)

    def get_template(self, **params: Any) -> Any:
        return self._stubbed.get_template(**params)


@pytest.fixture
def account(aws: None) -> None:
    """A bootstrapped moto account, where the other checks pass."""
    bootstrap_account()


@pytest.fixture(scope="module")
def with_alarm_email(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    """The stack as a deploy with HOOKLINE_ALARM_EMAIL synthesizes it: it subscribes the address to the alarms' topic."""
    return synthesize(tmp_path_factory.mktemp("cdk.out.alarm-email"), replace(BASE_SETTINGS, alarm_email=ALARM_EMAIL))


def template_of(synthesized: Synth) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(synthesized.template_path.read_text())
    return loaded


# ---------------------------------------------------------------------------------------------------------------
# A deployed stack: the settings diff, what the update removes, whether CloudFormation accepts it.
# ---------------------------------------------------------------------------------------------------------------


def test_dropping_the_alarm_subscription_shows_the_diff_and_needs_confirm(account: None, synth: Synth, with_alarm_email: Synth) -> None:
    # Given a stack deployed with HOOKLINE_ALARM_EMAIL, and a template to deploy made without it
    argv = ["--template", str(synth.template_path)]
    # When the preflight runs without CONFIRM=1
    status, output = run(argv, clients=make_clients(cloudformation=DeployedStack(template_of(with_alarm_email))))
    # Then it prints the settings that change as a diff
    lines = output.splitlines()
    at = lines.index("ok       changes: 1 setting(s) change from the deployed stack hookline:")
    assert lines[at + 1 : at + 3] == [f"         - HOOKLINE_ALARM_EMAIL={ALARM_EMAIL}", "         + HOOKLINE_ALARM_EMAIL="]
    # And it refuses to drop the subscription, naming it and CONFIRM=1
    assert status == 1
    found = line(output, "removes")
    assert found.startswith(f"problem  removes: the deploy removes the email subscription {ALARM_EMAIL}")
    assert "fix: if it is meant: make deploy STACK=hookline CONFIRM=1; if not, put it back in stacks/hookline.json" in found
    # And CloudFormation accepts the update itself
    assert line(output, "upgrade") == "ok       upgrade: CloudFormation accepts the update from the deployed template (infra.upgrade)"
    # When CONFIRM=1 says it is meant, nothing blocks the deploy
    status, output = run([*argv, "--confirm"], clients=make_clients(cloudformation=DeployedStack(template_of(with_alarm_email))))
    assert status == 0, output
    assert line(output, "removes") == f"ok       removes: the email subscription {ALARM_EMAIL} (confirmed: --confirm)"


def test_an_unchanged_stack_passes(account: None, synth: Synth) -> None:
    status, output = run(["--template", str(synth.template_path)], clients=make_clients(cloudformation=DeployedStack(template_of(synth))))
    assert status == 0, output
    assert line(output, "changes") == "ok       changes: no setting changes from the deployed stack hookline"
    assert "removes" not in output


def test_two_index_changes_are_refused_with_the_release_path(account: None, synth: Synth) -> None:
    # Given a deployed stack whose table has two indexes fewer than the template to deploy
    old = copy.deepcopy(template_of(synth))
    [table_id] = [logical_id for logical_id, resource in old["Resources"].items() if resource["Type"] == "AWS::DynamoDB::Table"]
    indexes = old["Resources"][table_id]["Properties"]["GlobalSecondaryIndexes"]
    old["Resources"][table_id]["Properties"]["GlobalSecondaryIndexes"] = indexes[:-2]
    # When the preflight runs
    status, output = run(["--template", str(synth.template_path)], clients=make_clients(cloudformation=DeployedStack(old)))
    # Then it refuses the update and names the release path
    assert status == 1
    found = line(output, "upgrade")
    assert found.startswith(f"problem  upgrade: gsi-count:{table_id}: ")
    assert "fix: deploy one index change per release" in found and 'docs/operations.md, "Upgrades"' in found


def test_a_stack_deployed_before_templates_recorded_settings_is_still_compared(account: None, synth: Synth, with_alarm_email: Synth) -> None:
    old = template_of(with_alarm_email)
    del old["Metadata"]["hookline"]
    status, output = run(["--template", str(synth.template_path)], clients=make_clients(cloudformation=DeployedStack(old)))
    assert status == 1
    assert line(output, "changes").startswith("ok       changes: the deployed stack hookline records no settings (an earlier release made it)")
    assert line(output, "removes").startswith(f"problem  removes: the deploy removes the email subscription {ALARM_EMAIL}")


def test_a_stack_being_updated_stops_the_deploy(account: None, synth: Synth) -> None:
    status, output = run(["--template", str(synth.template_path)], clients=make_clients(cloudformation=DeployedStack(None, status="UPDATE_IN_PROGRESS")))
    assert status == 1
    assert line(output, "deployed stack").startswith("problem  deployed stack: the stack hookline is UPDATE_IN_PROGRESS")


@pytest.mark.parametrize("status", ["UPDATE_ROLLBACK_FAILED", "ROLLBACK_FAILED", "DELETE_FAILED"])
def test_a_stack_cloudformation_cannot_update_stops_the_deploy(account: None, synth: Synth, status: str) -> None:
    got, output = run(["--template", str(synth.template_path)], clients=make_clients(cloudformation=DeployedStack(None, status=status)))
    assert got == 1
    found = line(output, "deployed stack")
    assert found.startswith(f"problem  deployed stack: the stack hookline is {status}: CloudFormation updates it no further")
    assert "describe-stack-events --stack-name hookline" in found


def test_a_deployed_stack_that_cannot_be_read_fails_unless_told_to_warn(account: None, synth: Synth) -> None:
    argv = ["--template", str(synth.template_path)]
    status, output = run(argv, clients=make_clients(cloudformation=DeployedStack(None, error="AccessDenied")))
    assert status == 1
    assert line(output, "deployed stack").startswith("problem  deployed stack: could not check: cloudformation:DescribeStacks failed")
    status, output = run([*argv, "--unreadable", "warn"], clients=make_clients(cloudformation=DeployedStack(None, error="AccessDenied")))
    assert status == 0, output
    assert line(output, "deployed stack").startswith("warning  deployed stack: could not check")


# moto creates these: a queue without a fixed name, so that removing it is about its messages alone.
SMALL_OLD = {"Resources": {"Parked": {"Type": "AWS::SQS::Queue", "Properties": {}}, "Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}
SMALL_NEW = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}


@pytest.mark.parametrize(
    ("messages", "status", "outcome"), [(0, 0, "ok       upgrade: Parked: the queue is replaced or removed, and it is empty"), (2, 1, "problem")]
)
def test_a_removed_queue_is_refused_only_when_it_holds_messages(account: None, tmp_path: Path, messages: int, status: int, outcome: str) -> None:
    # Given a stack (moto's) with a queue the template to deploy drops, holding `messages`
    boto3.client("cloudformation", region_name=REGION).create_stack(StackName="hookline", TemplateBody=json.dumps(SMALL_OLD))
    sqs = boto3.client("sqs", region_name=REGION)
    [url] = sqs.list_queues()["QueueUrls"]
    for number in range(messages):
        sqs.send_message(QueueUrl=url, MessageBody=str(number))
    new = tmp_path / "hookline.template.json"
    new.write_text(json.dumps(SMALL_NEW))
    # When the preflight runs
    got, output = run(["--template", str(new)], clients=make_clients())
    # Then an empty queue may go, and one holding messages stops the deploy, with their count
    assert got == status, output
    found = line(output, "upgrade")
    assert found.startswith(outcome)
    if messages:
        assert "removed-stateful:Parked" in found and f"It holds {messages} message(s)." in found


def test_the_upgrade_decisions() -> None:
    queue = upgrade.Finding("replace-stateful:Q", "Q", "AWS::SQS::Queue", "AWS::SQS::Queue Q is replaced")
    named = upgrade.Finding("replace-named:Q", "Q", "AWS::SQS::Queue", "AWS::SQS::Queue Q is replaced but keeps its fixed name")
    assert [f.severity for f in preflight.upgrade_findings([queue], {"Q": 0})] == ["ok"]
    assert [f.severity for f in preflight.upgrade_findings([queue], {"Q": 3})] == ["problem"]
    [unread] = preflight.upgrade_findings([queue], {"Q": "sqs:GetQueueAttributes failed"})
    assert (unread.severity, unread.unreadable) == ("problem", True)
    # An empty queue is no excuse for a replacement CloudFormation refuses
    assert [f.severity for f in preflight.upgrade_findings([named, queue], {"Q": 0})] == ["problem", "ok"]
    assert [f.severity for f in preflight.upgrade_findings([], {})] == ["ok"]
    assert set(preflight.RELEASE_PATH) >= {
        "gsi-count",
        "gsi-modified",
        "key-schema",
        "immutable",
        "type-changed",
        "replace-named",
        "replace-retained",
        "replace-stateful",
        "removed-retained",
        "removed-stateful",
        "name-collision",
        "unknown-type",
    }


def test_every_upgrade_rule_has_a_release_path() -> None:
    rules = {entry.split("`")[1] for entry in (upgrade.__doc__ or "").split("\n- ")[1:]}
    assert rules == set(preflight.RELEASE_PATH)


# ---------------------------------------------------------------------------------------------------------------
# No stack: what a destroyed one left.
# ---------------------------------------------------------------------------------------------------------------


def leave_destroyed_stack(stack: str = "hookline") -> str:
    """What `cdk destroy` leaves: the retained table `<stack>-data` encrypted with its retained key, and log groups."""
    key = boto3.client("kms", region_name=REGION).create_key()["KeyMetadata"]["Arn"]
    boto3.client("dynamodb", region_name=REGION).create_table(
        TableName=f"{stack}-data",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        SSESpecification={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": key},
    )
    return str(key)


def make_log_groups(*names: str) -> None:
    logs = boto3.client("logs", region_name=REGION)
    for name in names:
        logs.create_log_group(logGroupName=name)


def test_a_retained_table_with_no_stack_is_found_with_how_to_adopt_or_delete_it(account: None) -> None:
    # Given a destroyed stack's table, key and log groups, and another stack's log group
    key = leave_destroyed_stack()
    make_log_groups("hookline-FunctionsDeliveryLogs12AB-x1y2", "/aws/vendedlogs/states/hookline-retry-wait-0a1b", "hookline-staging-FunctionsLogs-z")
    # When the preflight runs for a stack that does not exist
    status, output = run(clients=make_clients())
    # Then it stops the deploy, names the leftovers and says how to adopt or remove them
    assert status == 1
    found = line(output, "leftovers")
    assert found.startswith(f"problem  leftovers: no stack hookline, but the table hookline-data and its KMS key {key} of a destroyed one")
    assert "(/aws/vendedlogs/states/hookline-retry-wait-0a1b, hookline-FunctionsDeliveryLogs12AB-x1y2)" in found
    assert "hookline-staging" not in found
    assert "'hookline-data already exists'" in found
    assert "STACK=hookline npx cdk import -c hookline:data-only=true, then make deploy STACK=hookline" in found
    assert f"aws dynamodb delete-table --table-name hookline-data; aws kms schedule-key-deletion --key-id {key}" in found


def test_log_groups_alone_are_a_warning(account: None) -> None:
    make_log_groups("hookline-ApiAccessLogs1234-abc")
    status, output = run(clients=make_clients())
    assert status == 0
    assert line(output, "leftovers").startswith("warning  leftovers: no stack hookline, but 1 log group(s) of a destroyed one remain")


def test_a_failed_first_create_is_no_stack(account: None) -> None:
    leave_destroyed_stack()
    status, output = run(clients=make_clients(cloudformation=DeployedStack(None, status="ROLLBACK_COMPLETE")))
    assert status == 1
    assert line(output, "leftovers").startswith("problem  leftovers: no stack hookline, but the table hookline-data")


def test_the_leftovers_decision() -> None:
    assert preflight.leftovers_finding("hl", LeftoverFacts(None, None, ())).severity == "ok"
    assert preflight.leftovers_finding("hl", LeftoverFacts(None, None, ("hl-ApiLogs-1",))).severity == "warning"
    assert preflight.leftovers_finding("hl", LeftoverFacts("hl-data", None, ())).severity == "problem"


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("hookline-FunctionsDeliveryLogs12AB-x1y2", True),
        ("hookline-ApiAccessLogs1234-abc", True),
        ("/aws/vendedlogs/states/hookline-retry-wait-0a1b2c", True),
        ("/aws/vendedlogs/states/hookline-retry-wait", True),  # before 26ed2cd
        ("hookline-staging-FunctionsLogs-z", False),  # another stack's
        ("/aws/vendedlogs/states/hookline-staging-retry-wait-1", False),
        ("/aws/lambda/hookline-delivery", False),
        ("hookline", False),
    ],
)
def test_which_log_groups_are_the_stacks(name: str, kept: bool) -> None:
    assert deployed.leftover_log_group(name, "hookline", ["retry-wait"]) is kept


# ---------------------------------------------------------------------------------------------------------------
# The pure comparison of two templates.
# ---------------------------------------------------------------------------------------------------------------


def test_the_settings_diff() -> None:
    old = {"HOOKLINE_SIZE": "default", "HOOKLINE_ALARM_EMAIL": "a@x.io", "HOOKLINE_GONE": "1"}
    new = {"HOOKLINE_SIZE": "small", "HOOKLINE_ALARM_EMAIL": "a@x.io", "HOOKLINE_NEW": "2"}
    changes = deployed.setting_changes(old, new)
    assert changes == [Change("HOOKLINE_SIZE", "default", "small"), Change("HOOKLINE_NEW", None, "2"), Change("HOOKLINE_GONE", "1", None)]
    assert deployed.diff_lines(changes) == ["- HOOKLINE_SIZE=default", "+ HOOKLINE_SIZE=small", "+ HOOKLINE_NEW=2", "- HOOKLINE_GONE=1"]


def _template(*resources: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"Resources": {logical_id: {"Type": type_, "Properties": props} for logical_id, type_, props in resources}}


def _function(**props: Any) -> tuple[str, str, dict[str, Any]]:
    return ("Fn", "AWS::Lambda::Function", {"FunctionName": "hl-delivery", **props})


def _grant(*resources: Any) -> tuple[str, str, dict[str, Any]]:
    statement = {"Effect": "Allow", "Action": ["ses:SendEmail"], "Resource": list(resources)}
    return ("Policy", "AWS::IAM::Policy", {"PolicyDocument": {"Statement": [statement]}})


def _stage(**throttle: Any) -> tuple[str, str, dict[str, Any]]:
    return ("Stage", "AWS::ApiGatewayV2::Stage", {"StageName": "$default", "DefaultRouteSettings": throttle})


def _mapping(**scaling: Any) -> tuple[str, str, dict[str, Any]]:
    return ("Esm", "AWS::Lambda::EventSourceMapping", {"ScalingConfig": scaling} if scaling else {})


SUBSCRIPTION = ("Sub", "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "a@x.io", "TopicArn": {"Ref": "Topic"}})


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (_template(SUBSCRIPTION), _template(), [Removal("subscription", "the email subscription a@x.io")]),
        (_template(SUBSCRIPTION), _template(SUBSCRIPTION), []),
        (_template(_grant("arn:aws:ses:r:1:identity/x.io")), _template(), [Removal("grant", "the SES grant to send as arn:aws:ses:r:1:identity/x.io")]),
        (_template(_grant("a", "b")), _template(_grant("a")), [Removal("grant", "the SES grant to send as b")]),
        (
            _template(_grant({"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":ses:r:1:identity/x.io"]]})),
            _template(),
            [Removal("grant", "the SES grant to send as arn:${AWS::Partition}:ses:r:1:identity/x.io")],
        ),
        (
            _template(_function(ReservedConcurrentExecutions=50)),
            _template(_function()),
            [Removal("capacity", "Fn (hl-delivery) reserved concurrency 50 -> none")],
        ),
        (
            _template(_function(ReservedConcurrentExecutions=50)),
            _template(_function(ReservedConcurrentExecutions=20)),
            [Removal("capacity", "Fn (hl-delivery) reserved concurrency 50 -> 20")],
        ),
        (_template(_function()), _template(_function(ReservedConcurrentExecutions=20)), []),
        (_template(_function(MemorySize=512)), _template(_function()), [Removal("capacity", "Fn (hl-delivery) memory (MB) 512 -> 128")]),
        (_template(_function(MemorySize=512)), _template(_function(MemorySize=1024)), []),
        (_template(_mapping(MaximumConcurrency=20)), _template(_mapping(MaximumConcurrency=2)), [Removal("capacity", "Esm maximum concurrency 20 -> 2")]),
        (_template(_mapping(MaximumConcurrency=20)), _template(_mapping()), []),  # no maximum: no ceiling of the stack's own
        (
            _template(_stage(ThrottlingRateLimit=100, ThrottlingBurstLimit=200)),
            _template(_stage(ThrottlingRateLimit=50, ThrottlingBurstLimit=200)),
            [Removal("capacity", "Stage ($default) throttle rate (requests/s) 100 -> 50")],
        ),
        (_template(_function(ReservedConcurrentExecutions=50)), _template(), []),  # a function that goes is infra.upgrade's
    ],
)
def test_what_an_update_removes(old: dict[str, Any], new: dict[str, Any], expected: list[Removal]) -> None:
    assert deployed.removals(old, new) == expected


def test_the_real_template_removes_nothing_from_itself(synth: Synth, with_alarm_email: Synth) -> None:
    assert deployed.removals(template_of(synth), template_of(synth)) == []
    assert deployed.removals(template_of(synth), template_of(with_alarm_email)) == []
