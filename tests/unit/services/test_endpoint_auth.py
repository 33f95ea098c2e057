"""An endpoint's `auth` through EndpointService over fakes: its secrets sealed under the endpoint's tenant and id and
never shown, its token URL judged by the stack's SSRF policy, HTTP endpoints only (mTLS: https only)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from hookline.core import auth
from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.core.errors import Unavailable, ValidationFailed
from tests.unit.services.conftest import World

SECRETS = {"client_secret": "cs-9f8e7d", "password": "pw-1a2b3c", "token": "tk-4d5e6f", "private_key": "PRIVATEKEYBODY"}
OAUTH2 = {
    "type": "oauth2_client_credentials",
    "token_url": "https://auth.example.com/token",
    "client_id": "hookline",
    "client_secret": SECRETS["client_secret"],
    "audience": "https://api.example.com",
}
KEY = f"-----BEGIN PRIVATE KEY-----\n{SECRETS['private_key']}\n-----END PRIVATE KEY-----\n"
CERT = "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIU\n-----END CERTIFICATE-----\n"
AUTHS = [
    OAUTH2,
    {"type": "mtls", "certificate": CERT, "private_key": KEY},
    {"type": "basic", "username": "hookline", "password": SECRETS["password"]},
    {"type": "bearer", "token": SECRETS["token"]},
]


def create(world: World, **body: Any) -> Any:
    return world.endpoint_service().create("acme", CreateEndpoint.model_validate({"url": "https://example.com/hooks", **body}))


@pytest.mark.parametrize("given", AUTHS, ids=lambda a: a["type"])
def test_auth_is_kept_sealed_for_its_endpoint_and_shown_without_its_secrets(world: World, given: dict[str, str]) -> None:
    # Given an endpoint created with `auth`
    created = create(world, auth=given)
    service = world.endpoint_service()
    # Then every answer shows its type and the fields that are not secret, and no secret
    kind, shown, secret = auth.split(given)
    for answer in (created, service.list("acme", 10).items[0], service.describe("acme", created.id)):
        assert answer.model_dump(exclude_none=True)["auth"] == {"type": kind, **shown}
        assert not [v for v in SECRETS.values() if v in answer.model_dump_json()]
    # And the endpoint keeps them sealed under its tenant and id: opened there, they are what was given
    kept = world.endpoints.get("acme", created.id).auth
    assert kept is not None and not [v for v in SECRETS.values() if v in kept.to_item()]
    assert auth.secrets_of(world.sealer.open(kept.sealed, auth.seal_context("acme", created.id))) == secret
    with pytest.raises(Exception, match="another context"):
        world.sealer.open(kept.sealed, auth.seal_context("acme", "ep_another"))


def test_a_token_url_the_stack_may_not_send_to_is_refused_as_an_endpoint_url_is(world: World) -> None:
    with pytest.raises(ValidationFailed) as refused:
        create(world, auth={**OAUTH2, "token_url": "https://10.0.0.1/token"})
    assert refused.value.code == "forbidden_url" and refused.value.message.startswith("'auth.token_url'"), refused.value.message
    with pytest.raises(ValidationFailed) as plain:
        create(world, auth={**OAUTH2, "token_url": "http://auth.example.com/token"})  # https only in the cloud
    assert plain.value.message.startswith("'auth.token_url'")
    assert world.endpoints.items == {} and world.sealer.sealed == 0


def test_auth_goes_with_http_endpoints_only_and_mtls_with_https_only(world: World) -> None:
    destination = {
        "type": "sqs",
        "queue_url": "https://sqs.eu-west-1.amazonaws.com/111122223333/q",
        "role_arn": "arn:aws:iam::111122223333:role/hookline-delivery-q",
    }
    with pytest.raises(ValidationFailed, match="'auth' is sent to http destinations only, not to sqs"):
        world.endpoint_service().create("acme", CreateEndpoint.model_validate({"destination": destination, "auth": AUTHS[3]}))
    world.settings = replace(world.settings, allow_http=True)
    with pytest.raises(ValidationFailed, match="mtls needs an https URL"):
        world.endpoint_service().create("acme", CreateEndpoint.model_validate({"url": "http://example.com/hooks", "auth": AUTHS[1]}))
    made = create(world, auth=AUTHS[1])
    with pytest.raises(ValidationFailed, match="mtls needs an https URL"):
        world.endpoint_service().update("acme", made.id, UpdateEndpoint.model_validate({"url": "http://example.com/hooks"}))
    with pytest.raises(ValidationFailed, match="http destinations only"):
        world.endpoint_service().update("acme", made.id, UpdateEndpoint.model_validate({"destination": destination}))


def test_a_patch_replaces_auth_as_a_whole_and_null_removes_it(world: World) -> None:
    made = create(world, auth=AUTHS[2])
    service = world.endpoint_service()
    changed = service.update("acme", made.id, UpdateEndpoint.model_validate({"auth": AUTHS[3]}))
    assert changed.model_dump()["auth"]["type"] == "bearer"
    kept = world.endpoints.get("acme", made.id).auth
    assert kept is not None and auth.secrets_of(world.sealer.open(kept.sealed, auth.seal_context("acme", made.id))) == {"token": SECRETS["token"]}
    untouched = service.update("acme", made.id, UpdateEndpoint.model_validate({"description": "x"}))
    assert untouched.model_dump()["auth"] == {"type": "bearer"}
    removed = service.update("acme", made.id, UpdateEndpoint.model_validate({"auth": None}))
    assert removed.auth is None and world.endpoints.get("acme", made.id).auth is None


def test_a_stack_without_a_key_refuses_auth_and_keeps_nothing(world: World) -> None:
    service = replace(world.endpoint_service(), sealer=None)
    with pytest.raises(Unavailable, match="HOOKLINE_SECRETS_KEY_ARN"):
        service.create("acme", CreateEndpoint.model_validate({"url": "https://example.com/hooks", "auth": AUTHS[3]}))
    assert world.endpoints.items == {}
    assert json.loads(service.create("acme", CreateEndpoint.model_validate({"url": "https://example.com/hooks"})).model_dump_json())["auth"] is None


class RefusingCertificates:
    def __init__(self) -> None:
        self.checked: list[tuple[str, str]] = []

    def refusal(self, certificate: str, private_key: str) -> str | None:
        self.checked.append((certificate, private_key))
        return "the private key is not the certificate's"


def test_an_mtls_certificate_that_could_never_be_presented_is_refused_and_nothing_kept(world: World) -> None:
    check = RefusingCertificates()
    service = replace(world.endpoint_service(), certificates=check)
    with pytest.raises(ValidationFailed) as refused:
        service.create("acme", CreateEndpoint.model_validate({"url": "https://example.com/hooks", "auth": AUTHS[1]}))
    assert (refused.value.code, refused.value.message) == ("invalid_auth", "'auth': the private key is not the certificate's")
    assert check.checked == [(CERT, KEY)] and world.endpoints.items == {} and world.sealer.sealed == 0
