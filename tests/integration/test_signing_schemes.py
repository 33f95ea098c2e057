"""Signature schemes through the real path (the API, the delivery function, a real receiver), each webhook verified
by the receivers' own code: npm @octokit/webhooks-methods for GitHub's format, PyPI stripe for Stripe's, the official
standardwebhooks for `v1`, and `cryptography`'s Ed25519 public key over the spec's signed content for `v1a` (there is
no released `v1a` verifier yet). No private key or secret appears in an API answer or a log line."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import stripe
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from freezegun import freeze_time
from standardwebhooks.webhooks import Webhook

from hookline.adapters.dynamo import keys
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.integration.test_destinations import CUSTOMER_ACCOUNT, REGION, ROLE_ARN, attributes, customer, receive_all
from tests.integration.test_secrets import _captured_logs
from tests.support.receiver import Received, running_receiver

ROOT = Path(__file__).resolve().parents[2]
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ED25519 = {"scheme": "standard-webhooks", "algorithm": "ed25519"}
GITHUB = {"scheme": "hmac", "preset": "github"}
STRIPE = {"scheme": "hmac", "preset": "stripe"}


def _octokit_verifies(secret: str, got: Received) -> bool:
    """@octokit/webhooks-methods' `verify`, run by node, as a GitHub receiver runs it."""
    script = (
        "import { verify } from '@octokit/webhooks-methods';"
        "const [secret, body, signature] = JSON.parse(process.argv[1]);"
        "process.stdout.write(String(await verify(secret, body, signature)));"
    )
    args = json.dumps([secret, got.body.decode(), got.headers["x-hub-signature-256"]])
    path = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, args], cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": path}, check=True
    )
    return done.stdout == "true"


def _v1a_verifies(public_key: str, got: Received) -> bool:
    """Whether one of the `v1a` signatures of `webhook-signature` verifies with the `whpk_` key over "{id}.{timestamp}.{body}"."""
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key.removeprefix("whpk_")))
    signed = f"{got.headers['webhook-id']}.{got.headers['webhook-timestamp']}.".encode() + got.body
    for signature in got.headers["webhook-signature"].split(" "):
        version, _, value = signature.partition(",")
        if version != "v1a":
            continue
        try:
            key.verify(base64.b64decode(value), signed)
        except InvalidSignature:
            continue
        return True
    return False


def _jwk_key(jwk: dict[str, Any]) -> str:
    """A JWK's key as `whpk_`, as a receiver reading the key set would take it."""
    return "whpk_" + base64.b64encode(base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))).decode()


def _deliver(hookline: Hookline, receiver: Any) -> Received:
    assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 1}})[0] == 202
    hookline.pump()
    return receiver.requests[-1]


def test_the_github_and_stripe_presets_verify_with_their_own_libraries(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an endpoint signing in GitHub's format
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "signing": GITHUB})
        assert (status, ep["signing"]) == (201, GITHUB)
        # When a webhook is delivered, then GitHub's own verifier accepts it, and no Standard Webhooks signature goes with it
        got = _deliver(hookline, receiver)
        assert _octokit_verifies(ep["secret"], got) and not _octokit_verifies("another secret", got)
        assert "webhook-signature" not in got.headers and got.headers["webhook-id"].startswith("evt_")
        # When the endpoint switches to Stripe's format, then Stripe's library accepts the next one
        assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": STRIPE})[1]["signing"] == STRIPE
        got = _deliver(hookline, receiver)
        assert stripe.WebhookSignature.verify_header(got.body.decode(), got.headers["stripe-signature"], ep["secret"], tolerance=300)
        assert "x-hub-signature-256" not in got.headers
        # And the test event is signed the same way
        assert hookline.api("POST", f"/v1/endpoints/{ep['id']}/test")[1]["succeeded"] is True
        assert stripe.WebhookSignature.verify_header(receiver.requests[-1].body.decode(), receiver.requests[-1].headers["stripe-signature"], ep["secret"])


def test_the_default_is_standard_webhooks_v1_as_before(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert ep["signing"] == {"scheme": "standard-webhooks", "algorithm": "hmac-sha256"}
        got = _deliver(hookline, receiver)
        assert Webhook(ep["secret"]).verify(got.body, got.headers)["data"] == {"n": 1}
        # And a signing set back to null is the default again
        hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": GITHUB})
        assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": None})[1]["signing"] == ep["signing"]
        again = _deliver(hookline, receiver)
        assert Webhook(ep["secret"]).verify(again.body, again.headers)["type"] == "a.b"


def test_ed25519_signatures_verify_with_the_shown_key_and_the_jwks_and_rotate_with_an_overlap(hookline: Hookline) -> None:
    with freeze_time(START, tick=True) as frozen, running_receiver() as receiver, _captured_logs() as logs:
        # Given an Ed25519 endpoint: its public key is shown, to the producer and in the key set
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "signing": ED25519})
        public = ep["signing"]["public_key"]
        assert status == 201 and public.startswith("whpk_") and len(base64.b64decode(public[5:])) == 32
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["signing"] == {**ED25519, "public_key": public}
        [jwk] = hookline.api("GET", "/v1/jwks")[1]["keys"]
        assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["endpoint_id"], _jwk_key(jwk)) == ("OKP", "Ed25519", "EdDSA", ep["id"], public)
        # When a webhook is delivered, then its v1a signature verifies with the key, and with the key set's
        got = _deliver(hookline, receiver)
        assert got.headers["webhook-signature"].startswith("v1a,") and _v1a_verifies(public, got) and _v1a_verifies(_jwk_key(jwk), got)
        # When the endpoint's secret and key are rotated, then both keys sign until the overlap ends, and the key set shows both
        status, rotated = hookline.api("POST", f"/v1/endpoints/{ep['id']}/secret/rotate")
        new = rotated["public_key"]
        assert status == 200 and new.startswith("whpk_") and new != public
        assert {_jwk_key(k) for k in hookline.api("GET", "/v1/jwks")[1]["keys"]} == {public, new}
        during = _deliver(hookline, receiver)
        assert during.headers["webhook-signature"].count("v1a,") == 2 and _v1a_verifies(public, during) and _v1a_verifies(new, during)
        frozen.move_to(datetime.fromisoformat(rotated["previous_secret_valid_until"]) + timedelta(seconds=1))
        after = _deliver(hookline, receiver)
        assert _v1a_verifies(new, after) and not _v1a_verifies(public, after)
        assert [_jwk_key(k) for k in hookline.api("GET", "/v1/jwks")[1]["keys"]] == [new]
        stored = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).get_item(Key=keys.endpoint("acme", ep["id"]))["Item"]
        answers = json.dumps([ep, rotated, *(hookline.api("GET", p)[1] for p in (f"/v1/endpoints/{ep['id']}", f"/v1/endpoints/{ep['id']}/secret", "/v1/jwks"))])
    # Then no private key was ever in an answer or a log line
    privates = [stored["signing_key"], *(p["secret"] for p in stored["previous_keys"])]
    assert all(k.startswith("whsk_") for k in privates) and len(privates) == 2
    for private in privates:
        assert private not in answers and private[5:] not in answers and private not in logs.getvalue() and private[5:] not in logs.getvalue()
    assert hookline.api("GET", "/v1/jwks", tenant="other")[1] == {"keys": []}


