"""A polling endpoint's poll and its poll tokens, as the API answers them (hookline.core.polling)."""

from __future__ import annotations

from pydantic import Field

from hookline.core.contract.common import Answer, Timestamp


class PolledWebhook(Answer):
    """One webhook, exactly as a push would have sent it: verify `body` (its UTF-8 bytes) with `headers` as a receiver
    verifies a push (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`)."""

    id: str = Field(description="The event's id (`evt_…`), the same as the `webhook-id` header.")
    event_type: str
    delivery_id: str | None = Field(description="The delivery (`dlv_…`); null for a test event.")
    headers: dict[str, str] = Field(description="The headers a push would carry, signed as the endpoint signs.")
    body: str = Field(description="The exact signed body.")


class PollPage(Answer):
    webhooks: list[PolledWebhook] = Field(description="The next webhooks after `cursor`, in order of acceptance (a late one: of its arrival).")
    cursor: str | None = Field(
        description="Give it to the next poll; store it to resume after a restart (it holds for the retention). Null: nothing polled yet."
    )
    done: bool = Field(description="Nothing more to read now: poll again later. False: poll again at once.")


class PollTokenCreated(Answer):
    id: str = Field(description="The token's id (`pt_…`): revoke it by this.")
    endpoint_id: str
    token: str = Field(
        description="`hlpt_…`, shown this once (stored only as a hash): `Authorization: Bearer <token>` on the endpoint's poll, and nothing else."
    )
    created_at: Timestamp
