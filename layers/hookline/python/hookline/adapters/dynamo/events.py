"""Events with their deliveries and attempts in the data table: one item collection per event.

The event, its deliveries and their attempts share one partition
(keys.event_partition), so one Query reads an event whole; their attributes
are laid out in hookline.adapters.dynamo.event_items. Failed and paused
deliveries also carry the sparse endpoint-deliveries index's keys. Writes that
may be repeated (after a crash and redelivery) are conditional, so repeating
one changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Attr, Key

from hookline.adapters.dynamo import event_items as items
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import (
    Refused,
    batch_get,
    count_indexed,
    decode_cursor,
    decode_position,
    encode_cursor,
    encode_position,
    query_all,
    query_page,
    try_write,
    write_if,
)
from hookline.adapters.failures import translate_failures
from hookline.core.broadcast import Fanout
from hookline.core.claims import claim_verdict
from hookline.core.errors import InvalidCursor
from hookline.core.models import INDEXED_STATUSES, Attempt, Delivery, Event


@dataclass(frozen=True)
class Claim:
    delivery: Delivery | None
    busy: bool = False  # an earlier attempt still holds the lease: come back shortly
    missing: bool = False  # no such delivery (its event expired or never existed)


@translate_failures
class EventRepository:
    """Events with their deliveries and attempts, all in one item collection."""

    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    # -- events ---------------------------------------------------------------
    def create_event(self, event: Event, expires_at: int) -> bool:
        """Store the event once. False if an event with this id already exists."""
        item = items.event_item(event, self._ttl, expires_at)
        return write_if(self._table.put_item, Item=item, ConditionExpression=Attr(keys.PK).not_exists()) is not None

    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None:
        item = self._table.get_item(Key=keys.event(tenant, event_id), ConsistentRead=consistent).get("Item")
        return items.event_from(item) if item else None

    def get_events(self, ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Event]:
        """Many events by (tenant, event id); what is not found (or not yet visible) is left out."""
        wanted = [keys.event(t, e) for t, e in dict.fromkeys(ids)]
        events = (items.event_from(item) for item in batch_get(self._table, wanted))
        return {(event.tenant, event.id): event for event in events}

    def read_for_sending(
        self, event_ids: Iterable[tuple[str, str]], delivery_ids: Iterable[tuple[str, str, str]]
    ) -> tuple[dict[tuple[str, str], Event], dict[tuple[str, str, str], Delivery]]:
        delivery_ids = list(delivery_ids)
        event_ids = [*event_ids, *((t, e) for t, e, _ in delivery_ids)]
        """A batch's event bodies and its fresh tasks' deliveries, in one strongly consistent BatchGetItem (what is not found is left out)."""
        wanted = [keys.event(t, e) for t, e in dict.fromkeys(event_ids)] + [keys.delivery(t, e, d) for t, e, d in dict.fromkeys(delivery_ids)]
        events: dict[tuple[str, str], Event] = {}
        deliveries: dict[tuple[str, str, str], Delivery] = {}
        for item in batch_get(self._table, wanted, consistent=True):
            if keys.collection_member(item[keys.SK])[0] == "event":
                event = items.event_from(item)
                events[(event.tenant, event.id)] = event
            else:
                d = items.delivery_from(item)
                deliveries[(d.tenant, d.event_id, d.id)] = d
        for t, e, d_id in dict.fromkeys(delivery_ids):
            planned = events[(t, e)].planned_delivery(d_id) if (t, e) in events and (t, e, d_id) not in deliveries else None
            if planned is not None:  # only planned on its event so far
                deliveries[(t, e, d_id)] = planned
        return events, deliveries

    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]:
        """One Query over the event's item collection: the event, deliveries and attempts."""
        collection = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id)))
        event = None
        deliveries: dict[str, Delivery] = {}
        attempts: dict[str, list[Attempt]] = {}
        for item in collection:
            kind, delivery_id = keys.collection_member(item[keys.SK])
            if kind == "event":
                event = items.event_from(item)
            elif kind == "attempt":
                attempts.setdefault(delivery_id, []).append(items.attempt_from(item))
            elif kind == "delivery":
                d = items.delivery_from(item)
                deliveries[d.id] = d
        for planned in event.deliveries if event is not None else ():
            only_planned = event.planned_delivery(planned.id) if event is not None and planned.id not in deliveries else None
            if only_planned is not None:  # no item of its own yet
                deliveries[planned.id] = only_planned
        out = [items.with_attempts(d, attempts.get(d.id, ())) for d in deliveries.values()]
        return event, sorted(out, key=lambda d: d.id)

    def advance_fanout(self, tenant: str, event_id: str, current: Fanout, advanced: Fanout) -> bool:
        """Replace a broadcast's fan-out state, once: False if its step is no longer `current`'s (another job took it)."""
        taken = write_if(
            self._table.update_item,
            Key=keys.event(tenant, event_id),
            UpdateExpression="SET #b = :next",
            ConditionExpression="#b.step = :step",
            ExpressionAttributeNames={"#b": "broadcast"},
            ExpressionAttributeValues={":next": items.fanout_map(advanced), ":step": current.step},
        )
        return taken is not None

    def deliveries_page(self, tenant: str, event_id: str, limit: int, cursor: str | None) -> tuple[list[Delivery], str | None]:
        """Up to `limit` of the event's deliveries in id order, each with its attempts, and the cursor to the next (None at the end).

        Reads the collection's delivery and attempt items in key order (a
        delivery's attempts follow it) up to the first delivery past the page,
        so a delivery's attempts never straddle two pages, and a page reads
        what it shows plus one item. The event item itself sorts after them
        (`EVENT` > `DLV#…`) and is not read.
        """
        partition = keys.event_partition(tenant, event_id)
        query: dict[str, Any] = {"KeyConditionExpression": Key(keys.PK).eq(partition) & Key(keys.SK).begins_with(keys.DELIVERY_PREFIX), "Limit": limit + 1}
        start = decode_cursor(cursor, partition)
        if start and not start[keys.SK].startswith(keys.DELIVERY_PREFIX):
            raise InvalidCursor("cursor is not valid")  # DynamoDB refuses a start key outside the key condition
        found: list[Delivery] = []
        attempts: dict[str, list[Attempt]] = {}
        last: dict[str, Any] | None = None
        nxt: str | None = None
        while nxt is None:
            result = self._table.query(**query, **({"ExclusiveStartKey": start} if start else {}))
            for item in result.get("Items", []):
                kind, delivery_id = keys.collection_member(item[keys.SK])
                if kind == "delivery" and len(found) == limit:
                    nxt = encode_cursor(last)
                    break
                if kind == "delivery":
                    found.append(items.delivery_from(item))
                elif kind == "attempt":
                    attempts.setdefault(delivery_id, []).append(items.attempt_from(item))
                last = {keys.PK: item[keys.PK], keys.SK: item[keys.SK]}
            start = result.get("LastEvaluatedKey")
            if not start:
                break
        return [items.with_attempts(d, attempts.get(d.id, ())) for d in found], nxt

    # -- deliveries -----------------------------------------------------------
    def create_deliveries(self, deliveries: list[Delivery], expires_at: int) -> None:
        """Fresh deliveries of a just-created event: nothing can exist yet, so a batch write."""
        with self._table.batch_writer() as batch:
            for d in deliveries:
                batch.put_item(Item=items.delivery_item(d, self._ttl, expires_at))

    def delivery_with_attempts(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """One Query of the delivery's items (it and its attempts share its sort-key prefix)."""
        prefix = keys.delivery(tenant, event_id, delivery_id)[keys.SK]
        found = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id)) & Key(keys.SK).begins_with(prefix))
        delivery, attempts = None, []
        for item in found:
            kind, of = keys.collection_member(item[keys.SK])
            if of != delivery_id:
                continue  # a longer id that shares the prefix (never for generated ids; cheap to rule out)
            if kind == "delivery":
                delivery = items.delivery_from(item)
            elif kind == "attempt":
                attempts.append(items.attempt_from(item))
        if delivery is None:
            delivery = self._planned(tenant, event_id, delivery_id)
        return None if delivery is None else items.with_attempts(delivery, attempts)

    def _planned(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """A delivery without an item of its own: one its event planned and nothing has been stored about yet."""
        event = self.get_event(tenant, event_id, consistent=True)
        return event.planned_delivery(delivery_id) if event is not None else None

    def ensure_delivery(self, d: Delivery, expires_at: int) -> Delivery:
        """Create a delivery unless it exists (finishing an interrupted ingest, a broadcast's page); the delivery as stored.

        One conditional PutItem either way: a refused one hands back the item that was there.
        """
        result = try_write(
            self._table.put_item,
            Item=items.delivery_item(d, self._ttl, expires_at),
            ConditionExpression=Attr(keys.PK).not_exists(),
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        if isinstance(result, Refused) and result.item is not None:
            return items.delivery_from(result.item)
        return replace(d, attempts=(), generation_started_at=d.generation_started_at or d.created_at)

    def claim_attempt(self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int, generation: int = 0) -> Claim:
        """Single-flight: take the right to make attempt `number` (see `_claim`); a delivery only planned on its event gets its item first."""
        claim = self._claim(tenant, event_id, delivery_id, number, now_epoch, lease_seconds, generation)
        if claim.missing and self._materialize(tenant, event_id, delivery_id):
            return self._claim(tenant, event_id, delivery_id, number, now_epoch, lease_seconds, generation)
        return claim

    def _materialize(self, tenant: str, event_id: str, delivery_id: str) -> bool:
        """Write the item of a delivery its event planned and nothing stored yet (it expires with the event); False if there is none to write."""
        raw = self._table.get_item(Key=keys.event(tenant, event_id), ConsistentRead=True).get("Item")
        planned = items.event_from(raw).planned_delivery(delivery_id) if raw else None
        if planned is None:
            return False
        item = items.delivery_item(planned, self._ttl, int(raw.get(self._ttl, 0)))
        return write_if(self._table.put_item, Item=item, ConditionExpression=Attr(keys.PK).not_exists()) is not None

    def _claim(self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int, generation: int = 0) -> Claim:
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
            return Claim(items.delivery_from(result["Attributes"]))
        old = result.item
        if old is None:
            return Claim(None, missing=True)
        return Claim(None, busy=claim_verdict(items.delivery_from(old), number, generation, now_epoch) == "busy")

    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None:
        """Record the attempt and the delivery's new state (idempotent per attempt number).

        A delivery's first success is one UpdateItem: the delivery item takes the status and keeps
        the attempt (`event_items.SUCCESS`). Any other attempt, or a success after one already kept
        (a replayed delivery), is an attempt item of its own, then the delivery's update.
        """
        if new_status == "succeeded" and self._succeed(delivery, attempt, now_iso, expires_at):
            return
        self._table.put_item(Item=items.attempt_item(delivery, attempt, self._ttl, expires_at))
        later = "attempts_made < :n"
        self._set_status(
            delivery, attempt, new_status, now_iso, expires_at, {}, f"attribute_not_exists({keys.PK}) OR {later}" if delivery.planned_only else later
        )

    def _succeed(self, delivery: Delivery, attempt: Attempt, now_iso: str, expires_at: int) -> bool:
        """The first success, kept on the delivery item with its status; False if it already keeps one, a later attempt was recorded, or it is gone."""
        first = f"attempts_made < :n AND attribute_not_exists({items.SUCCESS})"
        return self._set_status(
            delivery,
            attempt,
            "succeeded",
            now_iso,
            expires_at,
            {items.SUCCESS: items.attempt_fields(attempt)},
            f"attribute_not_exists({keys.PK}) OR ({first})" if delivery.planned_only else f"attribute_exists({keys.PK}) AND {first}",
        )

    def _set_status(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int, extra: dict[str, Any], condition: str) -> bool:
        """The delivery's new state after `attempt`, on `condition`. A delivery only planned on its event gets
        its item here: its first recorded attempt writes the item whole (the base attributes if not there yet)."""
        index = keys.index_keys(delivery.tenant, delivery.endpoint_id, new_status, delivery.created_at, delivery.id)
        values: dict[str, Any] = {":status": new_status, ":n": attempt.number, ":now": now_iso, ":code": attempt.status_code, ":err": attempt.error}
        update = "SET #s = :status, attempts_made = :n, updated_at = :now, last_status_code = :code, last_error = :err"
        names_extra: dict[str, str] = {}
        # Its base attributes if only planned so far; its log keys always (an item an earlier release wrote has none: it joins the log here).
        base = items.delivery_item(delivery, self._ttl, expires_at) if delivery.planned_only else {}
        base |= keys.log_keys(delivery.tenant, delivery.endpoint_id, delivery.created_at, delivery.id)
        for i, name in enumerate(k for k in base if k not in (keys.PK, keys.SK, "status", "attempts_made", "updated_at", keys.GSI_PK, keys.GSI_SK)):
            update += f", #b{i} = if_not_exists(#b{i}, :b{i})"
            values[f":b{i}"] = base[name]
            names_extra[f"#b{i}"] = name
        for i, (name, value) in enumerate(extra.items()):
            update += f", {name} = :x{i}"
            values[f":x{i}"] = value
        if index:
            update += f", {keys.GSI_PK} = :g1, {keys.GSI_SK} = :g2 REMOVE lease_until, lease_attempt"
            values |= {":g1": index[keys.GSI_PK], ":g2": index[keys.GSI_SK]}
        else:
            update += f" REMOVE lease_until, lease_attempt, {keys.GSI_PK}, {keys.GSI_SK}"
        written = write_if(
            self._table.update_item,
            Key=keys.delivery(delivery.tenant, delivery.event_id, delivery.id),
            UpdateExpression=update,
            # A later attempt already recorded (after a crash and redelivery) wins.
            ConditionExpression=condition,
            ExpressionAttributeNames={"#s": "status", **names_extra},
            ExpressionAttributeValues=values,
        )
        return written is not None

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
        return None if result is None else items.delivery_from(result["Attributes"])

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        item = self._table.get_item(Key=keys.delivery(tenant, event_id, delivery_id)).get("Item")
        return items.delivery_from(item) if item else self._planned(tenant, event_id, delivery_id)

    def park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool:
        """Set a pending delivery aside while its endpoint is disabled; its task is dropped.

        Re-enabling the endpoint finds it through the index and queues it again. A delivery only
        planned on its event gets its item first.
        """
        if self._park(task_tenant, event_id, delivery_id, endpoint_id, now_iso):
            return True
        return self._materialize(task_tenant, event_id, delivery_id) and self._park(task_tenant, event_id, delivery_id, endpoint_id, now_iso)

    def _park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool:
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

    def count_by_status(self, tenant: str, endpoint_id: str, status: str, bound: int) -> tuple[int, bool]:
        """How many of the endpoint's deliveries are `status` (failed, paused or pending), counting at most `bound`; and whether there are more."""
        if status not in INDEXED_STATUSES:
            raise ValueError(f"status {status!r} is not indexed")
        return count_indexed(self._table, tenant, endpoint_id, status, bound)

    def deliveries_by_status(
        self,
        tenant: str,
        endpoint_id: str,
        status: str,
        since: str = "",
        until: str = "\uffff",
        limit: int = 100,
        cursor: str | None = None,
        newest_first: bool = False,
    ) -> tuple[list[Delivery], str | None]:
        """A page of the endpoint's failed, paused or pending deliveries, oldest (or newest) first, from the sparse index."""
        if status not in INDEXED_STATUSES:
            raise ValueError(f"status {status!r} is not indexed")
        partition = keys.index_partition(tenant, endpoint_id)
        page, nxt = query_page(
            self._table,
            limit,
            cursor,
            partition,
            IndexName=keys.INDEX,
            KeyConditionExpression=Key(keys.GSI_PK).eq(partition) & Key(keys.GSI_SK).between(keys.index_sort(status, since), keys.index_sort(status, until)),
            ScanIndexForward=not newest_first,
        )
        return [items.delivery_from(i) for i in page], nxt

    def log_page(
        self, tenant: str, endpoint_id: str, since: str = "", until: str = "~", limit: int = 20, cursor: str | None = None, newest_first: bool = True
    ) -> tuple[list[Delivery], str | None]:
        """A page of the endpoint's deliveries of every status, newest (or oldest) first by creation, from the endpoint-log index.

        Each of the endpoint's LOG_SHARDS partitions gives its first `limit` + 1 keys created in [since, until] past
        the cursor; merged, the first `limit` are the page, read whole in one BatchGetItem (eventually
        consistent: a log, not a decision). The cursor is the last one's position, so a page costs the same however
        long the log. A delivery that expired meanwhile is left out.
        """
        owner = keys.log_partition(tenant, endpoint_id, 0)
        past = decode_position(cursor, owner)  # the last position shown: this page starts just past it
        lower, upper = keys.log_sort(since or "0"), until
        if past:
            lower, upper = (lower, min(upper, past)) if newest_first else (max(lower, past), upper)
        if lower > upper:
            return [], None
        entries: list[dict[str, Any]] = []
        for shard in range(keys.LOG_SHARDS):
            partition = keys.log_partition(tenant, endpoint_id, shard)
            found = self._table.query(
                IndexName=keys.LOG_INDEX,
                KeyConditionExpression=Key(keys.GSI4_PK).eq(partition) & Key(keys.GSI4_SK).between(lower, upper),
                ScanIndexForward=not newest_first,
                Limit=limit + 1 + (1 if past else 0),
            ).get("Items", [])
            entries += [e for e in found if e[keys.GSI4_SK] != past]
        entries.sort(key=lambda e: e[keys.GSI4_SK], reverse=newest_first)
        page = entries[:limit]
        read = {(i[keys.PK], i[keys.SK]): items.delivery_from(i) for i in batch_get(self._table, [{keys.PK: e[keys.PK], keys.SK: e[keys.SK]} for e in page])}
        shown = [read[(e[keys.PK], e[keys.SK])] for e in page if (e[keys.PK], e[keys.SK]) in read]
        return shown, encode_position(owner, page[-1][keys.GSI4_SK]) if len(entries) > limit else None
