"""Secret rotation with an overlap, verified by the official receiver library; API key revocation."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from hookline.wiring import topology
from local.keys import revoke_api_key
from tests.conftest import Hookline
from tests.support.receiver import running_receiver


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


def test_a_revoked_key_is_refused(hookline: Hookline) -> None:
    hookline.add_api_key("acme", "hk_to_revoke_0001")

    def authorize() -> Any:
        return hookline.handlers["authorizer"]({"headers": {"authorization": "Bearer hk_to_revoke_0001"}}, None)

    assert authorize()["isAuthorized"] is True
    assert revoke_api_key("hk_to_revoke_0001", hookline.env[topology.TABLE.env]) is True
    assert authorize() == {"isAuthorized": False}
    assert revoke_api_key("hk_never_issued", hookline.env[topology.TABLE.env]) is False
    assert boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).scan()["Count"] >= 1