def test_dual_signing_carries_both_formats_until_the_date_then_the_main_one_only(hookline: Hookline) -> None:
    with freeze_time(START, tick=True) as frozen, running_receiver() as receiver, _captured_logs() as logs:
        # Given a receiver migrating from Standard Webhooks v1 to GitHub's format and to v1a, until a day from now
        until = (START + timedelta(days=1)).isoformat()
        signing = {**ED25519, "also": [{"scheme": "standard-webhooks"}, GITHUB], "also_until": until}
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "signing": signing})
        assert ep["signing"]["also"] == [{"scheme": "standard-webhooks", "algorithm": "hmac-sha256"}, GITHUB]
        # Then every request carries each format, and each verifies with its own verifier
        got = _deliver(hookline, receiver)
        assert _v1a_verifies(ep["signing"]["public_key"], got)
        assert Webhook(ep["secret"]).verify(got.body, got.headers)["type"] == "a.b"
        assert _octokit_verifies(ep["secret"], got)
        # And the delivery log shows each of its signature headers, redacted
        [delivery] = hookline.api("GET", f"/v1/events/{got.headers['webhook-id']}")[1]["deliveries"]
        [attempt] = hookline.api("GET", f"/v1/events/{got.headers['webhook-id']}/deliveries/{delivery['id']}")[1]["attempts"]
        shown = {k: v for k, v in attempt["request_headers"].items() if k in ("webhook-signature", "x-hub-signature-256")}
        assert shown == {"webhook-signature": "v1a,<redacted> v1,<redacted>", "x-hub-signature-256": "<redacted>"}
        # When the date passes, then only the main scheme signs
        frozen.move_to(START + timedelta(days=1, seconds=1))
        after = _deliver(hookline, receiver)
        assert "x-hub-signature-256" not in after.headers and after.headers["webhook-signature"].count(",") == 1
        assert _v1a_verifies(ep["signing"]["public_key"], after)
        answers = json.dumps([hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1], hookline.api("GET", "/v1/endpoints")[1]])
    assert ep["secret"] not in answers and ep["secret"] not in logs.getvalue() and ep["secret"].removeprefix("whsec_") not in logs.getvalue()


@pytest.mark.parametrize(
    ("signing", "message"),
    [
        ({"scheme": "hmac", "preset": "gitlab"}, "'signing.preset' must be one of github, stripe, shopify"),
        ({**GITHUB, "also": [ED25519]}, "'signing.also_until' is required with 'also': when the other schemes stop signing (ISO 8601)"),
    ],
)
def test_a_malformed_signing_is_422_invalid_signing_and_changes_nothing(hookline: Hookline, signing: Any, message: str) -> None:
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook", "signing": signing}) == (
        422,
        {"error": {"code": "invalid_signing", "message": message}},
    )
    _, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": signing})[0] == 422
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["signing"]["scheme"] == "standard-webhooks"


def test_a_key_made_on_a_change_to_ed25519_is_kept_by_later_changes(hookline: Hookline) -> None:
    _, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    assert "public_key" not in ep["signing"]
    public = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": ED25519})[1]["signing"]["public_key"]
    assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"description": "x"})[1]["signing"]["public_key"] == public
    assert "public_key" not in hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": GITHUB})[1]["signing"]
    assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"signing": ED25519})[1]["signing"]["public_key"] == public


def test_a_destination_carries_its_signing_formats_signature_as_attributes(hookline: Hookline) -> None:
    # Given an SQS destination whose consumer verifies Stripe's format
    sqs = customer().client("sqs")
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    destination = {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders", "role_arn": ROLE_ARN}
    status, ep = hookline.api("POST", "/v1/endpoints", {"destination": destination, "signing": STRIPE})
    assert status == 201, ep
    # When an event is delivered, then the message carries the Stripe-Signature attribute, which Stripe's library accepts
    assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[0] == 202
    hookline.pump()
    [message] = receive_all(sqs, queue_url, 1)
    got = attributes(message)
    assert set(got) == {"webhook-id", "webhook-timestamp", "stripe-signature"}
    assert stripe.WebhookSignature.verify_header(message["Body"], got["stripe-signature"], ep["secret"], tolerance=300)
