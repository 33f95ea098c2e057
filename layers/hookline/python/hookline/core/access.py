"""Who is calling and what it may do: the producer (an API key) or one customer (a portal session).

The producer sees its whole tenant. A portal session sees only its
customer's endpoints and what hangs off them (their deliveries, statistics,
replays) and the events addressed to that customer; anything else of the
tenant answers 404 exactly like an id that does not exist, so a session
cannot even learn that it exists. Routes that only the producer may use
(creating events, customers, sessions) answer 403 to a session, and a
read-only session gets 403 on every route that changes something.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hookline.core.errors import Forbidden


class Access(Enum):
    READ = "read"  # any principal, scoped to what it sees
    WRITE = "write"  # the producer, or a session that is not read-only, scoped likewise
    PRODUCER = "producer"  # the producer only


@dataclass(frozen=True)
class Principal:
    tenant: str
    customer: str | None = None  # None: the producer, who sees the whole tenant
    read_only: bool = False
    expires_at: float | None = None  # a session's expiry (epoch seconds), checked on every request

    @property
    def is_producer(self) -> bool:
        return self.customer is None

    def sees(self, owner: str | None) -> bool:
        """Whether a resource owned by `owner` (a customer's uid, or None for the tenant's own) is visible."""
        return self.is_producer or owner == self.customer

    def require(self, access: Access) -> None:
        """Raise Forbidden (403) unless this principal may use a route of that access."""
        if self.is_producer:
            return
        if access is Access.PRODUCER:
            raise Forbidden("a portal session cannot use this route; it needs the producer's API key")
        if access is Access.WRITE and self.read_only:
            raise Forbidden("this portal session is read-only")
