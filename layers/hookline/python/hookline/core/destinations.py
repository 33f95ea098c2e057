"""Where an endpoint's deliveries go: an HTTP URL, or a queue, topic, event bus, stream or bucket in the
customer's own AWS account. Pure: the shapes, their validation, and how a delivery is laid out in each.

Every destination gets the exact bytes an HTTP receiver would (the event's webhook body at the endpoint's
payload version) with the same Standard Webhooks signature, so one verification routine serves them all:

| type          | one delivery is                     | the signature headers are                    |
|---------------|-------------------------------------|----------------------------------------------|
| `http`        | a POST of the body                  | HTTP headers                                 |
| `sqs`         | a message whose body is the body    | message attributes                           |
| `sns`         | a published message, the body       | message attributes                           |
| `eventbridge` | an event: `DetailType` the type     | `detail.metadata`, beside `detail.body`      |
| `kinesis`     | a record: the envelope as JSON      | the envelope's `metadata`, beside `body`     |
| `s3`          | an object `prefix/yyyy/mm/dd/<event id>.json` | the object's metadata              |
| `poll`        | a webhook in the endpoint's mailbox, read by its receiver's polls (hookline.core.polling) | the poll's `headers` |

A FIFO queue or topic (a name ending `.fifo`) gets the endpoint as message group and the delivery as
deduplication id. A Kinesis record's partition key is the event's customer, or its id when it has none.

Access: through a `role_arn`, always: a role in the customer's account whose name starts with ROLE_NAME_PREFIX,
which hookline assumes with the endpoint's external id. There is no other way in: a destination whose resource
policy granted hookline's delivery role itself could be named by any tenant or customer of the stack (the policy
cannot tell them apart: a confused deputy), so an endpoint stored without a role by an earlier release is never
sent to (`refusal`). A `poll` destination is hookline's own (its mailbox, in the data table): it has no address and no
role, and nothing is sent to the customer's account. No destination may be in the stack's own account either: a customer must never be able to
address hookline's own queues.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookline.core.errors import ValidationFailed

DestinationType = Literal["http", "sqs", "sns", "eventbridge", "kinesis", "s3", "poll"]
HTTP: DestinationType = "http"
POLL: DestinationType = "poll"

CODE = "invalid_destination"
# The delivery role may assume only roles whose name starts with this (infra grants sts:AssumeRole on it).
ROLE_NAME_PREFIX = "hookline-delivery-"
DEFAULT_EVENT_SOURCE = "hookline"
# The Standard Webhooks headers a non-HTTP delivery carries (as attributes, metadata or in its envelope).
REQUEST_ONLY_HEADERS = ("content-type", "user-agent")  # what only an HTTP request needs: not sent as attributes or metadata
MAX_PREFIX_LENGTH = 512
MAX_SOURCE_LENGTH = 256
MIN_BUCKET_LENGTH, MAX_BUCKET_LENGTH = 3, 63

# Every pattern here is written so that Python, the linear-time engine (Rust's regex) and ECMA-262 (a JSON Schema
# validator, a generated client) read it alike: ASCII classes ([0-9], never \d, which Python reads as any Unicode
# digit), no named groups and no lookaround. The API document shows them as they are (hookline.core.contract.destinations).
# An address's groups are, in order: its region, its account, its resource's name.
_PARTITION = r"aws(?:-cn|-us-gov)?"
_REGION = r"[a-z]{2}(?:-[a-z]+)+-[0-9]"
_ACCOUNT = r"[0-9]{12}"
ROLE_ARN = re.compile(rf"^arn:{_PARTITION}:iam::({_ACCOUNT}):role/({ROLE_NAME_PREFIX}[A-Za-z0-9+=,.@_-]{{1,46}})$")
# Lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit, never '..' (and 3 to 63 in
# all), and not named like an IPv4 address: a letter or a hyphen somewhere (first, within or last), or digits in other
# than four dotted groups.
_BUCKET_MIDDLE = r"(?:\.?[a-z0-9-])*"
BUCKET = re.compile(
    rf"^(?:[a-z]{_BUCKET_MIDDLE}\.?[a-z0-9]|[a-z0-9]{_BUCKET_MIDDLE}\.?[a-z-]{_BUCKET_MIDDLE}\.?[a-z0-9]|[a-z0-9]{_BUCKET_MIDDLE}\.?[a-z]"
    r"|[0-9]{2,}|[0-9]+(?:\.[0-9]+){1,2}|[0-9]+(?:\.[0-9]+){4,})$"
)
# Letters, digits and !_.*'()/=-, never '..' or '//': runs of dots and slashes alternate ('./.' is one).
_DOTS_AND_SLASHES = r"(?:\.(?:/\.)*/?|/(?:\./)*\.?)"
PREFIX = re.compile(rf"^{_DOTS_AND_SLASHES}?(?:[A-Za-z0-9!_*'()=-]+{_DOTS_AND_SLASHES})*[A-Za-z0-9!_*'()=-]*$")
# Letters, digits and ._/-, not starting with 'aws.' (AWS's own sources): up to three characters, or four that are not it.
SOURCE = re.compile(
    r"^(?:[A-Za-z0-9._/-]{1,3}|(?:[A-Zb-z0-9._/-][A-Za-z0-9._/-]{3}|a[A-Za-vx-z0-9._/-][A-Za-z0-9._/-]{2}"
    r"|aw[A-Za-rt-z0-9._/-][A-Za-z0-9._/-]|aws[A-Za-z0-9_/-])[A-Za-z0-9._/-]*)$"
)


@dataclass(frozen=True)
class Kind:
    """One destination type, as every part of hookline knows it. Its request model is in
    hookline.core.contract.destinations, its put in hookline.adapters.destinations; the rest is here."""

    label: str  # how people name it (the portal shows it: hookline.entrypoints.portal_static.kinds)
    address_field: str  # the field of the `destination` object that holds its address
    example: str  # an address, as refusals and the document show one
    pattern: re.Pattern[str] | None = None  # its address's rule, matched whole (http: the URL rule; s3: BUCKET and more)
    action: str = ""  # the one IAM action a delivery calls: the customer's role allows exactly this (http: none)
    service: str = ""  # the boto3 client that calls it
    optional: tuple[str, ...] = ()  # the fields it takes besides its address and `role_arn`
    pulled: bool = False  # its receiver polls for its webhooks (hookline.core.polling): no address, no role, no action


KINDS: dict[DestinationType, Kind] = {
    "http": Kind("HTTPS endpoint", "url", "https://example.com/webhooks"),
    "sqs": Kind(
        "SQS queue",
        "queue_url",
        "https://sqs.eu-west-1.amazonaws.com/111122223333/orders",
        re.compile(rf"^https://sqs\.({_REGION})\.amazonaws\.com(?:\.cn)?/({_ACCOUNT})/([A-Za-z0-9_-]{{1,80}}(?:\.fifo)?)$"),
        "sqs:SendMessage",
        "sqs",
    ),
    "sns": Kind(
        "SNS topic",
        "topic_arn",
        "arn:aws:sns:eu-west-1:111122223333:orders",
        re.compile(rf"^arn:{_PARTITION}:sns:({_REGION}):({_ACCOUNT}):([A-Za-z0-9_-]{{1,256}}(?:\.fifo)?)$"),
        "sns:Publish",
        "sns",
    ),
    "eventbridge": Kind(
        "EventBridge bus",
        "event_bus_arn",
        "arn:aws:events:eu-west-1:111122223333:event-bus/orders",
        re.compile(rf"^arn:{_PARTITION}:events:({_REGION}):({_ACCOUNT}):event-bus/([A-Za-z0-9._/-]{{1,256}})$"),
        "events:PutEvents",
        "events",
        ("source",),
    ),
    "kinesis": Kind(
        "Kinesis stream",
        "stream_arn",
        "arn:aws:kinesis:eu-west-1:111122223333:stream/orders",
        re.compile(rf"^arn:{_PARTITION}:kinesis:({_REGION}):({_ACCOUNT}):stream/([A-Za-z0-9_.-]{{1,128}})$"),
        "kinesis:PutRecord",
        "kinesis",
    ),
    "s3": Kind("S3 bucket", "bucket", "my-webhook-archive", BUCKET, "s3:PutObject", "s3", ("prefix",)),
    "poll": Kind("Polling endpoint", "", "", pulled=True),
}
TYPES: tuple[DestinationType, ...] = tuple(KINDS)
# Where each type's address is given: the field of the `destination` object.
ADDRESS_FIELD: dict[DestinationType, str] = {kind: k.address_field for kind, k in KINDS.items() if not k.pulled}
# The optional fields of each type besides `role_arn` (which every type but http takes).
OPTIONAL_FIELDS: dict[DestinationType, tuple[str, ...]] = {kind: k.optional for kind, k in KINDS.items() if k.optional}
# The address patterns whose groups are (region, account, name): the queue's URL and the ARNs.
_PATTERNS: dict[DestinationType, re.Pattern[str]] = {kind: k.pattern for kind, k in KINDS.items() if k.pattern is not None and kind != "s3"}
_REGION_GROUP, _ACCOUNT_GROUP, _NAME_GROUP = 1, 2, 3


def bucket_refused(name: str) -> bool:
    """Whether S3 refuses `name` as a bucket's (the form alone: 3 to 63 characters, BUCKET, not like an IP address)."""
    return not MIN_BUCKET_LENGTH <= len(name) <= MAX_BUCKET_LENGTH or not BUCKET.fullmatch(name)


