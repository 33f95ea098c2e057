"""Who is calling and what it may do: the producer (an API key) or one customer (a portal session).

The producer sees its whole tenant. A portal session sees only its
customer's endpoints and what hangs off them (their deliveries, statistics,
replays) and the events addressed to that customer; anything else of the
tenant answers 404 exactly like an id that does not exist, so a session
cannot even learn that it exists. Routes that only the producer may use
(creating events, customers, sessions) answer 403 to a session, and a
read-only session gets 403 on every route that changes something. A poll
token (hookline.core.polling) stands for one endpoint's receiver: it may call
that endpoint's poll route and nothing else (403 elsewhere, 404 on another
endpoint's poll).

The event-type catalog is the tenant's, but which types it sends to whom is
each customer's own: a session sees only the types its customer's endpoints
name and those sent to its customer (customer_event_types), never what the
producer sends to another customer.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from hookline.core.errors import Forbidden, InvalidCursor
from hookline.core.validation import EVENT_TYPE


class Access(Enum):
    READ = "read"  # any principal, scoped to what it sees
    WRITE = "write"  # the producer, or a session that is not read-only, scoped likewise
    PRODUCER = "producer"  # the producer only
    POLL = "poll"  # a polling endpoint's poll: the producer, a session that is not read-only, or a poll token of it


@dataclass(frozen=True)
class Principal:
    tenant: str
    customer: str | None = None  # None: the producer, who sees the whole tenant
    read_only: bool = False
    expires_at: float | None = None  # a session's expiry (epoch seconds), checked on every request
    # A session's customer's creation time (its `customer_created_at`): what the uid named before it, an endpoint
    # made or an event accepted earlier, was an earlier customer's of that uid, deleted since. "": no such bound.
    since: str = ""
    poll_endpoint: str = ""  # a poll token's: the one endpoint it may poll, and nothing else ("": not a poll token)

    @property
    def is_producer(self) -> bool:
        return self.customer is None and not self.poll_endpoint

    def sees(self, owner: str | None, created_at: str) -> bool:
        """Whether a resource owned by `owner` (a customer's uid, or None for the tenant's own) and created at
        `created_at` (an ISO timestamp, as every item keeps it) is visible: the producer sees all of its tenant, a
        session what its own customer made, not what an earlier customer of the same uid did."""
        return self.is_producer or (owner == self.customer and created_at >= self.since)

    def require(self, access: Access) -> None:
        """Raise Forbidden (403) unless this principal may use a route of that access."""
        if self.poll_endpoint:
            if access is not Access.POLL:
                raise Forbidden("a poll token may only poll its endpoint (GET /v1/endpoints/{endpoint_id}/poll)")
            return
        if self.is_producer:
            return
        if access is Access.PRODUCER:
            raise Forbidden("a portal session cannot use this route; it needs the producer's API key")
        if access in (Access.WRITE, Access.POLL) and self.read_only:
            raise Forbidden("this portal session is read-only")


def customer_event_types(filters: Iterable[Iterable[str]], sent: Iterable[str]) -> frozenset[str]:
    """The event types a customer's portal session sees: those its endpoints' filters name (what they can receive),
    and those sent to the customer (addressed to it, or broadcast to every customer).

    An endpoint that takes every type (an empty filter) names none: what it can receive is then known only by
    what was sent. A type only another customer's endpoints name, or only sent to another customer, is never
    among them, registered in the catalog (with a schema) or not.
    """
    return frozenset(t for f in filters for t in f) | frozenset(sent)


def names_page(names: Iterable[str], limit: int, cursor: str | None) -> tuple[list[str], str | None]:
    """A page of event-type names in name order, after the one `cursor` points past, and the cursor to the next
    page (None at the end). A session's types are computed (a bounded set), not queried, so they are paged here."""
    after = _after(cursor)
    ordered = sorted(n for n in set(names) if after is None or n > after)
    page = ordered[:limit]
    return page, (_name_cursor(page[-1]) if len(ordered) > limit else None)


def _name_cursor(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode()).decode().rstrip("=")


def _after(cursor: str | None) -> str | None:
    if not cursor:
        return None
    try:
        name = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, ValueError):
        raise InvalidCursor("cursor is not valid") from None
    if not EVENT_TYPE.fullmatch(name) or _name_cursor(name) != cursor:
        raise InvalidCursor("cursor is not valid")
    return name
