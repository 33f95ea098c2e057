"""The dashboard and the alarms cover every queue and function of the topology, and the alarms can notify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookline.core.settings import Settings
from hookline.wiring.topology import (
    DELAYED_QUEUES,
    DELIVERY,
    DELIVERY_DLQ,
    FUNCTIONS,
    HELD_QUEUES,
    JOBS_DLQ,
    NOTIFICATIONS,
    ORDERED_DLQ,
    PREVIOUS_JOB_DLQ,
    QUEUES,
    RETRY,
    RETRY_WAIT,
    STATE_MACHINES,
    Grant,
    QueueSpec,
)
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize

# Derived from the topology here rather than imported from infra.monitoring, so a wrong rule there shows up.
DEAD_LETTER_QUEUES = tuple(q for q in QUEUES if any(source.dead_letter == q for source in QUEUES))
SOURCE_QUEUES = tuple(q for q in QUEUES if q not in DEAD_LETTER_QUEUES)
# Dead-letter queues that no function sends to: only a redrive policy (hookline failing a task 5 times) fills them.
INTERNAL_DEAD_LETTER_QUEUES = tuple(q for q in DEAD_LETTER_QUEUES if not any(Grant(q, "send") in spec.grants for spec in FUNCTIONS))
# Those a worker sends customers' given-up deliveries to (the delivery and ordered DLQs): their letters page no one.
CUSTOMER_DEAD_LETTER_QUEUES = tuple(q for q in DEAD_LETTER_QUEUES if q not in INTERNAL_DEAD_LETTER_QUEUES)
EMF_METRICS = ("Attempts", "ResponseTime", "BreakerOpened", "DeadLettered", "FirstAttemptSuccess")


def _alarms(synth: Synth) -> list[dict[str, Any]]:
    return [r["Properties"] for r in synth.resources.values() if r["Type"] == "AWS::CloudWatch::Alarm"]


def _alarms_on(synth: Synth, namespace: str, metric: str, dimensions: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [a for a in _alarms(synth) if a.get("Namespace") == namespace and a.get("MetricName") == metric and a.get("Dimensions") == dimensions]


def _queue_dimensions(synth: Synth, spec: QueueSpec) -> list[dict[str, Any]]:
    return [{"Name": "QueueName", "Value": {"Fn::GetAtt": [synth.queue_id(spec), "QueueName"]}}]


def _flatten(value: Any) -> str:
    """A template string value, an Fn::Join joined, each token shown as `<token JSON>`."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"Fn::Join"}:
        separator, parts = value["Fn::Join"]
        return str(separator).join(_flatten(part) for part in parts)
    return f"<{json.dumps(value, sort_keys=True)}>"


