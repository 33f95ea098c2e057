"""An endpoint's delivery log through the real handlers against moto: every delivery, by status, or by its event.

`GET /v1/endpoints/{id}/deliveries` reads `all` and `succeeded` from the endpoint's delivery log (the delivery items
themselves, spread over the endpoint's partitions), `failed`, `paused` and `pending` from the sparse
endpoint-deliveries index, and `event=` through the event itself. The previous release's deliveries, in its
endpoint-log index: tests/integration/test_delivery_layout.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookline.adapters.dynamo import keys
from hookline.core.models import INDEXED_STATUSES
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, running_receiver


def _answer(r: Received) -> Answer:
    """200, except 400 (permanent) for an event whose data says `fail`, 503 with an hour's Retry-After for `retry`."""
    data = json.loads(r.body)["data"]
    if data.get("fail"):
        return Answer(status=400, body=b"no such order")
    if data.get("retry"):
        return Answer(status=503, headers={"retry-after": "3600"})
    return Answer()


def _accept(hookline: Hookline, producer_id: str, **data: Any) -> str:
    status, body = hookline.api("POST", "/v1/events", {"type": "order.updated", "id": producer_id, "data": data})
    assert status == 202, body
    return str(body["id"])


def _log(hookline: Hookline, ep: str, **query: str) -> list[dict[str, Any]]:
    status, page = hookline.api("GET", f"/v1/endpoints/{ep}/deliveries", query={"order": "desc", "limit": "100", **query})
    assert status == 200, page
    assert page["next"] is None
    return list(page["items"])


SPREADS = {
    # Each new delivery id in the next log partition: ids could all land in one partition, and the merge across them
    # would go untested in that run.
    "round_robin": lambda n: n % keys.DELIVERY_SHARDS,
    # All but the first in one partition: the merge reads that one further than its share of a page.
    "skewed": lambda n: 0 if n == 0 else 3,
}


def _spread_shards(monkeypatch: pytest.MonkeyPatch, spread: str) -> None:
    """Each new delivery id in the partition `spread` gives it (the same id always in the same one)."""
    given: dict[str, int] = {}
    monkeypatch.setattr(keys, "delivery_shard", lambda delivery_id: given.setdefault(delivery_id, SPREADS[spread](len(given))))


