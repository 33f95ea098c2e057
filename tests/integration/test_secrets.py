"""Secret rotation with an overlap, the secret revealed and a test event sent, verified by the official receiver library;
API key revocation."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import boto3
import pytest
from freezegun import freeze_time
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.observability import get_logger
from hookline.wiring import topology
from local.keys import revoke_api_key
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, Receiver, running_receiver

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _deliver_one(hookline: Hookline) -> None:
    assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[0] == 202
    hookline.pump()


def test_rotation_signs_with_both_secrets_during_the_overlap(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    with freeze_time(START) as frozen, running_receiver() as receiver:
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
        # And a shorter overlap set later does not end what the rotation promised
        monkeypatch.setenv("HOOKLINE_SECRET_OVERLAP_SECONDS", "0")
        from hookline.wiring import container

        container.reset()
        _deliver_one(hookline)
        assert Webhook(old).verify(receiver.requests[-1].body, receiver.requests[-1].headers)
        # And after the overlap only the new secret signs
        frozen.move_to(datetime.fromtimestamp(_instant(rotated["previous_secret_valid_until"]), UTC))
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
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret") == (
            200,
            {"secret": ep["secret"], "created_at": ep["created_at"], "previous_secrets": []},
        )
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


def _verifies(secret: str, got: Received) -> bool:
    """Whether a receiver holding `secret` accepts the webhook (the official library, as a real receiver would)."""
    try:
        Webhook(secret).verify(got.body, got.headers)
    except WebhookVerificationError:
        return False
    return True


def _tested(hookline: Hookline, receiver: Receiver, endpoint_id: str) -> Received:
    """A test event sent now: what the receiver got."""
    assert hookline.api("POST", f"/v1/endpoints/{endpoint_id}/test")[1]["succeeded"] is True
    return receiver.requests[-1]


def test_a_second_rotation_keeps_the_first_ones_promise_until_its_own_end(hookline: Hookline) -> None:
    with freeze_time(START) as frozen, running_receiver() as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        original = ep["secret"]
        # When the secret is rotated twice, 0.1 s apart
        _, first = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        frozen.tick(timedelta(seconds=0.1))
        _, second = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        promised = _instant(first["previous_secret_valid_until"])
        assert promised == START.timestamp() + 86400
        # Then a delivery carries three signatures, and a receiver holding any of the three secrets accepts it
        _deliver_one(hookline)
        delivered = receiver.requests[-1]
        assert len(delivered.headers["webhook-signature"].split(" ")) == 3
        assert all(_verifies(s, delivered) for s in (original, first["secret"], second["secret"]))
        # And the secret route shows both earlier secrets, each with its own end
        _, shown = hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret")
        assert [(p["secret"], _instant(p["valid_until"])) for p in shown["previous_secrets"]] == [
            (first["secret"], _instant(second["previous_secret_valid_until"])),
            (original, promised),
        ]
        # And the original secret still verifies a millisecond before the end the first rotation promised
        frozen.move_to(datetime.fromtimestamp(promised - 0.001, UTC))
        assert _verifies(original, _tested(hookline, receiver, ep["id"]))
        # And not from then on, while the first rotation's secret still does until its own end
        frozen.move_to(datetime.fromtimestamp(promised, UTC))
        at_end = _tested(hookline, receiver, ep["id"])
        assert not _verifies(original, at_end) and _verifies(first["secret"], at_end) and _verifies(second["secret"], at_end)
        frozen.tick(timedelta(seconds=0.1))
        after = _tested(hookline, receiver, ep["id"])
        assert not _verifies(first["secret"], after) and _verifies(second["secret"], after)


def test_of_concurrent_rotations_one_lands_per_round_and_every_secret_handed_out_verifies(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_receiver() as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        # Given each rotation reads the endpoint before any of the round writes (the race forced), and the table
        # applies one write to the item at a time, as DynamoDB does
        racing = threading.local()
        barrier = threading.Barrier(10)
        one_at_a_time = threading.Lock()
        read, write = EndpointRepository.get, EndpointRepository.rotate_secret

        def read_then_wait(self: EndpointRepository, tenant: str, endpoint_id: str) -> Any:
            got = read(self, tenant, endpoint_id)
            if getattr(racing, "on", False):
                barrier.wait(timeout=30)
            return got

        def write_alone(self: EndpointRepository, *args: Any) -> Any:
            with one_at_a_time:
                return write(self, *args)

        monkeypatch.setattr(EndpointRepository, "get", read_then_wait)
        monkeypatch.setattr(EndpointRepository, "rotate_secret", write_alone)

        def rotate(_: int) -> tuple[int, Any]:
            racing.on = True
            try:
                return hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
            finally:
                racing.on = False

        handed_out = [ep["secret"]]
        for _round in range(2):
            # When 10 rotations run at once
            with ThreadPoolExecutor(10) as pool:
                answers = list(pool.map(rotate, range(10)))
            # Then exactly one lands, and the nine others answer 409 with what signs now and no secret
            won = [body for status, body in answers if status == 200]
            lost = [body for status, body in answers if status == 409]
            assert (len(won), len(lost)) == (1, 9), answers
            handed_out.append(won[0]["secret"])
            for body in lost:
                assert body["error"]["code"] == "rotation_conflict" and "whsec_" not in json.dumps(body)
                assert len(body["error"]["secrets"]["previous_valid_until"]) == len(handed_out) - 1
        # And every secret ever handed out verifies the next delivery
        _deliver_one(hookline)
        assert all(_verifies(secret, receiver.requests[-1]) for secret in handed_out)


def test_an_endpoint_rotated_by_the_last_release_keeps_its_previous_secret(hookline: Hookline) -> None:
    with freeze_time(START) as frozen, running_receiver() as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        # Given the last release rotated the secret: one previous secret, ending at rotated_at + the overlap
        table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
        rotated_at = START.timestamp() - 3600
        table.update_item(
            Key=keys.endpoint("acme", ep["id"]),
            UpdateExpression="SET previous_secret = secret, secret = :s, rotated_at = :t",
            ExpressionAttributeValues={":s": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", ":t": Decimal(str(rotated_at))},
        )
        # When this release rotates it again
        _, rotated = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        # Then the last release's previous secret still signs, until the end that release promised
        _, shown = hookline.api("GET", f"/v1/endpoints/{ep['id']}/secret")
        assert [(p["secret"], _instant(p["valid_until"])) for p in shown["previous_secrets"]] == [
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", START.timestamp() + 86400),
            (ep["secret"], rotated_at + 86400),
        ]
        got = _tested(hookline, receiver, ep["id"])
        assert all(_verifies(s, got) for s in (ep["secret"], "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", rotated["secret"]))
        frozen.move_to(datetime.fromtimestamp(rotated_at + 86400, UTC))
        assert not _verifies(ep["secret"], _tested(hookline, receiver, ep["id"]))


def test_a_revoked_key_is_refused(hookline: Hookline) -> None:
    hookline.add_api_key("acme", "hk_to_revoke_0001")

    def authorize() -> Any:
        return hookline.handlers["authorizer"]({"headers": {"authorization": "Bearer hk_to_revoke_0001"}}, None)

    assert authorize()["isAuthorized"] is True
    assert revoke_api_key("hk_to_revoke_0001", hookline.env[topology.TABLE.env]) is True
    assert authorize() == {"isAuthorized": False}
    assert revoke_api_key("hk_never_issued", hookline.env[topology.TABLE.env]) is False
    assert boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).scan()["Count"] >= 1
