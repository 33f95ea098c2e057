"""The synthesized template wires exactly what hookline.wiring.topology and Settings ask for."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from aws_cdk import Aws, CfnElement, assertions

from hookline.core.deadletters import RETRY_WAIT_FAILED
from hookline.core.destinations import ROLE_NAME_PREFIX
from hookline.core.settings import MAX_BATCHING_WINDOW_SECONDS, TABLE_CAPACITY_TARGET_PERCENT, Settings, SettingsError
from hookline.wiring import topology
from hookline.wiring.topology import (
    API,
    AUTHORIZER,
    CUSTOMER_ENDPOINTS_INDEX,
    DELIVERY,
    DELIVERY_DLQ,
    DELIVERY_QUEUE,
    ENDPOINT_DELIVERIES_INDEX,
    ENDPOINT_LOG_INDEX,
    ENDPOINT_VERSIONS_INDEX,
    FUNCTIONS,
    JOBS,
    JOBS_DLQ,
    JOBS_QUEUE,
    NOTIFICATIONS,
    ORDERED,
    ORDERED_DLQ,
    ORDERED_QUEUE,
    PREVIOUS_JOB_DLQ,
    PREVIOUS_JOB_QUEUE,
    QUEUES,
    RETRY,
    RETRY_QUEUE,
    RETRY_WAIT,
    STATE_MACHINES,
    TABLE,
    TABLES,
    TOPICS,
)
from infra import sizing
from infra.functions import NAMED_FUNCTIONS, behaviour_settings, settings_env
from infra.queues import TopologyError, check_consumer, check_dead_letter
from infra.synth import DATA_ONLY_CONTEXT, build_app
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, references, synthesize

Match = assertions.Match
DAY = 86_400


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else list(action)


def _resources_of_type(synth: Synth, cfn_type: str) -> dict[str, Any]:
    return {k: v for k, v in synth.resources.items() if v["Type"] == cfn_type}


def _queue_id(synth: Synth, spec: topology.QueueSpec) -> str:
    return synth.queue_id(spec)


def _queue_arn(synth: Synth, spec: topology.QueueSpec) -> dict[str, Any]:
    return {"Fn::GetAtt": [_queue_id(synth, spec), "Arn"]}


def _statement_resources(statement: dict[str, Any]) -> list[Any]:
    resource = statement["Resource"]
    return list(resource) if isinstance(resource, list) else [resource]


CUSTOMER_STATEMENTS = ("AssumeCustomerDestinationRoles",)


def _resources_allowed(statements: list[dict[str, Any]], action: str) -> list[Any]:
    """Every resource of the stack's own the statements allow `action` on (policies are minimized: one statement may
    list several); the customers' destinations, outside the stack's account, are tested on their own."""
    return [
        r for s in statements if s["Effect"] == "Allow" and action in _actions(s) and s.get("Sid") not in CUSTOMER_STATEMENTS for r in _statement_resources(s)
    ]


def _sort(items: list[Any]) -> list[Any]:
    return sorted(items, key=str)


# The functions that run the delivery code: the first attempt off the delivery queue, retries off the retry queue.
CONSUMERS = (DELIVERY, RETRY)
# The functions that publish operational notifications.
PUBLISHERS = (API, DELIVERY, RETRY)
# Every function invoked by an SQS event source.
SQS_CONSUMERS = tuple(spec for spec in FUNCTIONS if spec.sqs_source is not None)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    """A second stack, synthesized from different environment variables."""
    settings = Settings.from_env(
        {
            "HOOKLINE_DELIVERY_CONCURRENCY": "7",
            "HOOKLINE_RETRY_CONCURRENCY": "3",
            "HOOKLINE_DELIVERY_BATCH_SIZE": "4",
            "HOOKLINE_RETRY_BATCH_SIZE": "6",
            "HOOKLINE_AUTHORIZER_CACHE_SECONDS": "60",
            "HOOKLINE_JOBS_CONCURRENCY": "5",
            "HOOKLINE_JOBS_BATCH_SIZE": "3",
            "HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS": "1800",
            "HOOKLINE_TABLE_DELETION_PROTECTION": "false",
        }
    )
    return synthesize(tmp_path_factory.mktemp("cdk.out.tuned"), settings)


# --- topology -> resources -------------------------------------------------------------------


def test_one_resource_per_topology_entry(synth: Synth) -> None:
    # Given the topology's tables, queues, state machines, topics and functions
    # When the stack is synthesized
    # Then each becomes exactly one resource, with the topology's physical names
    synth.template.resource_count_is("AWS::Lambda::Function", len(FUNCTIONS))
    synth.template.resource_count_is("AWS::SNS::Topic", len(TOPICS))
    for topic in TOPICS:
        synth.template.has_resource_properties("AWS::SNS::Topic", {"TopicName": topic.physical_name("hookline")})
    synth.template.resource_count_is("AWS::SQS::Queue", len(QUEUES))
    synth.template.resource_count_is("AWS::DynamoDB::Table", len(TABLES))
    synth.template.resource_count_is("AWS::StepFunctions::StateMachine", len(STATE_MACHINES))
    for machine in STATE_MACHINES:
        synth.template.has_resource_properties("AWS::StepFunctions::StateMachine", {"StateMachineName": machine.physical_name("hookline")})
    for queue in QUEUES:
        synth.template.has_resource_properties("AWS::SQS::Queue", {"QueueName": queue.physical_name("hookline")})
    for table in TABLES:
        synth.template.has_resource_properties("AWS::DynamoDB::Table", {"TableName": table.physical_name("hookline")})
    assert DELIVERY_DLQ.physical_name("hookline").endswith("-dlq")


def test_outputs(synth: Synth) -> None:
    # Given the synthesized stack
    # When its outputs are listed
    # Then the API URL, table name, every queue's URL, the retry state machine's and the topic's ARNs,
    # the jobs function's name and the dashboard's name are exported
    outputs = synth.template.to_json()["Outputs"]
    queue_outputs = {
        "DeliveryQueueUrl": DELIVERY_QUEUE,
        "DeliveryDlqUrl": DELIVERY_DLQ,
        "RetryQueueUrl": RETRY_QUEUE,
        "JobsQueueUrl": JOBS_QUEUE,
        "JobsDlqUrl": JOBS_DLQ,
        "ReplayQueueUrl": PREVIOUS_JOB_QUEUE,
        "ReplayDlqUrl": PREVIOUS_JOB_DLQ,
        "OrderedQueueUrl": ORDERED_QUEUE,
        "OrderedDlqUrl": ORDERED_DLQ,
    }
    assert {"ApiUrl", "TableName", *queue_outputs, "RetryStateMachineArn", "NotificationsTopicArn", "JobsFunctionName", "DashboardName"} <= set(outputs)
    assert len(queue_outputs) == len(QUEUES)
    assert outputs["TableName"]["Value"] == {"Ref": synth.logical_id(synth.stack.storage.table(TABLE))}
    for name, queue in queue_outputs.items():
        assert outputs[name]["Value"] == {"Ref": _queue_id(synth, queue)}, name
    # (Ref of a function is its name: what `aws lambda invoke --function-name` takes for the DLQ drain)
    assert outputs["JobsFunctionName"]["Value"] == {"Ref": synth.function_id(JOBS)}
    # (Ref of a state machine is its ARN)
    assert outputs["RetryStateMachineArn"]["Value"] == {"Ref": synth.state_machine_id(RETRY_WAIT)}
    # (Ref of a topic is its ARN)
    assert outputs["NotificationsTopicArn"]["Value"] == {"Ref": synth.topic_id(NOTIFICATIONS)}


# --- delivery: concurrency, batching, redrive -----------------------------------------------


def _mapping_of(synth: Synth, spec: topology.FunctionSpec) -> dict[str, Any]:
    """The properties of the one event source mapping that invokes the function (through its live alias, see test_deploys.py)."""
    mappings = [
        m["Properties"]
        for m in _resources_of_type(synth, "AWS::Lambda::EventSourceMapping").values()
        if synth.alias_id(spec) in references(m["Properties"]["FunctionName"])
    ]
    assert len(mappings) == 1, (spec.name, mappings)
    return mappings[0]


def test_delivery_and_retry_reserve_their_own_concurrency(synth: Synth) -> None:
    # Given the default settings, where delivery and retry concurrency differ
    assert BASE_SETTINGS.delivery_concurrency != BASE_SETTINGS.retry_concurrency
    # When the stack is synthesized
    functions = synth.resources
    # Then the delivery function reserves delivery_concurrency, the retry function retry_concurrency,
    # and the others reserve nothing
    assert DELIVERY.reserved_concurrency_setting == "delivery_concurrency"
    assert RETRY.reserved_concurrency_setting == "retry_concurrency"
    assert functions[synth.function_id(DELIVERY)]["Properties"]["ReservedConcurrentExecutions"] == BASE_SETTINGS.delivery_concurrency
    assert functions[synth.function_id(RETRY)]["Properties"]["ReservedConcurrentExecutions"] == BASE_SETTINGS.retry_concurrency
    for spec in (API, AUTHORIZER):
        assert "ReservedConcurrentExecutions" not in functions[synth.function_id(spec)]["Properties"]


def test_concurrency_and_batch_size_follow_the_environment(tuned: Synth) -> None:
    # Given HOOKLINE_DELIVERY_CONCURRENCY=7, HOOKLINE_RETRY_CONCURRENCY=3, HOOKLINE_DELIVERY_BATCH_SIZE=4, HOOKLINE_RETRY_BATCH_SIZE=6,
    # HOOKLINE_AUTHORIZER_CACHE_SECONDS=60
    # When a stack is synthesized from those settings
    # Then each consumer's reserved concurrency, the batch sizes and the authorizer cache TTL change with them
    assert tuned.resources[tuned.function_id(DELIVERY)]["Properties"]["ReservedConcurrentExecutions"] == 7
    assert tuned.resources[tuned.function_id(RETRY)]["Properties"]["ReservedConcurrentExecutions"] == 3
    assert _mapping_of(tuned, DELIVERY)["BatchSize"] == 4
    assert _mapping_of(tuned, RETRY)["BatchSize"] == 6
    tuned.template.has_resource_properties("AWS::ApiGatewayV2::Authorizer", {"AuthorizerResultTtlInSeconds": 60})


def test_replay_concurrency_and_batch_size_follow_the_environment(tuned: Synth) -> None:
    # Given HOOKLINE_JOBS_CONCURRENCY=5 and HOOKLINE_JOBS_BATCH_SIZE=3
    # When a stack is synthesized from those settings
    # Then the jobs function reserves 5, its pollers stop at 5, and it takes 3 replay jobs per invocation
    assert tuned.resources[tuned.function_id(JOBS)]["Properties"]["ReservedConcurrentExecutions"] == 5
    assert _mapping_of(tuned, JOBS)["BatchSize"] == 3
    # And neither setting reaches any function's environment: they configure the stack
    for spec in FUNCTIONS:
        env = tuned.resources[tuned.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert not {"HOOKLINE_JOBS_CONCURRENCY", "HOOKLINE_JOBS_BATCH_SIZE", "HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS"} & set(env), spec.name


def test_event_source_mappings_report_batch_item_failures(synth: Synth) -> None:
    # Given the delivery function's sqs_source on the delivery queue, the retry function's on the retry queue, the
    # ordered function's on the ordered lane's FIFO queue and the jobs function's on the jobs queue
    assert SQS_CONSUMERS == (DELIVERY, RETRY, ORDERED, JOBS)
    # When the stack is synthesized
    # Then each has exactly one mapping, from its own queue, batch size from settings, partial batch failures on
    synth.template.resource_count_is("AWS::Lambda::EventSourceMapping", len(SQS_CONSUMERS))
    for spec, queue, batch_size in (
        (DELIVERY, DELIVERY_QUEUE, BASE_SETTINGS.delivery_batch_size),
        (RETRY, RETRY_QUEUE, BASE_SETTINGS.retry_batch_size),
        (ORDERED, ORDERED_QUEUE, BASE_SETTINGS.ordered_batch_size),
        (JOBS, JOBS_QUEUE, BASE_SETTINGS.jobs_batch_size),
    ):
        assert spec.sqs_source is not None and spec.sqs_source.queue == queue
        mapping = _mapping_of(synth, spec)
        assert mapping["EventSourceArn"] == _queue_arn(synth, queue)
        assert mapping["BatchSize"] == batch_size
        assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    # And the retry function's batch of 20 (above SQS's 10) is gathered for at most a second; a FIFO source takes no window
    assert _mapping_of(synth, RETRY)["MaximumBatchingWindowInSeconds"] == 1
    assert "MaximumBatchingWindowInSeconds" not in _mapping_of(synth, ORDERED)
    # And the ordered lane's queue and its dead-letter queue are FIFO, quotas per message group (per endpoint)
    for queue in (ORDERED_QUEUE, ORDERED_DLQ):
        props = synth.resources[_queue_id(synth, queue)]["Properties"]
        assert (props["FifoQueue"], props["QueueName"].endswith(".fifo")) == (True, True)
    props = synth.resources[_queue_id(synth, ORDERED_QUEUE)]["Properties"]
    assert (props["DeduplicationScope"], props["FifoThroughputLimit"]) == ("messageGroup", "perMessageGroupId")


def test_sqs_pollers_never_outrun_the_reserved_concurrency(synth: Synth, tuned: Synth) -> None:
    # Given each consumer's reserved concurrency
    # When the stack is synthesized, with the default and with tuned settings
    # Then its event source's maximum concurrency equals it, so throttling never burns receive counts
    assert _mapping_of(synth, DELIVERY)["ScalingConfig"] == {"MaximumConcurrency": BASE_SETTINGS.delivery_concurrency}
    assert _mapping_of(synth, RETRY)["ScalingConfig"] == {"MaximumConcurrency": BASE_SETTINGS.retry_concurrency}
    # And the jobs function, which the sweeper's schedule and make dlq-drain invoke besides its event source, keeps
    # 2 of its reservation beyond the source's maximum, so those invocations are not throttled
    assert _mapping_of(synth, JOBS)["ScalingConfig"] == {"MaximumConcurrency": BASE_SETTINGS.jobs_concurrency - sizing.DIRECT_HEADROOM}
    assert _mapping_of(tuned, DELIVERY)["ScalingConfig"] == {"MaximumConcurrency": 7}
    assert _mapping_of(tuned, RETRY)["ScalingConfig"] == {"MaximumConcurrency": 3}
    assert _mapping_of(tuned, JOBS)["ScalingConfig"] == {"MaximumConcurrency": 5 - sizing.DIRECT_HEADROOM}


def test_delivery_queue_redrives_to_its_dlq(synth: Synth) -> None:
    # Given the delivery queue spec with a dead-letter queue
    # When the stack is synthesized
    # Then its redrive policy targets the -dlq queue with the spec's maxReceiveCount
    queue = synth.resources[_queue_id(synth, DELIVERY_QUEUE)]["Properties"]
    dlq_id = _queue_id(synth, DELIVERY_DLQ)
    assert synth.resources[dlq_id]["Properties"]["QueueName"] == "hookline-delivery-dlq"
    assert queue["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]}, "maxReceiveCount": DELIVERY_QUEUE.max_receive_count}


def test_retry_queue_redrives_to_the_shared_dlq(synth: Synth) -> None:
    # Given the retry queue spec, whose dead-letter queue is the delivery queue's
    # When the stack is synthesized
    # Then the retry queue exists, and both sources redrive to the one DLQ, which has no DLQ itself
    retry = synth.resources[_queue_id(synth, RETRY_QUEUE)]["Properties"]
    assert retry["QueueName"] == "hookline-retry"
    assert retry["RedrivePolicy"] == {"deadLetterTargetArn": _queue_arn(synth, DELIVERY_DLQ), "maxReceiveCount": RETRY_QUEUE.max_receive_count}
    redriven = {
        q["Properties"]["QueueName"]: q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]
        for q in _resources_of_type(synth, "AWS::SQS::Queue").values()
        if "RedrivePolicy" in q["Properties"]
    }
    assert sorted(name for name, target in redriven.items() if target == _queue_arn(synth, DELIVERY_DLQ)) == ["hookline-delivery", "hookline-retry"]
    assert "RedrivePolicy" not in synth.resources[_queue_id(synth, DELIVERY_DLQ)]["Properties"]


def test_replay_queue_has_its_own_dlq(synth: Synth) -> None:
    # Given the jobs queue spec, whose dead-letter queue is jobs-dlq (failed replay jobs are not deliveries)
    # When the stack is synthesized
    replay = synth.resources[_queue_id(synth, JOBS_QUEUE)]["Properties"]
    dlq = synth.resources[_queue_id(synth, JOBS_DLQ)]["Properties"]
    # Then the jobs queue covers six replay timeouts, keeps jobs for its retention, and redrives to hookline-jobs-dlq
    assert replay["QueueName"] == "hookline-jobs"
    assert replay["VisibilityTimeout"] == 6 * JOBS.timeout_seconds == JOBS_QUEUE.visibility_timeout_seconds
    assert replay["RedrivePolicy"] == {"deadLetterTargetArn": _queue_arn(synth, JOBS_DLQ), "maxReceiveCount": JOBS_QUEUE.max_receive_count}
    # And the jobs DLQ has no DLQ of its own and keeps messages longer than the jobs queue
    assert dlq["QueueName"] == "hookline-jobs-dlq"
    assert "RedrivePolicy" not in dlq
    assert dlq["MessageRetentionPeriod"] > replay["MessageRetentionPeriod"]


def test_dlq_keeps_messages_longer_than_its_sources(synth: Synth) -> None:
    # Given retention counts from the first enqueue, even after the move to the DLQ
    # When the stack is synthesized
    # Then the DLQ keeps messages for 14 days, longer than the delivery and the retry queue
    dlq = synth.resources[_queue_id(synth, DELIVERY_DLQ)]["Properties"]
    assert dlq["MessageRetentionPeriod"] == 14 * DAY
    for spec in (DELIVERY_QUEUE, RETRY_QUEUE):
        queue = synth.resources[_queue_id(synth, spec)]["Properties"]
        assert dlq["MessageRetentionPeriod"] > queue["MessageRetentionPeriod"] == spec.retention_seconds


def test_visibility_timeout_covers_six_consumer_timeouts_and_the_batching_window(synth: Synth) -> None:
    # Given every function that consumes a queue, and AWS's rule for an SQS event source: the queue's visibility timeout
    # at least 6x the function's timeout plus the source's MaximumBatchingWindowInSeconds
    # When the stack is synthesized (the defaults: the retry lane gathers its batches for a second)
    mappings = list(_resources_of_type(synth, "AWS::Lambda::EventSourceMapping").values())
    for spec in SQS_CONSUMERS:
        assert spec.sqs_source is not None
        queue = synth.resources[_queue_id(synth, spec.sqs_source.queue)]["Properties"]
        function = synth.resources[synth.function_id(spec)]["Properties"]
        (mapping,) = [m["Properties"] for m in mappings if m["Properties"]["EventSourceArn"] == _queue_arn(synth, spec.sqs_source.queue)]
        # Then the queue's visibility timeout covers both
        assert queue["VisibilityTimeout"] >= 6 * function["Timeout"] + mapping.get("MaximumBatchingWindowInSeconds", 0)
    assert BASE_SETTINGS.retry_batch_window_seconds > 0


@pytest.mark.parametrize(
    "spec", [spec for spec in SQS_CONSUMERS if spec.sqs_source is not None and spec.sqs_source.batching_window_setting], ids=lambda spec: spec.name
)
def test_every_batching_window_the_settings_accept_is_covered(spec: topology.FunctionSpec) -> None:
    # Given a delivery lane whose window is a setting, at the longest the settings accept (300 s)
    assert spec.sqs_source is not None and spec.sqs_source.batching_window_setting is not None
    longest = Settings(**{spec.sqs_source.batching_window_setting: MAX_BATCHING_WINDOW_SECONDS})
    # When the synth-time check runs
    # Then its queue covers it
    check_consumer(spec.sqs_source.queue, spec, spec.sqs_source.batching_window(longest))


def test_synth_refuses_a_batching_window_the_visibility_timeout_does_not_cover() -> None:
    # Given the retry queue as it was (6 x the function's timeout, 360 s) and the retry lane's default window of a second
    before = replace(RETRY_QUEUE, visibility_timeout_seconds=6 * RETRY.timeout_seconds)
    # When the synth-time check runs
    # Then it refuses, naming the window's setting and the sum it needed
    with pytest.raises(TopologyError, match=r"batching window \(1s, HOOKLINE_RETRY_BATCH_WINDOW_SECONDS\): 361s"):
        check_consumer(before, RETRY, 1, "HOOKLINE_RETRY_BATCH_WINDOW_SECONDS")
    check_consumer(before, RETRY, 0)


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
    # and on replacement, but not after a failed first create (RetainExceptOnCreate): that leaves nothing behind to
    # make the next deploy fail with "already exists"
    table_id = synth.logical_id(synth.stack.storage.table(TABLE))
    key_id = synth.logical_id(synth.stack.storage.key)
    synth.template.has_resource(
        "AWS::DynamoDB::Table",
        {
            "DeletionPolicy": "RetainExceptOnCreate",
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
    synth.template.has_resource(
        "AWS::KMS::Key", {"DeletionPolicy": "RetainExceptOnCreate", "UpdateReplacePolicy": "Retain", "Properties": {"EnableKeyRotation": True}}
    )
    # And so is every log group: kept after `cdk destroy`, gone with a failed first create
    for log_group in [r for r in synth.resources.values() if r["Type"] == "AWS::Logs::LogGroup"]:
        assert (log_group["DeletionPolicy"], log_group["UpdateReplacePolicy"]) == ("RetainExceptOnCreate", "Retain")


def test_table_has_deletion_protection_unless_the_setting_lifts_it(synth: Synth, tuned: Synth) -> None:
    # Given the default settings, and a stack deployed with HOOKLINE_TABLE_DELETION_PROTECTION=false (the step before
    # deleting the retained table by hand, docs/operations.md)
    # When each is synthesized
    # Then the default's table refuses deletion (by hand or by an update), and the other's may be deleted
    assert BASE_SETTINGS.table_deletion_protection is True
    for stack, protected in ((synth, True), (tuned, False)):
        (table,) = _resources_of_type(stack, "AWS::DynamoDB::Table").values()
        assert table["Properties"]["DeletionProtectionEnabled"] is protected
        assert table["DeletionPolicy"] == "RetainExceptOnCreate"


def test_table_has_the_endpoint_deliveries_customer_endpoints_endpoint_versions_and_endpoint_log_indexes(synth: Synth) -> None:
    # Given the data table spec with the endpoint-deliveries (gsi1), customer-endpoints (gsi2), endpoint-versions (gsi3)
    # and endpoint-log (gsi4) indexes
    assert TABLE.indexes == (ENDPOINT_DELIVERIES_INDEX, CUSTOMER_ENDPOINTS_INDEX, ENDPOINT_VERSIONS_INDEX, ENDPOINT_LOG_INDEX)
    # When the stack is synthesized
    props = synth.resources[synth.logical_id(synth.stack.storage.table(TABLE))]["Properties"]
    # Then the table has exactly those global secondary indexes, with string keys, the versions' and the log's projecting only the keys
    assert props["GlobalSecondaryIndexes"] == [
        {
            "IndexName": name,
            "KeySchema": [{"AttributeName": f"{keys}pk", "KeyType": "HASH"}, {"AttributeName": f"{keys}sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": projection},
        }
        for name, keys, projection in (
            ("endpoint-deliveries", "gsi1", "ALL"),
            ("customer-endpoints", "gsi2", "ALL"),
            ("endpoint-versions", "gsi3", "KEYS_ONLY"),
            ("endpoint-log", "gsi4", "KEYS_ONLY"),
        )
    ]
    for attribute in ("gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "gsi4pk", "gsi4sk"):
        assert {"AttributeName": attribute, "AttributeType": "S"} in props["AttributeDefinitions"]
    # And the indexes inherit on-demand billing: no provisioned throughput to size
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert all("ProvisionedThroughput" not in index for index in props["GlobalSecondaryIndexes"])


def test_table_readers_may_query_its_indexes(synth: Synth) -> None:
    # Given every function with a grant on the table (the authorizer reads, the others read and write)
    table_arn = {"Fn::GetAtt": [synth.logical_id(synth.stack.storage.table(TABLE)), "Arn"]}
    index_arns = {"Fn::Join": ["", [table_arn, "/index/*"]]}
    for spec in FUNCTIONS:
        # When its role's Query permissions are collected
        queried = _resources_allowed(synth.policy_statements(synth.role_id(spec)), "dynamodb:Query")
        # Then it may query the table and its indexes, and nothing else
        assert _sort(queried) == _sort([table_arn, index_arns]), spec.name


# --- topics ----------------------------------------------------------------------------------


def test_notifications_topic_is_encrypted_with_the_stack_key_and_requires_tls(synth: Synth) -> None:
    # Given the NOTIFICATIONS topic spec
    topic_id = synth.topic_id(NOTIFICATIONS)
    key_id = synth.logical_id(synth.stack.storage.key)
    # When the stack is synthesized
    props = synth.resources[topic_id]["Properties"]
    # Then the topic is a standard topic named from the topology, encrypted with the stack's customer-managed key
    assert props["TopicName"] == "hookline-notifications"
    assert props["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    assert not props.get("FifoTopic", False)
    # And its policy denies publishing over plain HTTP
    synth.template.has_resource_properties(
        "AWS::SNS::TopicPolicy",
        {
            "Topics": [{"Ref": topic_id}],
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Effect": "Deny",
                                "Principal": "*",
                                "Action": "sns:Publish",
                                "Resource": {"Ref": topic_id},
                                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                            }
                        )
                    ]
                )
            },
        },
    )
    # And the policy allows nothing to any principal of the account: publishers get sns:Publish from their roles.
    # Its only Allow is for CloudWatch, publishing this account's hookline-* alarms (the policy replaces SNS's
    # default one, and a service principal needs the topic's own permission)
    policies = [p["Properties"] for p in _resources_of_type(synth, "AWS::SNS::TopicPolicy").values() if {"Ref": topic_id} in p["Properties"]["Topics"]]
    assert len(policies) == 1
    allows = [s for s in policies[0]["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    assert len(allows) == 1
    (allow,) = allows
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert allow["Action"] == "sns:Publish"
    assert allow["Resource"] == {"Ref": topic_id}
    assert allow["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    source_arn = allow["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Join"][1]
    assert source_arn[-1] == ":alarm:hookline-*"


@pytest.mark.parametrize("spec", PUBLISHERS, ids=[s.name for s in PUBLISHERS])
def test_publishers_may_publish_only_to_the_notifications_topic(synth: Synth, spec: topology.FunctionSpec) -> None:
    # Given a function whose spec grants it "publish" on the notifications topic
    assert topology.Grant(NOTIFICATIONS, "publish") in spec.grants
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(spec))
    # Then sns:Publish is allowed on that topic alone, and it holds no other SNS action
    assert _resources_allowed(statements, "sns:Publish") == [{"Ref": synth.topic_id(NOTIFICATIONS)}]
    assert {a for s in statements for a in _actions(s) if a.startswith("sns:")} == {"sns:Publish"}
    # And it may use the stack's key to encrypt what it publishes (the topic is KMS-encrypted)
    key_arn = {"Fn::GetAtt": [synth.logical_id(synth.stack.storage.key), "Arn"]}
    unsealing = [s for s in statements if s.get("Sid") != SEAL_SID]  # sealing endpoints' secrets is tested on its own
    for action in ("kms:GenerateDataKey*", "kms:Decrypt"):
        assert _resources_allowed(unsealing, action) == [key_arn], action


SEAL_SID = "SealEndpointSecrets"
SEALERS = [spec for spec in FUNCTIONS if topology.Grant(topology.SECRETS_KEY, "seal") in spec.grants]


def test_the_functions_that_seal_endpoint_secrets_may_use_the_key_only_under_an_endpoints_context(synth: Synth) -> None:
    # Given the api (which seals an endpoint's auth and sends its test events) and every function that delivers
    assert {s.name for s in SEALERS} == {API.name, DELIVERY.name, RETRY.name, ORDERED.name}
    key_arn = {"Fn::GetAtt": [synth.logical_id(synth.stack.storage.key), "Arn"]}
    for spec in FUNCTIONS:
        statements = [s for s in synth.policy_statements(synth.role_id(spec)) if s.get("Sid") == SEAL_SID]
        env = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
        if spec not in SEALERS:
            # Then the others have no such statement, nor the key's ARN
            assert statements == [] and topology.SECRETS_KEY.env not in env, spec.name
            continue
        # Then each has one statement: a data key made and one opened, on the stack's key, under an endpoint's encryption context
        (statement,) = statements
        assert _sort(_actions(statement)) == ["kms:Decrypt", "kms:GenerateDataKey"]
        assert statement["Resource"] == key_arn
        assert statement["Condition"] == {"StringLike": {"kms:EncryptionContext:endpoint": "ep_*"}}
        assert env[topology.SECRETS_KEY.env] == key_arn


def test_authorizer_cannot_publish_notifications(synth: Synth) -> None:
    # Given the authorizer, which has no "publish" grant
    assert not [g for g in AUTHORIZER.grants if g.access == "publish"]
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(AUTHORIZER))
    # Then it holds no SNS action at all, and does not learn the topic's ARN
    assert not {a for s in statements for a in _actions(s) if a.startswith("sns:")}
    env = synth.resources[synth.function_id(AUTHORIZER)]["Properties"]["Environment"]["Variables"]
    assert NOTIFICATIONS.env not in env


# --- functions -------------------------------------------------------------------------------


def test_functions_run_python313_on_arm64_with_both_layers(synth: Synth) -> None:
    # Given every function spec
    # When the stack is synthesized
    # Then each runs python3.13 on arm64 with the spec's handler, timeout, memory and both layers
    layers = [{"Ref": synth.logical_id(synth.stack.functions.deps_layer)}, {"Ref": synth.logical_id(synth.stack.functions.hookline_layer)}]
    for spec in FUNCTIONS:
        props = synth.resources[synth.function_id(spec)]["Properties"]
        assert props["Runtime"] == "python3.13"
        assert props["Architectures"] == ["arm64"]
        assert props["Handler"] == spec.handler == {RETRY.name: "handler.retry", ORDERED.name: "handler.ordered"}.get(spec.name, "handler.handler")
        assert props["Timeout"] == spec.timeout_seconds
        assert props["MemorySize"] == spec.memory_mb
        assert sorted(props["Layers"], key=str) == sorted(layers, key=str)


def _xray_actions(synth: Synth, spec: topology.FunctionSpec) -> set[str]:
    return {a for s in synth.policy_statements(synth.role_id(spec)) for a in _actions(s) if a.startswith("xray:")}


def test_functions_trace_with_x_ray_only_when_hookline_tracing_is_on(synth: Synth, checked_variant: tuple[Synth, list[Any]]) -> None:
    # Given the stack with HOOKLINE_TRACING at its default (off), and the variant with it on
    variant, _ = checked_variant
    assert (BASE_SETTINGS.tracing, variant.stack.settings.tracing) == (False, True)
    for spec in FUNCTIONS:
        # Then off, no function has a TracingConfig (CDK's Tracing.DISABLED; Lambda's default, PassThrough), its role no
        # X-Ray action, and Powertools is told tracing is off
        props = synth.resources[synth.function_id(spec)]["Properties"]
        assert "TracingConfig" not in props, spec.name
        assert props["Environment"]["Variables"]["POWERTOOLS_TRACE_DISABLED"] == "true"
        assert _xray_actions(synth, spec) == set(), spec.name
        # And on, each traces actively with the two X-Ray actions it needs (on '*', their only resource), as before
        props = variant.resources[variant.function_id(spec)]["Properties"]
        assert props["TracingConfig"] == {"Mode": "Active"}, spec.name
        assert props["Environment"]["Variables"]["POWERTOOLS_TRACE_DISABLED"] == "false"
        assert _xray_actions(variant, spec) == {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, spec.name
        assert all(s["Resource"] == "*" for s in variant.policy_statements(variant.role_id(spec)) if any(a.startswith("xray:") for a in _actions(s)))
        # And HOOKLINE_TRACING itself is the stack's, not the functions'
        assert "HOOKLINE_TRACING" not in props["Environment"]["Variables"]


def test_function_environment_comes_from_topology_and_settings(synth: Synth) -> None:
    # Given each spec's resources and the behaviour settings
    # When the stack is synthesized
    # Then every resource env var carries the table name / queue URL, and settings are passed as strings
    for spec in FUNCTIONS:
        env = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env["POWERTOOLS_SERVICE_NAME"] == "hookline"
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == "hookline"
        assert env["HOOKLINE_ALLOW_PRIVATE_NETWORKS"] == ""
        assert env["HOOKLINE_CONNECT_TIMEOUT_SECONDS"] == str(BASE_SETTINGS.connect_timeout_seconds)
        assert env["HOOKLINE_MAX_EVENT_BYTES"] == str(BASE_SETTINGS.max_event_bytes)
        for resource in spec.env_resources:
            if isinstance(resource, topology.TableSpec):
                assert env[resource.env] == {"Ref": synth.logical_id(synth.stack.storage.table(resource))}
            elif isinstance(resource, topology.StateMachineSpec):
                assert env[resource.env] == {"Ref": synth.state_machine_id(resource)}  # the ARN
            elif isinstance(resource, topology.TopicSpec):
                assert env[resource.env] == {"Ref": synth.topic_id(resource)}  # the ARN
            elif isinstance(resource, topology.KeySpec):
                assert env[resource.env] == {"Fn::GetAtt": [synth.logical_id(synth.stack.storage.key), "Arn"]}
            else:
                assert env[resource.env] == {"Ref": _queue_id(synth, resource)}
    # And the api, delivery and retry functions know the notifications topic's ARN
    for spec in PUBLISHERS:
        env = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env["HOOKLINE_NOTIFICATIONS_TOPIC_ARN"] == {"Ref": synth.topic_id(NOTIFICATIONS)}
    # And the api function knows the retry queue, where it requeues a re-enabled endpoint's backlog
    api_env = synth.resources[synth.function_id(API)]["Properties"]["Environment"]["Variables"]
    assert api_env[RETRY_QUEUE.env] == {"Ref": _queue_id(synth, RETRY_QUEUE)}
    assert DELIVERY_DLQ.env not in api_env
    # And both delivery-code functions know the retry queue, the DLQ and the state machine
    for spec in CONSUMERS:
        env = synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env[DELIVERY_DLQ.env] == {"Ref": _queue_id(synth, DELIVERY_DLQ)}
        assert env[RETRY_QUEUE.env] == {"Ref": _queue_id(synth, RETRY_QUEUE)}
        assert env[RETRY_WAIT.env] == {"Ref": synth.state_machine_id(RETRY_WAIT)}
        assert env["HOOKLINE_MAX_ATTEMPTS"] == str(BASE_SETTINGS.max_attempts)
        assert env["HOOKLINE_RETRY_JITTER"] == BASE_SETTINGS.retry_jitter
        assert env["HOOKLINE_SQS_MAX_DELAY_SECONDS"] == str(BASE_SETTINGS.sqs_max_delay_seconds)


def test_settings_env_round_trips_and_never_relaxes_the_ssrf_guard() -> None:
    # Given settings that differ from the defaults, private networks included
    settings = Settings.from_env(
        {
            "HOOKLINE_CONNECT_TIMEOUT_SECONDS": "1.5",
            "HOOKLINE_REQUEST_TIMEOUT_SECONDS": "7.5",
            "HOOKLINE_RESPONSE_BODY_LIMIT_BYTES": "100",
            "HOOKLINE_MAX_EVENT_BYTES": "1000",
            "HOOKLINE_PAGE_LIMIT_MAX": "50",
            "HOOKLINE_RETENTION_DAYS": "3",
            "HOOKLINE_ALLOW_PRIVATE_NETWORKS": "10.0.0.0/8",
            "HOOKLINE_RETRY_BASE_SECONDS": "5.5",
            "HOOKLINE_RETRY_MAX_DELAY_SECONDS": "600",
            "HOOKLINE_RETRY_JITTER": "equal",
            "HOOKLINE_MAX_ATTEMPTS": "4",
            "HOOKLINE_MAX_AGE_SECONDS": "3600",
            "HOOKLINE_SQS_MAX_DELAY_SECONDS": "60",
        }
    )
    # When they become function environment variables and are read back
    parsed = Settings.from_env(settings_env(settings))
    # Then every behaviour setting survives the trip, but the cloud never exempts private networks
    for name in behaviour_settings():
        if name not in ("allow_private_networks", "own_account_id"):
            assert getattr(parsed, name) == getattr(settings, name), name
    assert parsed.allow_private_networks == ()
    # And the functions are told the stack's own account (a token CloudFormation resolves), whatever the synth machine says
    assert settings_env(settings)["HOOKLINE_OWN_ACCOUNT_ID"] == Aws.ACCOUNT_ID


def test_functions_get_behaviour_settings_but_not_stack_or_local_ones() -> None:
    # Given the Settings fields
    # When the stack picks those it passes to the functions
    passed = set(behaviour_settings())
    # Then the delivery and API behaviour is passed, while stack configuration, local-mode knobs
    # and resource names (which come from the topology) are not
    assert {
        "connect_timeout_seconds",
        "request_timeout_seconds",
        "response_body_limit_bytes",
        "allow_private_networks",
        "max_event_bytes",
        "page_limit_max",
        "retention_days",
        "retry_base_seconds",
        "retry_max_delay_seconds",
        "retry_jitter",
        "max_attempts",
        "max_age_seconds",
        "sqs_max_delay_seconds",
        "dlq_drain_rate_per_second",
    } <= passed
    stack_or_local = {
        "delivery_concurrency",
        "retry_concurrency",
        "jobs_concurrency",
        "delivery_batch_size",
        "jobs_batch_size",
        "authorizer_cache_seconds",
        "oldest_message_alarm_seconds",
        "deploy_strategy",
        "api_keys",
        "port",
        "aws_port",
    }
    resources = {
        "table_name",
        "delivery_queue_url",
        "delivery_dlq_url",
        "retry_queue_url",
        "jobs_queue_url",
        "jobs_dlq_url",
        "retry_state_machine_arn",
        "notifications_topic_arn",
    }
    assert not passed & (stack_or_local | resources)
    assert not {name for name in passed if name.endswith(("_url", "_arn"))}


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
    assert not {a for a in actions if a.startswith(("sqs:", "states:", "sns:"))}
    assert not {a for a in actions if a.startswith("kms:") and a not in {"kms:Decrypt", "kms:DescribeKey"}}


def test_api_role_sends_to_the_delivery_retry_ordered_and_replay_queues_but_not_the_dlqs(synth: Synth) -> None:
    # Given the API enqueues delivery tasks (an ordered endpoint's on the ordered lane), requeues a re-enabled
    # endpoint's paused backlog on the retry queue, and queues customers' replay jobs on the jobs queue
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(API))
    # Then sqs:SendMessage is allowed on those four queues and nothing else (no DLQ)
    sends = _resources_allowed(statements, "sqs:SendMessage")
    assert _sort(sends) == _sort(
        [_queue_arn(synth, DELIVERY_QUEUE), _queue_arn(synth, RETRY_QUEUE), _queue_arn(synth, ORDERED_QUEUE), _queue_arn(synth, JOBS_QUEUE)]
    )
    assert _queue_arn(synth, DELIVERY_DLQ) not in sends
    assert _queue_arn(synth, JOBS_DLQ) not in sends
    # And it knows the jobs queue's URL
    api_env = synth.resources[synth.function_id(API)]["Properties"]["Environment"]["Variables"]
    assert api_env[JOBS_QUEUE.env] == {"Ref": _queue_id(synth, JOBS_QUEUE)}
    actions = {a for s in statements for a in _actions(s)}
    assert "sqs:ReceiveMessage" not in actions
    assert "sqs:DeleteMessage" not in actions
    assert not {a for a in actions if a.startswith("states:")}


def test_each_consumer_role_consumes_only_its_own_queues(synth: Synth) -> None:
    # Given the delivery function consumes the delivery queue, the retry function the retry queue, and the
    # jobs function the jobs queue (its event source) and, by hand, the delivery DLQ (the operators' drain) and the
    # previous release's job queue (its sweep moves that queue's messages to the jobs queue)
    # (the ordered function its FIFO queue, whose messages it also holds: ChangeMessageVisibility)
    consumed = {
        DELIVERY.name: [DELIVERY_QUEUE],
        RETRY.name: [RETRY_QUEUE],
        ORDERED.name: [ORDERED_QUEUE],
        JOBS.name: [DELIVERY_DLQ, PREVIOUS_JOB_QUEUE, JOBS_QUEUE],
    }
    for spec in FUNCTIONS:
        # When each role's actions are collected
        statements = synth.policy_statements(synth.role_id(spec))
        # Then only those roles may receive/delete messages, each on its own queues only
        for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"):
            expected = [_queue_arn(synth, queue) for queue in consumed.get(spec.name, [])]
            assert _sort(_resources_allowed(statements, action)) == _sort(expected), (spec.name, action)


@pytest.mark.parametrize("spec", CONSUMERS, ids=[s.name for s in CONSUMERS])
def test_consumer_roles_schedule_retries_but_never_send_to_the_delivery_queue(synth: Synth, spec: topology.FunctionSpec) -> None:
    # Given a function running the delivery code (first attempts or retries)
    # When its role's policies are collected
    statements = synth.policy_statements(synth.role_id(spec))
    # Then it may start executions of the retry state machine and nothing else in Step Functions
    state_machine_actions = {a for s in statements for a in _actions(s) if a.startswith("states:")}
    assert state_machine_actions == {"states:StartExecution"}
    assert _resources_allowed(statements, "states:StartExecution") == [{"Ref": synth.state_machine_id(RETRY_WAIT)}]
    # And it sends only to the retry queue and the DLQ, never back to the delivery queue
    sends = _resources_allowed(statements, "sqs:SendMessage")
    assert _sort(sends) == _sort([_queue_arn(synth, RETRY_QUEUE), _queue_arn(synth, DELIVERY_DLQ)])
    assert _queue_arn(synth, DELIVERY_QUEUE) not in sends
    # And no statement allows a wildcard action
    assert not [a for s in statements for a in _actions(s) if a.endswith(":*") or a == "*"]


def test_retry_function_runs_the_delivery_code(synth: Synth) -> None:
    # Given the retry spec names the delivery folder as its code
    assert RETRY.source_dir == DELIVERY.source_dir == "delivery"
    # When the stack is synthesized
    delivery = synth.resources[synth.function_id(DELIVERY)]["Properties"]
    retry = synth.resources[synth.function_id(RETRY)]["Properties"]
    # Then both functions deploy the same code asset, as separate functions, each calling its own lane's entry
    assert retry["Code"] == delivery["Code"]
    assert (delivery["Handler"], retry["Handler"]) == ("handler.handler", "handler.retry")
    assert synth.function_id(RETRY) != synth.function_id(DELIVERY)


# --- replay ----------------------------------------------------------------------------------


def test_replay_function_has_its_name_concurrency_and_event_source(synth: Synth) -> None:
    # Given the JOBS spec: functions/jobs, 120 s, 256 MB, jobs_concurrency, an sqs_source on the jobs queue
    assert JOBS.sqs_source is not None and JOBS.sqs_source.queue == JOBS_QUEUE
    # When the stack is synthesized
    props = synth.resources[synth.function_id(JOBS)]["Properties"]
    # Then the function is named hookline-jobs, so operators can `aws lambda invoke` it for the DLQ drain
    assert props["FunctionName"] == "hookline-jobs"
    assert props["Timeout"] == 120
    assert props["MemorySize"] == 256
    # And it reserves jobs_concurrency, of which its pollers take all but the 2 its direct invocations need
    assert props["ReservedConcurrentExecutions"] == BASE_SETTINGS.jobs_concurrency == 4
    mapping = _mapping_of(synth, JOBS)
    assert mapping["EventSourceArn"] == _queue_arn(synth, JOBS_QUEUE)
    assert mapping["BatchSize"] == BASE_SETTINGS.jobs_batch_size == 1
    assert mapping["ScalingConfig"] == {"MaximumConcurrency": 2}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_only_the_replay_function_has_a_fixed_name(synth: Synth) -> None:
    # Given the functions operators call by name
    assert {JOBS.name} == NAMED_FUNCTIONS
    # When the stack is synthesized
    # Then only those have a physical FunctionName; CloudFormation names the others
    named = {spec.name for spec in FUNCTIONS if "FunctionName" in synth.resources[synth.function_id(spec)]["Properties"]}
    assert named == {JOBS.name}


def test_replay_role_drains_the_dlq_requeues_and_queues_first_attempts(synth: Synth) -> None:
    # Given the jobs function: replay jobs off the jobs queue, the operators' DLQ drain by hand
    statements = synth.policy_statements(synth.role_id(JOBS))
    # When its role's SQS permissions are collected
    # Then it may take messages off the delivery DLQ by hand (receive, delete, change visibility, read attributes and URL)
    dlq = _queue_arn(synth, DELIVERY_DLQ)
    for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"):
        assert dlq in _resources_allowed(statements, action), action
    # And it sends to the retry queue (drained, replayed and re-queued deliveries), the delivery queue (the first attempts
    # of a broadcast's fan-out and of what the sweeper finds unqueued) and the jobs queue (a job's next step); never to the
    # DLQ, which it only drains (what it leaves there, it hides and leaves)
    # (and the ordered lane, where an ordered endpoint's tasks go from each of those)
    sends = _resources_allowed(statements, "sqs:SendMessage")
    assert _sort(sends) == _sort(
        [_queue_arn(synth, DELIVERY_QUEUE), _queue_arn(synth, RETRY_QUEUE), _queue_arn(synth, ORDERED_QUEUE), _queue_arn(synth, JOBS_QUEUE)]
    )
    # And never to its own DLQ
    assert _queue_arn(synth, JOBS_DLQ) not in sends
    # And it holds no Step Functions, SNS or wildcard action
    actions = {a for s in statements for a in _actions(s)}
    assert not {a for a in actions if a.startswith(("states:", "sns:"))}
    assert not {a for a in actions if a.endswith(":*") or a == "*"}


def test_replay_function_knows_its_queues_and_the_dlq(synth: Synth) -> None:
    # Given the jobs function's grants (the "receive" grant on the delivery DLQ included)
    env = synth.resources[synth.function_id(JOBS)]["Properties"]["Environment"]["Variables"]
    # When its environment is read
    # Then it carries the URLs of the delivery DLQ, the retry queue, the jobs queue and the jobs DLQ, and the table
    assert env[DELIVERY_DLQ.env] == {"Ref": _queue_id(synth, DELIVERY_DLQ)}
    assert env[RETRY_QUEUE.env] == {"Ref": _queue_id(synth, RETRY_QUEUE)}
    assert env[JOBS_QUEUE.env] == {"Ref": _queue_id(synth, JOBS_QUEUE)}
    assert env[JOBS_DLQ.env] == {"Ref": _queue_id(synth, JOBS_DLQ)}
    assert env[TABLE.env] == {"Ref": synth.logical_id(synth.stack.storage.table(TABLE))}
    # And the drain's pace, a behaviour setting
    assert env["HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND"] == str(BASE_SETTINGS.dlq_drain_rate_per_second)
    # And the delivery queue, where a broadcast's fan-out and the sweeper queue first attempts
    assert env[DELIVERY_QUEUE.env] == {"Ref": _queue_id(synth, DELIVERY_QUEUE)}


# --- retry state machine ---------------------------------------------------------------------


def test_retry_state_machine_is_standard_logged_and_traced(synth: Synth) -> None:
    # Given the RETRY_WAIT spec
    # When the stack is synthesized
    props = synth.resources[synth.state_machine_id(RETRY_WAIT)]["Properties"]
    log_group_id = synth.logical_id(synth.stack.state_machines.log_groups[RETRY_WAIT.key])
    # Then it is a Standard workflow named from the topology, running as its own role,
    # logging every event to its own log group and traced with X-Ray
    assert props["StateMachineType"] == "STANDARD"
    assert props["StateMachineName"] == "hookline-retry-wait"
    assert props["RoleArn"] == {"Fn::GetAtt": [synth.state_machine_role_id(RETRY_WAIT), "Arn"]}
    assert props["LoggingConfiguration"]["Level"] == "ALL"
    assert props["LoggingConfiguration"]["Destinations"] == [{"CloudWatchLogsLogGroup": {"LogGroupArn": {"Fn::GetAtt": [log_group_id, "Arn"]}}}]
    assert props["TracingConfiguration"] == {"Enabled": True}
    log_group = synth.resources[log_group_id]["Properties"]
    # And the log group is under /aws/vendedlogs/, named after the stack and ending with the stack's own id: it outlives
    # the stack, and a stack created again under the same name must not collide with it
    stack_uuid = {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}
    assert log_group["LogGroupName"] == {"Fn::Join": ["", ["/aws/vendedlogs/states/hookline-retry-wait-", stack_uuid]]}
    assert log_group["RetentionInDays"] == 30


def test_retry_state_machine_waits_until_due_then_sends_the_task_to_the_retry_queue(synth: Synth) -> None:
    # Given the synthesized state machine, its queue URL substitutions resolved to markers
    retry_queue_url = "https://sqs.us-east-1.amazonaws.com/123456789012/hookline-retry"
    dlq_url = "https://sqs.us-east-1.amazonaws.com/123456789012/hookline-delivery-dlq"
    definition = synth.definition(RETRY_WAIT, {_queue_id(synth, RETRY_QUEUE): retry_queue_url, _queue_id(synth, DELIVERY_DLQ): dlq_url})
    props = synth.resources[synth.state_machine_id(RETRY_WAIT)]["Properties"]
    # When its states are followed from StartAt
    states = definition["States"]
    wait = states[definition["StartAt"]]
    send = states[wait["Next"]]
    # Then it first waits until the timestamp in $.until
    assert wait["Type"] == "Wait"
    assert wait["TimestampPath"] == "$.until"
    # And then sends $.task, unchanged, to the retry queue with the direct SQS integration, retrying errors, and ends
    assert send["Type"] == "Task"
    assert send["Resource"] == "arn:aws:states:::sqs:sendMessage"
    assert send["Parameters"] == {"QueueUrl": retry_queue_url, "MessageBody.$": "$.task"}
    assert send["Retry"] == [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 2, "MaxAttempts": 6, "BackoffRate": 2.0}]
    assert send["TimeoutSeconds"] == 60
    assert send["End"] is True
    assert props["DefinitionSubstitutions"] == {
        "TargetQueueUrl": {"Ref": _queue_id(synth, RETRY_QUEUE)},
        "DeadLetterQueueUrl": {"Ref": _queue_id(synth, DELIVERY_DLQ)},
    }
    # And the whole definition is the topology's, the single source the local runner uses too
    assert definition == RETRY_WAIT.definition(retry_queue_url, dlq_url)


def test_retry_state_machine_dead_letters_a_task_it_cannot_queue_saying_why(synth: Synth) -> None:
    # Given the synthesized state machine's send to the retry queue
    dlq_url = "https://sqs.us-east-1.amazonaws.com/123456789012/hookline-delivery-dlq"
    definition = synth.definition(RETRY_WAIT, {_queue_id(synth, RETRY_QUEUE): "https://retry", _queue_id(synth, DELIVERY_DLQ): dlq_url})
    states = definition["States"]
    send = states[states[definition["StartAt"]]["Next"]]
    # When every retry of the send (or its timeout) has failed, Then any error is caught, kept beside the input
    [catch] = send["Catch"]
    assert (catch["ErrorEquals"], catch["ResultPath"]) == (["States.ALL"], "$.failure")
    # And the task goes, unchanged, to the delivery DLQ, with the reason the DLQ drain and the operators read, and the error
    dead = states[catch["Next"]]
    assert dead["Type"] == "Task" and dead["Resource"] == "arn:aws:states:::sqs:sendMessage"
    assert dead["Parameters"]["QueueUrl"] == dlq_url
    assert dead["Parameters"]["MessageBody.$"] == "$.task"
    attributes = dead["Parameters"]["MessageAttributes"]
    assert attributes["reason"] == {"DataType": "String", "StringValue": RETRY_WAIT_FAILED}
    assert attributes["error"] == {"DataType": "String", "StringValue.$": "$.failure.Error"}
    assert attributes["detail"] == {"DataType": "String", "StringValue.$": "States.JsonToString($.failure)"}
    assert {"until", "execution"} <= set(attributes)
    # And that send retries too; then the execution fails all the same, so the failed-executions alarm sees it
    assert dead["Retry"] == send["Retry"] and "Catch" not in dead
    failed = states[dead["Next"]]
    assert (failed["Type"], failed["Error"]) == ("Fail", "RetryWaitFailed") and RETRY_WAIT_FAILED in failed["Cause"]
    # And a run whose send succeeds passes through two states, as the cost model counts it
    assert RETRY_WAIT.happy_path() == [definition["StartAt"], states[definition["StartAt"]]["Next"]]


def test_retry_state_machine_role_can_only_send_to_the_retry_queue_and_the_dlq(synth: Synth) -> None:
    # Given the state machine's role
    role = synth.resources[synth.state_machine_role_id(RETRY_WAIT)]["Properties"]
    statements = synth.policy_statements(synth.state_machine_role_id(RETRY_WAIT))
    # When its permissions are collected
    scoped = [s for s in statements if s["Resource"] != "*"]
    unscoped = {a for s in statements if s["Resource"] == "*" for a in _actions(s)}
    # Then Step Functions alone assumes it, with no managed policies
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "states.amazonaws.com"}
    assert "ManagedPolicyArns" not in role
    # And its only resource-scoped permissions are sending to the retry queue and, when that fails, to the delivery DLQ
    queues = [_queue_arn(synth, RETRY_QUEUE), _queue_arn(synth, DELIVERY_DLQ)]
    assert _sort(_resources_allowed(statements, "sqs:SendMessage")) == _sort(queues)
    assert {r for s in scoped for r in map(str, _statement_resources(s))} == set(map(str, queues))
    assert {a for s in scoped for a in _actions(s)} <= {"sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"}
    # And what it holds on '*' is only log delivery and X-Ray, which have no resource-level permissions
    assert unscoped
    assert all(a.startswith(("logs:", "xray:")) for a in unscoped), unscoped
    assert not {a for a in unscoped if a in {"logs:PutLogEvents", "logs:CreateLogGroup"} or a.endswith("*")}


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
    # Given the function, state machine and API access log groups
    # When the stack is synthesized
    # Then every log group expires its events
    log_groups = _resources_of_type(synth, "AWS::Logs::LogGroup")
    assert len(log_groups) == len(FUNCTIONS) + len(STATE_MACHINES) + 1
    for log_group in log_groups.values():
        assert log_group["Properties"]["RetentionInDays"] == 30


def test_log_groups_are_encrypted_with_the_stack_key_which_lets_cloudwatch_logs_use_it(synth: Synth) -> None:
    key_id = synth.logical_id(synth.stack.storage.key)
    # Every log group (functions, state machines, API access logs) is encrypted with the stack's key
    log_groups = _resources_of_type(synth, "AWS::Logs::LogGroup")
    assert {json.dumps(g["Properties"].get("KmsKeyId"), sort_keys=True) for g in log_groups.values()} == {
        json.dumps({"Fn::GetAtt": [key_id, "Arn"]}, sort_keys=True)
    }
    # And the key policy lets CloudWatch Logs in this region use it for this account's log groups only
    statements = synth.resources[key_id]["Properties"]["KeyPolicy"]["Statement"]
    [logs_statement] = [s for s in statements if "logs." in json.dumps(s.get("Principal", {}))]
    assert set(logs_statement["Action"]) == {"kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"}
    assert "kms:EncryptionContext:aws:logs:arn" in logs_statement["Condition"]["ArnLike"]


# --- API -------------------------------------------------------------------------------------


def test_routes_and_authorizer(synth: Synth) -> None:
    # Given the HTTP API
    # When the stack is synthesized
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in _resources_of_type(synth, "AWS::ApiGatewayV2::Route").values()}
    authorizer_id = next(iter(_resources_of_type(synth, "AWS::ApiGatewayV2::Authorizer")))
    # Then /health and the portal's static page and files are open, /v1/{proxy+} goes through the Lambda authorizer, all to the api function
    # (its live alias: see test_deploys.py)
    assert set(routes) == {"GET /health", "GET /portal", "GET /portal/{name}", "ANY /v1/{proxy+}", "$default"}
    unauthorized = {key for key, route in routes.items() if route.get("AuthorizationType", "NONE") == "NONE"}
    # ($default: what no route matches, answered by the api function as a JSON 404 or 405)
    assert unauthorized == {"GET /health", "GET /portal", "GET /portal/{name}", "$default"}
    assert routes["ANY /v1/{proxy+}"]["AuthorizationType"] == "CUSTOM"
    assert routes["ANY /v1/{proxy+}"]["AuthorizerId"] == {"Ref": authorizer_id}
    api_arn = {"Ref": synth.alias_id(API)}
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
        },
    )
    authorizer_uri = synth.resources[authorizer_id]["Properties"]["AuthorizerUri"]
    assert {"Ref": synth.alias_id(AUTHORIZER)} in authorizer_uri["Fn::Join"][1]


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
            "AccessLogSettings": {
                "DestinationArn": {"Fn::GetAtt": [access_logs, "Arn"]},
                "Format": Match.serialized_json(Match.object_like({"requestId": "$context.requestId"})),
            },
            "DefaultRouteSettings": {"ThrottlingBurstLimit": Match.any_value(), "ThrottlingRateLimit": Match.any_value()},
        },
    )


# --- installs side by side -----------------------------------------------------------------------

# Properties that carry a resource's physical name, for each type that has one.
NAME_PROPERTIES = {
    "AWS::DynamoDB::Table": "TableName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::StepFunctions::StateMachine": "StateMachineName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::CloudWatch::Dashboard": "DashboardName",
    "AWS::Scheduler::Schedule": "Name",
    "AWS::CodeDeploy::Application": "ApplicationName",
    "AWS::CodeDeploy::DeploymentGroup": "DeploymentGroupName",
    "AWS::IAM::Role": "RoleName",
    "AWS::Lambda::Alias": "Name",
    "AWS::ApiGatewayV2::Api": "Name",
}
# Names scoped to a parent resource of the same stack (an alias belongs to its function), not to the account.
SCOPED_NAME_TYPES = {"AWS::Lambda::Alias"}


def _physical_names(synth: Synth) -> set[str]:
    names = set()
    for resource in synth.resources.values():
        prop = NAME_PROPERTIES.get(resource["Type"])
        if prop is None or resource["Type"] in SCOPED_NAME_TYPES or prop not in resource.get("Properties", {}):
            continue
        names.add(json.dumps(resource["Properties"][prop], sort_keys=True))
    return names


def test_two_installs_in_one_account_share_no_physical_name(synth: Synth, tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> None:
    # Given the stack synthesized with HOOKLINE_STACK_NAME=hl-a, beside the default install's (hookline)
    a = synthesize(tmp_path_factory.mktemp("cdk.out.hl-a"), Settings.from_env({"HOOKLINE_STACK_NAME": "hl-a"}))
    b = synth
    # Then each stack is named so
    assert (a.stack.stack_name, b.stack.stack_name) == ("hl-a", "hookline")
    # And every resource that has a physical name has one of its own, starting with its stack's name
    names_a, names_b = _physical_names(a), _physical_names(b)
    assert names_a and not names_a & names_b
    for names, stack in ((names_a, "hl-a"), (names_b, "hookline")):
        for name in names:
            assert stack in name, name
    # And the table is the stack's own
    assert a.resources[a.logical_id(a.stack.storage.table(TABLE))]["Properties"]["TableName"] == "hl-a-data"
    # And so is the HTTP API (it was named `HttpApi`, after its construct, in every install)
    assert [r["Properties"]["Name"] for r in _resources_of_type(a, "AWS::ApiGatewayV2::Api").values()] == ["hl-a-api"]
    assert [r["Properties"]["Name"] for r in _resources_of_type(b, "AWS::ApiGatewayV2::Api").values()] == ["hookline-api"]


@pytest.mark.parametrize("name", ["", "1abc", "has_underscore", "x" * 33, "hl a"])
def test_a_stack_name_that_cannot_name_everything_is_refused(name: str) -> None:
    with pytest.raises(SettingsError, match="HOOKLINE_STACK_NAME"):
        Settings(stack_name=name)


def test_the_data_only_stack_holds_exactly_what_outlives_the_stack(synth: Synth, tmp_path: Path, deps_layer: Path) -> None:
    # Given the stack synthesized for `cdk import` (docs/operations.md, "Re-attaching the data")
    app, stack = build_app(BASE_SETTINGS, outdir=str(tmp_path), checks=False, context={DATA_ONLY_CONTEXT: "true"})
    app.synth()
    template = json.loads((tmp_path / f"{stack.artifact_id}.template.json").read_text())
    full = synth.stack
    # Then it holds the key and the table alone, under the logical ids of the full stack, each with the DeletionPolicy an
    # import requires, and nothing else (no CDKMetadata, no outputs: an import changes nothing but the adopted resources)
    resources = template["Resources"]
    assert {v["Type"] for v in resources.values()} == {"AWS::KMS::Key", "AWS::DynamoDB::Table"}
    assert set(resources) == {
        full.get_logical_id(cast(CfnElement, full.storage.key.node.default_child)),
        full.get_logical_id(cast(CfnElement, full.storage.table(TABLE).node.default_child)),
    }
    assert all(r["DeletionPolicy"] == "RetainExceptOnCreate" for r in resources.values())
    assert "Outputs" not in template


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[s.name for s in FUNCTIONS])
def test_only_the_senders_reach_customer_destinations_and_never_in_the_stacks_own_account(synth: Synth, spec: topology.FunctionSpec) -> None:
    # Given a function's role
    statements = {s.get("Sid"): s for s in synth.policy_statements(synth.role_id(spec))}
    delivers = any(g.access == "deliver" for g in spec.grants)
    # Then only the functions that send deliveries or test events (delivery, retry, ordered, api) may reach customers' destinations
    assert delivers == (spec.name in ("api", "delivery", "retry", "ordered"))
    if not delivers:
        assert not set(CUSTOMER_STATEMENTS) & set(statements)
        return
    (assume,) = (statements[sid] for sid in CUSTOMER_STATEMENTS)
    # And that is assuming a role named with the documented prefix, outside the stack's own account
    assert _actions(assume) == ["sts:AssumeRole"]
    assert json.dumps(_statement_resources(assume)).endswith(f':iam::*:role/{ROLE_NAME_PREFIX}*"]]}}]')
    assert assume["Condition"] == {"StringNotEquals": {"aws:ResourceAccount": {"Ref": "AWS::AccountId"}}}
    # And the role puts into no destination itself: one whose resource policy granted it could be named by any tenant (a confused deputy)
    puts = ("events:PutEvents", "kinesis:PutRecord", "s3:PutObject", "sns:Publish", "sqs:SendMessage")
    for statement in synth.policy_statements(synth.role_id(spec)):
        if set(_actions(statement)) & set(puts):
            shown = json.dumps(_statement_resources(statement))
            assert ":*:*" not in shown and ":::*" not in shown, statement


# --- the table's billing ---------------------------------------------------------------------------


def test_the_table_is_billed_on_demand_by_default_with_nothing_to_scale(synth: Synth) -> None:
    [table] = [r for r in synth.resources.values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert table["Properties"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedThroughput" not in table["Properties"]
    assert all("ProvisionedThroughput" not in index for index in table["Properties"]["GlobalSecondaryIndexes"])
    synth.template.resource_count_is("AWS::ApplicationAutoScaling::ScalableTarget", 0)


def test_provisioned_billing_scales_the_table_and_every_index_between_the_settings_bounds(checked_variant: tuple[Synth, list[Any]]) -> None:
    # Given HOOKLINE_TABLE_BILLING=provisioned, reads 10..900 and writes 20..1200 (the checked variant, cdk-nag clean)
    variant, _ = checked_variant
    [(table_id, table)] = [(k, r) for k, r in variant.resources.items() if r["Type"] == "AWS::DynamoDB::Table"]
    # Then the table and each index start at the minimum
    start = {"ReadCapacityUnits": 10, "WriteCapacityUnits": 20}
    # (CloudFormation's default billing mode is PROVISIONED: CDK leaves it out)
    assert (table["Properties"].get("BillingMode", "PROVISIONED"), table["Properties"]["ProvisionedThroughput"]) == ("PROVISIONED", start)
    indexes = table["Properties"]["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in indexes] == [index.name for index in TABLE.indexes]
    assert all(i["ProvisionedThroughput"] == start for i in indexes)
    # And auto scaling tracks 70 % use of each one's reads and writes, between the bounds
    targets = {k: r["Properties"] for k, r in variant.resources.items() if r["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"}
    dimensions = sorted(
        (t["ScalableDimension"].split(":")[1], t["ScalableDimension"].split(":")[2], t["MinCapacity"], t["MaxCapacity"]) for t in targets.values()
    )
    expected = [
        (kind, unit, 10 if unit == "ReadCapacityUnits" else 20, 900 if unit == "ReadCapacityUnits" else 1200)
        for kind in ("index", "table")
        for unit in ("ReadCapacityUnits", "WriteCapacityUnits")
    ]
    assert dimensions == sorted(expected[:2] * len(TABLE.indexes) + expected[2:])
    for target in targets.values():
        assert table_id in json.dumps(target["ResourceId"])
    policies = [r["Properties"] for r in variant.resources.values() if r["Type"] == "AWS::ApplicationAutoScaling::ScalingPolicy"]
    assert len(policies) == len(targets) == 2 + 2 * len(TABLE.indexes)
    assert {p["TargetTrackingScalingPolicyConfiguration"]["TargetValue"] for p in policies} == {TABLE_CAPACITY_TARGET_PERCENT}
    assert {p["TargetTrackingScalingPolicyConfiguration"]["PredefinedMetricSpecification"]["PredefinedMetricType"] for p in policies} == {
        "DynamoDBReadCapacityUtilization",
        "DynamoDBWriteCapacityUtilization",
    }
