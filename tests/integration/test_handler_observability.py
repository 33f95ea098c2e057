"""Powertools on the Lambda entry points: the context and correlation id in every log line, the decorators applied once."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools import Logger, Metrics, Tracer

from hookline.adapters.observability import get_logger
from hookline.services.endpoints import EndpointService
from hookline.wiring import topology
from local.lambda_runtime import LambdaContext
from tests.conftest import Hookline
from tests.support.events import http_event, sqs_event


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """The service's log lines, formatted exactly as Powertools writes them."""
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(get_logger().registered_formatter)
    logging.getLogger("hookline").addHandler(capture)
    yield buffer
    logging.getLogger("hookline").removeHandler(capture)


def _entries(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.startswith("{")]


def test_api_lines_carry_the_request_id_and_the_lambda_context(hookline: Hookline, log_lines: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a route whose service fails unexpectedly, so the API logs the error
    def broken(*_args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(EndpointService, "list", broken)  # the service is a frozen dataclass: patch its class
    event = http_event("GET", "/v1/endpoints")
    context = LambdaContext(function_name="hookline-api", memory_limit_in_mb=256, timeout_seconds=10, region="us-east-1")
    # When API Gateway's request reaches the API function
    result = hookline.handlers["api"](event, context)
    # Then the answer is the 500 envelope, and the error's line names API Gateway's request id and the invocation
    assert result["statusCode"] == 500
    [line] = [e for e in _entries(log_lines) if e["message"] == "unhandled error"]
    assert line["correlation_id"] == event["requestContext"]["requestId"]
    assert (line["function_name"], line["function_request_id"]) == ("hookline-api", context.aws_request_id)
    assert isinstance(line["cold_start"], bool)


def test_the_authorizer_logs_under_the_same_request_id(hookline: Hookline) -> None:
    # Given the authorizer's REQUEST event for an API Gateway request
    event = {"type": "REQUEST", "version": "2.0", "identitySource": ["Bearer hk_nope"], "headers": {}, "requestContext": {"requestId": "req-123"}}
    # When the authorizer runs
    assert hookline.handlers["authorizer"](event, None) == {"isAuthorized": False}
    # Then its logger is keyed by that request id, as the API's lines for the request are
    assert get_logger().get_current_keys()["correlation_id"] == "req-123"


def test_the_decorators_are_applied_once_at_definition(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given Powertools' decorators made to fail if anything applies them again
    def applied_again(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a Powertools decorator was applied during an invocation")

    for owner, name in ((Tracer, "capture_lambda_handler"), (Logger, "inject_lambda_context"), (Metrics, "log_metrics")):
        monkeypatch.setattr(owner, name, applied_again)
    # When every function is invoked with an event it accepts
    # (a record no consumer acts on: the delivery functions set it aside, the replay function skips it)
    events = {spec.name: sqs_event([{"Body": json.dumps({"kind": "unknown"})}]) for spec in topology.FUNCTIONS}
    events |= {topology.API.name: http_event("GET", "/health", tenant=None), topology.AUTHORIZER.name: {"headers": {}}}
    results = {name: hookline.handlers[name](event, None) for name, event in events.items()}
    # Then each answered, through the three decorators wrapped around it when its module was loaded
    assert results[topology.API.name]["statusCode"] == 200
    assert results[topology.AUTHORIZER.name] == {"isAuthorized": False}
    for spec in topology.FUNCTIONS:
        if spec.sqs_source is not None:
            assert results[spec.name] == {"batchItemFailures": []}, spec.name
        decorated = hookline.handlers[spec.name].__wrapped__  # the module's handler, under the local runtime's context filler
        plain = decorated.__wrapped__.__wrapped__.__wrapped__
        assert not hasattr(plain, "__wrapped__"), spec.name
