"""What an earlier release wrote, read as this release means it: one reader per item kind.

During a canary deploy, and for as long as its items live, the previous release's items sit beside this one's
(docs/operations.md, "Compatibility across one release"; the release is `tests/compat_release.txt`'s). Each reader
here takes an item's stored attributes, as DynamoDB gives them (absent: None), and answers this release's value, so
a shape the window no longer needs is dropped here, and only here. Every shape has its case in
tests/unit/test_dynamo_compat.py.

The previous release's deliveries kept in their events' partitions (LAYOUT_EVENT_KEYED) and its endpoint-log index
are not a shape of one item but where items are: hookline.adapters.dynamo.events and keys read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hookline.core.models import LAYOUT_EVENT_KEYED
from hookline.core.rotation import PreviousSecret
from hookline.core.stats import Carried


def event_layout(layout: Any) -> int:
    """An event item's layout (where its deliveries are kept); an item without one is the previous release's, which
    kept them in the event's partition."""
    return LAYOUT_EVENT_KEYED if layout is None else int(layout)


def endpoint_previous_secrets(listed: Iterable[Mapping[str, Any]] | None, single: Any) -> tuple[PreviousSecret, ...]:
    """An endpoint item's replaced secrets, each with its end (`previous_secrets`); plus `previous_secret` when the
    list lacks it: the one previous secret the previous release kept (an item it stored or rotated), which signs until
    rotated_at + the overlap (its end None)."""
    kept = tuple(PreviousSecret(str(p["secret"]), float(p["valid_until"])) for p in listed or ())
    legacy = str(single or "")
    if legacy and all(p.secret != legacy for p in kept):
        kept = (*kept, PreviousSecret(legacy, None))
    return kept


def limiter_carried(hour: Any, counts: Mapping[str, Any] | None, token: Any) -> Carried:
    """The statistics a limiter item carries; none on an item the previous release wrote (no hour)."""
    if not hour:
        return Carried()
    return Carried(str(hour), tuple(sorted((str(k), int(v)) for k, v in (counts or {}).items())), str(token or ""))
