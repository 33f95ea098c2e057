"""How an event's item collection is laid out: an event, a delivery or an attempt to and from a DynamoDB item.

An ordinary event lists its planned deliveries (`deliveries`); a broadcast
instead carries its fan-out state (`broadcast`: status, step, cursor and
counters), advanced by each step of the broadcast job.

A delivery's attempts are items of their own, but for the one that first
succeeded: the delivery item keeps it (`SUCCESS`), written with the status in
one UpdateItem. Keys come from hookline.adapters.dynamo.keys; `ttl` names the table's TTL
attribute, set to when the item expires. A webhook body above
COMPRESS_ABOVE_BYTES is stored zlib-compressed (`body_z`) when that saves a
tenth or more: DynamoDB bills writes per KB of item and reads per 4 KB, and
JSON compresses well.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from hookline.adapters.dynamo import compat, keys
from hookline.core import ids
from hookline.core.broadcast import Fanout
from hookline.core.models import LAYOUT_ENDPOINT_KEYED, LAYOUT_EVENT_KEYED, Attempt, Delivery, Event, PlannedDelivery

Item = dict[str, Any]
COMPRESS_ABOVE_BYTES = 512
# A delivery item keeps the attempt that first succeeded as this map, so a success is one write (the
# delivery's), not an attempt item and a delivery update; every other attempt is an item of its own.
SUCCESS = "success_attempt"
LAYOUT = "layout"  # on an event item: where its deliveries are kept (hookline.core.models.LAYOUT_ENDPOINT_KEYED)


def _stored_body(body: str) -> Item:
    raw = body.encode("utf-8")
    if len(raw) > COMPRESS_ABOVE_BYTES:
        packed = zlib.compress(raw, 6)
        if len(packed) <= 0.9 * len(raw):
            from boto3.dynamodb.types import Binary  # imported with the table that stores it

            return {"body_z": Binary(packed)}
    return {"body": body}


def _read_body(item: Item) -> str:
    if "body_z" in item:
        packed = item["body_z"]
        return zlib.decompress(bytes(packed)).decode("utf-8")  # a Binary gives its bytes, as bytes and memoryview do
    return str(item["body"])


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def event_item(event: Event, ttl: str, expires_at: int) -> Item:
    planned = [
        {"id": d.id, "endpoint_id": d.endpoint_id, **({"paused": True} if d.paused else {}), **({"version": d.version} if d.version else {})}
        for d in event.deliveries
    ]
    return {
        **keys.event(event.tenant, event.id),
        "id": event.id,
        "tenant": event.tenant,
        "type": event.type,
        "created_at": event.created_at,
        **_stored_body(event.body),
        "request_hash": event.request_hash,
        # A broadcast's deliveries are too many to list here (an item holds 400 KB): it keeps its fan-out state instead.
        **({"broadcast": fanout_map(event.broadcast)} if event.broadcast else {"deliveries": planned}),
        **({"customer": event.customer} if event.customer else {}),
        **_versions(event),
        LAYOUT: event.layout,
        ttl: expires_at,
    }


def _versions(event: Event) -> Item:
    """The payload version of `body`, the other versions' bodies (each stored as `body` is) and their sunsets; nothing for an event without."""
    if event.version is None:
        return {}
    return {
        "version": event.version,
        **({"renderings": {v: _stored_body(b) for v, b in event.renderings}} if event.renderings else {}),
        **({"sunsets": dict(event.sunsets)} if event.sunsets else {}),
    }


def fanout_map(state: Fanout) -> Item:
    """A broadcast's fan-out state as the event item's `broadcast` map."""
    return {
        "status": state.status,
        "step": state.step,
        "cursor": state.cursor,
        "endpoints_scanned": state.endpoints_scanned,
        "deliveries": state.deliveries,
        "paused": state.paused,
    }


def _fanout_from(raw: Item) -> Fanout:
    return Fanout(
        status="done" if raw.get("status") == "done" else "fanning_out",
        step=int(raw.get("step", 0)),
        cursor=str(raw.get("cursor") or ""),
        endpoints_scanned=int(raw.get("endpoints_scanned", 0)),
        deliveries=int(raw.get("deliveries", 0)),
        paused=int(raw.get("paused", 0)),
    )


def event_from(item: Item) -> Event:
    return Event(
        id=item["id"],
        tenant=item["tenant"],
        type=item["type"],
        created_at=item["created_at"],
        body=_read_body(item),
        request_hash=item["request_hash"],
        deliveries=tuple(
            PlannedDelivery(d["id"], d["endpoint_id"], bool(d.get("paused", False)), str(d.get("version", ""))) for d in item.get("deliveries", [])
        ),
        customer=item.get("customer"),
        broadcast=_fanout_from(item["broadcast"]) if "broadcast" in item else None,
        version=item.get("version"),
        renderings=tuple(sorted((str(v), _read_body(b)) for v, b in (item.get("renderings") or {}).items())),
        sunsets=tuple(sorted((str(v), str(t)) for v, t in (item.get("sunsets") or {}).items())),
        layout=compat.event_layout(item.get(LAYOUT)),
    )


def delivery_item(d: Delivery, ttl: str, expires_at: int) -> Item:
    """A delivery as first written, in its endpoint's log (keys.delivery); failed, paused and pending ones with the endpoint-deliveries index's keys."""
    named = ids.is_id(d.id, ids.DELIVERY) and ids.endpoint_mark_of(d.tenant, d.event_id, d.id) == ids.endpoint_mark(d.endpoint_id)
    if d.layout == LAYOUT_ENDPOINT_KEYED and ids.is_id(d.id, ids.DELIVERY) and not named:
        raise ValueError(f"delivery id {d.id} does not name endpoint {d.endpoint_id} (make it with hookline.core.ids.delivery_id)")
    return {
        **keys.delivery(d.tenant, d.event_id, d.id, d.layout),
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
        **({"version": d.version} if d.version else {}),
        ttl: expires_at,
        **keys.index_keys(d.tenant, d.endpoint_id, d.status, d.created_at, d.id),
        # One of the previous release's events: its deliveries are listed from that release's log index, as it listed them.
        **(keys.log_keys(d.tenant, d.endpoint_id, d.created_at, d.id) if d.layout == LAYOUT_EVENT_KEYED else {}),
    }


def delivery_from(item: Item) -> Delivery:
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
        version=str(item.get("version", "")),
        attempts=(attempt_from(item[SUCCESS]),) if SUCCESS in item else (),
        lease_attempt=_int(item.get("lease_attempt")),
        lease_until=None if item.get("lease_until") is None else float(item["lease_until"]),
        layout=keys.layout_of(item[keys.PK]),
        polled_at=str(item.get("polled_at", "")),
    )


def attempt_fields(attempt: Attempt) -> Item:
    """An attempt's attributes: an attempt item's, or the map a delivery item keeps of its first success."""
    return {
        "number": attempt.number,
        "at": attempt.at,
        "status_code": attempt.status_code,
        "error": attempt.error,
        "duration_ms": attempt.duration_ms,
        "outcome": attempt.outcome,
        "reason": attempt.reason,
        "response_body": attempt.response_body,
        "trigger": attempt.trigger,
    }


def attempt_item(delivery: Delivery, attempt: Attempt, ttl: str, expires_at: int) -> Item:
    return {**keys.attempt(delivery.tenant, delivery.event_id, delivery.id, attempt.number), **attempt_fields(attempt), ttl: expires_at}


def with_attempts(d: Delivery, stored: Iterable[Attempt]) -> Delivery:
    """The delivery with its attempt items added to the success its own item keeps (SUCCESS), in number order."""
    by_number = {a.number: a for a in (*d.attempts, *stored)}
    return replace(d, attempts=tuple(by_number[n] for n in sorted(by_number)))


def attempt_from(item: Item) -> Attempt:
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
