"""Signature schemes (an endpoint's `signing`): which headers sign a webhook, and how. Pure: Standard Webhooks' own
signatures come in as functions (hookline.core.signing's; its Ed25519 one imports `cryptography` when it first signs).

- `{"scheme": "standard-webhooks"}` (the default, `"algorithm": "hmac-sha256"`): `webhook-signature: v1,<sig>`,
  one per live secret, space-separated (hookline.core.signing).
- `{"scheme": "standard-webhooks", "algorithm": "ed25519"}`: `webhook-signature: v1a,<base64 Ed25519 signature of
  "{id}.{timestamp}.{body}">`, one per live private key (`whsk_`), space-separated.
- `{"scheme": "hmac", "preset": "github" | "stripe" | "shopify"}`, or a custom template (`header`, `prefix`,
  `algorithm` sha1/sha256/sha512, `encoding` hex/base64, `signed` `body` or a template of `{id}`, `{timestamp}` and
  `{body}`): the format an existing receiver already verifies. The HMAC key is the secret string as shown (`whsec_…`,
  UTF-8), as GitHub's, Stripe's and Shopify's verifiers take theirs. Stripe's header carries one `v1=` per live
  secret, as Stripe's own does during a roll; the others carry one signature, the current secret's.
- `"also": [<scheme>, …]` with `"also_until"`: those schemes sign every request too until then (dual signing while
  receivers migrate), after which only the main one does. Two Standard Webhooks schemes share `webhook-signature`
  (space-separated, as the spec allows); any other two schemes must write different headers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hookline.core.clock import iso, parse_iso
from hookline.core.errors import ValidationFailed

CODE = "invalid_signing"  # 422: a `signing` the API refuses
STANDARD = "standard-webhooks"
HMAC = "hmac"
HMAC_SHA256 = "hmac-sha256"  # Standard Webhooks v1
ED25519 = "ed25519"  # Standard Webhooks v1a
SIGNATURE_HEADER = "webhook-signature"
MAX_ALSO = 2  # schemes that may sign beside the main one while receivers migrate

Digest = Literal["sha1", "sha256", "sha512"]
Encoding = Literal["hex", "base64"]
DIGESTS: tuple[Digest, ...] = ("sha1", "sha256", "sha512")
ENCODINGS: tuple[Encoding, ...] = ("hex", "base64")


@dataclass(frozen=True)
class Template:
    """A header of HMAC signature: `header: <prefix><encoding of HMAC-<algorithm>(secret, signed)>`, where `signed` is
    the body's bytes placed into a template of `{id}`, `{timestamp}` and `{body}`."""

    header: str
    prefix: str
    algorithm: Digest
    encoding: Encoding
    signed: str = "{body}"


PRESETS: Mapping[str, Template] = {
    # GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (@octokit/webhooks-methods verifies it).
    "github": Template("x-hub-signature-256", "sha256=", "sha256", "hex"),
    # Stripe: `Stripe-Signature: t=<timestamp>,v1=<hex HMAC-SHA256 of "{timestamp}.{body}">`, one v1 per secret.
    "stripe": Template("stripe-signature", "v1=", "sha256", "hex", "{timestamp}.{body}"),
    # Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`.
    "shopify": Template("x-shopify-hmac-sha256", "", "sha256", "base64"),
}

# Headers a custom template may not name: the request's own, and Standard Webhooks' (its schemes write those).
RESERVED_HEADERS = frozenset({"content-type", "content-length", "host", "user-agent", "authorization", "webhook-id", "webhook-timestamp", SIGNATURE_HEADER})
HEADER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}")
PREFIX = re.compile(r"[\x21-\x7e]{0,32}")
_PLACEHOLDER = re.compile(r"\{(id|timestamp|body)\}")
_LITERAL = re.compile(r"[\x20-\x7a\x7c\x7e]*")  # printable ASCII without braces
MAX_SIGNED_TEMPLATE = 64


@dataclass(frozen=True)
class Scheme:
    """One signature format: Standard Webhooks (`algorithm` hmac-sha256 or ed25519), or HMAC by a `preset` or a
    custom `template`."""

    scheme: str = STANDARD
    algorithm: str = HMAC_SHA256
    preset: str = ""
    template: Template | None = None

    @property
    def ed25519(self) -> bool:
        return self.scheme == STANDARD and self.algorithm == ED25519

    def header(self) -> str:
        """The header it writes (lower case)."""
        if self.scheme == STANDARD:
            return SIGNATURE_HEADER
        return self.hmac_template().header.lower()

    def hmac_template(self) -> Template:
        found = PRESETS.get(self.preset) if self.preset else self.template
        assert found is not None, "an hmac scheme has a preset or a template"
        return found

    def to_json(self) -> dict[str, Any]:
        if self.scheme == STANDARD:
            return {"scheme": STANDARD, "algorithm": self.algorithm}
        if self.preset:
            return {"scheme": HMAC, "preset": self.preset}
        t = self.hmac_template()
        return {"scheme": HMAC, "header": t.header, "prefix": t.prefix, "algorithm": t.algorithm, "encoding": t.encoding, "signed": t.signed}