@dataclass(frozen=True)
class Destination:
    """A non-HTTP destination (an HTTP one is the endpoint's `url`): its type, its address, and how to reach it."""

    type: DestinationType
    address: str  # queue_url | topic_arn | event_bus_arn | stream_arn | bucket ("" for poll)
    role_arn: str = ""  # the role in the customer's account to assume (required; "" only on an earlier release's endpoint)
    source: str = ""  # eventbridge: the events' `Source` ("" means DEFAULT_EVENT_SOURCE)
    prefix: str = ""  # s3: the objects' key prefix, without a trailing slash

    @property
    def region(self) -> str | None:
        """The region its address names (a bucket's is not in its name: None)."""
        pattern = _PATTERNS.get(self.type)
        found = pattern.fullmatch(self.address) if pattern else None
        return found[_REGION_GROUP] if found else None

    @property
    def account(self) -> str | None:
        """The account its address names, else the role's (a bucket's name names no account)."""
        pattern = _PATTERNS.get(self.type)
        found = pattern.fullmatch(self.address) if pattern else None
        if found:
            return found[_ACCOUNT_GROUP]
        return role_account(self.role_arn)

    @property
    def fifo(self) -> bool:
        return self.type in ("sqs", "sns") and self.address.endswith(".fifo")

    @property
    def pulled(self) -> bool:
        """Its receiver polls for its webhooks: nothing is sent anywhere (hookline.core.polling)."""
        return KINDS[self.type].pulled

    def to_json(self) -> dict[str, Any]:
        if self.pulled:
            return {"type": self.type}
        out: dict[str, Any] = {"type": self.type, ADDRESS_FIELD[self.type]: self.address}
        if self.type == "eventbridge":
            out["source"] = self.source or DEFAULT_EVENT_SOURCE
        if self.type == "s3" and self.prefix:
            out["prefix"] = self.prefix
        out["role_arn"] = self.role_arn or None
        return out


