"""The synthesized template wires exactly what hookline.topology and Settings ask for."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import assertions

from hookline import topology
from hookline.settings import Settings
from hookline.topology import API, AUTHORIZER, DELIVERY, DELIVERY_DLQ, DELIVERY_QUEUE, FUNCTIONS, QUEUES, TABLE, TABLES
from infra.functions import settings_env
from infra.queues import TopologyError, check_consumer, check_dead_letter
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize

Match = assertions.Match
DAY = 86_400


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def _resources_of_type(synth: Synth, cfn_type: str) -> dict[str, Any]:
    return {k: v for k, v in synth.resources.items() if v["Type"] == cfn_type}


def _queue_id(synth: Synth, spec: topology.QueueSpec) -> str:
    return synth.logical_id(synth.stack.queues.queue(spec))


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    """A second stack, synthesized from different environment variables."""
    settings = Settings.from_env({"HOOKLINE_DELIVERY_CONCURRENCY": "7", "HOOKLINE_DELIVERY_BATCH_SIZE": "4", "HOOKLINE_AUTHORIZER_CACHE_SECONDS": "60"})
    return synthesize(tmp_path_factory.mktemp("cdk.out.tuned"), settings)


# --- topology -> resources -------------------------------------------------------------------


def test_one_resource_per_topology_entry(synth: Synth) -> None:
    # Given the topology's tables, queues and functions
    # When the stack is synthesized
    # Then each becomes exactly one resource, with the topology's physical names
    synth.template.resource_count_is("AWS::Lambda::Function", len(FUNCTIONS))
    synth.template.resource_count_is("AWS::SQS::Queue", len(QUEUES))
    synth.template.resource_count_is("AWS::DynamoDB::Table", len(TABLES))
    for queue in QUEUES:
        synth.template.has_resource_properties("AWS::SQS::Queue", {"QueueName": queue.physical_name("hookline")})
    for table in TABLES:
        synth.template.has_resource_properties("AWS::DynamoDB::Table", {"TableName": table.physical_name("hookline")})
    assert DELIVERY_DLQ.physical_name("hookline").endswith("-dlq")


def test_outputs(synth: Synth) -> None:
    # Given the synthesized stack
    # When its outputs are listed
    # Then the API URL, table name and both queue URLs are exported
    outputs = synth.template.to_json()["Outputs"]
    assert {"ApiUrl", "TableName", "DeliveryQueueUrl", "DeliveryDlqUrl"} <= set(outputs)
    assert outputs["TableName"]["Value"] == {"Ref": synth.logical_id(synth.stack.storage.table(TABLE))}
    assert outputs["DeliveryQueueUrl"]["Value"] == {"Ref": _queue_id(synth, DELIVERY_QUEUE)}
    assert outputs["DeliveryDlqUrl"]["Value"] == {"Ref": _queue_id(synth, DELIVERY_DLQ)}


# --- delivery: concurrency, batching, redrive -----------------------------------------------


def test_delivery_reserved_concurrency_equals_setting(synth: Synth) -> None:
    # Given the default settings
    # When the stack is synthesized
    # Then the delivery function reserves exactly delivery_concurrency, and the others reserve nothing
    functions = synth.resources
    assert DELIVERY.reserved_concurrency_setting == "delivery_concurrency"
    assert functions[synth.function_id(DELIVERY)]["Properties"]["ReservedConcurrentExecutions"] == BASE_SETTINGS.delivery_concurrency
    for spec in (API, AUTHORIZER):
        assert "ReservedConcurrentExecutions" not in functions[synth.function_id(spec)]["Properties"]


def test_delivery_concurrency_and_batch_size_follow_the_environment(tuned: Synth) -> None:
    # Given HOOKLINE_DELIVERY_CONCURRENCY=7, HOOKLINE_DELIVERY_BATCH_SIZE=4, HOOKLINE_AUTHORIZER_CACHE_SECONDS=60
    # When a stack is synthesized from those settings
    # Then reserved concurrency, batch size and authorizer cache TTL change with them
    assert tuned.resources[tuned.function_id(DELIVERY)]["Properties"]["ReservedConcurrentExecutions"] == 7
    tuned.template.has_resource_properties("AWS::Lambda::EventSourceMapping", {"BatchSize": 4})
    tuned.template.has_resource_properties("AWS::ApiGatewayV2::Authorizer", {"AuthorizerResultTtlInSeconds": 60})


def test_event_source_mapping_reports_batch_item_failures(synth: Synth) -> None:
    # Given the delivery function's sqs_source
    # When the stack is synthesized
    # Then one mapping from the delivery queue, batch size from settings, partial batch failures on
    synth.template.resource_count_is("AWS::Lambda::EventSourceMapping", 1)
    synth.template.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "EventSourceArn": {"Fn::GetAtt": [_queue_id(synth, DELIVERY_QUEUE), "Arn"]},
            "FunctionName": {"Ref": synth.function_id(DELIVERY)},
            "BatchSize": BASE_SETTINGS.delivery_batch_size,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
        },
    )


def test_delivery_queue_redrives_to_its_dlq(synth: Synth) -> None:
    # Given the delivery queue spec with a dead-letter queue
    # When the stack is synthesized
    # Then its redrive policy targets the -dlq queue with the spec's maxReceiveCount
    queue = synth.resources[_queue_id(synth, DELIVERY_QUEUE)]["Properties"]
    dlq_id = _queue_id(synth, DELIVERY_DLQ)
    assert synth.resources[dlq_id]["Properties"]["QueueName"] == "hookline-delivery-dlq"
    assert queue["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]}, "maxReceiveCount": DELIVERY_QUEUE.max_receive_count}


def test_dlq_keeps_messages_longer_than_its_source(synth: Synth) -> None:
    # Given retention counts from the first enqueue, even after the move to the DLQ
    # When the stack is synthesized
    # Then the DLQ keeps messages for 14 days, longer than the delivery queue
    queue = synth.resources[_queue_id(synth, DELIVERY_QUEUE)]["Properties"]
    dlq = synth.resources[_queue_id(synth, DELIVERY_DLQ)]["Properties"]
    assert dlq["MessageRetentionPeriod"] == 14 * DAY
    assert dlq["MessageRetentionPeriod"] > queue["MessageRetentionPeriod"] == DELIVERY_QUEUE.retention_seconds


def test_visibility_timeout_covers_six_consumer_timeouts(synth: Synth) -> None:
    # Given every function that consumes a queue
    # When the stack is synthesized
    # Then the queue's visibility timeout is at least 6x the function's timeout
    for spec in FUNCTIONS:
        if spec.sqs_source is None:
            continue
        queue = synth.resources[_queue_id(synth, spec.sqs_source.queue)]["Properties"]
        function = synth.resources[synth.function_id(spec)]["Properties"]
        assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]


def test_synth_refuses_a_short_visibility_timeout_or_dlq_retention() -> None:
    # Given a queue whose visibility timeout or DLQ retention is too short
    # When the synth-time checks run
    # Then they raise instead of producing a stack that redelivers or loses messages
    short = replace(DELIVERY_QUEUE, visibility_timeout_seconds=5 * DELIVERY.timeout_seconds)
    with pytest.raises(TopologyError, match="visibility timeout"):
        check_consumer(short, DELIVERY)
    check_consumer(DELIVERY_QUEUE, DELIVERY)
    brief_dlq = replace(DELIVERY_QUEUE, dead_letter=replace(DELIVERY_DLQ, retention_seconds=DELIVERY_QUEUE.retention_seconds))
    with pytest.raises(TopologyError, match="retention"):
        check_dead_letter(brief_dlq)


def test_every_queue_is_encrypted_and_requires_tls(synth: Synth) -> None:
    # Given every queue in the topology
    # When the stack is synthesized
    # Then each has server-side encryption and a policy denying non-TLS access
    for spec in QUEUES:
        queue_id = _queue_id(synth, spec)
        assert synth.resources[queue_id]["Properties"]["SqsManagedSseEnabled"] is True
        synth.template.has_resource_properties(
            "AWS::SQS::QueuePolicy",
            {
                "Queues": [{"Ref": queue_id}],
                "PolicyDocument": {
                    "Statement": Match.array_with(
                        [Match.object_like({"Effect": "Deny", "Action": "sqs:*", "Condition": {"Bool": {"aws:SecureTransport": "false"}}})]
                    )
                },
            },
        )


# --- table -----------------------------------------------------------------------------------


def test_table_is_encrypted_recoverable_and_expiring(synth: Synth) -> None:
    # Given the data table spec
    # When the stack is synthesized
    # Then on-demand billing, pk/sk string keys, SSE with the stack's rotated KMS key, PITR, TTL, retained on delete
    table_id = synth.logical_id(synth.stack.storage.table(TABLE))
    key_id = synth.logical_id(synth.stack.storage.key)
    synth.template.has_resource(
        "AWS::DynamoDB::Table",
        {
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": {
                "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": TABLE.partition_key, "KeyType": "HASH"}, {"AttributeName": TABLE.sort_key, "KeyType": "RANGE"}],
                "AttributeDefinitions": Match.array_with([{"AttributeName": TABLE.partition_key, "AttributeType": "S"}]),
                "SSESpecification": {"SSEEnabled": True, "SSEType": "KMS", "KMSMasterKeyId": {"Fn::GetAtt": [key_id, "Arn"]}},
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
                "TimeToLiveSpecification": {"AttributeName": TABLE.ttl_attribute, "Enabled": True},
            },
        },
    )
    assert table_id in synth.resources
    synth.template.has_resource("AWS::KMS::Key", {"DeletionPolicy": "Retain", "Properties": {"EnableKeyRotation": True}})


# --- functions -------------------------------------------------------------------------------


def test_functions_run_python314_on_arm64_with_both_layers(synth: Synth) -> None:
    # Given every function spec
    # When the stack is synthesized
    # Then each runs python3.14 on arm64 with the spec's handler, timeout, memory, both layers and active tracing
    layers = [{"Ref": synth.logical_id(synth.stack.functions.deps_layer)}, {"Ref": synth.logical_id(synth.stack.functions.hookline_layer)}]
    for spec in FUNCTIONS:
        props = synth.resources[synth.function_id(spec)]["Properties"]
        assert props["Runtime"] == "python3.14"
        assert props["Architectures"] == ["arm64"]
        assert props["Handler"] == spec.handler == "handler.handler"
        assert props["Timeout"] == spec.timeout_seconds
        assert props["MemorySize"] == spec.memory_mb
        assert sorted(props["Layers"], key=str) == sorted(layers, key=str)
        assert props["TracingConfig"] == {"Mode": "Active"}


def test_function_environment_comes_from_topology_and_settings(synth: Synth) -> None:
    # Given each spec's resources and the behaviour settings
    # When the stack is synthesized
    # Then every resource env var carries the table name / queue URL, and settings are passed as strings
    for spec in FUNCTIONS:
        env = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env["POWERTOOLS_SERVICE_NAME"] == "hookline"
        assert env["HOOKLINE_ALLOW_PRIVATE_NETWORKS"] == ""
        assert env["HOOKLINE_CONNECT_TIMEOUT_SECONDS"] == str(BASE_SETTINGS.connect_timeout_seconds)
        assert env["HOOKLINE_MAX_EVENT_BYTES"] == str(BASE_SETTINGS.max_event_bytes)
        for resource in spec.env_resources:
            if isinstance(resource, topology.TableSpec):
                assert env[resource.env] == {"Ref": synth.logical_id(synth.stack.storage.table(resource))}
            else:
                assert env[resource.env] == {"Ref": _queue_id(synth, resource)}
    delivery_env = synth.resources[synth.function_id(DELIVERY)]["Properties"]["Environment"]["Variables"]
    assert delivery_env[DELIVERY_DLQ.env] == {"Ref": _queue_id(synth, DELIVERY_DLQ)}


def test_settings_env_round_trips_and_never_relaxes_the_ssrf_guard() -> None:
    # Given settings that differ from the defaults, private networks included
    settings = Settings.from_env({"HOOKLINE_REQUEST_TIMEOUT_SECONDS": "7.5", "HOOKLINE_PAGE_LIMIT_MAX": "50", "HOOKLINE_ALLOW_PRIVATE_NETWORKS": "10.0.0.0/8"})
    # When they become function environment variables and are read back
    parsed = Settings.from_env(settings_env(settings))
    # Then the behaviour survives the trip, but the cloud never exempts private networks
    assert parsed.request_timeout_seconds == 7.5
    assert parsed.page_limit_max == 50
    assert parsed.allow_private_networks == ()


def test_each_function_has_its_own_role(synth: Synth) -> None:
    # Given every function
    # When the stack is synthesized
    # Then each assumes a distinct role, created in this stack for Lambda, with no managed policies
    roles = [synth.resources[synth.function_id(spec)]["Properties"]["Role"] for spec in FUNCTIONS]
    assert roles == [{"Fn::GetAtt": [synth.role_id(spec), "Arn"]} for spec in FUNCTIONS]
    assert len({synth.role_id(spec) for spec in FUNCTIONS}) == len(FUNCTIONS)
    for spec in FUNCTIONS:
        role = synth.resources[synth.role_id(spec)]["Properties"]
        assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}
        assert "ManagedPolicyArns" not in role


def test_authorizer_role_cannot_write_the_table_or_send_messages(synth: Synth) -> None:
    # Given the authorizer only needs to read API keys
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(AUTHORIZER))
    actions = {a for s in statements for a in _actions(s)}
    # Then it can read the table but has no write or queue actions
    assert "dynamodb:GetItem" in actions
    writes = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:*"}
    assert not actions & writes
    assert not {a for a in actions if a.startswith("sqs:")}
    assert not {a for a in actions if a.startswith("kms:") and a not in {"kms:Decrypt", "kms:DescribeKey"}}


def test_api_role_sends_only_to_the_delivery_queue(synth: Synth) -> None:
    # Given the API enqueues delivery tasks
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(API))
    # Then sqs:SendMessage is allowed on the delivery queue and nothing else
    sends = [s for s in statements if "sqs:SendMessage" in _actions(s)]
    assert sends
    for statement in sends:
        assert statement["Resource"] == {"Fn::GetAtt": [_queue_id(synth, DELIVERY_QUEUE), "Arn"]}
    actions = {a for s in statements for a in _actions(s)}
    assert "sqs:ReceiveMessage" not in actions
    assert "sqs:DeleteMessage" not in actions


def test_only_the_delivery_role_consumes_the_delivery_queue(synth: Synth) -> None:
    # Given only the delivery function has an sqs_source
    # When each role's actions are collected
    # Then only the delivery role may receive/delete messages, on its queue only
    for spec in FUNCTIONS:
        statements = synth.policy_statements(synth.role_id(spec))
        receives = [s for s in statements if "sqs:ReceiveMessage" in _actions(s)]
        if spec is DELIVERY:
            assert [s["Resource"] for s in receives] == [{"Fn::GetAtt": [_queue_id(synth, DELIVERY_QUEUE), "Arn"]}]
        else:
            assert receives == []


def test_roles_write_only_to_their_own_log_group(synth: Synth) -> None:
    # Given each function has its own log group
    # When each role's log permissions are collected
    # Then they target that log group alone
    for spec in FUNCTIONS:
        log_group_id = synth.logical_id(synth.stack.functions.log_groups[spec.name])
        logs = [s for s in synth.policy_statements(synth.role_id(spec)) if any(a.startswith("logs:") for a in _actions(s))]
        assert [s["Resource"] for s in logs] == [{"Fn::GetAtt": [log_group_id, "Arn"]}]
        props = synth.resources[synth.function_id(spec)]["Properties"]
        assert props["LoggingConfig"]["LogGroup"] == {"Ref": log_group_id}


def test_log_groups_have_retention(synth: Synth) -> None:
    # Given the function and API access log groups
    # When the stack is synthesized
    # Then every log group expires its events
    log_groups = _resources_of_type(synth, "AWS::Logs::LogGroup")
    assert len(log_groups) == len(FUNCTIONS) + 1
    for log_group in log_groups.values():
        assert log_group["Properties"]["RetentionInDays"] == 30


# --- API -------------------------------------------------------------------------------------


def test_routes_and_authorizer(synth: Synth) -> None:
    # Given the HTTP API
    # When the stack is synthesized
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in _resources_of_type(synth, "AWS::ApiGatewayV2::Route").values()}
    authorizer_id = next(iter(_resources_of_type(synth, "AWS::ApiGatewayV2::Authorizer")))
    # Then /health is open, /v1/{proxy+} goes through the Lambda authorizer, both to the api function
    assert set(routes) == {"GET /health", "ANY /v1/{proxy+}"}
    assert routes["GET /health"].get("AuthorizationType", "NONE") == "NONE"
    assert routes["ANY /v1/{proxy+}"]["AuthorizationType"] == "CUSTOM"
    assert routes["ANY /v1/{proxy+}"]["AuthorizerId"] == {"Ref": authorizer_id}
    api_arn = {"Fn::GetAtt": [synth.function_id(API), "Arn"]}
    synth.template.has_resource_properties(
        "AWS::ApiGatewayV2::Integration", {"IntegrationType": "AWS_PROXY", "IntegrationUri": api_arn, "PayloadFormatVersion": "2.0"}
    )
    # And the authorizer answers in the simple format, keyed on the Authorization header, cached per settings
    synth.template.has_resource_properties(
        "AWS::ApiGatewayV2::Authorizer",
        {
            "AuthorizerType": "REQUEST",
            "AuthorizerPayloadFormatVersion": "2.0",
            "EnableSimpleResponses": True,
            "IdentitySource": ["$request.header.Authorization"],
            "AuthorizerResultTtlInSeconds": BASE_SETTINGS.authorizer_cache_seconds,
            "AuthorizerUri": Match.serialized_json(Match.any_value()) if False else Match.any_value(),
        },
    )


def test_default_stage_logs_access_and_throttles(synth: Synth) -> None:
    # Given the API's $default stage
    # When the stack is synthesized
    # Then it auto-deploys, logs JSON access lines to its log group and has throttling limits
    access_logs = synth.logical_id(synth.stack.api.access_logs)
    synth.template.has_resource_properties(
        "AWS::ApiGatewayV2::Stage",
        {
            "StageName": "$default",
            "AutoDeploy": True,
            "AccessLogSettings": {"DestinationArn": {"Fn::GetAtt": [access_logs, "Arn"]}, "Format": Match.serialized_json(Match.object_like({"requestId": "$context.requestId"}))},
            "DefaultRouteSettings": {"ThrottlingBurstLimit": Match.any_value(), "ThrottlingRateLimit": Match.any_value()},
        },
    )
