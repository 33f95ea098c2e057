"""Powertools on the Lambda entry points: the context and correlation id in every log line, the decorators applied once."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools import Logger, Metrics, Tracer

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.adapters.observability import get_logger, lambda_handler
from hookline.services.delivery.endpoint_pool import EndpointPool
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


def test_the_authorizer_logs_under_the_same_request_id(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the authorizer's REQUEST event for an API Gateway request, and what its logger holds while it looks the key up
    seen: list[dict[str, Any]] = []

    def find(self: ApiKeyRepository, key: str) -> None:
        seen.append(dict(get_logger().thread_safe_get_current_keys()))

    monkeypatch.setattr(ApiKeyRepository, "find", find)
    event = {"type": "REQUEST", "version": "2.0", "identitySource": ["Bearer hk_nope"], "headers": {}, "requestContext": {"requestId": "req-123"}}
    # When the authorizer runs
    assert hookline.handlers["authorizer"](event, None) == {"isAuthorized": False}
    # Then its logger was keyed by that request id, as the API's lines for the request are
    [keys] = seen
    assert (keys["correlation_id"], keys["function_name"]) == ("req-123", "authorizer")
    # And the keys ended with the invocation: nothing carries over to the next one
    assert get_logger().thread_safe_get_current_keys() == {}


def test_functions_sharing_a_process_keep_their_own_keys_and_their_pools_carry_them(log_lines: io.StringIO) -> None:
    # Given two functions in one process, as local mode runs them, each invoked on its own thread at the same time,
    # and each logging after the other has set its keys (on its own thread, and from a pool's threads)
    both_keyed = threading.Barrier(2)
    pool = EndpointPool(workers=4)

    def entry(event: dict[str, Any], context: Any) -> dict[str, Any]:
        both_keyed.wait(timeout=10)
        get_logger().info("own thread")
        pool.map(lambda n: get_logger().info("pool thread", extra={"n": n}), [1, 2, 3])
        return {}

    handler = lambda_handler()(entry)
    threads = [
        threading.Thread(target=handler, args=({}, LambdaContext(function_name=name, memory_limit_in_mb=128, timeout_seconds=30, region="us-east-1")))
        for name in ("hookline-api", "hookline-delivery")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # Then every line names the function that wrote it: four lines each, one from its thread and three from the pool
    lines = [(e["function_name"], e["message"]) for e in _entries(log_lines) if e["message"] in ("own thread", "pool thread")]
    for name in ("hookline-api", "hookline-delivery"):
        assert sorted(m for f, m in lines if f == name) == ["own thread", "pool thread", "pool thread", "pool thread"]
    assert len(lines) == 8


def test_the_decorators_are_applied_once_at_definition(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given Powertools' decorators made to fail if anything applies them again
    def applied_again(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a Powertools decorator was applied during an invocation")

    for owner, name in ((Tracer, "capture_lambda_handler"), (Logger, "inject_lambda_context"), (Metrics, "log_metrics")):
        monkeypatch.setattr(owner, name, applied_again)
    # When every function is invoked with an event it accepts
    # (a record no consumer acts on: the delivery functions set it aside, the jobs function skips it)
    events = {spec.name: sqs_event([{"Body": json.dumps({"kind": "unknown"})}]) for spec in topology.FUNCTIONS}
    events |= {topology.API.name: http_event("GET", "/health", tenant=None), topology.AUTHORIZER.name: {"headers": {}}}
    results = {name: hookline.handlers[name](event, None) for name, event in events.items()}
    # Then each answered, through the decorators wrapped around it when its module was loaded: the logger's keys and the
    # metrics' (local mode traces nothing, so no Tracer was made: hookline.core.tracing)
    assert results[topology.API.name]["statusCode"] == 200
    assert results[topology.AUTHORIZER.name] == {"isAuthorized": False}
    for spec in topology.FUNCTIONS:
        if spec.sqs_source is not None:
            assert results[spec.name] == {"batchItemFailures": []}, spec.name
        decorated = hookline.handlers[spec.name].__wrapped__  # the module's handler, under the local runtime's context filler
        plain = decorated.__wrapped__.__wrapped__
        assert not hasattr(plain, "__wrapped__"), spec.name