def generate_external_id() -> str:
    """A new endpoint's external id: unguessable, so no other hookline customer can name it to reach this role."""
    return "hookline-" + secrets.token_hex(16)


def role_account(role_arn: str) -> str | None:
    found = ROLE_ARN.fullmatch(role_arn) if role_arn else None
    return found[1] if found else None


def _string(body: Mapping[str, Any], name: str, *, required: bool, null: bool = True) -> str:
    """The member as a string ("" left out); `null`: whether a null may stand for it left out (an item read back)."""
    value = body.get(name)
    if value is None:
        if required:
            raise ValidationFailed(f"'destination.{name}' is required", code=CODE)
        if name in body and not null:
            raise ValidationFailed(f"'destination.{name}' must be a string (left out, none)", code=CODE)
        return ""
    if not isinstance(value, str):
        raise ValidationFailed(f"'destination.{name}' must be a string", code=CODE)
    return value


def _only(value: Mapping[str, Any], kind: str, allowed: set[str]) -> None:
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ValidationFailed(f"'destination' of type {kind} does not take {', '.join(repr(u) for u in unknown)}", code=CODE)


def parse_destination(value: Any, check_url: Any = None, stored: bool = False) -> Destination | str:
    """The `destination` object of an endpoint: a Destination, or for `{"type": "http", "url": …}` the URL
    (checked by `check_url`, the URL rule, when given). Anything malformed is 422 `invalid_destination`,
    naming the field. `stored`: one read back from the table, where an earlier release's may have no role (it
    reads as one with `role_arn` "", which `refusal` never sends to)."""
    if not isinstance(value, dict):
        raise ValidationFailed("'destination' must be an object with a 'type'", code=CODE)
    kind = value.get("type")
    if kind not in TYPES:
        raise ValidationFailed(f"'destination.type' must be one of {', '.join(TYPES)}", code=CODE)
    if KINDS[kind].pulled:
        _only(value, kind, {"type"})
        return Destination(kind, "")
    address_field = ADDRESS_FIELD[kind]
    _only(value, kind, {"type", address_field, *OPTIONAL_FIELDS.get(kind, ())} | ({"role_arn"} if kind != "http" else set()))
    address = _string(value, address_field, required=True)
    if kind == "http":
        return check_url(address) if check_url is not None else address
    if kind == "s3":
        if bucket_refused(address):
            raise ValidationFailed("'destination.bucket' must be an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens", code=CODE)
    elif not _PATTERNS[kind].fullmatch(address):
        raise ValidationFailed(f"'destination.{address_field}' must look like {KINDS[kind].example}", code=CODE)
    role_arn = _string(value, "role_arn", required=not stored)
    if (role_arn or not stored) and not ROLE_ARN.fullmatch(role_arn):
        raise ValidationFailed(
            f"'destination.role_arn' must be an IAM role ARN (no path) whose name starts with {ROLE_NAME_PREFIX}, "
            f"e.g. arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders",
            code=CODE,
        )
    source = _string(value, "source", required=False, null=stored)
    if source and (len(source) > MAX_SOURCE_LENGTH or not SOURCE.fullmatch(source)):
        raise ValidationFailed(
            f"'destination.source' must be up to {MAX_SOURCE_LENGTH} letters, digits, '.', '_', '/' or '-', not starting with 'aws.'", code=CODE
        )
    prefix = _string(value, "prefix", required=False, null=stored).strip("/")
    if len(prefix) > MAX_PREFIX_LENGTH or not PREFIX.fullmatch(prefix):
        raise ValidationFailed(f"'destination.prefix' must be up to {MAX_PREFIX_LENGTH} letters, digits, '/' and !_.*'()=- (no '..' or '//')", code=CODE)
    return Destination(kind, address, role_arn, source, prefix)


