"""An endpoint's `auth` on the way out (hookline.adapters.endpoint_auth) with the real HTTP client against receivers
on loopback: Basic and bearer headers, an OAuth2 token asked for through the SSRF guard and kept (in the process and,
sealed, in the table), fetched anew once on a 401, a token endpoint down as `auth_failed`; a client certificate in
the TLS handshake of a receiver that requires one. Secrets are sealed with moto's KMS (hookline.adapters.sealing)."""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from hookline.adapters.destinations import AwsDestinations, DestinationSender
from hookline.adapters.dynamo.tokens import TokenRepository
from hookline.adapters.endpoint_auth import AuthenticatedPoster, SslCertificates, StoredToken
from hookline.adapters.http import ConnectionPools, WebhookClient
from hookline.adapters.sealing import KmsSealer, SealFailed
from hookline.core import auth
from hookline.core.classify import AUTH_FAILED
from hookline.core.models import Endpoint
from hookline.core.responses import HttpResult
from hookline.core.ssrf import UrlPolicy
from hookline.core.webhook import Outbound
from hookline.wiring import topology
from local.resources import provision
from tests.support.certificates import make_certificates
from tests.support.receiver import Answer, Received, running_receiver, running_tls_receiver

POLICY = UrlPolicy((ipaddress.ip_network("127.0.0.0/8"),), allow_http=True, allowed_ports=None)


@dataclass
class Kit:
    sealer: KmsSealer
    tokens: TokenRepository


@pytest.fixture
def kit(aws: None) -> Kit:
    env = provision()
    kms = boto3.client("kms")
    return Kit(KmsSealer(lambda: kms, env[topology.SECRETS_KEY.env]), TokenRepository(boto3.resource("dynamodb").Table(env[topology.TABLE.env])))


def client(ca_file: str | None = None) -> WebhookClient:
    made = WebhookClient(2, 5, 4096, POLICY, resolver=lambda _h, _p: ["127.0.0.1"], keepalive_seconds=30)
    made.pools = ConnectionPools(30, ca_file=ca_file)
    return made


def endpoint(kit: Kit, url: str, given: dict[str, str], endpoint_id: str = "ep_01") -> Endpoint:
    kind, shown, secret = auth.split(given)
    sealed = kit.sealer.seal(auth.secrets_text(secret), auth.seal_context("acme", endpoint_id))
    return Endpoint(id=endpoint_id, tenant="acme", url=url, secret="whsec_x", auth=auth.EndpointAuth(kind, tuple(shown.items()), sealed))


def send(sender: DestinationSender, ep: Endpoint, headers: dict[str, str] | None = None) -> Any:
    return sender.send(ep, Outbound(b"{}", headers or {"content-type": "application/json"}, "evt_1", "t", "", None, ep.id, "dlv_1"))


def test_secrets_are_sealed_with_the_key_and_open_only_for_their_endpoint_with_one_kms_call_a_while(kit: Kit) -> None:
    # Given a secret sealed for one endpoint
    sealed = kit.sealer.seal(b"pw-1a2b3c", auth.seal_context("acme", "ep_01"))
    # Then the sealed text holds nothing in the clear, and opens under that endpoint's context alone
    assert b"pw-1a2b3c" not in base64.b64decode(sealed.split(".")[3]) and "pw-1a2b3c" not in sealed
    assert kit.sealer.open(sealed, auth.seal_context("acme", "ep_01")) == b"pw-1a2b3c"
    for elsewhere in (auth.seal_context("acme", "ep_02"), auth.seal_context("other", "ep_01")):
        with pytest.raises(SealFailed):
            kit.sealer.open(sealed, elsewhere)
    # And opening it a hundred times asks KMS for its data key once (GenerateDataKey, then one Decrypt)
    before = kit.sealer.kms_calls
    for _ in range(100):
        kit.sealer.open(sealed, auth.seal_context("acme", "ep_01"))
    assert kit.sealer.kms_calls - before <= 1


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"type": "basic", "username": "hookline", "password": "pw-1a2b3c"}, "Basic " + base64.b64encode(b"hookline:pw-1a2b3c").decode()),
        ({"type": "bearer", "token": "tk-4d5e6f"}, "Bearer tk-4d5e6f"),
    ],
)
def test_basic_and_bearer_send_the_authorization_header_in_place_of_a_custom_one(kit: Kit, given: dict[str, str], expected: str) -> None:
    with running_receiver() as receiver:
        sender = DestinationSender(client(), AwsDestinations("us-east-1"), authenticated=AuthenticatedPoster(client(), kit.sealer))
        result = send(sender, endpoint(kit, receiver.url, given), {"content-type": "application/json", "authorization": "custom"})
    assert result.status_code == 200
    assert receiver.requests[0].headers["authorization"] == expected