STANDARD_V1 = Scheme()


@dataclass(frozen=True)
class Signing:
    """An endpoint's signing: its main scheme, and the schemes that also sign until `also_until` (ISO 8601 UTC)."""

    main: Scheme = STANDARD_V1
    also: tuple[Scheme, ...] = ()
    also_until: str = ""

    def at(self, now: float) -> tuple[Scheme, ...]:
        """The schemes that sign a request sent at `now` (epoch seconds): the main one, and the others until `also_until`."""
        if self.also and now < parse_iso(self.also_until).timestamp():
            return (self.main, *self.also)
        return (self.main,)

    @property
    def uses_ed25519(self) -> bool:
        """Whether any of its schemes needs the endpoint's Ed25519 key (a key is made then, and rotated with the secret)."""
        return any(s.ed25519 for s in (self.main, *self.also))

    @property
    def is_default(self) -> bool:
        return self == DEFAULT

    def to_json(self) -> dict[str, Any]:
        out = self.main.to_json()
        if self.also:
            out["also"] = [s.to_json() for s in self.also]
            out["also_until"] = self.also_until
        return out


DEFAULT = Signing()


# -- reading a `signing` as the API and the store give it ---------------------------------------------------------------


def _refuse(message: str) -> ValidationFailed:
    return ValidationFailed(message, code=CODE)


def _string(raw: Mapping[str, Any], name: str, where: str, default: str | None = None) -> str:
    value = raw.get(name, default)
    if not isinstance(value, str):
        raise _refuse(f"'{where}.{name}' must be a string")
    return value


def _template(raw: Mapping[str, Any], where: str) -> Template:
    header = _string(raw, "header", where)
    if not HEADER_NAME.fullmatch(header) or header.lower() in RESERVED_HEADERS:
        raise _refuse(f"'{where}.header' must be an HTTP header name of at most 64 characters, not one hookline sets itself")
    prefix = _string(raw, "prefix", where, "")
    if not PREFIX.fullmatch(prefix):
        raise _refuse(f"'{where}.prefix' must be at most 32 printable ASCII characters without spaces")
    algorithm = _string(raw, "algorithm", where)
    if algorithm not in DIGESTS:
        raise _refuse(f"'{where}.algorithm' must be one of {', '.join(DIGESTS)}")
    encoding = _string(raw, "encoding", where, "hex")
    if encoding not in ENCODINGS:
        raise _refuse(f"'{where}.encoding' must be one of {', '.join(ENCODINGS)}")
    signed = _string(raw, "signed", where, "body")
    signed = "{body}" if signed == "body" else signed
    literals = _PLACEHOLDER.split(signed)[::2]
    if len(signed) > MAX_SIGNED_TEMPLATE or signed.count("{body}") != 1 or not all(_LITERAL.fullmatch(part) for part in literals):
        raise _refuse(
            f"'{where}.signed' must be 'body' or a template of at most {MAX_SIGNED_TEMPLATE} characters holding {{body}} once, "
            "and {id} or {timestamp} at will, between printable ASCII characters"
        )
    return Template(header, prefix, algorithm, encoding, signed)


def _allowed(raw: Mapping[str, Any], where: str, names: set[str]) -> None:
    unknown = sorted(set(raw) - names)
    if unknown:
        raise _refuse(f"'{where}' has unknown fields: {', '.join(unknown)}")


def parse_scheme(raw: Any, where: str = "signing", extra: frozenset[str] = frozenset()) -> Scheme:
    """One scheme as JSON gives it; ValidationFailed (422 `invalid_signing`) naming what is wrong."""
    if not isinstance(raw, Mapping):
        raise _refuse(f"'{where}' must be an object with a 'scheme'")
    kind = raw.get("scheme")
    if kind == STANDARD:
        _allowed(raw, where, {"scheme", "algorithm", *extra})
        algorithm = _string(raw, "algorithm", where, HMAC_SHA256)
        if algorithm not in (HMAC_SHA256, ED25519):
            raise _refuse(f"'{where}.algorithm' must be {HMAC_SHA256} (v1) or {ED25519} (v1a)")
        return Scheme(STANDARD, algorithm)
    if kind == HMAC:
        if "preset" in raw:
            _allowed(raw, where, {"scheme", "preset", *extra})
            preset = raw["preset"]
            if preset not in PRESETS:
                raise _refuse(f"'{where}.preset' must be one of {', '.join(PRESETS)}")
            return Scheme(HMAC, PRESETS[preset].algorithm, preset=preset)
        _allowed(raw, where, {"scheme", "header", "prefix", "algorithm", "encoding", "signed", *extra})
        template = _template(raw, where)
        return Scheme(HMAC, template.algorithm, template=template)
    raise _refuse(f"'{where}.scheme' must be {STANDARD} or {HMAC}")


