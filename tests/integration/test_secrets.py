"""Secret rotation with an overlap, the secret revealed and a test event sent, verified by the official receiver library;
API key revocation."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import boto3
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from hookline.adapters.observability import get_logger
from hookline.wiring import topology
from local.keys import revoke_api_key
from tests.conftest import Hookline
from tests.support.receiver import Answer, running_receiver


def _deliver_one(hookline: Hookline) -> None:
    assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[0] == 202
    hookline.pump()


def test_rotation_signs_with_both_secrets_during_the_overlap(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_receiver() as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        old = ep["secret"]
        # When the customer rotates the secret
        status, rotated = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        assert status == 200
        new = rotated["secret"]
        assert new.startswith("whsec_") and new != old
        # Then it is never shown again
        _, got = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
        assert new not in str(got) and old not in str(got)
        # And during the overlap a receiver with either secret accepts the delivery
        _deliver_one(hookline)
        during = receiver.requests[-1]
        assert len(during.headers["webhook-signature"].split(" ")) == 2
        for secret in (old, new):
            assert Webhook(secret).verify(during.body, during.headers)["type"] == "a.b"
        # And after the overlap only the new secret signs
        monkeypatch.setenv("HOOKLINE_SECRET_OVERLAP_SECONDS", "0")
        from hookline.wiring import container

        container.reset()
        _deliver_one(hookline)
        after = receiver.requests[-1]
        assert Webhook(new).verify(after.body, after.headers)
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(after.body, after.headers)
    assert hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate", tenant="other")[0] == 404


def _instant(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


@contextmanager
def _captured_logs() -> Iterator[io.StringIO]:
    """The service's log lines, formatted exactly as Powertools writes them."""
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(get_logger().registered_formatter)
    logging.getLogger("hookline").addHandler(capture)
    try:
        yield buffer
    finally:
        logging.getLogger("hookline").removeHandler(capture)


def test_the_revealed_secrets_verify_a_test_event_sent_to_a_disabled_endpoint_and_are_never_logged(hookline: Hookline) -> None:
    with running_receiver(lambda r: Answer(status=503 if r.path.endswith("/down") else 200, body=b"received")) as receiver, _captured_logs() as logs:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret") == (200, {"secret": ep["secret"]})
        # Given the secret was rotated (so both sign) and the endpoint disabled
        _, rotated = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "disabled"})[0] == 200
        # Then the secret route shows both, and when the previous one stops signing
        status, shown = hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret")
        assert (status, shown["secret"], shown["previous_secret"]) == (200, rotated["secret"], ep["secret"])
        # (the same instant as rotation announced, give or take the stored timestamp's last millisecond)
        assert (
            abs(_instant(shown["previous_expires_at"]) - _instant(rotated["previous_secret_valid_until"])) <= 0.002
        )  # the stored rotation time keeps ~microseconds; each side rounds to the millisecond
        # When the disabled endpoint is tested
        status, attempt = hookline.api("POST", f"/v1/endpoints/{ep['id']}/test")
        # Then the receiver got a `hookline.test` webhook that either revealed secret verifies
        [got] = receiver.requests
        for secret in (shown["secret"], shown["previous_secret"]):
            assert Webhook(secret).verify(got.body, got.headers)["type"] == "hookline.test"
        assert (status, attempt["status_code"], attempt["error"], attempt["succeeded"], attempt["response_body"]) == (200, 200, None, True, "received")
        assert attempt["webhook_id"] == got.headers["webhook-id"]
        # And nothing was stored: no event under the test's id, the endpoint still disabled, no delivery waiting
        assert hookline.api("GET", f"/v1/events/{attempt['webhook_id']}")[0] == 404
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["status"] == "disabled"
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query={"status": "paused"})[1]["items"] == []
        # And a receiver that refuses it is an answer too, not an error
        hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"url": receiver.url.replace("/webhook", "/down")})
        status, refused = hookline.api("POST", f"/v1/endpoints/{ep['id']}/test")
        assert (status, refused["status_code"], refused["succeeded"]) == (200, 503, False)
    out = logs.getvalue()
    for secret in (ep["secret"], rotated["secret"]):
        assert secret not in out and secret.removeprefix("whsec_") not in out
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret", tenant="other")[0] == 404
    assert hookline.api("POST", f"/v1/endpoints/{ep['id']}/test", tenant="other")[0] == 404
    assert len(receiver.requests) == 2


def test_a_revoked_key_is_refused(hookline: Hookline) -> None:
    hookline.add_api_key("acme", "hk_to_revoke_0001")

    def authorize() -> Any:
        return hookline.handlers["authorizer"]({"headers": {"authorization": "Bearer hk_to_revoke_0001"}}, None)

    assert authorize()["isAuthorized"] is True
    assert revoke_api_key("hk_to_revoke_0001", hookline.env[topology.TABLE.env]) is True
    assert authorize() == {"isAuthorized": False}
    assert revoke_api_key("hk_never_issued", hookline.env[topology.TABLE.env]) is False
    assert boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).scan()["Count"] >= 1
