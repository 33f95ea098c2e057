"""An endpoint's `auth` as a request gives it, and as the API shows it: one model per type of hookline.core.auth,
told apart by `type` (a discriminated union).

Each field's rule is declared once, on its type here: a token URL has an endpoint URL's form (fields.Url; the service
judges it by the stack's SSRF policy too, as it does the endpoint's URL), the PEM texts their armour, the other values
one line of text each. Refusals are 422 `invalid_auth` naming the field (a missing field `missing_field`, a value of
the wrong JSON type `wrong_type`, an unknown field `unknown_field`). What the API shows (Shown) never holds a secret
field (hookline.core.auth.SECRET_FIELDS).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field

from hookline.core import auth, text, validation
from hookline.core.contract import fields
from hookline.core.contract.common import Answer, absent_unless_set, optional, rule
from hookline.core.errors import ValidationFailed

CODE = "invalid_auth"
MAX_VALUE = 1024  # an id, a name, a scope, a secret or a token: one line
MAX_PEM = 16_384  # a certificate chain or a private key, PEM


Value = Annotated[
    str,
    Field(min_length=1, max_length=MAX_VALUE, pattern=text.ONE_LINE_PATTERN),
    fields.Refused(f"'{{name}}' must be 1 to {MAX_VALUE} characters of one line", code=CODE),
]
Username = Annotated[
    str,
    Field(min_length=1, max_length=MAX_VALUE, pattern="^[^:\\x00-\\x1F\\x7F]+$"),
    fields.Refused(f"'{{name}}' must be 1 to {MAX_VALUE} characters of one line without ':'", code=CODE),
]


_PEM_REFUSAL = f"'{{name}}' must be PEM (-----BEGIN {{label}}-----), at most {MAX_PEM} characters"
Certificate = Annotated[
    str,
    Field(max_length=MAX_PEM, pattern="^\\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\\s]+-----END CERTIFICATE-----[\\s\\S]*$"),
    fields.Refused(_PEM_REFUSAL.replace("{label}", "CERTIFICATE"), code=CODE),
]
PrivateKey = Annotated[
    str,
    Field(max_length=MAX_PEM, pattern="^\\s*-----BEGIN [A-Z ]*PRIVATE KEY-----[A-Za-z0-9+/=\\s]+-----END [A-Z ]*PRIVATE KEY-----\\s*$"),
    fields.Refused(_PEM_REFUSAL.replace("{label}", "PRIVATE KEY"), code=CODE),
]


def token_url_refusal(exc: ValidationFailed) -> ValidationFailed:
    """A URL rule's refusal (it names 'url') as the token URL's."""
    return ValidationFailed(exc.message.replace("'url'", "'auth.token_url'", 1), code=exc.code)


def _token_url_form(value: Any) -> str:
    try:
        return fields.url_form(value)
    except ValidationFailed as exc:
        raise token_url_refusal(exc) from None


TokenUrl = Annotated[
    str,
    Field(
        max_length=validation.MAX_URL_LENGTH,
        description="Where the token is asked for (RFC 6749 client credentials); judged by the same rules as the endpoint's URL.",
    ),
    fields.Format("uri"),
    fields.checked(_token_url_form),
]


class _Given(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class OAuth2ClientCredentialsAuth(_Given):
    """The receiver wants an OAuth2 access token: hookline asks `token_url` for one (client credentials, the client
    authenticated with HTTP Basic), sends it as `Authorization: Bearer`, and keeps it until shortly before it expires."""

    type: Literal["oauth2_client_credentials"]
    token_url: TokenUrl
    client_id: Value
    client_secret: Value = Field(description="Secret: kept encrypted, never shown.")
    scope: Value | None = optional("Asked for with the token, when given.")
    audience: Value | None = optional("Asked for with the token (`audience`), when given.")


class MtlsAuth(_Given):
    """The receiver wants a client certificate: hookline presents it in the TLS handshake (https URLs)."""

    type: Literal["mtls"]
    certificate: Certificate = Field(description="The client certificate (and any intermediates), PEM.")
    private_key: PrivateKey = Field(description="Its private key, PEM, unencrypted. Secret: kept encrypted, never shown.")


class BasicAuth(_Given):
    """`Authorization: Basic` with the username and password (RFC 7617)."""

    type: Literal["basic"]
    username: Username
    password: Value = Field(description="Secret: kept encrypted, never shown.")


class BearerAuth(_Given):
    """`Authorization: Bearer` with a fixed token."""

    type: Literal["bearer"]
    token: Value = Field(description="Secret: kept encrypted, never shown.")


def _of_a_type(value: Any) -> Any:
    """The type is named first: an object without a known `type` is refused before its fields are read."""
    if value is not None and not isinstance(value, dict):
        raise ValidationFailed("'auth' must be an object with a 'type'", code="wrong_type")
    if isinstance(value, dict) and value.get("type") not in auth.AUTH_TYPES:
        raise ValidationFailed(f"'auth.type' must be one of {', '.join(auth.AUTH_TYPES)}", code=CODE)
    return value


GivenAuth = Annotated[OAuth2ClientCredentialsAuth | MtlsAuth | BasicAuth | BearerAuth, Discriminator("type"), rule(_of_a_type)]

DESCRIPTION = (
    "How hookline authenticates to the receiver beyond the signature: an OAuth2 client-credentials\n"
    "token, a client certificate (mTLS), HTTP Basic or a bearer token. HTTP endpoints only. Its\n"
    "secrets (`client_secret`, `private_key`, `password`, `token`) are kept encrypted with the\n"
    "stack's KMS key and never shown; null (or left out) sends none.\n"
)


class Shown(Answer):
    """An endpoint's `auth` as the API shows it: its type and the fields that are not secret."""

    type: auth.AuthType
    token_url: str | None = absent_unless_set()
    client_id: str | None = absent_unless_set()
    scope: str | None = absent_unless_set()
    audience: str | None = absent_unless_set()
    certificate: str | None = absent_unless_set()
    username: str | None = absent_unless_set()


def given(value: OAuth2ClientCredentialsAuth | MtlsAuth | BasicAuth | BearerAuth | None) -> dict[str, Any] | None:
    """A checked `auth` as plain values (hookline.core.auth.split reads them), or None."""
    return None if value is None else value.model_dump(exclude_none=True)
