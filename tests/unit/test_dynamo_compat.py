"""Each item shape an earlier release writes, read through its kind's one compatibility reader
(hookline.adapters.dynamo.compat), beside this release's own shape. The values are as DynamoDB hands them back
(numbers as Decimal, an absent attribute as None)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from hookline.adapters.dynamo import compat
from hookline.core.models import LAYOUT_ENDPOINT_KEYED, LAYOUT_EVENT_KEYED
from hookline.core.rotation import PreviousSecret
from hookline.core.stats import Carried


@pytest.mark.parametrize(
    ("layout", "read"),
    [
        (None, LAYOUT_EVENT_KEYED),  # the previous release's event: its deliveries in its own partition
        (Decimal(LAYOUT_ENDPOINT_KEYED), LAYOUT_ENDPOINT_KEYED),  # this release's
    ],
)
def test_an_event_items_layout(layout: Any, read: int) -> None:
    assert compat.event_layout(layout) == read


@pytest.mark.parametrize(
    ("listed", "single", "read"),
    [
        (None, None, ()),  # never rotated
        (None, "whsec_old", (PreviousSecret("whsec_old", None),)),  # the previous release's rotation: one secret, no end
        ([{"secret": "whsec_old", "valid_until": Decimal("1700000000.5")}], "whsec_old", (PreviousSecret("whsec_old", 1700000000.5),)),  # this release's
        (
            # this release's list, then a rotation by the previous release during a deploy: both are kept
            [{"secret": "whsec_a", "valid_until": Decimal(1700000000)}],
            "whsec_b",
            (PreviousSecret("whsec_a", 1700000000.0), PreviousSecret("whsec_b", None)),
        ),
    ],
)
def test_an_endpoint_items_previous_secrets(listed: Any, single: Any, read: tuple[PreviousSecret, ...]) -> None:
    assert compat.endpoint_previous_secrets(listed, single) == read


@pytest.mark.parametrize(
    ("hour", "counts", "token", "read"),
    [
        (None, None, None, Carried()),  # the previous release's limiter item: it carries no statistics
        ("2026-12-01T10", {"succeeded": Decimal(3), "attempts": Decimal(4)}, "tok", Carried("2026-12-01T10", (("attempts", 4), ("succeeded", 3)), "tok")),
    ],
)
def test_a_limiter_items_carried_statistics(hour: Any, counts: Any, token: Any, read: Carried) -> None:
    assert compat.limiter_carried(hour, counts, token) == read