@pytest.mark.parametrize("spread", SPREADS)
def test_the_log_lists_every_delivery_filters_by_status_pages_across_shards_and_finds_one_by_its_event(
    hookline: Hookline, monkeypatch: pytest.MonkeyPatch, spread: str
) -> None:
    _spread_shards(monkeypatch, spread)
    with running_receiver(_answer) as receiver:
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "rate_limit_per_second": 50, "headers": {"x-team": "billing"}})
        assert status == 201, ep
        # Given 3 deliveries that succeed, 2 that fail for good, and 1 paused (its endpoint disabled when accepted)
        succeeded = [_accept(hookline, f"order-{n}", n=n) for n in range(3)]
        failed = [_accept(hookline, f"bad-order-{n}", n=n, fail=True) for n in range(2)]
        hookline.pump()
        assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "disabled"})[0] == 200
        paused = [_accept(hookline, "late-order", n=9)]
        assert len(receiver.requests) == 5
        sent_requests = list(receiver.requests)

    # When the log is read with each filter, Then it lists all 6, newest first, and each status's own
    everything = _log(hookline, ep["id"], status="all")
    assert sorted(d["event_id"] for d in everything) == sorted(succeeded + failed + paused)
    assert [d["created_at"] for d in everything] == sorted((d["created_at"] for d in everything), reverse=True)
    by_status = {s: sorted(d["event_id"] for d in _log(hookline, ep["id"], status=s)) for s in ("succeeded", "failed", "paused", "pending")}
    assert by_status == {"succeeded": sorted(succeeded), "failed": sorted(failed), "paused": paused, "pending": []}
    # And a first success is listed with its attempt, as the receiver answered it
    [first] = [d for d in everything if d["event_id"] == succeeded[0]]
    assert (first["status"], [(a["number"], a["status_code"], a["outcome"]) for a in first["attempts"]]) == ("succeeded", [(1, 200, "succeeded")])

    # And opened, its attempt shows the headers it was sent with, as the receiver got them, the signature redacted
    status, detail = hookline.api("GET", f"/v1/events/{failed[0]}/deliveries/{next(d['id'] for d in everything if d['event_id'] == failed[0])}")
    assert status == 200, detail
    [(sent, got)] = [(a["request_headers"], r.headers) for a in detail["attempts"] for r in sent_requests if r.headers["webhook-id"] == failed[0]]
    assert sent["webhook-signature"] == "v1,<redacted>" and got["webhook-signature"].startswith("v1,")
    assert {k: v for k, v in sent.items() if k != "webhook-signature"} == {
        k: got[k] for k in ("webhook-id", "webhook-timestamp", "content-type", "user-agent", "x-team")
    } | {"webhook-timestamp": sent["webhook-timestamp"]}
    assert abs(int(sent["webhook-timestamp"]) - int(got["webhook-timestamp"])) <= 1  # rebuilt from the attempt's time less its duration

    # And the entries are spread over the endpoint's log partitions, so paging merges them: two at a time, oldest
    # first and newest first, each delivery once, in order
    assert {keys.delivery_shard(d["id"]) for d in everything} == (set(range(6)) if spread == "round_robin" else {0, 3})
    for order in ("asc", "desc"):
        seen, cursor = [], None
        while True:
            query = {"status": "all", "limit": "2", "order": order} | ({"cursor": cursor} if cursor else {})
            status, page = hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query=query)
            assert status == 200 and len(page["items"]) <= 2, page
            seen += page["items"]
            cursor = page["next"]
            if not cursor:
                break
        assert [d["id"] for d in seen] == [d["id"] for d in (everything if order == "desc" else everything[::-1])]

    # And one delivery is found by its event's id, or by the id the producer sent it with, whatever its status
    assert [d["event_id"] for d in _log(hookline, ep["id"], status="all", event=failed[1])] == [failed[1]]
    assert [d["event_id"] for d in _log(hookline, ep["id"], status="all", event="order-2")] == [succeeded[2]]
    assert [d["status"] for d in _log(hookline, ep["id"], status="all", event="late-order")] == ["paused"]
    assert _log(hookline, ep["id"], status="failed", event="order-2") == []  # the filter still applies
    assert _log(hookline, ep["id"], status="all", event="no-such-order") == []

    # And another endpoint's log holds none of them; another tenant cannot read this one
    status, other = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/other"})
    assert _log(hookline, other["id"], status="all") == [] and _log(hookline, other["id"], status="all", event="order-1") == []
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query={"status": "all"}, tenant="other")[0] == 404

    # And bad input is a 422 naming it, and a cursor made for another endpoint is refused
    for query, word in (({"status": "delivered"}, "'status'"), ({"status": "all", "event": "not an id!"}, "'event'")):
        status, refused = hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query=query)
        assert (status, word in refused["error"]["message"]) == (422, True), refused
    status, page = hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query={"status": "all", "limit": "1"})
    status, refused = hookline.api("GET", f"/v1/endpoints/{other['id']}/deliveries", query={"status": "all", "cursor": page["next"]})
    assert (status, refused["error"]["code"]) == (422, "invalid_cursor"), refused


def test_a_delivery_waiting_for_its_retry_is_pending_and_counted_and_one_not_attempted_yet_is_found_by_its_event(hookline: Hookline) -> None:
    assert "pending" in INDEXED_STATUSES
    with running_receiver(_answer) as receiver:
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert status == 201, ep
        # Given a delivery answered 503 with an hour's Retry-After: attempted once, its retry waiting
        waiting = _accept(hookline, "slow-order", retry=True)
        hookline.pump()
        assert len(receiver.requests) == 1
    # Then it is pending: listed under `pending` and `all`, and counted on the endpoint
    [listed] = _log(hookline, ep["id"], status="pending")
    assert (listed["event_id"], listed["status"]) == (waiting, "pending")
    assert [d["event_id"] for d in _log(hookline, ep["id"], status="all")] == [waiting]
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"] == {"failed": 0, "paused": 0, "pending": 1, "more": False}
    # And a delivery accepted but not attempted yet is in no list, but its event finds it, pending, with no attempt
    queued = _accept(hookline, "queued-order", n=1)
    assert [d["event_id"] for d in _log(hookline, ep["id"], status="all")] == [waiting]
    [found] = _log(hookline, ep["id"], status="all", event="queued-order")
    assert (found["event_id"], found["status"], found["attempts"]) == (queued, "pending", [])
