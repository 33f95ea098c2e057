"""A destination is reached only through its role (hookline.core.destinations): required when an endpoint is made
or changed, and an earlier release's endpoint stored without one reads back but is never sent to. Pure."""

from __future__ import annotations

from typing import Any

import pytest

from hookline.core.destinations import NO_ROLE, ROLE_NAME_PREFIX, Destination, parse_destination, refusal
from hookline.core.errors import ValidationFailed

QUEUE = {"type": "sqs", "queue_url": "https://sqs.us-east-1.amazonaws.com/111122223333/orders"}
ROLE = f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders"
OWN = "123456789012"

REFUSED_AT_THE_API = {
    "no role": ({**QUEUE}, "'destination.role_arn' is required"),
    "a null role": ({**QUEUE, "role_arn": None}, "'destination.role_arn' is required"),
    "an empty role": ({**QUEUE, "role_arn": ""}, "'destination.role_arn' must be an IAM role ARN"),
    "a role without the prefix": ({**QUEUE, "role_arn": "arn:aws:iam::111122223333:role/admin"}, "'destination.role_arn' must be an IAM role ARN"),
    "a bucket without a role": ({"type": "s3", "bucket": "acme-webhooks"}, "'destination.role_arn' is required"),
}


@pytest.mark.parametrize(("value", "message"), REFUSED_AT_THE_API.values(), ids=REFUSED_AT_THE_API.keys())
def test_a_destination_without_its_role_is_refused(value: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_destination(value)
    assert (refused.value.code, refused.value.message[: len(message)]) == ("invalid_destination", message)


def test_an_earlier_releases_endpoint_without_a_role_reads_back_and_is_never_sent_to() -> None:
    stored = parse_destination({**QUEUE}, stored=True)
    assert stored == Destination("sqs", QUEUE["queue_url"], "")
    assert refusal(stored, OWN) == NO_ROLE
    assert refusal(stored, "") == NO_ROLE  # whether or not the stack knows its account
    # A stored role is still checked as it was accepted
    with pytest.raises(ValidationFailed):
        parse_destination({**QUEUE, "role_arn": "arn:aws:iam::111122223333:role/admin"}, stored=True)


@pytest.mark.parametrize(
    ("destination", "why"),
    [
        (Destination("sqs", QUEUE["queue_url"], ROLE), None),
        (Destination("sqs", f"https://sqs.us-east-1.amazonaws.com/{OWN}/hookline-delivery", ROLE), "another AWS account"),
        (Destination("s3", "acme-webhooks", f"arn:aws:iam::{OWN}:role/{ROLE_NAME_PREFIX}x"), "another AWS account"),
    ],
)
def test_a_destination_with_its_role_is_refused_only_in_the_stacks_own_account(destination: Destination, why: str | None) -> None:
    found = refusal(destination, OWN)
    assert (found is None) if why is None else (found is not None and why in found)
