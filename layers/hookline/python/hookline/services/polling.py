"""Polling endpoints: a poll reads the endpoint's mailbox; the producer makes and revokes its poll tokens.

A poll is one endpoint read (the endpoint must exist, be the caller's and be a polling one) and one mailbox query
(hookline.core.polling): the webhooks positioned past the cursor and before the watermark, up to `limit`, each as
the exact body and headers a push would have sent, the cursor past the last of them (the position given, when there
were none: a receiver stores it as it is) and `done` (nothing more to read now). The same query reads again the page
the cursor ended (a cursor names it): a poll past it acknowledges it, and each of its deliveries gets `polled_at`
(one conditional write each: the receiver has it), and the endpoint's statistics count them (`polled`, one ADD).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hookline.core import ids, polling
from hookline.core.access import Principal
from hookline.core.clock import epoch_ms, iso
from hookline.core.errors import Conflict, NotFound, ValidationFailed
from hookline.core.models import Endpoint
from hookline.core.polling import PollToken
from hookline.core.stats import hour_of
from hookline.services.ports import EndpointReader, MailboxReader, PollTokenStore, StatsAdder


@dataclass(frozen=True)
class PollService:
    endpoints: EndpointReader
    mailbox: MailboxReader
    tokens: PollTokenStore
    clock: Callable[[], datetime]
    stats: StatsAdder | None = None  # the endpoint's `polled` counter (None: not counted)

    def poll(self, who: Principal, endpoint_id: str, cursor: str | None, limit: int) -> dict[str, Any]:
        """The next webhooks of a polling endpoint after `cursor` (422 `invalid_cursor` for another endpoint's)."""
        if not 1 <= limit <= polling.MAX_LIMIT:
            raise ValidationFailed(f"'limit' must be from 1 to {polling.MAX_LIMIT}", code="invalid_limit")
        given = polling.decode_cursor(cursor, endpoint_id)
        self._polling(who.tenant, endpoint_id)
        now = self.clock()
        start, acknowledging = polling.read_from(given)
        read = self.mailbox.page(who.tenant, endpoint_id, start, polling.watermark(now), acknowledging + limit + 1)
        acknowledged, webhooks, more = polling.split(read, given, limit)
        delivered = self.mailbox.acknowledge(who.tenant, acknowledged, now)
        if delivered and self.stats is not None:
            self.stats.add(who.tenant, endpoint_id, hour_of(now), {"polled": delivered})
        moved = polling.next_cursor(given, webhooks)
        return {
            "webhooks": [w.to_json() for w in webhooks],
            "cursor": polling.encode_cursor(endpoint_id, moved) if moved else None,
            "done": not more,
        }

    def make_token(self, tenant: str, endpoint_id: str) -> dict[str, Any]:
        """A new poll token of a polling endpoint: the token shown this once, its id to revoke it by."""
        self._polling(tenant, endpoint_id)
        now = self.clock()
        token_id = ids.new_id(polling.TOKEN_ID_PREFIX.rstrip("_"), epoch_ms(now))
        token, secret_hash = polling.new_token(token_id.removeprefix(polling.TOKEN_ID_PREFIX))
        self.tokens.add(PollToken(token_id, tenant, endpoint_id, secret_hash, iso(now)))
        return {"id": token_id, "endpoint_id": endpoint_id, "token": token, "created_at": iso(now)}

    def revoke_token(self, tenant: str, endpoint_id: str, token_id: str) -> None:
        if not self.tokens.revoke(tenant, endpoint_id, token_id):
            raise NotFound("poll token not found", code="poll_token_not_found")

    def _polling(self, tenant: str, endpoint_id: str) -> Endpoint:
        endpoint = self.endpoints.get(tenant, endpoint_id)
        if endpoint is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        if endpoint.destination is None or not endpoint.destination.pulled:
            raise Conflict('only a polling endpoint (destination {"type": "poll"}) is polled', code=polling.NOT_POLLING)
        return endpoint