class TokenServer:
    """A token endpoint on loopback: each request answered with a new token (or `status`), each counted."""

    def __init__(self) -> None:
        self.issued: list[str] = []
        self.status = 200
        self.expires_in: Any = 3600

    def __call__(self, request: Received) -> Answer:
        if self.status != 200:
            return Answer(self.status, b'{"error":"temporarily_unavailable"}')
        token = f"tok-{len(self.issued) + 1}"
        self.issued.append(token)
        return Answer(200, json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in}).encode())


OAUTH2 = {"type": "oauth2_client_credentials", "client_id": "hookline", "client_secret": "cs-9f8e7d", "scope": "webhooks"}


@pytest.fixture
def token_server() -> Iterator[tuple[TokenServer, Any]]:
    server = TokenServer()
    with running_receiver(server) as running:
        yield server, running


def test_an_oauth2_token_is_asked_for_once_and_kept_by_the_process_and_the_fleet(kit: Kit, token_server: tuple[TokenServer, Any]) -> None:
    server, running = token_server
    accepted = {"Bearer tok-1"}
    with running_receiver(lambda r: Answer(200 if r.headers.get("authorization") in accepted else 401)) as receiver:
        ep = endpoint(kit, receiver.url, {**OAUTH2, "token_url": running.url.replace("/webhook", "/token")})
        first = AuthenticatedPoster(client(), kit.sealer, kit.tokens)
        results = [first.post(ep, b"{}", {}) for _ in range(20)]
        # A second instance (another process) takes the token the first kept in the table
        second = AuthenticatedPoster(client(), kit.sealer, kit.tokens)
        results.append(second.post(ep, b"{}", {}))
    assert [r.status_code for r in results] == [200] * 21
    assert server.issued == ["tok-1"] and (first.tokens_fetched, second.tokens_fetched) == (1, 0)
    # The token request: client credentials, the client authenticated with HTTP Basic, the scope asked for
    asked = running.requests[0]
    assert asked.path == "/token" and asked.body == b"grant_type=client_credentials&scope=webhooks"
    assert asked.headers["authorization"] == "Basic " + base64.b64encode(b"hookline:cs-9f8e7d").decode()
    # The table keeps it sealed, never in the clear
    stored = kit.tokens.get("acme", "ep_01")
    assert stored is not None and "tok-1" not in stored.sealed


def test_a_401_fetches_a_new_token_once_and_sends_again(kit: Kit, token_server: tuple[TokenServer, Any]) -> None:
    server, running = token_server
    accepted = {"Bearer tok-2"}  # the receiver no longer takes the first token (it expired on its side)
    with running_receiver(lambda r: Answer(200 if r.headers.get("authorization") in accepted else 401)) as receiver:
        ep = endpoint(kit, receiver.url, {**OAUTH2, "token_url": running.url})
        poster = AuthenticatedPoster(client(), kit.sealer, kit.tokens)
        refreshed = poster.post(ep, b"{}", {})
        again = poster.post(ep, b"{}", {})
        accepted.clear()  # and now it refuses every token: one refresh per attempt, then the 401 stands
        refused = poster.post(ep, b"{}", {})
    assert (refreshed.status_code, again.status_code, refused.status_code) == (200, 200, 401)
    assert server.issued == ["tok-1", "tok-2", "tok-3"]
    assert [r.headers["authorization"] for r in receiver.requests] == ["Bearer tok-1", "Bearer tok-2", "Bearer tok-2", "Bearer tok-2", "Bearer tok-3"]


def test_a_token_endpoint_down_fails_the_attempt_as_auth_failed_until_it_is_back(kit: Kit, token_server: tuple[TokenServer, Any]) -> None:
    server, running = token_server
    with running_receiver() as receiver:
        ep = endpoint(kit, receiver.url, {**OAUTH2, "token_url": running.url})
        poster = AuthenticatedPoster(client(), kit.sealer, kit.tokens)
        server.status = 503
        down = poster.post(ep, b"{}", {})
        unreachable = AuthenticatedPoster(client(), kit.sealer).post(
            endpoint(kit, receiver.url, {**OAUTH2, "token_url": "http://127.0.0.1:9/token"}, "ep_02"), b"{}", {}
        )
        blocked = AuthenticatedPoster(client(), kit.sealer).post(
            endpoint(kit, receiver.url, {**OAUTH2, "token_url": "http://169.254.169.254/token"}, "ep_03"), b"{}", {}
        )
        server.status = 200
        back = poster.post(ep, b"{}", {})
    assert (down.status_code, down.error, down.detail) == (None, AUTH_FAILED, "token endpoint answered 503")
    assert (unreachable.error, unreachable.detail) == (AUTH_FAILED, "token endpoint unreachable: connection_refused")
    assert (blocked.error, blocked.detail) == (AUTH_FAILED, "token endpoint unreachable: ssrf_blocked")  # the same SSRF guard
    assert back.status_code == 200 and len(receiver.requests) == 1
    assert "cs-9f8e7d" not in down.detail + unreachable.detail + blocked.detail


