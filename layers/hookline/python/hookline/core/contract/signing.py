"""An endpoint's `signing` as a request gives it: one model per form of scheme (Standard Webhooks, an HMAC preset, a
custom HMAC template), each with the `also` schemes that sign beside it until `also_until`.

Each model's fields carry hookline.core.schemes' own constants and patterns, and each checks itself with
hookline.core.schemes.parse_signing (the schemes under `also` with parse_scheme), so a value these models take is one
the API takes; what JSON Schema cannot state (a template's placeholders, two schemes writing one header) is said in
words and refused by that rule. The API's refusals are parse_signing's (422 `invalid_signing`, naming the field).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from hookline.core import schemes
from hookline.core.contract import fields
from hookline.core.contract.common import AS_SHOWN, Answer, absent_unless_set, inline
from hookline.core.errors import ValidationFailed

DESCRIPTION = (
    'How its webhooks are signed (README, "Signature schemes"); absent or null: Standard Webhooks `v1`\n'
    f"(HMAC-SHA256 with the `whsec_` secret). `also` (at most {schemes.MAX_ALSO} more schemes) sign every request too until\n"
    "`also_until`, while receivers migrate; two schemes other than Standard Webhooks' may not write one header.\n"
    "Anything else is 422 `invalid_signing`.\n"
)


def _read(model: BaseModel, rule: Callable[[Any], Any]) -> None:
    """The model's values as given, read by the server's rule: its refusal is the model's."""
    try:
        rule(model.model_dump(exclude_unset=True))
    except ValidationFailed as refused:
        raise ValueError(refused.message) from None


class _Scheme(BaseModel):
    """A scheme as given: closed, its values as JSON gives them, and checked by the server's rule."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="after")
    def _as_the_server_reads_it(self) -> Any:
        _read(self, schemes.parse_scheme)
        return self


class StandardWebhooks(_Scheme):
    """Standard Webhooks: `hmac-sha256` (`v1`, with the `whsec_` secret) or `ed25519` (`v1a`, verified with the endpoint's `whpk_` public key)."""

    scheme: Literal["standard-webhooks"]
    algorithm: Literal["hmac-sha256", "ed25519"] = "hmac-sha256"


class HmacPreset(_Scheme):
    """The header GitHub (`X-Hub-Signature-256`), Stripe (`Stripe-Signature`) or Shopify (`X-Shopify-Hmac-Sha256`) sign theirs in."""

    scheme: Literal["hmac"]
    preset: Literal["github", "stripe", "shopify"]


class HmacTemplate(_Scheme):
    """A custom header: `<header>: <prefix><hex or base64 HMAC of what is signed>`, keyed by the secret as shown."""

    scheme: Literal["hmac"]
    header: str = Field(
        pattern=f"^{schemes.HEADER_NAME.pattern}$",
        description="Not one hookline sets itself (`content-type`, `webhook-*`, `authorization`, ...).",
        examples=["X-Signature"],
    )
    prefix: str = Field(default="", pattern=f"^{schemes.PREFIX.pattern}$", examples=["sha256="])
    algorithm: Literal["sha1", "sha256", "sha512"]
    encoding: Literal["hex", "base64"] = "hex"
    signed: str = Field(
        default="body",
        max_length=schemes.MAX_SIGNED_TEMPLATE,
        description="`body`, or a template holding `{body}` once and `{id}`, `{timestamp}` at will, between printable ASCII characters.",
        examples=["body", "{timestamp}.{body}"],
    )


Scheme = StandardWebhooks | HmacPreset | HmacTemplate


# `also_until` goes with a non-empty `also` and only with it: a rule across two fields, stated as the object's if/thens.
_ALSO: dict[str, Any] = {"required": ["also"], "properties": {"also": {"type": "array", "minItems": 1}}}
_ALSO_RULES: list[Any] = [
    {"if": _ALSO, "then": {"required": ["also_until"], "properties": {"also_until": {"type": "string"}}}},
    {"if": {"not": _ALSO}, "then": {"properties": {"also_until": {"type": "null"}}}},
]


class _Migrating(BaseModel):
    model_config = ConfigDict(json_schema_extra={"allOf": _ALSO_RULES})  # also and also_until: a rule across two fields, if/then
    also: Annotated[list[Scheme], Field(max_length=schemes.MAX_ALSO)] | None = Field(
        default=None, description="Schemes that sign every request too, until `also_until`."
    )
    also_until: Annotated[str, fields.Format("date-time")] | None = Field(
        default=None, description="When the `also` schemes stop signing (ISO 8601 with a time zone); required with `also`."
    )

    # The same name as _Scheme's: a main scheme with `also` is read as a whole signing, not as a scheme alone.
    @model_validator(mode="after")
    def _as_the_server_reads_it(self) -> Any:
        _read(self, schemes.parse_signing)
        return self


class StandardWebhooksSigning(_Migrating, StandardWebhooks):
    """Standard Webhooks as the main scheme."""


class HmacPresetSigning(_Migrating, HmacPreset):
    """A preset as the main scheme."""


class HmacTemplateSigning(_Migrating, HmacTemplate):
    """A custom template as the main scheme."""


Signing = StandardWebhooksSigning | HmacPresetSigning | HmacTemplateSigning


# -- as an endpoint shows it ----------------------------------------------------------------------------------------

PublicKey = Annotated[
    str,
    Field(
        pattern=r"^whpk_[A-Za-z0-9+/]{43}=$",
        description="The Ed25519 public key that verifies its `v1a` signatures (`whpk_` + base64 of its 32 bytes).",
        examples=["whpk_11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="],
    ),
]


class ShownScheme(Answer):
    """A scheme as given: `algorithm` for Standard Webhooks, `preset` or the template's fields for HMAC."""

    scheme: Literal["standard-webhooks", "hmac"]
    algorithm: str | None = absent_unless_set("`hmac-sha256` or `ed25519` (Standard Webhooks); `sha1`, `sha256` or `sha512` (an HMAC template).")
    preset: Literal["github", "stripe", "shopify"] | None = absent_unless_set()
    header: str | None = absent_unless_set()
    prefix: str | None = absent_unless_set()
    encoding: Literal["hex", "base64"] | None = absent_unless_set()
    signed: str | None = absent_unless_set()


class ShownSigning(ShownScheme):
    """How its webhooks are signed (the default: Standard Webhooks `hmac-sha256`), never with a secret or a private key."""

    also: list[Annotated[ShownScheme, AS_SHOWN, inline(ShownScheme)]] | None = absent_unless_set("The schemes that also sign every request until `also_until`.")
    also_until: Annotated[str | None, fields.Format("date-time")] = absent_unless_set()
    public_key: PublicKey | SkipJsonSchema[None] = absent_unless_set("Present while one of its schemes is Ed25519 (`v1a`).")
