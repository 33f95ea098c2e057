"""Endpoints, and events with their deliveries and attempts, in the data table.

Their keys come from hookline.adapters.dynamo.keys, which lists every item
kind and access pattern; the other item kinds have repositories of their own.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import Refused, batch_get, query_all, query_page, try_write, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.models import REPLAYABLE_STATUSES, Attempt, Delivery, Endpoint, Event, PlannedDelivery


@dataclass(frozen=True)
class Claim:
    delivery: Delivery | None
    busy: bool = False  # an earlier attempt still holds the lease: come back shortly
    missing: bool = False  # no such delivery (its event expired or never existed)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@translate_failures
class EndpointRepository:
    def __init__(self, table: Any):
        self._table = table

    @staticmethod
    def _to_item(ep: Endpoint) -> dict[str, Any]:
        item: dict[str, Any] = {
            **keys.endpoint(ep.tenant, ep.id),
            "id": ep.id,
            "tenant": ep.tenant,
            "url": ep.url,
            "secret": ep.secret,
            "event_types": list(ep.event_types),
            "description": ep.description,
            "status": ep.status,
            "rate_limit_per_second": Decimal(str(ep.rate_limit_per_second)),
            "max_concurrency": ep.max_concurrency,
            "headers": dict(ep.headers),
            "created_at": ep.created_at,
            "updated_at": ep.updated_at,
        }
        if ep.disabled_reason:
            item["disabled_reason"] = ep.disabled_reason
        return item

    @staticmethod
    def from_item(item: dict[str, Any]) -> Endpoint:
        return Endpoint(
            id=item["id"],
            tenant=item["tenant"],
            url=item["url"],
            secret=item["secret"],
            event_types=tuple(item.get("event_types") or ()),
            description=item.get("description", ""),
            status=item.get("status", "active"),
            disabled_reason=item.get("disabled_reason"),
            created_at=item.get("created_at", ""),
            updated_at=item.get("updated_at", ""),
            paused_until=float(item["paused_until"]) if item.get("paused_until") is not None else None,
            rate_limit_per_second=float(item.get("rate_limit_per_second", 10)),
            max_concurrency=int(item.get("max_concurrency", 5)),
            headers=tuple((str(k), str(v)) for k, v in (item.get("headers") or {}).items()),
            previous_secret=item.get("previous_secret", ""),
            rotated_at=float(item["rotated_at"]) if item.get("rotated_at") is not None else None,
        )

    def create(self, ep: Endpoint) -> None:
        self._table.put_item(Item=self._to_item(ep), ConditionExpression=Attr(keys.PK).not_exists())

    def save(self, ep: Endpoint) -> bool:
        """Write the fields a caller may change; False if the endpoint no longer exists (a concurrent delete wins).

        An update, not a put, so it never overwrites state the workers own (the pause).
        """
        names = {
            "#u": "url",
            "#t": "event_types",
            "#d": "description",
            "#s": "status",
            "#r": "disabled_reason",
            "#at": "updated_at",
            "#rl": "rate_limit_per_second",
            "#mc": "max_concurrency",
            "#h": "headers",
        }
        values = {
            ":u": ep.url,
            ":t": list(ep.event_types),
            ":d": ep.description,
            ":s": ep.status,
            ":r": ep.disabled_reason,
            ":at": ep.updated_at,
            ":rl": Decimal(str(ep.rate_limit_per_second)),
            ":mc": ep.max_concurrency,
            ":h": dict(ep.headers),
        }
        saved = write_if(
            self._table.update_item,
            Key=keys.endpoint(ep.tenant, ep.id),
            UpdateExpression="SET #u = :u, #t = :t, #d = :d, #s = :s, #r = :r, #at = :at, #rl = :rl, #mc = :mc, #h = :h",
            ConditionExpression=Attr(keys.PK).exists(),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        return saved is not None

    def rotate_secret(self, tenant: str, endpoint_id: str, new_secret: str, now_epoch: float, now_iso: str) -> bool:
        """The current secret becomes the previous one (still signed with during the overlap)."""
        rotated = write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET previous_secret = secret, secret = :s, rotated_at = :t, updated_at = :now",
            ConditionExpression=f"attribute_exists({keys.PK})",
            ExpressionAttributeValues={":s": new_secret, ":t": Decimal(str(round(now_epoch, 3))), ":now": now_iso},
        )
        return rotated is not None

    def pause(self, tenant: str, endpoint_id: str, until_epoch: float) -> None:
        """Pause every delivery to the endpoint until `until_epoch`; a longer pause already set wins."""
        write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET paused_until = :t",
            ConditionExpression=f"attribute_exists({keys.PK}) AND (attribute_not_exists(paused_until) OR paused_until < :t)",
            ExpressionAttributeValues={":t": Decimal(str(round(until_epoch, 3)))},
        )

    def disable(self, tenant: str, endpoint_id: str, reason: str, now_iso: str) -> None:
        """Disable the endpoint, unless it no longer exists."""
        write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET #s = :s, disabled_reason = :r, updated_at = :now",
            ConditionExpression=f"attribute_exists({keys.PK})",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": "disabled", ":r": reason, ":now": now_iso},
        )

    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None:
        item = self._table.get_item(Key=keys.endpoint(tenant, endpoint_id)).get("Item")
        return self.from_item(item) if item else None

    def delete(self, tenant: str, endpoint_id: str) -> bool:
        return write_if(self._table.delete_item, Key=keys.endpoint(tenant, endpoint_id), ConditionExpression=Attr(keys.PK).exists()) is not None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        items, cursor = query_page(self._table, limit, cursor, keys.tenant_partition(tenant), KeyConditionExpression=self._of_tenant(tenant))
        return [self.from_item(i) for i in items], cursor

    def all_for_tenant(self, tenant: str) -> Iterator[Endpoint]:
        for item in query_all(self._table, KeyConditionExpression=self._of_tenant(tenant)):
            yield self.from_item(item)

    @staticmethod
    def _of_tenant(tenant: str) -> Any:
        return Key(keys.PK).eq(keys.tenant_partition(tenant)) & Key(keys.SK).begins_with(keys.ENDPOINT_PREFIX)


# Webhook bodies above this are stored zlib-compressed when that saves a tenth or more:
# DynamoDB bills writes per KB of item and reads per 4 KB, and JSON compresses well.
COMPRESS_ABOVE_BYTES = 512


def _stored_body(body: str) -> dict[str, Any]:
    raw = body.encode("utf-8")
    if len(raw) > COMPRESS_ABOVE_BYTES:
        packed = zlib.compress(raw, 6)
        if len(packed) <= 0.9 * len(raw):
            return {"body_z": Binary(packed)}
    return {"body": body}


def _read_body(item: dict[str, Any]) -> str:
    if "body_z" in item:
        packed = item["body_z"]
        return zlib.decompress(packed.value if isinstance(packed, Binary) else bytes(packed)).decode("utf-8")
    return str(item["body"])


@translate_failures
class EventRepository:
    """Events with their deliveries and attempts, all in one item collection."""

    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    # -- events ---------------------------------------------------------------
    def create_event(self, event: Event, expires_at: int) -> bool:
        """Store the event once. False if an event with this id already exists."""
        item = {
            **keys.event(event.tenant, event.id),
            "id": event.id,
            "tenant": event.tenant,
            "type": event.type,
            "created_at": event.created_at,
            **_stored_body(event.body),
            "request_hash": event.request_hash,
            "deliveries": [{"id": d.id, "endpoint_id": d.endpoint_id, **({"paused": True} if d.paused else {})} for d in event.deliveries],
            self._ttl: expires_at,
        }
        return write_if(self._table.put_item, Item=item, ConditionExpression=Attr(keys.PK).not_exists()) is not None

    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None:
        item = self._table.get_item(Key=keys.event(tenant, event_id), ConsistentRead=consistent).get("Item")
        return self._event_from_item(item) if item else None

    def get_events(self, ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Event]:
        """Many events by (tenant, event id); what is not found (or not yet visible) is left out."""
        wanted = [keys.event(t, e) for t, e in dict.fromkeys(ids)]
        events = (self._event_from_item(item) for item in batch_get(self._table, wanted))
        return {(event.tenant, event.id): event for event in events}

    @staticmethod
    def _event_from_item(item: dict[str, Any]) -> Event:
        return Event(
            id=item["id"],
            tenant=item["tenant"],
            type=item["type"],
            created_at=item["created_at"],
            body=_read_body(item),
            request_hash=item["request_hash"],
            deliveries=tuple(PlannedDelivery(d["id"], d["endpoint_id"], bool(d.get("paused", False))) for d in item.get("deliveries", [])),
        )

    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]:
        """One Query over the event's item collection: the event, deliveries and attempts."""
        items = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id)))
        event = None
        deliveries: dict[str, Delivery] = {}
        attempts: dict[str, list[Attempt]] = {}
        for item in items:
            kind, delivery_id = keys.collection_member(item[keys.SK])
            if kind == "event":
                event = self._event_from_item(item)
            elif kind == "attempt":
                attempts.setdefault(delivery_id, []).append(self._attempt_from_item(item))
            elif kind == "delivery":
                d = self._delivery_from_item(item)
                deliveries[d.id] = d
        out = [replace(d, attempts=tuple(attempts.get(d.id, ()))) for d in deliveries.values()]
        return event, sorted(out, key=lambda d: d.id)

    # -- deliveries -----------------------------------------------------------
    def _delivery_item(self, d: Delivery, expires_at: int) -> dict[str, Any]:
        return {
            **keys.delivery(d.tenant, d.event_id, d.id),
            "id": d.id,
            "tenant": d.tenant,
            "event_id": d.event_id,
            "endpoint_id": d.endpoint_id,
            "status": d.status,
            "attempts_made": d.attempts_made,
            "generation": d.generation,
            "generation_first_attempt": d.generation_first_attempt,
            "generation_started_at": d.generation_started_at or d.created_at,
            "created_at": d.created_at,
            "updated_at": d.updated_at,
            self._ttl: expires_at,
            **keys.index_keys(d.tenant, d.endpoint_id, d.status, d.created_at, d.id),
        }

    def create_deliveries(self, deliveries: list[Delivery], expires_at: int) -> None:
        """Fresh deliveries of a just-created event: nothing can exist yet, so a batch write."""
        with self._table.batch_writer() as batch:
            for d in deliveries:
                batch.put_item(Item=self._delivery_item(d, expires_at))

    def ensure_delivery(self, d: Delivery, expires_at: int) -> None:
        """Create a delivery unless it exists (finishing an interrupted ingest)."""
        write_if(self._table.put_item, Item=self._delivery_item(d, expires_at), ConditionExpression=Attr(keys.PK).not_exists())

    @staticmethod
    def _delivery_from_item(item: dict[str, Any]) -> Delivery:
        return Delivery(
            id=item["id"],
            tenant=item["tenant"],
            event_id=item["event_id"],
            endpoint_id=item["endpoint_id"],
            status=item["status"],
            attempts_made=int(item.get("attempts_made", 0)),
            created_at=item.get("created_at", ""),
            updated_at=item.get("updated_at", ""),
            generation=int(item.get("generation", 0)),
            generation_first_attempt=int(item.get("generation_first_attempt", 1)),
            generation_started_at=item.get("generation_started_at") or item.get("created_at", ""),
            replay_id=item.get("replay_id", ""),
        )

    def claim_attempt(self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int, generation: int = 0) -> Claim:
        """Single-flight: take the right to make attempt `number`.

        Succeeds only while the delivery is pending, the attempt has not been
        recorded, and no live lease holds it. The lease expires, so a crashed
        worker's task (redelivered after the visibility timeout) can claim it
        again. A live lease on an earlier attempt means that attempt is still
        being recorded: the caller should come back shortly (`busy`).
        """
        result = try_write(
            self._table.update_item,
            Key=keys.delivery(tenant, event_id, delivery_id),
            # A parked (paused) delivery becomes pending again when its task comes back.
            UpdateExpression=f"SET lease_attempt = :n, lease_until = :until, #s = :pending REMOVE {keys.GSI_PK}, {keys.GSI_SK}",
            ConditionExpression=f"attribute_exists({keys.PK}) AND #s IN (:pending, :paused) AND generation = :g AND attempts_made < :n AND (attribute_not_exists(lease_until) OR lease_until < :now)",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={
                ":n": number,
                ":until": Decimal(str(round(now_epoch + lease_seconds, 3))),
                ":now": Decimal(str(round(now_epoch, 3))),
                ":pending": "pending",
                ":paused": "paused",
                ":g": generation,
            },
            ReturnValues="ALL_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        if not isinstance(result, Refused):
            return Claim(self._delivery_from_item(result["Attributes"]))
        old = result.item
        if old is None:
            return Claim(None, missing=True)
        busy = (
            int(old.get("generation", 0)) == generation
            and old.get("status") in ("pending", "paused")
            and int(old.get("attempts_made", 0)) < number
            and int(old.get("lease_attempt", number)) < number
        )
        return Claim(None, busy=busy)

    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None:
        """Write the attempt, then the delivery's new state (idempotent per attempt number)."""
        self._table.put_item(
            Item={
                **keys.attempt(delivery.tenant, delivery.event_id, delivery.id, attempt.number),
                "number": attempt.number,
                "at": attempt.at,
                "status_code": attempt.status_code,
                "error": attempt.error,
                "duration_ms": attempt.duration_ms,
                "outcome": attempt.outcome,
                "reason": attempt.reason,
                "response_body": attempt.response_body,
                "trigger": attempt.trigger,
                self._ttl: expires_at,
            }
        )
        index = keys.index_keys(delivery.tenant, delivery.endpoint_id, new_status, delivery.created_at, delivery.id)
        values: dict[str, Any] = {":status": new_status, ":n": attempt.number, ":now": now_iso, ":code": attempt.status_code, ":err": attempt.error}
        update = "SET #s = :status, attempts_made = :n, updated_at = :now, last_status_code = :code, last_error = :err"
        if index:
            update += f", {keys.GSI_PK} = :g1, {keys.GSI_SK} = :g2 REMOVE lease_until, lease_attempt"
            values |= {":g1": index[keys.GSI_PK], ":g2": index[keys.GSI_SK]}
        else:
            update += f" REMOVE lease_until, lease_attempt, {keys.GSI_PK}, {keys.GSI_SK}"
        write_if(
            self._table.update_item,
            Key=keys.delivery(delivery.tenant, delivery.event_id, delivery.id),
            UpdateExpression=update,
            # A later attempt already recorded (after a crash and redelivery) wins.
            ConditionExpression="attempts_made < :n",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues=values,
        )

    def restart(
        self, tenant: str, event_id: str, delivery_id: str, expected_generation: int, statuses: tuple[str, ...], now_iso: str, replay_id: str = ""
    ) -> Delivery | None:
        """Start a new generation: a fresh attempt budget from the next attempt number on.

        Conditional on the generation the caller saw, so a duplicate replay,
        redrive or retry request restarts a delivery only once. None when the
        delivery is gone, already restarted, or not in one of `statuses`.
        """
        names = {"#s": "status"}
        values: dict[str, Any] = {":g": expected_generation, ":g1": expected_generation + 1, ":one": 1, ":now": now_iso, ":pending": "pending", ":r": replay_id}
        status_names = []
        for i, status in enumerate(statuses):
            values[f":st{i}"] = status
            status_names.append(f":st{i}")
        result = write_if(
            self._table.update_item,
            Key=keys.delivery(tenant, event_id, delivery_id),
            UpdateExpression=(
                "SET generation = :g1, generation_first_attempt = attempts_made + :one, generation_started_at = :now, "
                f"#s = :pending, updated_at = :now, replay_id = :r REMOVE {keys.GSI_PK}, {keys.GSI_SK}, lease_until, lease_attempt"
            ),
            ConditionExpression=f"attribute_exists({keys.PK}) AND generation = :g AND #s IN ({', '.join(status_names)})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
        )
        return None if result is None else self._delivery_from_item(result["Attributes"])

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        item = self._table.get_item(Key=keys.delivery(tenant, event_id, delivery_id)).get("Item")
        return self._delivery_from_item(item) if item else None

    def park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool:
        """Set a pending delivery aside while its endpoint is disabled; its task is dropped.

        Re-enabling the endpoint finds it through the index and queues it again.
        """
        result = write_if(
            self._table.update_item,
            Key=keys.delivery(task_tenant, event_id, delivery_id),
            UpdateExpression="SET #s = :paused, updated_at = :now REMOVE lease_until, lease_attempt",
            ConditionExpression=f"attribute_exists({keys.PK}) AND #s = :pending",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":paused": "paused", ":pending": "pending", ":now": now_iso},
            ReturnValues="ALL_NEW",
        )
        if result is None:
            return False
        item = result["Attributes"]
        index = keys.index_keys(task_tenant, endpoint_id, "paused", item["created_at"], delivery_id)
        self._table.update_item(
            Key=keys.delivery(task_tenant, event_id, delivery_id),
            UpdateExpression=f"SET {keys.GSI_PK} = :g1, {keys.GSI_SK} = :g2",
            ConditionExpression="#s = :paused",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":g1": index[keys.GSI_PK], ":g2": index[keys.GSI_SK], ":paused": "paused"},
        )
        return True

    def deliveries_by_status(
        self, tenant: str, endpoint_id: str, status: str, since: str = "", until: str = "\uffff", limit: int = 100, cursor: str | None = None
    ) -> tuple[list[Delivery], str | None]:
        """A page of the endpoint's failed or paused deliveries, oldest first, from the sparse index."""
        if status not in REPLAYABLE_STATUSES:
            raise ValueError(f"status {status!r} is not indexed")
        partition = keys.index_partition(tenant, endpoint_id)
        items, nxt = query_page(
            self._table,
            limit,
            cursor,
            partition,
            index=True,
            IndexName=keys.INDEX,
            KeyConditionExpression=Key(keys.GSI_PK).eq(partition) & Key(keys.GSI_SK).between(keys.index_sort(status, since), keys.index_sort(status, until)),
        )
        return [self._delivery_from_item(i) for i in items], nxt

    @staticmethod
    def _attempt_from_item(item: dict[str, Any]) -> Attempt:
        return Attempt(
            number=int(item["number"]),
            at=item["at"],
            status_code=_int(item.get("status_code")),
            error=item.get("error"),
            duration_ms=int(item.get("duration_ms", 0)),
            outcome=item.get("outcome", ""),
            reason=item.get("reason", ""),
            response_body=item.get("response_body", ""),
            trigger=item.get("trigger", "scheduled"),
        )
