"""An endpoint's `auth` through the real API and authorizer handlers over moto (its KMS key provisioned from the
topology): given by the producer and by a customer's portal session, shown to both without its secrets, kept sealed
in the table, and opened by the API function itself when it sends the endpoint's test event."""

from __future__ import annotations

import base64
import json

import boto3

from hookline.wiring import topology
from tests.integration.test_portal_access import World, world  # noqa: F401  (the access matrix's world: its fixture)

PASSWORD = "pw-Hq7x-only-sealed"
TOKEN = "tk-Lm3v-only-sealed"
SECRETS = (PASSWORD, TOKEN)


def _no_secret_in(*answers: object) -> None:
    shown = json.dumps(answers)
    assert not [s for s in SECRETS if s in shown], shown


def test_auth_is_given_and_read_by_the_producer_and_a_session_and_never_shown(world: World) -> None:  # noqa: F811
    # Given a customer's endpoint made by the producer with Basic auth
    basic = {"type": "basic", "username": "hookline", "password": PASSWORD}
    made = world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, "customer": "cus-a", "auth": basic})
    # Then the producer and the customer's portal session read its type and username, never its password
    as_session = world.call("session", "GET", f"/v1/endpoints/{made['id']}")
    listed = world.call("session", "GET", "/v1/endpoints")
    assert made["auth"] == as_session[1]["auth"] == {"type": "basic", "username": "hookline"}
    _no_secret_in(made, as_session, listed, world.producer("GET", f"/v1/endpoints/{made['id']}"))
    # When the session replaces it with a bearer token (the portal's own routes)
    status, changed = world.call("session", "PATCH", f"/v1/endpoints/{made['id']}", {"auth": {"type": "bearer", "token": TOKEN}})
    assert (status, changed["auth"]) == (200, {"type": "bearer"})
    _no_secret_in(changed)
    # And the producer sends its test event: the API function opens the sealed token to send it
    tested = world.producer("POST", f"/v1/endpoints/{made['id']}/test")
    assert tested["succeeded"], tested
    assert world.receiver.requests[-1].headers["authorization"] == f"Bearer {TOKEN}"
    # And the table holds neither secret in the clear, nor in any base64 of its bytes
    items = boto3.resource("dynamodb").Table(world.hookline.env[topology.TABLE.env]).scan()["Items"]
    stored = json.dumps(items, default=str)
    assert not [s for s in SECRETS if s in stored or base64.b64encode(s.encode()).decode()[:12] in stored]
    # And a read-only session may not change it
    refused = world.call("read_only", "PATCH", f"/v1/endpoints/{made['id']}", {"auth": None})
    assert refused[0] == 403