def test_the_fleets_token_store_keeps_the_token_refreshed_last(kit: Kit) -> None:
    assert kit.tokens.put("acme", "ep_01", StoredToken("v1.a", 2000.0, "mark"))
    assert not kit.tokens.put("acme", "ep_01", StoredToken("v1.b", 1500.0, "mark"))  # an older one does not replace it
    assert kit.tokens.put("acme", "ep_01", StoredToken("v1.c", 1500.0, "other"))  # one for a changed auth does
    assert kit.tokens.get("acme", "ep_01") == StoredToken("v1.c", 1500.0, "other")
    assert kit.tokens.get("acme", "ep_02") is None


def test_an_mtls_endpoint_presents_its_certificate_and_one_without_fails_as_a_tls_error(kit: Kit, tmp_path: Path) -> None:
    # Given a receiver that requires a client certificate signed by its CA, and a client certificate that CA signed
    make_certificates(tmp_path, ["hooks.example.com", "client.hookline.test"])
    ca = str(tmp_path / "ca.pem")
    certificate, private_key = (tmp_path / "client.hookline.test.pem").read_text(), (tmp_path / "client.hookline.test.key").read_text()
    with running_tls_receiver(str(tmp_path / "hooks.example.com.pem"), str(tmp_path / "hooks.example.com.key"), client_ca=ca) as receiver:
        url = f"https://hooks.example.com:{receiver._server.server_address[1]}/webhook"
        authenticated = AuthenticatedPoster(client(ca), kit.sealer)
        sender = DestinationSender(client(ca), AwsDestinations("us-east-1"), authenticated=authenticated)
        mtls = endpoint(kit, url, {"type": "mtls", "certificate": certificate, "private_key": private_key})
        # When deliveries go to it with the endpoint's certificate, and without one
        with_certificate = [send(sender, mtls) for _ in range(3)]
        without = send(sender, Endpoint(id="ep_02", tenant="acme", url=url, secret="whsec_x"))
    # Then those with it succeed, and the one without fails as a TLS error and reaches nothing
    assert [r.status_code for r in with_certificate] == [200, 200, 200]
    assert (without.status_code, without.error) == (None, "tls_error"), without
    assert len(receiver.requests) == 3
    # And the certificate and key were written once, each readable by this process's user alone, in a private directory
    (made,) = authenticated._certificates.values()
    for path in (made.cert_file, made.key_file):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(made.key_file)).st_mode) == 0o700


class RecordingPoster:
    """The HTTP client's place: answers each request from `answers` in turn, recording its URL and deadline."""

    request_timeout = 10.0

    def __init__(self, *answers: HttpResult) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, float | None]] = []

    def post(self, url: str, body: bytes, headers: Mapping[str, str], client: Any = None, deadline: float | None = None) -> HttpResult:
        self.asked.append((url, deadline))
        return self.answers.pop(0)


def test_every_request_of_an_attempt_shares_the_one_request_deadline(kit: Kit) -> None:
    # Given an OAuth2 endpoint whose receiver refuses the first token (so the attempt asks for two tokens and sends twice)
    token = HttpResult(200, None, 5, body='{"access_token": "t", "expires_in": 3600}')
    poster = RecordingPoster(token, HttpResult(401, None, 5), token, HttpResult(200, None, 5))
    ep = endpoint(kit, "https://hooks.example.com/in", {**OAUTH2, "token_url": "https://auth.example.com/token"})
    # When one attempt is made
    before = time.monotonic()
    result = AuthenticatedPoster(poster, kit.sealer).post(ep, b"{}", {})
    after = time.monotonic()
    # Then its four requests all end by one deadline: the request timeout from the attempt's start, as a webhook's
    assert result.status_code == 200
    assert [url for url, _ in poster.asked] == ["https://auth.example.com/token", "https://hooks.example.com/in"] * 2
    deadlines = {deadline for _, deadline in poster.asked}
    assert len(deadlines) == 1
    (deadline,) = deadlines
    assert deadline is not None and before + poster.request_timeout <= deadline <= after + poster.request_timeout


def test_a_certificate_that_could_never_be_presented_is_refused_when_given(tmp_path: Path) -> None:
    make_certificates(tmp_path, ["client.hookline.test", "other.hookline.test"])
    certificate, key = (tmp_path / "client.hookline.test.pem").read_text(), (tmp_path / "client.hookline.test.key").read_text()
    others_key = (tmp_path / "other.hookline.test.key").read_text()
    check = SslCertificates()
    assert check.refusal(certificate, key) is None
    assert check.refusal(certificate, others_key) == "the private key is not the certificate's"
    unreadable = "the certificate or the private key cannot be read (PEM; the key unencrypted)"
    assert check.refusal("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", key) == unreadable
