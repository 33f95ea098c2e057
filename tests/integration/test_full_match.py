"""Every pattern-validated request field is matched in full (issue 50, finding 5), through the real API handler.

Python's `$` matches before a final newline, so `re.match("^...$")` let "value\\n" through (a queue URL
stored that way was later disabled as destination_missing). Each field below takes a good value, then the
same value ending in "\\n" and in "\\r\\n", and each of those is refused with the field's usual error.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from hookline.core.destinations import ROLE_NAME_PREFIX
from tests.conftest import Hookline

ROLE_ARN = f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders"
QUEUE = "https://sqs.us-east-1.amazonaws.com/111122223333/orders"
Request = Callable[[str], tuple[str, str, Any]]


def _destination(**fields: str) -> dict[str, Any]:
    return {"destination": {"role_arn": ROLE_ARN, **fields}, "event_types": ["order.paid"]}


# (field, how a value of it is sent, a good value, the status and error code a bad one gets)
FIELDS: list[tuple[str, Request, str, tuple[int, str]]] = [
    ("queue_url", lambda v: ("POST", "/v1/endpoints", _destination(type="sqs", queue_url=v)), QUEUE, (422, "invalid_destination")),
    (
        "topic_arn",
        lambda v: ("POST", "/v1/endpoints", _destination(type="sns", topic_arn=v)),
        "arn:aws:sns:us-east-1:111122223333:orders",
        (422, "invalid_destination"),
    ),
    (
        "event_bus_arn",
        lambda v: ("POST", "/v1/endpoints", _destination(type="eventbridge", event_bus_arn=v)),
        "arn:aws:events:us-east-1:111122223333:event-bus/orders",
        (422, "invalid_destination"),
    ),
    (
        "stream_arn",
        lambda v: ("POST", "/v1/endpoints", _destination(type="kinesis", stream_arn=v)),
        "arn:aws:kinesis:us-east-1:111122223333:stream/orders",
        (422, "invalid_destination"),
    ),
    ("bucket", lambda v: ("POST", "/v1/endpoints", _destination(type="s3", bucket=v)), "my-webhook-archive", (422, "invalid_destination")),
    (
        "role_arn",
        lambda v: ("POST", "/v1/endpoints", {"destination": {"type": "sqs", "queue_url": QUEUE, "role_arn": v}}),
        ROLE_ARN,
        (422, "invalid_destination"),
    ),
    (
        "source",
        lambda v: ("POST", "/v1/endpoints", _destination(type="eventbridge", event_bus_arn="arn:aws:events:us-east-1:111122223333:event-bus/o", source=v)),
        "shop.orders",
        (422, "invalid_destination"),
    ),
    (
        "prefix",
        lambda v: ("POST", "/v1/endpoints", _destination(type="s3", bucket="my-webhook-archive", prefix=v)),
        "hookline/orders",
        (422, "invalid_destination"),
    ),
    ("event type", lambda v: ("POST", "/v1/events", {"type": v, "data": {}}), "order.paid", (422, "validation_failed")),
    ("idempotency id", lambda v: ("POST", "/v1/events", {"type": "order.paid", "id": v, "data": {}}), "order-1", (422, "validation_failed")),
    ("header name", lambda v: ("POST", "/v1/endpoints", {"url": "https://example.com/hook", "headers": {v: "1"}}), "X-Shop", (422, "validation_failed")),
    ("customer uid", lambda v: ("PUT", f"/v1/customers/{quote(v)}", {"name": "One"}), "cus-1", (422, "invalid_customer_uid")),
    ("email", lambda v: ("PUT", "/v1/customers/cus-1", {"name": "One", "email": v}), "ops@customer.example", (422, "invalid_email")),
    ("version name", lambda v: ("PUT", f"/v1/versions/{quote(v)}", {}), "2026-01-01", (422, "validation_failed")),
    ("event type name", lambda v: ("PUT", f"/v1/event-types/{quote(v)}", {"versions": {}}), "order.paid", (422, "validation_failed")),
]


@pytest.mark.parametrize("ending", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize(("field", "request_of", "good", "refused"), FIELDS, ids=[field for field, *_ in FIELDS])
def test_a_value_with_a_trailing_newline_is_refused(
    hookline: Hookline, field: str, request_of: Request, good: str, refused: tuple[int, str], ending: str
) -> None:
    # Given a request the field's good value makes acceptable
    assert hookline.api(*request_of(good))[0] < 300, field
    # When the same value ends in a newline, Then it is refused as the field refuses any malformed value
    status, body = hookline.api(*request_of(good + ending))
    assert (status, body["error"]["code"]) == refused, body


def test_the_runtime_validates_no_value_with_re_match() -> None:
    # One rule, so a new field cannot regress: a pattern checks a whole value (fullmatch), never a prefix of it.
    package = Path(__file__).parents[2] / "layers/hookline/python/hookline"
    calls = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "match"
    ]
    assert calls == []
