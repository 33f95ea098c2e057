"""Signature schemes (hookline.core.schemes, hookline.core.signing's Ed25519): known answers from the formats' own
documentation and RFCs, the receivers' own libraries as oracles, and the refusals of a malformed `signing`."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest
import stripe
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hookline.core import schemes, signing
from hookline.core.clock import parse_iso
from hookline.core.errors import ValidationFailed
from hookline.core.models import Endpoint
from hookline.core.rotation import PreviousSecret
from hookline.core.webhook import request_headers

# GitHub's documented example ("Validating webhook deliveries"): this secret and payload give this header.
GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_BODY = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

# RFC 8032, 7.1, TEST 1: a seed, its public key, and the signature of the empty message.
RFC8032_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC8032_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
RFC8032_KEY = "whsk_" + base64.b64encode(RFC8032_SEED + RFC8032_PUBLIC).decode()
# RFC 8037, A.2 and A.3: the same public key as a JWK, and its RFC 7638 thumbprint.
RFC8037_X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
RFC8037_THUMBPRINT = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"

NOW = 1_800_000_000
FAR = "2030-01-01T00:00:00Z"  # an also_until after NOW
PAST = "2020-01-01T00:00:00Z"


def _scheme(**raw: Any) -> schemes.Scheme:
    return schemes.parse_scheme(raw)


def _endpoint(raw: Any, **more: Any) -> Endpoint:
    return Endpoint(
        id="ep_1", tenant="acme", url="https://r.example", secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", signing=schemes.parse_signing(raw), **more
    )


def test_the_github_preset_gives_githubs_documented_signature() -> None:
    assert schemes.hmac_value(_scheme(scheme="hmac", preset="github"), [GITHUB_SECRET], "evt_1", NOW, GITHUB_BODY) == GITHUB_SIGNATURE


def test_the_stripe_preset_verifies_with_stripes_library_with_every_live_secret() -> None:
    body = b'{"id":"evt_1","type":"a.b"}'
    header = schemes.hmac_value(_scheme(scheme="hmac", preset="stripe"), ["whsec_new", "whsec_old"], "evt_1", NOW, body)
    assert header.startswith(f"t={NOW},v1=") and header.count(",v1=") == 2
    for secret in ("whsec_new", "whsec_old"):
        assert stripe.WebhookSignature.verify_header(body.decode(), header, secret, tolerance=None)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(body.decode(), header, "whsec_other", tolerance=None)


# fmt: off
TEMPLATES = [
    # scheme                                                                                          header                  expected value
    ({"scheme": "hmac", "preset": "shopify"},                                                         "x-shopify-hmac-sha256", base64.b64encode(hmac.new(b"k", b"B", hashlib.sha256).digest()).decode()),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1"},                                      "x-sig",                 hmac.new(b"k", b"B", hashlib.sha1).hexdigest()),
    ({"scheme": "hmac", "header": "X-Sig", "prefix": "sha512=", "algorithm": "sha512", "encoding": "base64", "signed": "body"},
                                                                                                      "x-sig",                 "sha512=" + base64.b64encode(hmac.new(b"k", b"B", hashlib.sha512).digest()).decode()),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha256", "signed": "{timestamp}:{id}:{body}"}, "x-sig",                 hmac.new(b"k", f"{NOW}:evt_1:B".encode(), hashlib.sha256).hexdigest()),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha256", "signed": "v0.{body}.{id}"},        "x-sig",                 hmac.new(b"k", b"v0.B.evt_1", hashlib.sha256).hexdigest()),
]
# fmt: on


@pytest.mark.parametrize(("raw", "header", "expected"), TEMPLATES)
def test_an_hmac_format_signs_what_it_names_with_the_current_secret_only(raw: dict[str, Any], header: str, expected: str) -> None:
    scheme = _scheme(**raw)
    assert scheme.header() == header
    assert schemes.hmac_value(scheme, ["k", "old"], "evt_1", NOW, b"B") == expected


def test_ed25519_keys_are_whsk_and_whpk_and_sign_as_rfc_8032_says() -> None:
    assert signing.public_key(RFC8032_KEY) == "whpk_" + base64.b64encode(RFC8032_PUBLIC).decode()
    assert signing._signer(RFC8032_KEY).sign(b"") == RFC8032_SIGNATURE
    made = signing.generate_key()
    assert made.startswith("whsk_") and len(base64.b64decode(made[5:])) == 64 and made != signing.generate_key()


def test_a_v1a_signature_verifies_over_the_specs_signed_content() -> None:
    value = signing.sign_ed25519(RFC8032_KEY, "msg_1", NOW, b'{"a":1}')
    assert value.startswith("v1a,")
    Ed25519PublicKey.from_public_bytes(RFC8032_PUBLIC).verify(base64.b64decode(value[4:]), f"msg_1.{NOW}.".encode() + b'{"a":1}')


def test_the_jwk_of_a_key_is_rfc_8037s_with_its_rfc_7638_thumbprint() -> None:
    jwk = signing.jwk(signing.public_key(RFC8032_KEY), endpoint_id="ep_1")
    assert jwk == {"kty": "OKP", "crv": "Ed25519", "x": RFC8037_X, "kid": RFC8037_THUMBPRINT, "use": "sig", "alg": "EdDSA", "endpoint_id": "ep_1"}


def test_the_default_signs_exactly_as_before() -> None:
    ep = _endpoint(None)
    assert ep.signing is schemes.DEFAULT
    assert ep.signatures("evt_1", NOW, b"{}", NOW, 60) == {"webhook-signature": signing.sign(ep.secret, "evt_1", NOW, b"{}")}
    assert ep.public()["signing"] == {"scheme": "standard-webhooks", "algorithm": "hmac-sha256"}


# Ed25519, migrating from Standard Webhooks v1 and GitHub's format until FAR.
MIGRATING = {
    "scheme": "standard-webhooks",
    "algorithm": "ed25519",
    "also": [{"scheme": "standard-webhooks"}, {"scheme": "hmac", "preset": "github"}],
    "also_until": FAR,
}


def test_dual_signing_carries_every_scheme_until_also_until_then_the_main_one_alone() -> None:
    raw = MIGRATING
    ep = _endpoint(raw, signing_key=RFC8032_KEY)
    both = ep.signatures("evt_1", NOW, b"{}", NOW, 60)
    assert set(both) == {"webhook-signature", "x-hub-signature-256"}
    v1a, v1 = both["webhook-signature"].split(" ")  # the main scheme's first, space-separated as the spec allows
    assert v1a == signing.sign_ed25519(RFC8032_KEY, "evt_1", NOW, b"{}") and v1 == signing.sign(ep.secret, "evt_1", NOW, b"{}")
    after = ep.signatures("evt_1", NOW, b"{}", parse_iso(FAR).timestamp(), 60)
    assert list(after) == ["webhook-signature"] and after["webhook-signature"].startswith("v1a,") and " " not in after["webhook-signature"]
    assert _endpoint({**raw, "also_until": PAST}, signing_key=RFC8032_KEY).signatures("evt_1", NOW, b"{}", NOW, 60).keys() == {"webhook-signature"}


def test_the_headers_an_attempt_sent_are_shown_with_each_signature_redacted() -> None:
    raw = MIGRATING
    assert schemes.redacted_headers(schemes.parse_signing(raw), NOW) == {
        "webhook-signature": "v1a,<redacted> v1,<redacted>",
        "x-hub-signature-256": "<redacted>",
    }
    assert schemes.redacted_headers(schemes.parse_signing(raw), parse_iso(FAR).timestamp()) == {"webhook-signature": "v1a,<redacted>"}
    assert schemes.redacted_headers(schemes.DEFAULT, NOW) == {"webhook-signature": "v1,<redacted>"}


def test_a_custom_header_named_as_a_signature_header_gives_way_to_the_signature() -> None:
    ep = _endpoint({"scheme": "hmac", "header": "X-Signature", "algorithm": "sha256"}, headers=(("X-SIGNATURE", "mine"), ("X-Team", "billing")))
    sent = request_headers(ep, "evt_1", NOW, b"B", 60)
    assert sent["x-signature"] == schemes.hmac_value(ep.signing.main, [ep.secret], "evt_1", NOW, b"B")
    assert "X-SIGNATURE" not in sent and sent["X-Team"] == "billing"


def test_an_ed25519_endpoint_signs_with_every_live_key_and_shows_the_public_key_only() -> None:
    old = signing.generate_key()
    ep = _endpoint({"scheme": "standard-webhooks", "algorithm": "ed25519"}, signing_key=RFC8032_KEY, previous_keys=(PreviousSecret(old, NOW + 10),))
    value = ep.signatures("evt_1", NOW, b"{}", NOW, 60)["webhook-signature"]
    assert value.split(" ") == [signing.sign_ed25519(k, "evt_1", NOW, b"{}") for k in (RFC8032_KEY, old)]
    assert ep.signatures("evt_1", NOW, b"{}", NOW + 10, 60)["webhook-signature"].count("v1a,") == 1
    shown = str(ep.public())
    assert signing.public_key(RFC8032_KEY) in shown and RFC8032_KEY not in shown and RFC8032_KEY[5:] not in shown and ep.secret not in shown


def test_a_signing_is_stored_and_read_back_as_the_api_shows_it() -> None:
    raw = {"scheme": "hmac", "header": "X-Sig", "prefix": "v=", "algorithm": "sha512", "encoding": "base64", "signed": "{id}.{body}"}
    given = schemes.parse_signing({**raw, "also": [{"scheme": "hmac", "preset": "stripe"}], "also_until": "2030-01-01T01:00:00+01:00"})
    assert given.to_json() == {**raw, "also": [{"scheme": "hmac", "preset": "stripe"}], "also_until": "2030-01-01T00:00:00.000Z"}
    assert schemes.parse_signing(given.to_json()) == given


# fmt: off
REFUSALS = [
    ("not an object",                                                                         "'signing' must be an object with a 'scheme'"),
    ({"scheme": "jwt"},                                                                       "'signing.scheme' must be standard-webhooks or hmac"),
    ({"scheme": "standard-webhooks", "algorithm": "rsa"},                                     "'signing.algorithm' must be hmac-sha256 (v1) or ed25519 (v1a)"),
    ({"scheme": "standard-webhooks", "preset": "github"},                                     "'signing' has unknown fields: preset"),
    ({"scheme": "hmac", "preset": "gitlab"},                                                  "'signing.preset' must be one of github, stripe, shopify"),
    ({"scheme": "hmac", "preset": "github", "header": "X-Sig"},                               "'signing' has unknown fields: header"),
    ({"scheme": "hmac", "header": "Webhook-Signature", "algorithm": "sha256"},                "'signing.header' must be an HTTP header name of at most 64 characters, not one hookline sets itself"),
    ({"scheme": "hmac", "header": "X Sig", "algorithm": "sha256"},                            "'signing.header' must be an HTTP header name of at most 64 characters, not one hookline sets itself"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "md5"},                               "'signing.algorithm' must be one of sha1, sha256, sha512"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1", "encoding": "hex32"},         "'signing.encoding' must be one of hex, base64"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1", "prefix": "a b"},             "'signing.prefix' must be at most 32 printable ASCII characters without spaces"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1", "signed": "{id}.{timestamp}"}, "'signing.signed' must be 'body' or a template"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1", "signed": "{body}{body}"},    "'signing.signed' must be 'body' or a template"),
    ({"scheme": "hmac", "header": "X-Sig", "algorithm": "sha1", "signed": "{body}.{secret}"}, "'signing.signed' must be 'body' or a template"),
    ({"scheme": "hmac", "preset": "github", "also": [{"scheme": "standard-webhooks"}]},       "'signing.also_until' is required with 'also'"),
    ({"scheme": "hmac", "preset": "github", "also_until": FAR},                              "'signing.also_until' goes with 'also' only"),
    ({"scheme": "hmac", "preset": "github", "also": [{"scheme": "x"}], "also_until": FAR},   "'signing.also[0].scheme' must be standard-webhooks or hmac"),
    ({"scheme": "hmac", "preset": "github", "also": [{"scheme": "standard-webhooks"}], "also_until": "soon"}, "'signing.also_until' must be an ISO 8601 date-time"),
    ({"scheme": "hmac", "preset": "github", "also": [{"scheme": "standard-webhooks"}], "also_until": "2030-01-01T00:00:00"}, "'signing.also_until' must be an ISO 8601 date-time with a time zone"),
    ({"scheme": "standard-webhooks", "also": [{"scheme": "standard-webhooks"}], "also_until": FAR}, "'signing.also' repeats a scheme that already signs"),
    ({"scheme": "hmac", "preset": "github", "also": [{"scheme": "hmac", "header": "X-Hub-Signature-256", "algorithm": "sha1"}], "also_until": FAR},
                                                                                              "two of the schemes in 'signing' write the same header"),
    ({"scheme": "standard-webhooks", "also": [{"scheme": "standard-webhooks", "algorithm": "ed25519"}] * 3, "also_until": FAR}, "'signing.also' must be an array of at most 2 schemes"),
]
# fmt: on


@pytest.mark.parametrize(("raw", "message"), REFUSALS)
def test_a_malformed_signing_is_refused_naming_what_is_wrong(raw: Any, message: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        schemes.parse_signing(raw)
    assert refused.value.code == "invalid_signing" and str(refused.value).startswith(message)
