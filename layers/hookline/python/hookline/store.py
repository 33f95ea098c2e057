"""DynamoDB repositories. All AWS access to the data table lives here.

One table, keys chosen so every read is a GetItem or a single-partition Query
(docs/architecture.md lists each access pattern and its cost):

    Endpoint   pk T#<tenant>                 sk EP#<ep_id>
    Event      pk E#<tenant>#<evt_id>        sk EVENT
    Delivery   pk E#<tenant>#<evt_id>        sk DLV#<dlv_id>
    Attempt    pk E#<tenant>#<evt_id>        sk DLV#<dlv_id>#A#<nnnn>
    API key    pk KEY#<sha256>               sk KEY        (hookline.apikeys)

The tenant is part of every key, so a caller can only ever address its own items.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from hookline.models import Attempt, Delivery, Endpoint, Event, PlannedDelivery


class InvalidCursor(ValueError):
    pass


@dataclass(frozen=True)
class Claim:
    delivery: Delivery | None
    busy: bool = False  # an earlier attempt still holds the lease: come back shortly


def _tenant_pk(tenant: str) -> str:
    return f"T#{tenant}"


def _event_pk(tenant: str, event_id: str) -> str:
    return f"E#{tenant}#{event_id}"


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def is_conditional_failure(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def encode_cursor(key: dict[str, Any] | None) -> str | None:
    if not key:
        return None
    return base64.urlsafe_b64encode(json.dumps(key, sort_keys=True).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, pk: str) -> dict[str, Any] | None:
    if not cursor:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise InvalidCursor("cursor is not valid") from None
    if not isinstance(key, dict) or key.get("pk") != pk or not isinstance(key.get("sk"), str) or set(key) != {"pk", "sk"}:
        raise InvalidCursor("cursor is not valid")
    return key


class EndpointRepository:
    def __init__(self, table: Any):
        self._table = table

    @staticmethod
    def _to_item(ep: Endpoint) -> dict[str, Any]:
        item: dict[str, Any] = {
            "pk": _tenant_pk(ep.tenant),
            "sk": f"EP#{ep.id}",
            "id": ep.id,
            "tenant": ep.tenant,
            "url": ep.url,
            "secret": ep.secret,
            "event_types": list(ep.event_types),
            "description": ep.description,
            "status": ep.status,
            "created_at": ep.created_at,
            "updated_at": ep.updated_at,
        }
        if ep.disabled_reason:
            item["disabled_reason"] = ep.disabled_reason
        return item

    @staticmethod
    def _from_item(item: dict[str, Any]) -> Endpoint:
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
        )

    def create(self, ep: Endpoint) -> None:
        self._table.put_item(Item=self._to_item(ep), ConditionExpression=Attr("pk").not_exists())

    def save(self, ep: Endpoint) -> None:
        """Write the fields a caller may change; the endpoint must still exist (a concurrent delete wins).

        An update, not a put, so it never overwrites state the workers own (the pause).
        """
        names = {"#u": "url", "#t": "event_types", "#d": "description", "#s": "status", "#r": "disabled_reason", "#at": "updated_at"}
        values = {":u": ep.url, ":t": list(ep.event_types), ":d": ep.description, ":s": ep.status, ":r": ep.disabled_reason, ":at": ep.updated_at}
        self._table.update_item(
            Key={"pk": _tenant_pk(ep.tenant), "sk": f"EP#{ep.id}"},
            UpdateExpression="SET #u = :u, #t = :t, #d = :d, #s = :s, #r = :r, #at = :at",
            ConditionExpression=Attr("pk").exists(),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def pause(self, tenant: str, endpoint_id: str, until_epoch: float) -> None:
        """Pause every delivery to the endpoint until `until_epoch`; a longer pause already set wins."""
        try:
            self._table.update_item(
                Key={"pk": _tenant_pk(tenant), "sk": f"EP#{endpoint_id}"},
                UpdateExpression="SET paused_until = :t",
                ConditionExpression="attribute_exists(pk) AND (attribute_not_exists(paused_until) OR paused_until < :t)",
                ExpressionAttributeValues={":t": Decimal(str(round(until_epoch, 3)))},
            )
        except ClientError as exc:
            if not is_conditional_failure(exc):
                raise

    def disable(self, tenant: str, endpoint_id: str, reason: str, now_iso: str) -> None:
        try:
            self._table.update_item(
                Key={"pk": _tenant_pk(tenant), "sk": f"EP#{endpoint_id}"},
                UpdateExpression="SET #s = :s, disabled_reason = :r, updated_at = :now",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":s": "disabled", ":r": reason, ":now": now_iso},
            )
        except ClientError as exc:
            if not is_conditional_failure(exc):
                raise

    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None:
        item = self._table.get_item(Key={"pk": _tenant_pk(tenant), "sk": f"EP#{endpoint_id}"}).get("Item")
        return self._from_item(item) if item else None

    def delete(self, tenant: str, endpoint_id: str) -> bool:
        try:
            self._table.delete_item(Key={"pk": _tenant_pk(tenant), "sk": f"EP#{endpoint_id}"}, ConditionExpression=Attr("pk").exists())
        except ClientError as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        pk = _tenant_pk(tenant)
        kwargs: dict[str, Any] = {"KeyConditionExpression": Key("pk").eq(pk) & Key("sk").begins_with("EP#"), "Limit": limit}
        start = decode_cursor(cursor, pk)
        if start:
            kwargs["ExclusiveStartKey"] = start
        result = self._table.query(**kwargs)
        return [self._from_item(i) for i in result.get("Items", [])], encode_cursor(result.get("LastEvaluatedKey"))

    def all_for_tenant(self, tenant: str) -> Iterator[Endpoint]:
        cursor: str | None = None
        while True:
            items, cursor = self.page(tenant, 100, cursor)
            yield from items
            if not cursor:
                return


class EventRepository:
    """Events with their deliveries and attempts, all in one item collection."""

    def __init__(self, table: Any, ttl_attribute: str = "expires_at"):
        self._table = table
        self._ttl = ttl_attribute

    # -- events ---------------------------------------------------------------
    def create_event(self, event: Event, expires_at: int) -> bool:
        """Store the event once. False if an event with this id already exists."""
        item = {
            "pk": _event_pk(event.tenant, event.id),
            "sk": "EVENT",
            "id": event.id,
            "tenant": event.tenant,
            "type": event.type,
            "created_at": event.created_at,
            "body": event.body,
            "request_hash": event.request_hash,
            "deliveries": [{"id": d.id, "endpoint_id": d.endpoint_id} for d in event.deliveries],
            self._ttl: expires_at,
        }
        try:
            self._table.put_item(Item=item, ConditionExpression=Attr("pk").not_exists())
        except ClientError as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def get_event(self, tenant: str, event_id: str) -> Event | None:
        item = self._table.get_item(Key={"pk": _event_pk(tenant, event_id), "sk": "EVENT"}).get("Item")
        return self._event_from_item(item) if item else None

    @staticmethod
    def _event_from_item(item: dict[str, Any]) -> Event:
        return Event(
            id=item["id"],
            tenant=item["tenant"],
            type=item["type"],
            created_at=item["created_at"],
            body=item["body"],
            request_hash=item["request_hash"],
            deliveries=tuple(PlannedDelivery(d["id"], d["endpoint_id"]) for d in item.get("deliveries", [])),
        )

    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]:
        """One Query over the event's item collection: the event, deliveries and attempts."""
        pk = _event_pk(tenant, event_id)
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"KeyConditionExpression": Key("pk").eq(pk)}
        while True:
            result = self._table.query(**kwargs)
            items.extend(result.get("Items", []))
            if "LastEvaluatedKey" not in result:
                break
            kwargs["ExclusiveStartKey"] = result["LastEvaluatedKey"]
        event = None
        deliveries: dict[str, Delivery] = {}
        attempts: dict[str, list[Attempt]] = {}
        for item in items:
            sk = item["sk"]
            if sk == "EVENT":
                event = self._event_from_item(item)
            elif "#A#" in sk:
                attempts.setdefault(sk.split("#")[1], []).append(self._attempt_from_item(item))
            elif sk.startswith("DLV#"):
                d = self._delivery_from_item(item)
                deliveries[d.id] = d
        out = [replace(d, attempts=tuple(attempts.get(d.id, ()))) for d in deliveries.values()]
        return event, sorted(out, key=lambda d: d.id)

    # -- deliveries -----------------------------------------------------------
    def _delivery_item(self, d: Delivery, expires_at: int) -> dict[str, Any]:
        return {
            "pk": _event_pk(d.tenant, d.event_id),
            "sk": f"DLV#{d.id}",
            "id": d.id,
            "tenant": d.tenant,
            "event_id": d.event_id,
            "endpoint_id": d.endpoint_id,
            "status": d.status,
            "attempts_made": d.attempts_made,
            "created_at": d.created_at,
            "updated_at": d.updated_at,
            self._ttl: expires_at,
        }

    def create_deliveries(self, deliveries: list[Delivery], expires_at: int) -> None:
        """Fresh deliveries of a just-created event: nothing can exist yet, so a batch write."""
        with self._table.batch_writer() as batch:
            for d in deliveries:
                batch.put_item(Item=self._delivery_item(d, expires_at))

    def ensure_delivery(self, d: Delivery, expires_at: int) -> None:
        """Create a delivery unless it exists (finishing an interrupted ingest)."""
        try:
            self._table.put_item(Item=self._delivery_item(d, expires_at), ConditionExpression=Attr("pk").not_exists())
        except ClientError as exc:
            if not is_conditional_failure(exc):
                raise

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
        )

    def claim_attempt(self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int) -> Claim:
        """Single-flight: take the right to make attempt `number`.

        Succeeds only while the delivery is pending, the attempt has not been
        recorded, and no live lease holds it. The lease expires, so a crashed
        worker's task (redelivered after the visibility timeout) can claim it
        again. A live lease on an earlier attempt means that attempt is still
        being recorded: the caller should come back shortly (`busy`).
        """
        try:
            result = self._table.update_item(
                Key={"pk": _event_pk(tenant, event_id), "sk": f"DLV#{delivery_id}"},
                UpdateExpression="SET lease_attempt = :n, lease_until = :until",
                ConditionExpression="attribute_exists(pk) AND #s = :pending AND attempts_made < :n AND (attribute_not_exists(lease_until) OR lease_until < :now)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={
                    ":n": number,
                    ":until": Decimal(str(round(now_epoch + lease_seconds, 3))),
                    ":now": Decimal(str(round(now_epoch, 3))),
                    ":pending": "pending",
                },
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if not is_conditional_failure(exc):
                raise
            old = exc.response.get("Item")
            busy = bool(old and old.get("status") == "pending" and int(old.get("attempts_made", 0)) < number and int(old.get("lease_attempt", number)) < number)
            return Claim(None, busy=busy)
        return Claim(self._delivery_from_item(result["Attributes"]))

    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None:
        """Write the attempt, then the delivery's new state (idempotent per attempt number)."""
        self._table.put_item(
            Item={
                "pk": _event_pk(delivery.tenant, delivery.event_id),
                "sk": f"DLV#{delivery.id}#A#{attempt.number:04d}",
                "number": attempt.number,
                "at": attempt.at,
                "status_code": attempt.status_code,
                "error": attempt.error,
                "duration_ms": attempt.duration_ms,
                "outcome": attempt.outcome,
                "reason": attempt.reason,
                "response_body": attempt.response_body,
                self._ttl: expires_at,
            }
        )
        try:
            self._table.update_item(
                Key={"pk": _event_pk(delivery.tenant, delivery.event_id), "sk": f"DLV#{delivery.id}"},
                UpdateExpression="SET #s = :status, attempts_made = :n, updated_at = :now, last_status_code = :code, last_error = :err REMOVE lease_until, lease_attempt",
                # A later attempt already recorded (after a crash and redelivery) wins.
                ConditionExpression="attempts_made < :n",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":status": new_status, ":n": attempt.number, ":now": now_iso, ":code": attempt.status_code, ":err": attempt.error},
            )
        except ClientError as exc:
            if not is_conditional_failure(exc):
                raise

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
        )
