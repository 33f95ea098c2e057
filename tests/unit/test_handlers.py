"""Every Lambda entry module wears Powertools' three decorators, applied once, in the one order `lambda_handler` sets."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from hookline.adapters.observability import get_logger, get_tracer, lambda_handler
from hookline.wiring import topology
from local.lambda_runtime import LambdaContext

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
HANDLERS = sorted(FUNCTIONS.glob("*/handler.py"))
# API Gateway's request id names every line of a request, in the authorizer's logs and the API's.
CORRELATED = {"api", "authorizer"}


def _handler(path: Path) -> ast.FunctionDef:
    [handler] = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef) and n.name == "handler"]
    return handler


def test_every_function_of_the_topology_has_its_entry_module_here() -> None:
    assert {p.parent.name for p in HANDLERS} == {spec.source_dir for spec in topology.FUNCTIONS}


@pytest.mark.parametrize("path", HANDLERS, ids=lambda p: p.parent.name)
def test_the_handler_is_decorated_at_definition_and_only_calls_its_entry_point(path: Path) -> None:
    # Given an entry module's handler (parsed, not imported)
    handler = _handler(path)
    # Then its one decorator is lambda_handler, correlated by API Gateway's request id for the API and the authorizer
    [decorator] = handler.decorator_list
    correlated = "lambda_handler(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)"
    assert ast.unparse(decorator) == (correlated if path.parent.name in CORRELATED else "lambda_handler()")
    assert "from hookline.adapters.observability import lambda_handler" in path.read_text()
    # And its body wraps nothing per call: it is one call of its entry point
    [statement] = handler.body
    assert isinstance(statement, ast.Return) and isinstance(statement.value, ast.Call)
    assert [ast.unparse(a) for a in statement.value.args] == ["event", "context"]


def _layers(handler: Any) -> tuple[list[str], Any]:
    """A decorated handler's layers, outermost first, and what they wrap."""
    layers: list[str] = []
    inner: Any = handler
    while hasattr(inner, "__wrapped__"):
        layers.append(inner.__code__.co_qualname)
        inner = inner.__wrapped__
    return layers, inner


def _entry(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"got": event}


def test_lambda_handler_applies_logger_metrics_and_tracer_outermost_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given tracing on, as in Lambda (hookline.core.tracing)
    monkeypatch.delenv("POWERTOOLS_TRACE_DISABLED", raising=False)
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    # When an entry function is decorated and its layers are peeled off, outermost first
    layers, inner = _layers(lambda_handler()(_entry))
    # Then they are the logger's keys (per invocation), the metrics' and the tracer's, around the entry function itself
    assert layers == [
        "with_invocation_keys.<locals>.invoked",
        "BaseProvider.log_metrics.<locals>.decorate",
        "Tracer.capture_lambda_handler.<locals>.decorate",
    ]
    assert inner is _entry


def test_with_tracing_off_no_tracer_is_made_and_the_handler_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    get_tracer.cache_clear()
    # Given an entry function, decorated with tracing off
    handler = lambda_handler()(_entry)
    # Then it wears the logger's keys and the metrics' layers only: no Tracer was made (so X-Ray was not imported)
    layers, inner = _layers(handler)
    assert layers == ["with_invocation_keys.<locals>.invoked", "BaseProvider.log_metrics.<locals>.decorate"]
    assert inner is _entry and get_tracer.cache_info().currsize == 0
    # And the handler answers as the entry function does, given a Lambda context
    context = LambdaContext(function_name="f", memory_limit_in_mb=128, timeout_seconds=3, region="us-east-1")
    assert handler({"a": 1}, context) == {"got": {"a": 1}}


def test_invocation_keys_end_with_the_invocation_and_warm_invocations_sample_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    logger = get_logger()
    rolls: list[int] = []
    monkeypatch.setattr(logger, "sampling_rate", 0.1)
    monkeypatch.setattr(logger, "refresh_sample_rate_calculation", lambda: rolls.append(1))
    seen: list[dict[str, Any]] = []
    handler = lambda_handler()(lambda event, context: seen.append(dict(logger.thread_safe_get_current_keys())) or {})
    context = LambdaContext(function_name="f", memory_limit_in_mb=128, timeout_seconds=3, region="us-east-1")
    # Given a key the caller's thread already holds
    logger.thread_safe_append_keys(outer="kept")
    try:
        # When the handler is invoked twice
        handler({}, context)
        handler({}, context)
        # Then each invocation's lines carried its context, the first as the cold start, beside the caller's key
        assert [(k["function_name"], k["cold_start"], k["outer"]) for k in seen] == [("f", True, "kept"), ("f", False, "kept")]
        # And afterwards only the caller's key is left
        assert logger.thread_safe_get_current_keys() == {"outer": "kept"}
        # And debug sampling was rolled again for the warm invocation only (the cold one rolled when the logger was made)
        assert rolls == [1]
    finally:
        logger.thread_safe_clear_keys()