NO_ROLE = "a destination is delivered to only through its role_arn, assumed with the endpoint's external id: set one (PATCH the endpoint's destination), then enable the endpoint"


def refusal(destination: Destination, own_account: str) -> str | None:
    """Why the stack may not deliver there, or None: nothing without a role (an earlier release's endpoint: see the
    module's text) and nothing in the stack's own account (the queues hookline runs on). A polling endpoint's mailbox
    is hookline's own: nothing is sent out."""
    if destination.pulled:
        return None
    if not destination.role_arn:
        return NO_ROLE
    if not own_account:
        return None
    if destination.account == own_account or role_account(destination.role_arn) == own_account:
        return "a destination (and its role) must be in another AWS account than the one hookline runs in"
    return None


# -- how one delivery is laid out ------------------------------------------------------------------------------


def signature_of(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers that name and sign a delivery, for a destination that has no HTTP headers: `webhook-id`,
    `webhook-timestamp` and the signature headers of the endpoint's signing (hookline.core.schemes; `webhook-signature`
    by default). A destination takes no custom headers, so nothing else is there but what only HTTP needs."""
    return {name: value for name, value in headers.items() if name not in REQUEST_ONLY_HEADERS}


def envelope(headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    """A delivery as one JSON document: `body` the exact signed text, `metadata` its signature headers."""
    return {"metadata": signature_of(headers), "body": body.decode()}


def event_detail(headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    """An EventBridge event's detail: the envelope, plus the webhook as `payload` so rules can match on its data."""
    return {**envelope(headers, body), "payload": json.loads(body)}