def _dashboard(synth: Synth) -> tuple[dict[str, Any], str]:
    (dashboard,) = [r["Properties"] for r in synth.resources.values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    return dashboard, _flatten(dashboard["DashboardBody"])


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    """A stack synthesized with HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS=1800."""
    return synthesize(tmp_path_factory.mktemp("cdk.out.patient"), Settings.from_env({"HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS": "1800"}))


# --- dashboard -------------------------------------------------------------------------------


def test_the_topology_has_dead_letter_and_source_queues() -> None:
    # Given the topology's queues
    # When they are split into dead-letter queues (some queue's dead_letter) and the others
    # Then both groups are non-empty: the tests below are not vacuous
    assert {q.key for q in DEAD_LETTER_QUEUES} == {"delivery-dlq", "jobs-dlq", "replay-dlq", "ordered-dlq"}
    assert {q.key for q in SOURCE_QUEUES} == {"delivery", "retry", "ordered", "jobs", "replay"}


def test_dashboard_shows_every_queue_depth_and_oldest_message_age(synth: Synth) -> None:
    # Given the synthesized dashboard
    dashboard, body = _dashboard(synth)
    # When its body is read
    # Then it is named after the stack
    assert dashboard["DashboardName"] == "hookline"
    # And it graphs depth and age of the oldest message for every queue, each labelled with the queue's name
    assert "ApproximateNumberOfMessagesVisible" in body
    assert "ApproximateAgeOfOldestMessage" in body
    for queue in QUEUES:
        assert f'"label":"{queue.physical_name("hookline")}"' in body, queue.key
        queue_name = f"<{json.dumps({'Fn::GetAtt': [synth.queue_id(queue), 'QueueName']}, sort_keys=True)}>"
        assert f'"ApproximateAgeOfOldestMessage","QueueName","{queue_name}"' in body, queue.key
        assert f'"ApproximateNumberOfMessagesVisible","QueueName","{queue_name}"' in body, queue.key


def test_dashboard_shows_the_delivery_metrics(synth: Synth) -> None:
    # Given the functions' EMF metrics in namespace hookline, with the service dimension Powertools adds
    _, body = _dashboard(synth)
    # When the dashboard body is read
    # Then it shows every metric the delivery code emits
    for name in EMF_METRICS:
        assert f'"hookline","{name}"' in body, name
    # And attempts per outcome, and the response time as p50 / p95 / p99
    for outcome in ("succeeded", "failed", "retrying"):
        assert f'"hookline","Attempts","outcome","{outcome}","service","hookline"' in body, outcome
    for percentile in ("p50", "p95", "p99"):
        assert f'"stat":"{percentile}"' in body
    assert '"hookline","ResponseTime","service","hookline"' in body


def test_dashboard_shows_errors_and_throttles_of_every_function(synth: Synth) -> None:
    # Given every function in the topology
    _, body = _dashboard(synth)
    # When the dashboard body is read
    # Then each function's Lambda Errors and Throttles are graphed, by its (generated or fixed) name
    for spec in FUNCTIONS:
        function_name = f"<{json.dumps({'Ref': synth.function_id(spec)})}>"
        for metric in ("Errors", "Throttles"):
            assert f'"AWS/Lambda","{metric}","FunctionName","{function_name}"' in body, (spec.name, metric)


# --- alarms ----------------------------------------------------------------------------------


@pytest.mark.parametrize("queue", DEAD_LETTER_QUEUES, ids=[q.key for q in DEAD_LETTER_QUEUES])
def test_each_dead_letter_queue_alarms_when_not_empty(synth: Synth, queue: QueueSpec) -> None:
    # Given a dead-letter queue
    # When the alarms on its visible messages are collected
    alarms = _alarms_on(synth, "AWS/SQS", "ApproximateNumberOfMessagesVisible", _queue_dimensions(synth, queue))
    # Then exactly one fires as soon as it holds a message
    assert len(alarms) == 1
    (alarm,) = alarms
    assert alarm["Threshold"] == 0
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
    assert alarm["Statistic"] == "Maximum"
    assert alarm["AlarmName"] == f"hookline-{queue.key}-not-empty"
    # And when SQS stops reporting the idle queue, the alarm keeps its state rather than turning OK
    assert alarm["TreatMissingData"] == "ignore"


@pytest.mark.parametrize("queue", SOURCE_QUEUES, ids=[q.key for q in SOURCE_QUEUES])
def test_each_source_queue_alarms_on_its_oldest_message(synth: Synth, patient: Synth, queue: QueueSpec) -> None:
    # Given a queue that is no queue's DLQ, and HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS (default, then 1800)
    for stack, seconds in ((synth, BASE_SETTINGS.oldest_message_alarm_seconds), (patient, 1800)):
        # When the alarms on its oldest message are collected
        alarms = _alarms_on(stack, "AWS/SQS", "ApproximateAgeOfOldestMessage", _queue_dimensions(stack, queue))
        # Then exactly one fires once a message has waited longer than the setting
        # (plus the longest SQS delay on queues hookline sends delayed messages to); none on the ordered lane, whose
        # messages are held on purpose behind a failing receiver
        if queue in HELD_QUEUES:
            assert alarms == []
            continue
        assert len(alarms) == 1
        (alarm,) = alarms
        assert alarm["Threshold"] == seconds + (BASE_SETTINGS.sqs_max_delay_seconds if queue in DELAYED_QUEUES else 0)
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert alarm["Statistic"] == "Maximum"
        # And an idle queue, which SQS stops reporting, is not an old message
        assert alarm["TreatMissingData"] == "notBreaching"
    assert BASE_SETTINGS.oldest_message_alarm_seconds == 900


def test_dead_letter_queues_have_no_age_alarm(synth: Synth) -> None:
    # Given messages in a DLQ are old by nature (the not-empty alarm already reports them)
    # When the age alarms are collected
    # Then none watches a dead-letter queue
    for queue in DEAD_LETTER_QUEUES:
        assert _alarms_on(synth, "AWS/SQS", "ApproximateAgeOfOldestMessage", _queue_dimensions(synth, queue)) == []


@pytest.mark.parametrize("spec", FUNCTIONS, ids=[f.name for f in FUNCTIONS])
def test_each_function_alarms_on_errors_and_throttles(synth: Synth, spec: Any) -> None:
    # Given a function of the topology
    dimensions = [{"Name": "FunctionName", "Value": {"Ref": synth.function_id(spec)}}]
    for metric in ("Errors", "Throttles"):
        # When the alarms on its Lambda metric are collected
        alarms = _alarms_on(synth, "AWS/Lambda", metric, dimensions)
        # Then exactly one fires on the first error / throttle, and a period without invocations is OK
        assert len(alarms) == 1, metric
        (alarm,) = alarms
        assert alarm["Threshold"] == 0
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert alarm["Statistic"] == "Sum"
        assert alarm["TreatMissingData"] == "notBreaching"
        assert alarm["AlarmName"] == f"hookline-{spec.name}-{metric.lower()}"


def test_a_spike_of_breakers_opening_alarms(synth: Synth) -> None:
    # Given the BreakerOpened EMF metric
    # When the alarms on it are collected
    alarms = _alarms_on(synth, "hookline", "BreakerOpened", [{"Name": "service", "Value": "hookline"}])
    # Then one fires when 5 or more breakers open within 5 minutes
    assert len(alarms) == 1
    (alarm,) = alarms
    assert alarm["Statistic"] == "Sum"
    assert alarm["Period"] == 300
    assert alarm["EvaluationPeriods"] == 1
    assert alarm["Threshold"] == 5
    assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    # And no data (no breaker opened) is not breaching
    assert alarm["TreatMissingData"] == "notBreaching"


def test_the_sweeper_finding_stored_events_unqueued_alarms(synth: Synth) -> None:
    # Given the sweeper's UnqueuedFound metric, Then one alarm fires on any such event in 5 minutes; no data is no finding
    (alarm,) = _alarms_on(synth, "hookline", "UnqueuedFound", [{"Name": "service", "Value": "hookline"}])
    assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"], alarm["ComparisonOperator"]) == ("Sum", 300, 0, "GreaterThanThreshold")
    assert alarm["TreatMissingData"] == "notBreaching"


def test_the_sweeper_runs_on_a_schedule_invoking_the_replay_functions_live_alias(synth: Synth) -> None:
    (schedule,) = [r["Properties"] for r in synth.resources.values() if r["Type"] == "AWS::Scheduler::Schedule"]
    assert schedule["ScheduleExpression"] == "rate(1 minute)"
    assert json.loads(schedule["Target"]["Input"]) == {"kind": "sweep"}
    assert "Ref" in schedule["Target"]["Arn"] and "Alias" in schedule["Target"]["Arn"]["Ref"]
    assert schedule["KmsKeyArn"] and schedule["Target"]["RetryPolicy"]["MaximumRetryAttempts"] == 0


def test_only_the_job_queues_dlq_counts_as_internal() -> None:
    # The delivery DLQ receives a receiver's exhausted deliveries from the worker by design; the job queue's DLQ only
    # what hookline failed to process
    assert INTERNAL_DEAD_LETTER_QUEUES == (JOBS_DLQ, PREVIOUS_JOB_DLQ)


def test_no_alarm_watches_new_letters_any_more(synth: Synth) -> None:
    # The canaries judge the new version by its own metrics (test_deploys): a dead letter's rise says nothing of which
    # version made it, and the delivery DLQ's say nothing of hookline at all
    assert not [a for a in _alarms(synth) if a["AlarmName"].endswith("-new-letters")]


def test_customers_dead_letters_are_graphed_and_say_when_ok_but_page_no_one(synth: Synth) -> None:
    # Given the delivery and ordered DLQs, which a receiver out of retries fills by design
    assert {q.key for q in CUSTOMER_DEAD_LETTER_QUEUES} == {DELIVERY_DLQ.key, ORDERED_DLQ.key}
    topic = {"Ref": synth.topic_id(NOTIFICATIONS)}
    _, body = _dashboard(synth)
    for queue in CUSTOMER_DEAD_LETTER_QUEUES:
        # When their not-empty alarm is read
        (alarm,) = [a for a in _alarms(synth) if a["AlarmName"] == f"hookline-{queue.key}-not-empty"]
        # Then it pages no one, and says when the queue is OK again (drained)
        assert not alarm.get("AlarmActions"), queue.key
        assert alarm["OKActions"] == [topic], queue.key
        # And the dashboard graphs it against the alarm
        (alarm_id,) = [k for k, r in synth.resources.items() if r["Properties"].get("AlarmName") == alarm["AlarmName"]]
        widget = body[body.index(f"{queue.physical_name('hookline')}: customers' given-up deliveries") :]
        assert f'"{alarm_id}", "Arn"' in widget[: widget.find('{"type"')], queue.key


def test_every_alarm_notifies_the_notifications_topic(synth: Synth) -> None:
    # Given every alarm in the stack but the canaries' quiet ones (test_deploys)
    alarms = [a for a in _alarms(synth) if "-canary-" not in a["AlarmName"]]
    # When their actions are read
    # Then there are the alarms above and no others
    assert len(alarms) == (
        len(DEAD_LETTER_QUEUES)
        + len(SOURCE_QUEUES)
        - len(HELD_QUEUES)  # no oldest-message alarm on a line held on purpose
        + 2 * len(FUNCTIONS)
        + 4 * len(STATE_MACHINES)  # failed, timed out, throttled, aborted executions
        + 2  # breakers opening, the sweeper's finding of unqueued events
        + 4  # internal failures, a failed customer email, leases not given back, overdue retries the sweeper re-queued
        + 2  # the API's 5xx and its throttle
        + 1  # the table's throttled reads and writes
    )
    # And each sends its ALARM state to the notifications topic (but customers' DLQs', above) and its recovery (OK),
    # and says how it treats missing data
    topic = {"Ref": synth.topic_id(NOTIFICATIONS)}
    quiet = {f"hookline-{q.key}-not-empty" for q in CUSTOMER_DEAD_LETTER_QUEUES}
    for alarm in alarms:
        assert alarm.get("AlarmActions", []) == ([] if alarm["AlarmName"] in quiet else [topic]), alarm["AlarmName"]
        assert alarm["OKActions"] == [topic], alarm["AlarmName"]
        assert alarm["TreatMissingData"] in {"notBreaching", "ignore"}, alarm["AlarmName"]
        assert alarm["AlarmDescription"], alarm["AlarmName"]
        # And each is named hookline-*, the pattern the topic and key policies let CloudWatch publish for
        assert alarm["AlarmName"].startswith("hookline-"), alarm["AlarmName"]
    assert len({a["AlarmName"] for a in alarms}) == len(alarms)


def test_cloudwatch_may_use_the_key_that_encrypts_the_topic(synth: Synth) -> None:
    # Given the notifications topic is encrypted with the stack's key
    key_id = synth.logical_id(synth.stack.storage.key)
    assert synth.resources[synth.topic_id(NOTIFICATIONS)]["Properties"]["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    # When the key policy's statements for CloudWatch are collected
    statements = synth.resources[key_id]["Properties"]["KeyPolicy"]["Statement"]
    cloudwatch = [s for s in statements if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}]
    # Then CloudWatch may decrypt and generate data keys, and nothing else, for this account's hookline-* alarms only
    assert len(cloudwatch) == 1
    (statement,) = cloudwatch
    assert statement["Effect"] == "Allow"
    assert sorted(statement["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey*"]
    assert statement["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    source_arn = statement["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Join"][1]
    assert source_arn[-1] == ":alarm:hookline-*"
    assert ":cloudwatch:" in source_arn


@pytest.mark.parametrize(
    ("metric", "name"),
    [
        ("InternalFailures", "internal-failures"),
        ("EmailFailed", "email-failed"),
        ("LeasesNotGivenBack", "leases-not-given-back"),
        ("OverdueRetriesRequeued", "overdue-retries-requeued"),
    ],
)
def test_the_functions_counts_of_what_must_not_happen_alarm(synth: Synth, metric: str, name: str) -> None:
    # Given the EMF count the functions emit (service dimension only, so a Sum over it covers every function)
    (alarm,) = _alarms_on(synth, "hookline", metric, [{"Name": "service", "Value": "hookline"}])
    # Then any one in five minutes alarms, and no data (none emitted) is not an alarm
    assert alarm["AlarmName"] == f"hookline-{name}"
    assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"], alarm["ComparisonOperator"]) == ("Sum", 300, 0, "GreaterThanThreshold")
    assert alarm["TreatMissingData"] == "notBreaching"


@pytest.mark.parametrize(
    ("what", "metric"),
    [("failed", "ExecutionsFailed"), ("timed-out", "ExecutionsTimedOut"), ("throttled", "ExecutionThrottled"), ("aborted", "ExecutionsAborted")],
)
def test_long_waits_that_do_not_queue_their_retry_alarm(synth: Synth, what: str, metric: str) -> None:
    # Given the retry-wait state machine's Step Functions metric
    dimensions = [{"Name": "StateMachineArn", "Value": {"Ref": synth.state_machine_id(RETRY_WAIT)}}]
    (alarm,) = _alarms_on(synth, "AWS/States", metric, dimensions)
    # Then any execution that ended so in five minutes alarms
    assert alarm["AlarmName"] == f"hookline-{RETRY_WAIT.key}-{what}"
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == ("Sum", 0, "GreaterThanThreshold")


def test_the_apis_server_errors_alarm_on_their_share_once_there_are_a_few(synth: Synth) -> None:
    # Given the API's 5xx alarm
    (alarm,) = [a for a in _alarms(synth) if a["AlarmName"] == "hookline-api-5xx"]
    # Then it reads the HTTP API's 5xx and Count, by its ApiId, over five minutes
    stats = {q["Id"]: q["MetricStat"] for q in alarm["Metrics"] if "MetricStat" in q}
    api = [r for r, v in synth.resources.items() if v["Type"] == "AWS::ApiGatewayV2::Api"]
    for stat in stats.values():
        assert stat["Metric"]["Namespace"] == "AWS/ApiGateway" and stat["Metric"]["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": api[0]}}]
        assert (stat["Stat"], stat["Period"]) == ("Sum", 300)
    by_metric = {stat["Metric"]["MetricName"]: key for key, stat in stats.items()}
    assert set(by_metric) == {"5xx", "Count"}
    # And alarms above 1 % once at least 5 requests failed (one 503 in a quiet period is a blip)
    (expression,) = [q for q in alarm["Metrics"] if "Expression" in q]
    assert expression["Expression"] == f"IF({by_metric['5xx']} >= 5, 100 * {by_metric['5xx']} / {by_metric['Count']}, 0)"
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanThreshold")


def test_the_apis_throttled_requests_are_counted_from_its_access_log_and_alarm(synth: Synth) -> None:
    # Given the metric filter on the API's access log (HTTP APIs publish no throttle metric)
    (log_filter,) = [v["Properties"] for v in synth.resources.values() if v["Type"] == "AWS::Logs::MetricFilter"]
    access_logs = [r for r, v in synth.resources.items() if v["Type"] == "AWS::Logs::LogGroup" and r.startswith("ApiAccessLogs")]
    assert log_filter["LogGroupName"] == {"Ref": access_logs[0]}
    assert log_filter["FilterPattern"] == '{ $.status = "429" }'
    (transformation,) = log_filter["MetricTransformations"]
    assert (transformation["MetricNamespace"], transformation["MetricName"], transformation["MetricValue"]) == ("hookline", "ApiThrottled", "1")
    # Then any 429 in five minutes alarms
    (alarm,) = _alarms_on(synth, "hookline", "ApiThrottled", None)
    assert (alarm["Statistic"], alarm["Threshold"], alarm["AlarmName"]) == ("Sum", 0, "hookline-api-throttled")


def test_the_tables_throttled_reads_and_writes_alarm(synth: Synth) -> None:
    # Given the data table
    (table,) = [r for r, v in synth.resources.items() if v["Type"] == "AWS::DynamoDB::Table"]
    # When its throttle alarm is read
    (alarm,) = [a for a in _alarms(synth) if a["AlarmName"] == "hookline-table-throttled"]
    # Then it adds the table's throttled reads and writes over five minutes and fires on any
    stats = {q["Id"]: q["MetricStat"] for q in alarm["Metrics"] if "MetricStat" in q}
    assert {s["Metric"]["MetricName"] for s in stats.values()} == {"ReadThrottleEvents", "WriteThrottleEvents"}
    for stat in stats.values():
        assert stat["Metric"]["Namespace"] == "AWS/DynamoDB" and stat["Metric"]["Dimensions"] == [{"Name": "TableName", "Value": {"Ref": table}}]
        assert (stat["Stat"], stat["Period"]) == ("Sum", 300)
    assert (alarm["Threshold"], alarm["ComparisonOperator"], alarm["TreatMissingData"]) == (0, "GreaterThanThreshold", "notBreaching")
    # And it reaches someone, as every alarm does
    assert alarm["AlarmActions"]


@pytest.mark.parametrize("size", ["default", "xlarge"])
def test_the_dashboard_shows_the_capacity_that_runs_out_first(tmp_path: Path, deps_layer: Path, size: str) -> None:
    # Given a profile's stack
    synth = synth_of(tmp_path, size)
    _, body = _dashboard(synth)
    settings = Settings.from_env({"HOOKLINE_SIZE": size})
    # Then the delivery lanes' running instances are graphed, each labelled with its reserved concurrency
    for spec, reserved in ((DELIVERY, settings.delivery_concurrency), (RETRY, settings.retry_concurrency)):
        function_name = f"<{json.dumps({'Ref': synth.function_id(spec)})}>"
        assert f'"AWS/Lambda","ConcurrentExecutions","FunctionName","{function_name}"' in body, spec.name
        assert f'"label":"{spec.name} (reserved {reserved})"' in body
    # And the table's consumed units a second, against its table-level quota, beside its throttled requests
    (table,) = [r for r, v in synth.resources.items() if v["Type"] == "AWS::DynamoDB::Table"]
    for metric in ("ConsumedWriteCapacityUnits", "ConsumedReadCapacityUnits", "WriteThrottleEvents", "ReadThrottleEvents"):
        assert f'"AWS/DynamoDB","{metric}","TableName","<{json.dumps({"Ref": table})}>"' in body, metric
    assert '"value":40000,"label":"table-level quota (default)"' in body


def synth_of(tmp_path: Path, size: str) -> Synth:
    return synthesize(tmp_path, Settings.from_env({"HOOKLINE_SIZE": size}))
