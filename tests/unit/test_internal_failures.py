"""Which records are dead-lettered because of hookline itself (hookline.core.internal_failures): pure rules."""

from __future__ import annotations

import json

from hookline.core.errors import DependencyFailed
from hookline.core.internal_failures import InternalFailure, classify, last_receives, poison, receive_count


def _record(message_id: str, receives: object) -> dict[str, object]:
    return {"messageId": message_id, "body": "{}", "attributes": {"ApproximateReceiveCount": receives}}


def test_a_failed_record_counts_on_its_last_receive_and_after_only() -> None:
    records = [_record("early", "4"), _record("last", "5"), _record("fine", "5"), _record("later", "6")]
    failed = {"early": RuntimeError("x"), "last": RuntimeError("x"), "later": KeyError("k")}
    assert last_receives(records, failed, 5) == [
        InternalFailure("exception", "last", 5, "RuntimeError"),
        InternalFailure("exception", "later", 6, "KeyError"),
    ]


def test_a_failed_dependency_is_named_by_its_code_even_behind_another_error() -> None:
    direct = DependencyFailed("throttled", cause="ProvisionedThroughputExceededException")
    try:
        try:
            raise DependencyFailed("denied", cause="AccessDeniedException")
        except DependencyFailed as inner:
            raise RuntimeError("could not plan") from inner
    except RuntimeError as wrapped:
        behind = wrapped
    assert classify(direct) == ("dependency", "ProvisionedThroughputExceededException")
    assert classify(behind) == ("dependency", "AccessDeniedException")
    assert classify(json.JSONDecodeError("no", "", 0)) == ("exception", "JSONDecodeError")


def test_an_unreadable_receive_count_is_no_last_receive() -> None:
    assert receive_count(_record("m", "garbage")) == 0 and receive_count({"messageId": "m"}) == 0
    assert last_receives([_record("m", None)], {"m": RuntimeError()}, 5) == []
    assert poison(_record("p", "2"), "MalformedTask") == InternalFailure("poison", "p", 2, "MalformedTask")