def object_key(prefix: str, created_at: str, event_id: str) -> str:
    """`prefix/yyyy/mm/dd/<event id>.json` (UTC, the event's acceptance day): every delivery of an event writes one key."""
    day = created_at[:10].replace("-", "/")
    return f"{prefix}/{day}/{event_id}.json" if prefix else f"{day}/{event_id}.json"


def partition_key(customer: str | None, event_id: str) -> str:
    return customer or event_id


# -- the customer's role, as a CloudFormation template ---------------------------------------------------------------

# What one delivery calls on each type of destination (the customer's role allows exactly this).
ACTIONS: dict[DestinationType, str] = {kind: k.action for kind, k in KINDS.items() if k.action}
ROLE_SESSION_SECONDS = 3600  # how long assumed credentials last (the role's MaxSessionDuration allows it)


def resource_arn(destination: Destination) -> str:
    """The ARN a delivery acts on: the queue's (from its URL), the topic's, bus's or stream's, or the bucket's objects under the prefix."""
    if destination.type == "sqs":
        found = _PATTERNS["sqs"].fullmatch(destination.address)
        if not found:
            raise ValueError(f"not a queue URL: {destination.address}")
        partition = "aws-cn" if ".amazonaws.com.cn/" in destination.address else "aws"
        return f"arn:{partition}:sqs:{found[_REGION_GROUP]}:{found[_ACCOUNT_GROUP]}:{found[_NAME_GROUP]}"
    if destination.type == "s3":
        partition = destination.role_arn.split(":")[1] if destination.role_arn else "aws"
        return f"arn:{partition}:s3:::{destination.address}/{destination.prefix + '/' if destination.prefix else ''}*"
    return destination.address


def role_name(destination: Destination, endpoint_id: str) -> str:
    """The role's name: the one `role_arn` names, else one made of the prefix and the endpoint's id."""
    found = ROLE_ARN.fullmatch(destination.role_arn) if destination.role_arn else None
    return found[2] if found else f"{ROLE_NAME_PREFIX}{endpoint_id}"[:64]


def role_template(destination: Destination, external_id: str, endpoint_id: str, trusted: tuple[str, ...]) -> dict[str, Any]:
    """A CloudFormation template, for the customer's account, of the role hookline assumes for this endpoint: trusting
    hookline's delivery roles (`trusted`) only with the endpoint's external id, allowing the one put on the one resource,
    and, with the KmsKeyArn parameter set, the key's use for an encrypted queue, topic, stream or bucket."""
    statement = {"Effect": "Allow", "Action": ACTIONS[destination.type], "Resource": resource_arn(destination)}
    kms = {"Effect": "Allow", "Action": ["kms:GenerateDataKey", "kms:Decrypt"], "Resource": {"Ref": "KmsKeyArn"}}
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"The role hookline assumes to deliver endpoint {endpoint_id}'s webhooks to {destination.type} {destination.address}",
        "Parameters": {
            "KmsKeyArn": {
                "Type": "String",
                "Default": "",
                "Description": "The KMS key that encrypts the destination, if it is a customer-managed one; empty: none.",
            }
        },
        "Conditions": {"Encrypted": {"Fn::Not": [{"Fn::Equals": [{"Ref": "KmsKeyArn"}, ""]}]}},
        "Resources": {
            "HooklineDeliveryRole": {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "RoleName": role_name(destination, endpoint_id),
                    "Description": f"hookline delivers endpoint {endpoint_id}'s webhooks with this role",
                    "MaxSessionDuration": ROLE_SESSION_SECONDS,
                    "AssumeRolePolicyDocument": {
                        "Version": "2012-10-17",
                        "Statement": [
                            {
                                "Effect": "Allow",
                                "Principal": {"AWS": list(trusted)},
                                "Action": "sts:AssumeRole",
                                "Condition": {"StringEquals": {"sts:ExternalId": external_id}},
                            }
                        ],
                    },
                    "Policies": [
                        {
                            "PolicyName": "deliver-webhooks",
                            "PolicyDocument": {
                                "Version": "2012-10-17",
                                "Statement": [statement, {"Fn::If": ["Encrypted", kms, {"Ref": "AWS::NoValue"}]}],
                            },
                        }
                    ],
                },
            }
        },
        "Outputs": {"RoleArn": {"Description": "Give this as the destination's role_arn.", "Value": {"Fn::GetAtt": ["HooklineDeliveryRole", "Arn"]}}},
    }
