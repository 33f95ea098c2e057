"""Pages and cursors as the DynamoDB adapters hand them out.

A page holds at most `limit` items in key order. Like DynamoDB's
LastEvaluatedKey, the cursor is set whenever the page is full, even when
nothing follows (the next page is then empty and has no cursor). A cursor is
opaque, names the partition it belongs to, and one from another partition (or
not a cursor at all) raises InvalidCursor.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable

from hookline.core.errors import InvalidCursor


def encode(scope: str, last_key: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([scope, last_key]).encode()).decode().rstrip("=")


def decode(cursor: str, scope: str) -> str:
    """The sort key a cursor resumes after; InvalidCursor unless it is a cursor into `scope`."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise InvalidCursor("cursor is not valid") from None
    if not (isinstance(raw, list) and len(raw) == 2 and raw[0] == scope and isinstance(raw[1], str)):
        raise InvalidCursor("cursor is not valid")
    return raw[1]


def page[Item](
    items: Iterable[Item], key: Callable[[Item], str], scope: str, limit: int, cursor: str | None, descending: bool = False
) -> tuple[list[Item], str | None]:
    """One page of `items` in the order of `key` (or its reverse), after the cursor's key."""
    after = decode(cursor, scope) if cursor else None
    ordered = sorted((i for i in items if after is None or (key(i) < after if descending else key(i) > after)), key=key, reverse=descending)
    taken = ordered[:limit]
    return taken, (encode(scope, key(taken[-1])) if len(taken) == limit else None)
