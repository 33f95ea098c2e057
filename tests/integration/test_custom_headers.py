"""Custom headers per endpoint: validated, stored, and sent with every delivery."""

from __future__ import annotations

import pytest

from tests.conftest import Hookline
from tests.support.receiver import running_receiver


def test_custom_headers_are_sent_with_every_delivery(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        headers = {"X-Customer-Token": "abc123", "X-Env": "prod"}
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "headers": headers})
        assert status == 201
        assert ep["headers"] == headers
        hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.pump()
        got = receiver.requests[0].headers
        assert (got["x-customer-token"], got["x-env"]) == ("abc123", "prod")
        assert got["content-type"] == "application/json"
        # A PATCH replaces them
        status, changed = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"headers": {"X-Env": "staging"}})
        assert (status, changed["headers"]) == (200, {"X-Env": "staging"})
        hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.pump()
        assert receiver.requests[1].headers["x-env"] == "staging"
        assert "x-customer-token" not in receiver.requests[1].headers


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({"Host": "evil"}, "forbidden_header"),
        ({"content-length": "1"}, "forbidden_header"),
        ({"Content-Type": "text/plain"}, "forbidden_header"),
        ({"connection": "close"}, "forbidden_header"),
        ({"Transfer-Encoding": "chunked"}, "forbidden_header"),
        ({"webhook-signature": "v1,forged"}, "forbidden_header"),
        ({"Webhook-Anything": "x"}, "forbidden_header"),
        ({"X-Ok": "line\r\nX-Injected: 1"}, "validation_failed"),
        ({"X-Ok": "nul\x00"}, "validation_failed"),
        ({"Bad Name": "x"}, "validation_failed"),
        ({"X-Bad\n": "x"}, "validation_failed"),
        ({f"X-{i}": "v" for i in range(21)}, "validation_failed"),
        ({"X-Big": "v" * 8200}, "validation_failed"),
        ({"X-Num": 5}, "wrong_type"),
        (["X-List"], "wrong_type"),
    ],
)
def test_bad_headers_are_refused_and_change_nothing(hookline: Hookline, headers: object, code: str) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/x", "headers": headers})
    assert (status, body["error"]["code"]) == (422, code)
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []
