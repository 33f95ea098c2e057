"""Events with their deliveries and attempts in the data table.

An event and its deliveries' attempts share one partition (keys.event_partition).
A delivery is kept in its endpoint's delivery log (keys.delivery): one of the
endpoint's DELIVERY_SHARDS partitions, sorted by delivery id, which is by
creation time. So the item a delivery's first recorded attempt writes is also
its entry in the endpoint's log, and reading the log costs no index. The
delivery id names its endpoint's mark (hookline.core.ids), so the event and the
delivery id alone locate it.

An event an earlier release accepted (layout LAYOUT_EVENT_KEYED) keeps its
deliveries in its own partition, as that release wrote them: a delivery not
found in the log is looked for there when its event says so, until it expires
(the retention). Attributes are laid out in hookline.adapters.dynamo.event_items.
Failed, paused and pending deliveries also carry the sparse endpoint-deliveries
index's keys. Writes that may be repeated (after a crash and redelivery) are
conditional, so repeating one changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from hookline.adapters.dynamo import event_items as items
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Attr, Key
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
from hookline.core import ids
from hookline.core.broadcast import Fanout
from hookline.core.claims import claim_verdict
from hookline.core.clock import epoch_ms, parse_iso
from hookline.core.errors import InvalidCursor
from hookline.core.models import INDEXED_STATUSES, LAYOUT_ENDPOINT_KEYED, LAYOUT_EVENT_KEYED, Attempt, Delivery, Event


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
        self,
        event_ids: Iterable[tuple[str, str]],
        delivery_ids: Iterable[tuple[str, str, str]],
        attempted: Iterable[tuple[str, str, str]] = (),
        consistent: bool = True,
    ) -> tuple[dict[tuple[str, str], Event], dict[tuple[str, str, str], Delivery]]:
        """A batch's event bodies and its fresh tasks' deliveries, in one BatchGetItem (what is not found is left out).

        A delivery not found in its endpoint's log takes a second read in its event's partition when its event is an
        earlier release's (LAYOUT_EVENT_KEYED), or when it is one of `attempted` (an attempt was made, so its item
        exists: during a deploy, the earlier release may have stored it there). Else it is only planned so far.

        `consistent` False reads eventually consistent, at half the read units, where a stale answer is safe: an event's
        body and planned deliveries never change once stored, and one not seen yet (just written) is read again
        strongly, its deliveries with it; a delivery read stale can only look earlier than it is, so a fresh task
        (hookline.core.claims) whose twin recorded within DynamoDB's replication lag sends once more, with the same
        webhook-id, as two twins handed out at once do anyway.
        """
        attempted = set(attempted)
        delivery_ids = list(dict.fromkeys(delivery_ids))
        event_ids = [*event_ids, *((t, e) for t, e, _ in delivery_ids)]
        wanted = [keys.event(t, e) for t, e in dict.fromkeys(event_ids)] + [keys.delivery(t, e, d) for t, e, d in delivery_ids]
        events: dict[tuple[str, str], Event] = {}
        deliveries: dict[tuple[str, str, str], Delivery] = {}

        def take(found: list[dict[str, Any]]) -> None:
            for item in found:
                if item[keys.SK] == keys.EVENT_SK:
                    event = items.event_from(item)
                    events[(event.tenant, event.id)] = event
                else:
                    d = items.delivery_from(item)
                    deliveries[(d.tenant, d.event_id, d.id)] = d

        take(batch_get(self._table, wanted, consistent=consistent))
        unseen = {(t, e) for t, e in dict.fromkeys(event_ids) if (t, e) not in events} if not consistent else set()
        if unseen:
            again = [keys.event(t, e) for t, e in unseen] + [keys.delivery(t, e, d) for t, e, d in delivery_ids if (t, e) in unseen]
            take(batch_get(self._table, again, consistent=True))
        earlier = [
            keys.delivery(t, e, d, LAYOUT_EVENT_KEYED)
            for t, e, d in delivery_ids
            if (t, e, d) not in deliveries and (t, e) in events and (events[(t, e)].layout == LAYOUT_EVENT_KEYED or (t, e, d) in attempted)
        ]
        if earlier:
            take(batch_get(self._table, earlier, consistent=consistent))
        for t, e, d_id in delivery_ids:
            planned = events[(t, e)].planned_delivery(d_id) if (t, e) in events and (t, e, d_id) not in deliveries else None
            if planned is not None:  # only planned on its event so far
                deliveries[(t, e, d_id)] = planned
        return events, deliveries

    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]:
        """The event with its deliveries and attempts: one Query over the event's partition (the event, the attempts, an
        earlier release's deliveries), then its planned deliveries read from their endpoints' logs in one BatchGetItem."""
        collection = list(query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id))))
        event = next((items.event_from(i) for i in collection if i[keys.SK] == keys.EVENT_SK), None)
        if event is not None and event.layout == LAYOUT_ENDPOINT_KEYED and event.deliveries:
            collection += batch_get(self._table, [keys.delivery(tenant, event_id, p.id) for p in event.deliveries])
        deliveries: dict[str, Delivery] = {}
        attempts: dict[str, list[Attempt]] = {}
        for item in collection:
            kind, delivery_id = keys.collection_member(item[keys.SK]) if item[keys.PK] == keys.event_partition(tenant, event_id) else ("delivery", "")
            if kind == "attempt":
                attempts.setdefault(delivery_id, []).append(items.attempt_from(item))
            elif kind == "delivery":
                d = items.delivery_from(item)
                # Kept twice only if both releases stored it during a deploy: the one further on is shown.
                if d.id not in deliveries or d.attempts_made > deliveries[d.id].attempts_made:
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
        """Up to `limit` of an earlier release's broadcast's deliveries (LAYOUT_EVENT_KEYED: kept in its partition) in id
        order, each with its attempts, and the cursor to the next (None at the end). A broadcast accepted now is paged
        through the tenant's endpoints instead (`deliveries_with_attempts`).

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

    def deliveries_with_attempts(self, tenant: str, event_id: str, delivery_ids: list[str]) -> list[Delivery]:
        """The event's deliveries of these ids that are stored, in the order asked, each with its attempts: one
        BatchGetItem, then a Query of the attempts of each one that made an attempt its own item does not keep."""
        wanted = list(dict.fromkeys(delivery_ids))
        read = {str(i["id"]): items.delivery_from(i) for i in batch_get(self._table, [keys.delivery(tenant, event_id, i) for i in wanted])}
        found = [read[i] for i in wanted if i in read]
        return [items.with_attempts(d, self._attempts(tenant, event_id, d.id)) if d.attempts_made > len(d.attempts) else d for d in found]

    def _attempts(self, tenant: str, event_id: str, delivery_id: str) -> list[Attempt]:
        prefix = keys.attempt(tenant, event_id, delivery_id, 0)[keys.SK][: -len("0000")]
        found = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id)) & Key(keys.SK).begins_with(prefix))
        return [items.attempt_from(i) for i in found]

    def delivery_with_attempts(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """The delivery with its attempts: its item read from its endpoint's log, and one Query of its sort-key prefix in
        its event's partition (its attempts; an earlier release's delivery item too)."""
        logged = self._table.get_item(Key=keys.delivery(tenant, event_id, delivery_id)).get("Item")
        prefix = keys.delivery(tenant, event_id, delivery_id, LAYOUT_EVENT_KEYED)[keys.SK]
        found = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition(tenant, event_id)) & Key(keys.SK).begins_with(prefix))
        delivery = items.delivery_from(logged) if logged else None
        attempts = []
        for item in found:
            kind, of = keys.collection_member(item[keys.SK])
            if of != delivery_id:
                continue  # a longer id that shares the prefix (never for generated ids; cheap to rule out)
            if kind == "delivery" and delivery is None:
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
        if claim.missing and (layout := self._materialize(tenant, event_id, delivery_id)) is not None:
            return self._claim(tenant, event_id, delivery_id, number, now_epoch, lease_seconds, generation, layout)
        return claim

    def _materialize(self, tenant: str, event_id: str, delivery_id: str) -> int | None:
        """Where a delivery not found in its endpoint's log is (None: there is no such delivery).

        Read with its event in one BatchGetItem: an item in the event's partition, an earlier release's (during a
        deploy, that release may store a delivery of an event this one accepted there too: it stays there); else its
        item is written first if its event planned it (it expires with the event).
        """
        raw, earlier = self._event_and_earlier(tenant, event_id, delivery_id)
        if raw is None:
            return None
        if earlier is not None:
            return LAYOUT_EVENT_KEYED
        event = items.event_from(raw)
        planned = event.planned_delivery(delivery_id)
        if planned is not None:
            item = items.delivery_item(planned, self._ttl, int(raw.get(self._ttl, 0)))
            write_if(self._table.put_item, Item=item, ConditionExpression=Attr(keys.PK).not_exists())
            return event.layout
        return event.layout if event.layout == LAYOUT_EVENT_KEYED else None

    def _claim(
        self,
        tenant: str,
        event_id: str,
        delivery_id: str,
        number: int,
        now_epoch: float,
        lease_seconds: int,
        generation: int = 0,
        layout: int = LAYOUT_ENDPOINT_KEYED,
    ) -> Claim:
        """Single-flight: take the right to make attempt `number`.

        Succeeds only while the delivery is pending, the attempt has not been
        recorded, and no live lease holds it. The lease expires, so a crashed
        worker's task (redelivered after the visibility timeout) can claim it
        again. A live lease on an earlier attempt means that attempt is still
        being recorded: the caller should come back shortly (`busy`).
        """
        result = try_write(
            self._table.update_item,
            Key=keys.delivery(tenant, event_id, delivery_id, layout),
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
        # Its base attributes if only planned so far. One of the previous release's events joins that release's log index
        # (read only by now, but for its own deliveries until they expire), as it would have.
        base = items.delivery_item(delivery, self._ttl, expires_at) if delivery.planned_only else {}
        if delivery.layout == LAYOUT_EVENT_KEYED:
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
            Key=keys.delivery(delivery.tenant, delivery.event_id, delivery.id, delivery.layout),
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
        restarted = self._restart(tenant, event_id, delivery_id, expected_generation, statuses, now_iso, replay_id, LAYOUT_ENDPOINT_KEYED)
        if isinstance(restarted, Refused) and restarted.item is None:  # not in the log: an earlier release's, in the event's partition?
            restarted = self._restart(tenant, event_id, delivery_id, expected_generation, statuses, now_iso, replay_id, LAYOUT_EVENT_KEYED)
        return None if isinstance(restarted, Refused) else items.delivery_from(restarted["Attributes"])

    def _restart(
        self, tenant: str, event_id: str, delivery_id: str, expected_generation: int, statuses: tuple[str, ...], now_iso: str, replay_id: str, layout: int
    ) -> dict[str, Any] | Refused:
        names = {"#s": "status"}
        values: dict[str, Any] = {":g": expected_generation, ":g1": expected_generation + 1, ":one": 1, ":now": now_iso, ":pending": "pending", ":r": replay_id}
        status_names = []
        for i, status in enumerate(statuses):
            values[f":st{i}"] = status
            status_names.append(f":st{i}")
        return try_write(
            self._table.update_item,
            Key=keys.delivery(tenant, event_id, delivery_id, layout),
            UpdateExpression=(
                "SET generation = :g1, generation_first_attempt = attempts_made + :one, generation_started_at = :now, "
                f"#s = :pending, updated_at = :now, replay_id = :r REMOVE {keys.GSI_PK}, {keys.GSI_SK}, lease_until, lease_attempt"
            ),
            ConditionExpression=f"attribute_exists({keys.PK}) AND generation = :g AND #s IN ({', '.join(status_names)})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """The delivery, from its endpoint's log; else where its event says (an earlier release's), or as only planned on it."""
        item = self._table.get_item(Key=keys.delivery(tenant, event_id, delivery_id)).get("Item")
        if item:
            return items.delivery_from(item)
        raw, earlier = self._event_and_earlier(tenant, event_id, delivery_id)
        if earlier is not None:
            return items.delivery_from(earlier)
        return items.event_from(raw).planned_delivery(delivery_id) if raw is not None else None

    def _event_and_earlier(self, tenant: str, event_id: str, delivery_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The event's item and the delivery's item in the event's partition (where an earlier release keeps it), in one
        consistent BatchGetItem: what a delivery not found in its endpoint's log is looked for by."""
        found = batch_get(self._table, [keys.event(tenant, event_id), keys.delivery(tenant, event_id, delivery_id, LAYOUT_EVENT_KEYED)], consistent=True)
        raw = next((i for i in found if i[keys.SK] == keys.EVENT_SK), None)
        return raw, next((i for i in found if i[keys.SK] != keys.EVENT_SK), None)

    def park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool:
        """Set a pending delivery aside while its endpoint is disabled; its task is dropped.

        Re-enabling the endpoint finds it through the index and queues it again. A delivery only
        planned on its event gets its item first.
        """
        if self._park(task_tenant, event_id, delivery_id, endpoint_id, now_iso, LAYOUT_ENDPOINT_KEYED):
            return True
        layout = self._materialize(task_tenant, event_id, delivery_id)
        return layout is not None and self._park(task_tenant, event_id, delivery_id, endpoint_id, now_iso, layout)

    def _park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str, layout: int) -> bool:
        result = write_if(
            self._table.update_item,
            Key=keys.delivery(task_tenant, event_id, delivery_id, layout),
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
            Key=keys.delivery(task_tenant, event_id, delivery_id, layout),
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
        """A page of the endpoint's deliveries of every status created in [since, until], newest (or oldest) first.

        Read from the endpoint's delivery log: each of its DELIVERY_SHARDS partitions gives its first `limit` + 1
        deliveries past the cursor, and merged, the first `limit` are the page (eventually consistent: a log, not a
        decision). Then, older than any of them, the deliveries of the previous release's events, from the
        endpoint-log index that release wrote (read only; they expire with the retention). The cursor is the last
        one's position in that order, so a page costs the same however long the log.
        """
        owner = keys.log_owner(tenant, endpoint_id)
        sources = [(_NOW, self._logged), (_BEFORE, self._logged_before)]
        if not newest_first:
            sources.reverse()
        source, past = _log_position(decode_position(cursor, owner))
        start = next((i for i, (name, _) in enumerate(sources) if name == source), 0)
        shown: list[tuple[str, str, Delivery]] = []
        more = False
        for i in range(start, len(sources)):
            name, read = sources[i]
            page, more = read(tenant, endpoint_id, since, until, limit - len(shown), past if i == start else None, newest_first)
            shown += [(name, sort, d) for sort, d in page]
            if len(shown) == limit:
                # Full: more to come if this source has more, or a later one has any.
                more = more or any(later(tenant, endpoint_id, since, until, 1, None, newest_first)[0] for _, later in sources[i + 1 :])
                break
        nxt = encode_position(owner, f"{shown[-1][0]}:{shown[-1][1]}") if more and shown else None
        return [d for _, _, d in shown], nxt

    def _logged(
        self, tenant: str, endpoint_id: str, since: str, until: str, limit: int, past: str | None, newest_first: bool
    ) -> tuple[list[tuple[str, Delivery]], bool]:
        """Up to `limit` deliveries from the endpoint's delivery log past `past`, by id; and whether there are more.

        A merge that reads each partition only as far as the page needs: first a share of the page from each
        (`limit` + 1 over DELIVERY_SHARDS, and one more), then more from a partition only while its next unread item
        could still be among the page's. An even spread reads about the page; one partition holding it all reads it there.
        """
        lower = ids.time_bound(ids.DELIVERY, epoch_ms(parse_iso(since)) if since else 0, upper=False)
        upper = ids.time_bound(ids.DELIVERY, epoch_ms(parse_iso(until.rstrip("~"))) if until.rstrip("~") else _LAST_MS, upper=True)
        if past:
            lower, upper = (lower, min(upper, past)) if newest_first else (max(lower, past), upper)
        if lower > upper:
            return [], False
        logs = [_LogRead(partition) for partition in keys.endpoint_log_partitions(tenant, endpoint_id)]
        wanted = limit + 1  # the page and one more, which says whether there is a next page
        unread = logs
        share = -(-wanted // len(logs)) + 1
        while unread:
            for log in unread:
                self._read_log(log, lower, upper, newest_first, share, past)
            found = sorted((i for log in logs for i in log.items if i.get("endpoint_id") == endpoint_id), key=lambda i: str(i[keys.SK]), reverse=newest_first)
            edge = str(found[wanted - 1][keys.SK]) if len(found) >= wanted else None
            # A partition with more to read is read further while its last item read sorts before the edge: its next could too.
            unread = [log for log in logs if log.start is not None and (edge is None or not log.last or (log.last > edge if newest_first else log.last < edge))]
            share = wanted
        return [(str(i[keys.SK]), items.delivery_from(i)) for i in found[:limit]], len(found) > limit

    def _read_log(self, log: _LogRead, lower: str, upper: str, newest_first: bool, count: int, past: str | None) -> None:
        """The next `count` items of one log partition in [lower, upper] (the cursor's own item left out)."""
        result = self._table.query(
            KeyConditionExpression=Key(keys.PK).eq(log.partition) & Key(keys.SK).between(lower, upper),
            ScanIndexForward=not newest_first,
            Limit=count,
            **({"ExclusiveStartKey": log.start} if log.start else {}),
        )
        got = result.get("Items", [])
        if got:
            log.last = str(got[-1][keys.SK])
        log.items += [i for i in got if i[keys.SK] != past]
        log.start = result.get("LastEvaluatedKey")

    def _logged_before(
        self, tenant: str, endpoint_id: str, since: str, until: str, limit: int, past: str | None, newest_first: bool
    ) -> tuple[list[tuple[str, Delivery]], bool]:
        """Up to `limit` of the previous release's deliveries past `past`, from its keys-only endpoint-log index (merged
        across its LOG_SHARDS partitions, then read whole); and whether there are more."""
        lower, upper = keys.log_sort(since or "0"), until
        if past:
            lower, upper = (lower, min(upper, past)) if newest_first else (max(lower, past), upper)
        if lower > upper:
            return [], False
        entries: list[dict[str, Any]] = []
        for shard in range(keys.LOG_SHARDS):
            found = self._table.query(
                IndexName=keys.LOG_INDEX,
                KeyConditionExpression=Key(keys.GSI4_PK).eq(keys.log_partition(tenant, endpoint_id, shard)) & Key(keys.GSI4_SK).between(lower, upper),
                ScanIndexForward=not newest_first,
                Limit=limit + 1 + (1 if past else 0),
            ).get("Items", [])
            entries += [e for e in found if e[keys.GSI4_SK] != past]
        entries.sort(key=lambda e: e[keys.GSI4_SK], reverse=newest_first)
        page = entries[:limit]
        read = {(i[keys.PK], i[keys.SK]): items.delivery_from(i) for i in batch_get(self._table, [{keys.PK: e[keys.PK], keys.SK: e[keys.SK]} for e in page])}
        return [(e[keys.GSI4_SK], read[(e[keys.PK], e[keys.SK])]) for e in page if (e[keys.PK], e[keys.SK]) in read], len(entries) > limit


@dataclass
class _LogRead:
    """How far one partition of an endpoint's delivery log has been read (`start` None: to its end)."""

    partition: str
    items: list[dict[str, Any]] = field(default_factory=list)
    last: str = ""
    start: dict[str, Any] | None = field(default_factory=dict)


_NOW, _BEFORE = "d", "i"  # a log position's source: the delivery log, or the previous release's index
_LAST_MS = 32**10 - 1  # the latest time an id can carry


def _log_position(at: str | None) -> tuple[str | None, str | None]:
    """A log cursor's (source, position); one the previous release made (a bare index position) is the index's."""
    if at is None:
        return None, None
    source, sep, position = at.partition(":")
    if sep and source in (_NOW, _BEFORE) and position:
        return source, position
    return _BEFORE, at
