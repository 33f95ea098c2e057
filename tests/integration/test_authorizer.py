"""The API key authorizer against moto: keys are stored hashed and map to one tenant."""

from __future__ import annotations

import boto3

from hookline.core.apikeys import hash_api_key
from hookline.wiring import topology
from tests.conftest import Hookline


def _authorize(hookline: Hookline, header: str | None) -> dict[str, object]:
    headers = {} if header is None else {"authorization": header}
    event = {"type": "REQUEST", "version": "2.0", "routeArn": "arn:x", "identitySource": [header] if header else [], "headers": headers}
    return dict(hookline.handlers["authorizer"](event, None))


def test_valid_key_maps_to_its_tenant_and_is_stored_hashed(hookline: Hookline) -> None:
    hookline.add_api_key("acme", "hk_secret_value_1")
    assert _authorize(hookline, "Bearer hk_secret_value_1") == {"isAuthorized": True, "context": {"tenant": "acme"}}
    items = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).scan()["Items"]
    assert "hk_secret_value_1" not in str(items)
    assert any(i["pk"] == f"KEY#{hash_api_key('hk_secret_value_1')}" for i in items)


def test_missing_wrong_or_revoked_keys_are_denied(hookline: Hookline) -> None:
    hookline.add_api_key("acme", "hk_good")
    assert _authorize(hookline, None) == {"isAuthorized": False}
    assert _authorize(hookline, "Bearer hk_wrong") == {"isAuthorized": False}
    assert _authorize(hookline, "Basic hk_good") == {"isAuthorized": False}
    assert _authorize(hookline, "Bearer " + "x" * 500) == {"isAuthorized": False}
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    table.update_item(Key={"pk": f"KEY#{hash_api_key('hk_good')}", "sk": "KEY"}, UpdateExpression="SET revoked = :t", ExpressionAttributeValues={":t": True})
    assert _authorize(hookline, "Bearer hk_good") == {"isAuthorized": False}
