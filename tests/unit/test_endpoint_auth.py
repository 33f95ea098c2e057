"""Endpoint authentication's pure parts (hookline.core.auth): when a cached OAuth2 token stops being used, what a
token endpoint's answer means, how a failed token request is classified, which fields are shown, and the contract's
refusals of an `auth` (hookline.core.contract.auth)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from hookline.core import auth
from hookline.core.classify import AUTH_FAILED, Outcome, Verdict, classify
from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.core.errors import ValidationFailed
from hookline.entrypoints.api.routing import contract_error

URL = "https://example.com/hook"
OAUTH2 = {"type": "oauth2_client_credentials", "token_url": "https://auth.example.com/token", "client_id": "hookline", "client_secret": "s3cr3t"}
CERT = "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIU\n-----END CERTIFICATE-----\n"
KEY = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n"


@pytest.mark.parametrize(
    ("expires_in", "refresh_after"),
    [
        (3600, 3540.0),  # an hour: used until a minute before it ends
        (120, 60.0),  # two minutes: the margin is a minute
        (60, 30.0),  # a minute: half its life, never a token past its end
        (1, 0.5),
        ("900", 840.0),  # a server that sends the number as text
        (None, auth.TOKEN_DEFAULT_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),  # no expires_in: the default life
        (0, auth.TOKEN_DEFAULT_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),
        (-5, auth.TOKEN_DEFAULT_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),
        (True, auth.TOKEN_DEFAULT_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),
        ("soon", auth.TOKEN_DEFAULT_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),
        (10**9, auth.TOKEN_MOST_SECONDS - auth.TOKEN_REFRESH_MARGIN_SECONDS),  # capped at a day
    ],
)
def test_a_token_is_used_until_shortly_before_it_expires(expires_in: Any, refresh_after: float) -> None:
    # Given a token obtained at t=1000 with the answer's expires_in
    at = auth.refresh_at(1000.0, expires_in)
    # Then it is used until then, and not from then on
    assert at == 1000.0 + refresh_after
    assert auth.usable(at, at - 0.001) and not auth.usable(at, at)


@pytest.mark.parametrize(
    ("status", "error", "body", "why"),
    [
        (None, "connection_refused", "", "token endpoint unreachable: connection_refused"),
        (None, "ssrf_blocked", "", "token endpoint unreachable: ssrf_blocked"),
        (401, None, '{"error":"invalid_client","secret":"echoed"}', "token endpoint answered 401"),
        (503, None, "", "token endpoint answered 503"),
        (200, None, "<html>", "token endpoint answered something other than JSON"),
        (200, None, "[]", "token endpoint answered no access_token"),
        (200, None, '{"access_token": ""}', "token endpoint answered no access_token"),
        (200, None, '{"access_token": "a\\r\\nX-Evil: 1"}', "token endpoint answered no access_token"),
    ],
)
def test_a_token_endpoint_that_gives_no_token_is_refused_without_its_answer(status: int | None, error: str | None, body: str, why: str) -> None:
    with pytest.raises(auth.TokenRefused) as refused:
        auth.token_of(status, error, body)
    assert str(refused.value) == why


def test_a_token_answer_gives_the_token_and_its_life() -> None:
    assert auth.token_of(200, None, '{"access_token":"eyJ","token_type":"Bearer","expires_in":3600}') == ("eyJ", 3600)


def test_a_failed_token_request_is_an_attempt_failure_retried_like_any_other() -> None:
    verdict = classify(Outcome(error=AUTH_FAILED))
    assert (verdict.verdict, verdict.reason, verdict.disable_endpoint) == (Verdict.RETRY, AUTH_FAILED, "")


@pytest.mark.parametrize(
    ("given", "shown", "secret"),
    [
        ({**OAUTH2, "scope": "webhooks"}, {**{k: v for k, v in OAUTH2.items() if k != "client_secret"}, "scope": "webhooks"}, {"client_secret": "s3cr3t"}),
        ({"type": "mtls", "certificate": CERT, "private_key": KEY}, {"type": "mtls", "certificate": CERT}, {"private_key": KEY}),
        ({"type": "basic", "username": "u", "password": "p"}, {"type": "basic", "username": "u"}, {"password": "p"}),
        ({"type": "bearer", "token": "t"}, {"type": "bearer"}, {"token": "t"}),
    ],
)
def test_each_type_shows_its_fields_but_the_secret_ones(given: dict[str, str], shown: dict[str, str], secret: dict[str, str]) -> None:
    kind, public, hidden = auth.split(given)
    kept = auth.EndpointAuth(kind, tuple(public.items()), "sealed")
    assert kept.public() == shown and hidden == secret
    assert auth.EndpointAuth.from_item(kept.to_item()) == kept
    assert auth.secrets_of(auth.secrets_text(hidden)) == hidden


def test_basic_credentials_are_rfc_7617s() -> None:
    assert auth.basic_header("Aladdin", "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="


@pytest.mark.parametrize(
    ("given", "code", "message"),
    [
        ({"type": "digest"}, "invalid_auth", "'auth.type' must be one of oauth2_client_credentials, mtls, basic, bearer"),
        ({"username": "u"}, "invalid_auth", "'auth.type' must be one of oauth2_client_credentials, mtls, basic, bearer"),
        ("Basic dTpw", "wrong_type", "'auth' must be an object with a 'type'"),
        ({"type": "basic", "username": "u"}, "missing_field", "'auth.basic.password' is required"),
        ({"type": "basic", "username": "u", "password": "p", "realm": "x"}, "unknown_field", "unknown field(s): auth.basic.realm"),
        ({"type": "basic", "username": "a:b", "password": "p"}, "invalid_auth", "'username' must be 1 to 1024 characters of one line without ':'"),
        ({"type": "basic", "username": "u", "password": ""}, "invalid_auth", "'password' must be 1 to 1024 characters of one line"),
        ({"type": "bearer", "token": "a\nb"}, "invalid_auth", "'token' must be 1 to 1024 characters of one line"),
        ({"type": "bearer", "token": 5}, "wrong_type", "'auth.bearer.token' must be a string"),
        ({**OAUTH2, "token_url": "ftp://auth.example.com"}, "invalid_url", "'auth.token_url' must be an http or https URL"),
        ({**OAUTH2, "token_url": "https://u:p@auth.example.com"}, "invalid_url", "'auth.token_url' must not contain credentials"),
        ({**OAUTH2, "scope": "x" * 1025}, "invalid_auth", "'scope' must be 1 to 1024 characters of one line"),
        (
            {"type": "mtls", "certificate": "MIIB", "private_key": KEY},
            "invalid_auth",
            "'certificate' must be PEM (-----BEGIN CERTIFICATE-----), at most 16384 characters",
        ),
        (
            {"type": "mtls", "certificate": CERT, "private_key": CERT},
            "invalid_auth",
            "'private_key' must be PEM (-----BEGIN PRIVATE KEY-----), at most 16384 characters",
        ),
    ],
)
def test_the_contract_refuses_an_auth_it_cannot_send(given: Any, code: str, message: str) -> None:
    for model, body in ((CreateEndpoint, {"url": URL, "auth": given}), (UpdateEndpoint, {"auth": given})):
        try:
            model.model_validate(body)
        except ValidationFailed as answer:  # a rule of its own (the type named first)
            assert (answer.code, answer.message) == (code, message)
            continue
        except ValidationError as refused:
            answer = contract_error(refused.errors())
            assert (answer.code, answer.message) == (code, message), model.__name__
            continue
        raise AssertionError(f"{model.__name__} took {given!r}")


def test_the_contract_takes_each_type_and_null() -> None:
    for given in (
        OAUTH2,
        {"type": "mtls", "certificate": CERT, "private_key": KEY},
        {"type": "basic", "username": "u", "password": "p"},
        {"type": "bearer", "token": "t"},
    ):
        assert CreateEndpoint.model_validate({"url": URL, "auth": given}).auth is not None
    assert CreateEndpoint.model_validate({"url": URL, "auth": None}).auth is None
    assert UpdateEndpoint.model_validate({"auth": None}).changes() == {"auth": None}
