"""A `destination` as a request gives it: one model per type of hookline.core.destinations.KINDS, told apart by
`type` (a discriminated union, which the document shows with its `discriminator`).

Each model's fields carry the server's own rule: the patterns are hookline.core.destinations' compiled
expressions (written to read alike in Python, Rust's regex and ECMA-262), matched whole, and each model checks
itself with hookline.core.destinations.parse_destination, so a value one of these models takes is one the API
takes (bar the stack's URL policy and its own account, which only the service knows). The API's refusals are
parse_destination's (422 `invalid_destination`, naming the field), as before the models.

A new type: its model here, in `Destination`; its entry in KINDS; its put in hookline.adapters.destinations.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hookline.core import destinations
from hookline.core.contract import fields
from hookline.core.destinations import KINDS, ROLE_NAME_PREFIX
from hookline.core.errors import ValidationFailed

DESCRIPTION = (
    "Where deliveries go, instead of `url`: `http` (the same as `url`), or a queue, topic, event bus,\n"
    "stream or bucket in the customer's AWS account, which gets the exact signed body with the\n"
    "Standard Webhooks headers as attributes or metadata. Give `url` or `destination`, not both;\n"
    "anything malformed is 422 `invalid_destination`, one in the stack's own account 422\n"
    "`forbidden_destination`.\n"
)
EXAMPLE: dict[str, Any] = {
    "type": "sqs",
    "queue_url": KINDS["sqs"].example,
    "role_arn": f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders",
}


def _address(kind: destinations.DestinationType, **constraints: Any) -> Any:
    """The type's address field: required, matched whole by the type's own pattern."""
    pattern = KINDS[kind].pattern
    assert pattern is not None
    return Field(pattern=pattern.pattern, examples=[KINDS[kind].example], **constraints)


RoleArn = Annotated[
    str,
    Field(
        pattern=destinations.ROLE_ARN.pattern,
        description=(
            f"A role in the customer's account, named `{ROLE_NAME_PREFIX}…`, that hookline assumes with the\n"
            "endpoint's `external_id` (`GET /v1/destinations/role-template` makes one): the only way\n"
            "hookline reaches a destination.\n"
        ),
    ),
]


class _Given(BaseModel):
    """A destination as given: closed, its values as JSON gives them, and checked by the server's rule."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="after")
    def _as_the_server_reads_it(self) -> Any:
        try:
            destinations.parse_destination(self.model_dump(exclude_unset=True))
        except ValidationFailed as refused:
            raise ValueError(refused.message) from None
        return self


class HttpDestination(_Given):
    """The same as the endpoint's `url`."""

    type: Literal["http"]
    url: fields.Url  # its host against the stack's policy is the service's check: the document says it in words


class SqsDestination(_Given):
    """One message per delivery, with attributes `webhook-id`, `webhook-timestamp`, `webhook-signature` (or the headers
    of the endpoint's `signing`); a FIFO queue gets the endpoint as message group and the delivery as deduplication id."""

    type: Literal["sqs"]
    queue_url: str = _address("sqs")
    role_arn: RoleArn


class SnsDestination(_Given):
    """One published message per delivery, with the same attributes as SQS."""

    type: Literal["sns"]
    topic_arn: str = _address("sns")
    role_arn: RoleArn


class EventBridgeDestination(_Given):
    """One event per delivery: `DetailType` the event type; `detail` holds `payload` (the webhook), `body` (its exact
    signed text) and `metadata` (the signature headers)."""

    type: Literal["eventbridge"]
    event_bus_arn: str = _address("eventbridge")
    source: str = Field(
        default=destinations.DEFAULT_EVENT_SOURCE,
        max_length=destinations.MAX_SOURCE_LENGTH,
        pattern=destinations.SOURCE.pattern,
        description="The events' `Source` (not `aws.…`).",
    )
    role_arn: RoleArn


class KinesisDestination(_Given):
    """One record per delivery: `{"metadata": {signature headers}, "body": "<exact signed text>"}`; the partition key
    is the event's customer, or its id."""

    type: Literal["kinesis"]
    stream_arn: str = _address("kinesis")
    role_arn: RoleArn


class S3Destination(_Given):
    """One object per event, `prefix/yyyy/mm/dd/<event id>.json` (the acceptance day, UTC), the signature headers as
    its metadata."""

    type: Literal["s3"]
    bucket: str = _address(
        "s3",
        min_length=destinations.MIN_BUCKET_LENGTH,
        max_length=destinations.MAX_BUCKET_LENGTH,
    )
    prefix: str = Field(
        default="",
        max_length=destinations.MAX_PREFIX_LENGTH,
        pattern=destinations.PREFIX.pattern,
        description="The objects' key prefix (leading and trailing slashes are dropped).",
    )
    role_arn: RoleArn


class PollDestination(_Given):
    """Nothing is pushed: each webhook waits in the endpoint's mailbox until its receiver polls
    (`GET /v1/endpoints/{endpoint_id}/poll`, with a portal session or a poll token of the endpoint), and gets the exact
    body and headers a push would send."""

    type: Literal["poll"]


# One model per type of KINDS, in its order (a test holds them to it).
MODELS: tuple[type[_Given], ...] = (HttpDestination, SqsDestination, SnsDestination, EventBridgeDestination, KinesisDestination, S3Destination, PollDestination)
Destination = Annotated[
    HttpDestination | SqsDestination | SnsDestination | EventBridgeDestination | KinesisDestination | S3Destination | PollDestination,
    Field(discriminator="type", description=DESCRIPTION, examples=[EXAMPLE]),
]
