"""Schema patterns through the real API handler: a backtracking pattern cannot stall ingest (issue 50, finding 2).

Without the linear engine each of these events would hold the handler for minutes (Python's `re` on
"^(a+)+$" doubles its work with every character), so each request runs in a thread joined with a deadline
far above what it needs: the test fails, instead of hanging, on a backtracking engine.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.conftest import Hookline

DEADLINE = 30  # seconds: generous on a loaded machine; Python's `re` took 70 s on the 31-byte value, and years on the long one


def _api_within_deadline(hookline: Hookline, *request: Any) -> tuple[int, Any]:
    answer: list[tuple[int, Any]] = []
    worker = threading.Thread(target=lambda: answer.append(hookline.api(*request)), daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert not worker.is_alive(), f"the API was still validating after {DEADLINE} s"
    return answer[0]


def _type(schema: dict[str, Any]) -> dict[str, Any]:
    return {"versions": {"2026-01-01": {"schema": schema}}}


@pytest.mark.parametrize("length", [31, 100_000])
@pytest.mark.parametrize(
    ("schema", "data", "answer"),
    [
        ({"type": "object", "properties": {"name": {"pattern": "^(a+)+$"}}}, lambda value: {"name": value}, (422, "pattern")),
        ({"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}}}, lambda value: {value: "x"}, (202, None)),
        (
            {"type": "object", "patternProperties": {"^(a+)+$": {}, "^b": {}}, "additionalProperties": False},
            lambda value: {value: 1},
            (422, "additionalProperties"),
        ),
        ({"type": "object", "patternProperties": {"^(a+)+$": {}}, "unevaluatedProperties": False}, lambda value: {value: 1}, (422, "unevaluatedProperties")),
    ],
    ids=["pattern", "patternProperties", "additionalProperties", "unevaluatedProperties"],
)
def test_a_backtracking_pattern_answers_at_once(hookline: Hookline, schema: dict[str, Any], data: Any, answer: tuple[int, str | None], length: int) -> None:
    # Given a type whose schema holds the classic catastrophic pattern
    assert hookline.api("PUT", "/v1/event-types/order.placed", _type(schema))[0] == 201
    # When an event brings a value, or a member name, that almost matches: a's then one other character
    value = "a" * (length - 1) + "!"
    status, body = _api_within_deadline(hookline, "POST", "/v1/events", {"type": "order.placed", "data": data(value)})
    # Then its correct answer comes back: the pattern does not match "aaa…!", so `pattern` refuses the value, the
    # name is additional (or unevaluated), and a name patternProperties does not match is left unconstrained
    assert (status, body["error"]["rule"] if status == 422 else None) == answer, body


def test_a_matching_value_is_accepted(hookline: Hookline) -> None:
    assert hookline.api("PUT", "/v1/event-types/order.placed", _type({"properties": {"name": {"pattern": "^(a+)+$"}}}))[0] == 201
    assert _api_within_deadline(hookline, "POST", "/v1/events", {"type": "order.placed", "data": {"name": "a" * 100_000}})[0] == 202


@pytest.mark.parametrize(
    ("schema", "pointer", "pattern"),
    [
        ({"properties": {"sku": {"pattern": "^(?=[A-Z])[A-Z0-9-]+$"}}}, "/properties/sku/pattern", "^(?=[A-Z])[A-Z0-9-]+$"),
        ({"patternProperties": {"^(a)\\1$": {}}}, "/patternProperties/^(a)\\1$", "^(a)\\1$"),
        ({"$defs": {"code": {"pattern": "(?<!x)y"}}}, "/$defs/code/pattern", "(?<!x)y"),
        ({"properties": {"hash": {"pattern": "^.{3000}$"}}}, "/properties/hash/pattern", "^.{3000}$"),
    ],
    ids=["lookahead", "backreference", "lookbehind", "too many positions"],
)
def test_a_pattern_the_linear_engine_cannot_run_is_refused_when_the_type_is_saved(
    hookline: Hookline, schema: dict[str, Any], pointer: str, pattern: str
) -> None:
    status, body = hookline.api("PUT", "/v1/event-types/order.placed", _type(schema))
    assert (status, body["error"]["code"]) == (422, "invalid_schema")
    assert pointer in body["error"]["message"] and repr(pattern) in body["error"]["message"]
    assert hookline.api("GET", "/v1/event-types/order.placed")[0] == 404