def parse_signing(raw: Any) -> Signing:
    """An endpoint's `signing` as JSON gives it (null: the default). The `also` schemes need `also_until`, and every
    header is written by one scheme alone (Standard Webhooks' by as many of its schemes as sign)."""
    if raw is None:
        return DEFAULT
    main = parse_scheme(raw, extra=frozenset({"also", "also_until"}))
    also_raw = raw.get("also") or []
    if not isinstance(also_raw, list) or len(also_raw) > MAX_ALSO:
        raise _refuse(f"'signing.also' must be an array of at most {MAX_ALSO} schemes")
    also = tuple(parse_scheme(s, f"signing.also[{i}]") for i, s in enumerate(also_raw))
    until = raw.get("also_until")
    if also:
        if not isinstance(until, str):
            raise _refuse("'signing.also_until' is required with 'also': when the other schemes stop signing (ISO 8601)")
        try:
            moment = parse_iso(until)
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise _refuse("'signing.also_until' must be an ISO 8601 date-time with a time zone")
        until = iso(moment)
    elif until is not None:
        raise _refuse("'signing.also_until' goes with 'also' only")
    schemes = (main, *also)
    if len(set(schemes)) < len(schemes):
        raise _refuse("'signing.also' repeats a scheme that already signs")
    headers = [s.header() for s in schemes if s.scheme != STANDARD]
    if len(set(headers)) < len(headers):
        raise _refuse("two of the schemes in 'signing' write the same header")
    return Signing(main, also, until if also else "")


# -- signing -------------------------------------------------------------------------------------------------------


def _digest(t: Template, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    head, _, tail = t.signed.partition("{body}")
    fill: Callable[[str], bytes] = lambda part: part.replace("{id}", msg_id).replace("{timestamp}", str(timestamp)).encode()  # noqa: E731
    mac = hmac.new(secret.encode(), fill(head) + body + fill(tail), getattr(hashlib, t.algorithm)).digest()
    return mac.hex() if t.encoding == "hex" else base64.b64encode(mac).decode()


def hmac_value(scheme: Scheme, secrets_in_use: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """The header value of an HMAC scheme. Stripe's carries `t=` and one `v1=` per secret (the current one first);
    every other format one signature, the current secret's."""
    t = scheme.hmac_template()
    if scheme.preset == "stripe":
        return ",".join([f"t={timestamp}", *(t.prefix + _digest(t, s, msg_id, timestamp, body) for s in secrets_in_use)])
    return t.prefix + _digest(t, secrets_in_use[0], msg_id, timestamp, body)


Ed25519Signer = Callable[[Sequence[str], str, int, bytes], str]
HmacSigner = Callable[[Sequence[str], str, int, bytes], str]


def signature_headers(
    signing: Signing,
    secrets_in_use: Sequence[str],
    keys_in_use: Sequence[str],
    msg_id: str,
    timestamp: int,
    body: bytes,
    now: float,
    v1: HmacSigner,
    v1a: Ed25519Signer,
    hmac_signer: Callable[[Scheme, Sequence[str], str, int, bytes], str] = hmac_value,
) -> dict[str, str]:
    """The signature headers of a request sent at `now`: each signing scheme's (Signing.at), the Standard Webhooks ones
    joined into one `webhook-signature`, the main scheme's first. `v1` and `v1a` make Standard Webhooks' signatures
    (hookline.core.signing's signature_header and ed25519_header) from the live secrets and the live private keys,
    `hmac_signer` the other formats' (hmac_value)."""
    out: dict[str, str] = {}
    for scheme in signing.at(now):
        if scheme.scheme == STANDARD:
            value = v1a(keys_in_use, msg_id, timestamp, body) if scheme.ed25519 else v1(secrets_in_use, msg_id, timestamp, body)
            out[SIGNATURE_HEADER] = f"{out[SIGNATURE_HEADER]} {value}" if SIGNATURE_HEADER in out else value
        else:
            out[scheme.header()] = hmac_signer(scheme, secrets_in_use, msg_id, timestamp, body)
    return out


def redacted_headers(signing: Signing, now: float) -> dict[str, str]:
    """The signature headers a request sent at `now` carried, as a customer may see them: each signature redacted (it
    is a secret's output), Standard Webhooks' with its version (`v1,<redacted> v1a,<redacted>`)."""
    return signature_headers(signing, ("",), (), "", 0, b"", now, lambda *_: "v1,<redacted>", lambda *_: "v1a,<redacted>", hmac_signer=lambda *_: "<redacted>")
