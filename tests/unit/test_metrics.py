"""EMF metrics: what a batch of reports publishes. Pure, output captured."""

from __future__ import annotations

import json

import pytest

from hookline.adapters import metrics
from hookline.core.models import DeliveryTask
from hookline.core.reports import DeliveryReport

TASK = DeliveryTask("acme", "evt_x", "dlv_x", "ep_x")


def test_batch_metrics(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    reports = [
        DeliveryReport(TASK, "succeeded", 200, None, 12, first_attempt=True),
        DeliveryReport(TASK, "retrying", 503, None, 40, breaker_event="opened"),
        DeliveryReport(TASK, "failed", 500, None, 30, path="dlq"),
        DeliveryReport(TASK, "deferred"),
    ]
    metrics.publish(reports)
    blobs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    attempts = {b["outcome"]: b["Attempts"] for b in blobs if "Attempts" in b}
    assert attempts == {"succeeded": [1.0], "retrying": [1.0], "failed": [1.0], "deferred": [1.0]}
    [batch] = [b for b in blobs if "ResponseTime" in b]
    assert batch["ResponseTime"] == [12.0, 40.0, 30.0]
    assert (batch["FirstAttemptSuccess"], batch["DeadLettered"], batch["BreakerOpened"]) == ([1.0], [1.0], [1.0])
    assert batch["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hookline"
    assert "evt_x" not in json.dumps(blobs)
