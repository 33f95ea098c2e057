"""Polling endpoints' mailboxes in the data table (hookline.core.polling; their poll tokens: .poll_tokens).

A mailbox is one partition per endpoint (keys.mailbox_partition), its items sorted by position: a put per delivery
(the delivery's attempt), one query per poll. Items expire after the retention (HOOKLINE_RETENTION_DAYS), which is
how long a cursor into them holds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Key
from hookline.adapters.dynamo.ops import write_if
from hookline.core import classify, polling
from hookline.core.clock import iso
from hookline.core.models import Endpoint
from hookline.core.polling import Polled
from hookline.core.responses import HttpResult
from hookline.core.webhook import Outbound


class Mailbox:
    """The `poll` destination's put, and the polls' reads."""

    def __init__(self, table: Any, clock: Callable[[], datetime], retention_days: int, ttl_attribute: str = keys.TTL):
        self._table = table
        self._clock = clock
        self._retention = timedelta(days=retention_days)
        self._ttl = ttl_attribute

    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult:
        """The delivery's attempt: the webhook put in the endpoint's mailbox (202); a failed put is the attempt's failure
        (`aws.<Code>`), retried like any other."""
        started = time.monotonic()
        now = self._clock()
        delivery = message.delivery_id or message.event_id  # a test event has no delivery
        position = polling.position(message.created_at, delivery, now)
        item = {
            **keys.mailbox(endpoint.tenant, endpoint.id, position),
            "event_id": message.event_id,
            "event_type": message.event_type,
            "delivery_id": message.delivery_id,
            "body": message.body.decode(),
            "headers": json.dumps(dict(message.headers), separators=(",", ":")),
            self._ttl: int((now + self._retention).timestamp()),
        }
        try:
            self._table.put_item(Item=item)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code") or "InternalFailure")
            return HttpResult(None, classify.aws_error(code), _ms(started), detail=str(exc)[:300])
        except BotoCoreError as exc:
            return HttpResult(None, classify.CONNECTION_ERROR, _ms(started), detail=str(exc)[:300])
        return HttpResult(202, None, _ms(started), body=json.dumps({"position": position}))

    def page(self, tenant: str, endpoint_id: str, after: str | None, before: str, limit: int) -> list[Polled]:
        """Up to `limit` webhooks positioned after `after` (None: from the start) and before `before`, in order: one
        query (strongly consistent, so a put answered is a put read)."""
        condition = Key(keys.PK).eq(keys.mailbox_partition(tenant, endpoint_id)) & Key(keys.SK).lt(before)
        query: dict[str, Any] = {"KeyConditionExpression": condition, "Limit": limit, "ConsistentRead": True}
        if after:
            if after >= before:
                return []
            query["ExclusiveStartKey"] = keys.mailbox(tenant, endpoint_id, after)
        return [
            Polled(str(i[keys.SK]), str(i["event_id"]), str(i["event_type"]), str(i.get("delivery_id", "")), str(i["body"]), json.loads(str(i["headers"])))
            for i in self._table.query(**query).get("Items", [])
        ]

    def acknowledge(self, tenant: str, polled: list[Polled], now: datetime) -> int:
        """`polled_at` on each delivery that has none (the first poll past it keeps its time); how many got it. A test
        event has no delivery, and one whose attempt is not recorded yet (its item not written) is left as it is."""
        first = 0
        for webhook in polled:
            if not webhook.delivery_id:
                continue
            written = write_if(
                self._table.update_item,
                Key=keys.delivery(tenant, webhook.event_id, webhook.delivery_id),
                UpdateExpression="SET polled_at = :now",
                ConditionExpression=f"attribute_exists({keys.PK}) AND attribute_not_exists(polled_at)",
                ExpressionAttributeValues={":now": iso(now)},
            )
            first += written is not None
        return first


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
