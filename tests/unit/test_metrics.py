"""EMF metrics: what a batch of reports records, and that the handlers' `log_metrics` flushes it. Output captured."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookline.adapters import metrics
from hookline.adapters.observability import get_metrics
from hookline.core.internal_failures import InternalFailure
from hookline.core.models import DeliveryTask
from hookline.core.reports import DeliveryReport

TASK = DeliveryTask("acme", "evt_x", "dlv_x", "ep_x")
FAILURE = InternalFailure("exception", "m-1", 5, "RuntimeError")
REPORTS = [
    DeliveryReport(TASK, "succeeded", 200, None, 12, first_attempt=True),
    DeliveryReport(TASK, "retrying", 503, None, 40, breaker_event="opened"),
    DeliveryReport(TASK, "failed", 500, None, 30, path="dlq"),
    DeliveryReport(TASK, "deferred"),
]


def _documents(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


def _publishing_handler(reports: list[DeliveryReport], written_before_return: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> Any:
    """A handler decorated as the functions' are, publishing `reports` and noting what was written before it returned."""

    @get_metrics().log_metrics
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        metrics.publish(reports)
        written_before_return.extend(_documents(capsys))
        return {}

    return handler


def test_attempts_are_written_per_outcome_and_the_rest_flushed_by_log_metrics(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    # Given a handler that publishes a batch's reports under log_metrics
    before: list[dict[str, Any]] = []
    handler = _publishing_handler(REPORTS, before, capsys)
    # When it runs
    handler({}, None)
    after = _documents(capsys)
    # Then each outcome's Attempts count is a document of its own, dimensioned by service and outcome
    assert {d["outcome"]: d["Attempts"] for d in before} == {"succeeded": [1.0], "retrying": [1.0], "failed": [1.0], "deferred": [1.0]}
    assert all(d["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service", "outcome"]] and d["service"] == "hookline" for d in before)
    # And the response times and counts come in the one document log_metrics writes when the handler returns
    [batch] = after
    assert batch["ResponseTime"] == [12.0, 40.0, 30.0]
    assert (batch["FirstAttemptSuccess"], batch["DeadLettered"], batch["BreakerOpened"]) == ([1.0], [1.0], [1.0])
    assert batch["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hookline"
    assert batch["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]
    # And no id reaches a metric
    assert "evt_x" not in json.dumps(before + after)


def test_nothing_is_recorded_while_metrics_are_disabled(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Given metrics switched off (tests, local mode), and batches whose response times would pass Powertools'
    # 100-value limit, at which it writes the set even when disabled, if they were kept between invocations
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    sent = [DeliveryReport(TASK, "succeeded", 200, None, 5)] * 60
    before: list[dict[str, Any]] = []
    handler = _publishing_handler(sent, before, capsys)
    # When two invocations publish them
    handler({}, None)
    handler({}, None)
    # Then nothing at all is written
    assert before == []
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("publish", [lambda: metrics.publish_internal_failures([FAILURE]), metrics.server_error], ids=["InternalFailures", "ServerErrors"])
def test_a_canarys_counts_are_filed_by_service_and_by_the_running_version(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, publish: Any
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    # Given the Lambda runtime's function name and version
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "hookline-DeliveryFunction-AB12")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_VERSION", "7")
    # When a count a canary rolls back on is written
    publish()
    # Then it is one document (beside the failure's log line) filed under the service alone (the paging alarm, the dashboard) and under the version
    # too (the canary's alarm, infra/deploys.py): one value, two metrics
    [document] = [d for d in _documents(capsys) if "_aws" in d]
    assert document["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"], ["service", "function", "version"]]
    assert (document["service"], document["function"], document["version"]) == ("hookline", "hookline-DeliveryFunction-AB12", "7")


def test_outside_lambda_a_count_has_the_service_dimension_alone(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_VERSION", raising=False)
    metrics.server_error()
    [document] = _documents(capsys)
    assert document["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]] and document["ServerErrors"] == [1.0]
