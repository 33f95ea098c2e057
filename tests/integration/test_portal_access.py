"""Who may do what, through the real authorizer and API handlers over moto: one table, three keys, three owners.

Keys: the producer's API key, a portal session of customer A, and a read-only session of customer A.
Owners: customer A's resources, customer B's, and the tenant's own (endpoints without a customer, events
addressed to nobody). Each cell is the status the request answers; a refused cell (403/404) must change
nothing at all: the whole table and every queue read the same before and after. An allowed cell that
changes something aims at a fresh set of resources, so no cell depends on another.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from hookline.core.settings import MAX_AUTHORIZER_CACHE_SECONDS
from hookline.wiring import topology
from local.frontdoor import Gateway, IncomingRequest
from tests.conftest import Hookline
from tests.support.events import http_event
from tests.support.receiver import Answer, Received, Receiver, running_receiver

API_KEY = "hk_producer_of_acme"
OWNERS = ("A", "B", "own")
CUSTOMER_OF = {"A": "cus-a", "B": "cus-b", "own": None}
WINDOW = {"since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}


@dataclass(frozen=True)
class Row:
    """One route, and what it answers to each key against A's, B's and the tenant's own ("-": no such resource)."""

    method: str
    path: str
    body: Any
    producer: str
    session: str
    read_only: str
    changes: bool = True  # an allowed call changes something: aim it at fresh resources

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"


ED25519 = {"scheme": "standard-webhooks", "algorithm": "ed25519"}

# fmt: off
MATRIX = [
    #    method    path                                          body                                   producer       session A      read-only A   (against A  B  own)
    Row("GET",    "/v1/endpoints?customer={cus}",                None,                                   "200 200 200", "200 404 200", "200 404 200", changes=False),
    Row("POST",   "/v1/endpoints",                               {"url": "{url}", "customer": "{cus}", "event_types": ["x.y"]}, "201 201 201", "201 404 201", "403 403 403"),
    Row("GET",    "/v1/endpoints/{ep}",                          None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("PATCH",  "/v1/endpoints/{ep}",                          {"description": "changed"},             "200 200 200", "200 404 404", "403 403 403"),
    Row("PATCH",  "/v1/endpoints/{ep}",                          {"rate_limit_per_second": 300},         "422 422 200", "422 404 404", "403 403 403"),
    Row("DELETE", "/v1/endpoints/{ep}",                          None,                                   "204 204 204", "204 404 404", "403 403 403"),
    Row("POST",   "/v1/endpoints/{ep}/enable",                   None,                                   "200 200 200", "200 404 404", "403 403 403"),
    Row("POST",   "/v1/endpoints/{ep}/secret/rotate",            None,                                   "200 200 200", "200 404 404", "403 403 403"),
    Row("GET",    "/v1/endpoints/{ep}/secret",                   None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("GET",    "/v1/endpoints/{ep}/role-template",            None,                                   "409 409 409", "409 404 404", "409 404 404", changes=False),
    Row("POST",   "/v1/endpoints/{ep}/test",                     None,                                   "200 200 200", "200 404 404", "403 403 403"),
    Row("GET",    "/v1/endpoints/{ep}/deliveries",               None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("GET",    "/v1/endpoints/{ep}/stats",                    None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("GET",    "/v1/endpoints/{ep}/failures",                 None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("PATCH",  "/v1/endpoints/{ep}",                          {"status": "active"},                   "200 200 200", "422 404 404", "403 403 403"),
    Row("POST",   "/v1/endpoints/{ep}/replay",                   WINDOW,                                 "202 202 202", "202 404 404", "403 403 403"),
    Row("GET",    "/v1/replays/{rpl}",                           None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("GET",    "/v1/events/{evt}",                            None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("GET",    "/v1/events/{evt}/deliveries/{dlv}",           None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("POST",   "/v1/events/{evt}/deliveries/{dlv}/retry",     None,                                   "202 202 202", "202 404 404", "403 403 403"),
    Row("POST",   "/v1/events",                                  {"type": "a.b", "data": {}, "customer": "{cus}"}, "202 202 202", "403 403 403", "403 403 403"),
    Row("POST",   "/v1/events/batch",                            {"events": [{"type": "a.b", "data": {}, "customer": "{cus}"}]}, "202 202 202", "403 403 403", "403 403 403"),
    Row("POST",   "/v1/events/broadcast",                        {"type": "a.b", "data": {}},            "- - 202",     "- - 403",     "- - 403"),
    Row("GET",    "/v1/session",                                 None,                                   "- - 200",     "- - 200",     "- - 200",     changes=False),
    Row("GET",    "/v1/event-types",                             None,                                   "- - 200",     "- - 200",     "- - 200",     changes=False),
    Row("GET",    "/v1/event-types/{type}",                      None,                                   "- - 200",     "- - 404",     "- - 404",     changes=False),
    Row("PUT",    "/v1/event-types/{type}",                      {"description": "changed"},             "- - 200",     "- - 403",     "- - 403"),
    Row("GET",    "/v1/versions",                                None,                                   "- - 200",     "- - 200",     "- - 200",     changes=False),
    Row("GET",    "/v1/jwks",                                    None,                                   "- - 200",     "- - 200",     "- - 200",     changes=False),
    Row("PATCH",  "/v1/endpoints/{ep}",                          {"signing": ED25519},                   "200 200 200", "200 404 404", "403 403 403"),
    Row("POST",   "/v1/filters/test",                            {"filter": {"type": ["a.b"]}, "event": {"type": "a.b", "data": {}}}, "- - 200", "- - 200", "- - 200", changes=False),
    Row("PUT",    "/v1/versions/{ver}",                          {"default": True},                      "- - 201",     "- - 403",     "- - 403"),
    Row("PATCH",  "/v1/endpoints/{ep}",                          {"version": "2026-01-01"},              "200 200 200", "200 404 404", "403 403 403"),
    Row("GET",    "/v1/portal-settings",                         None,                                   "- - 200",     "- - 403",     "- - 403",     changes=False),
    Row("PUT",    "/v1/portal-settings",                         {"producer_name": "Acme"},              "- - 200",     "- - 403",     "- - 403"),
    Row("GET",    "/v1/customers",                               None,                                   "- - 200",     "- - 403",     "- - 403",     changes=False),
    Row("PUT",    "/v1/customers/{cus}",                         {"name": "Renamed"},                    "200 200 -",   "403 403 -",   "403 403 -"),
    Row("GET",    "/v1/customers/{cus}",                         None,                                   "200 200 -",   "403 403 -",   "403 403 -",   changes=False),
    Row("GET",    "/v1/customers/{cus}/stats",                   None,                                   "200 200 -",   "403 403 -",   "403 403 -",   changes=False),
    Row("DELETE", "/v1/customers/{cus}",                         None,                                   "202 202 -",   "403 403 -",   "403 403 -"),
    Row("GET",    "/v1/jobs/{job}",                              None,                                   "200 200 200", "200 404 404", "200 404 404", changes=False),
    Row("POST",   "/v1/jobs/{job}/resume",                       None,                                   "202 202 202", "403 403 403", "403 403 403"),
    Row("POST",   "/v1/customers/{cus}/portal-sessions",         {"read_only": True},                    "201 201 -",   "403 403 -",   "403 403 -"),
    Row("GET",    "/v1/endpoints/{pep}/poll",                    None,                                   "200 200 200", "200 404 404", "403 403 403", changes=False),
    Row("GET",    "/v1/endpoints/{pep}/role-template",           None,                                   "409 409 409", "409 404 404", "409 404 404", changes=False),
    Row("GET",    "/v1/endpoints/{ep}/poll",                     None,                                   "409 409 409", "409 404 404", "403 403 403", changes=False),
    Row("POST",   "/v1/endpoints/{pep}/poll-tokens",             None,                                   "201 201 201", "403 403 403", "403 403 403"),
    Row("DELETE", "/v1/endpoints/{pep}/poll-tokens/{pt}",        None,                                   "204 204 204", "403 403 403", "403 403 403"),
    Row("DELETE", "/v1/customers/{cus}/portal-sessions",         None,                                   "204 204 -",   "403 403 -",   "403 403 -"),
]
# fmt: on
KEYS = ("producer", "session", "read_only")


def _answer(request: Received) -> Answer:
    """Webhooks fail for good (400), so every owner has a failed delivery to list, retry and replay; test events succeed."""
    return Answer(status=200 if json.loads(request.body)["type"] == "hookline.test" else 400)


@dataclass
class World:
    hookline: Hookline
    receiver: Receiver
    tokens: dict[str, str]
    sets: int = 0

    def call(self, key: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """A request as API Gateway makes it: the real authorizer first (403-free: it allows or denies), then the API."""
        token = self.tokens[key]
        decision = self.hookline.handlers["authorizer"]({"headers": {"authorization": f"Bearer {token}"}}, None)
        if not decision["isAuthorized"]:
            return 401, None
        route, _, query = path.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&")) if query else None
        event = http_event(method, route, body, tenant=None, query=params)
        event["requestContext"]["authorizer"] = {"lambda": decision["context"]}
        result = self.hookline.handlers["api"](event, None)
        text = result.get("body") or ""
        return result["statusCode"], (json.loads(text) if text else None)

    def producer(self, method: str, path: str, body: Any = None) -> Any:
        status, answer = self.call("producer", method, path, body)
        assert status < 300, (method, path, status, answer)
        return answer

    def resources(self, owner: str, row: Row) -> dict[str, str]:
        """A fresh set of the owner's: an endpoint and, if the row's path names them, an event with its failed delivery and a replay of it."""
        customer = CUSTOMER_OF[owner]
        addressed = {"customer": customer} if customer else {}
        self.sets += 1
        kind = f"set.{self.sets}"  # this set's endpoint alone subscribes to its event
        ep = self.producer("POST", "/v1/endpoints", {"url": self.receiver.url, "event_types": [kind], **addressed})["id"]
        ids = {"ep": ep, "cus": customer or "", "url": self.receiver.url, "type": "a.b", "ver": "2026-10-01"}
        if "{pep}" in row.path:  # a polling endpoint of the owner's, and a poll token of it
            pep = self.producer("POST", "/v1/endpoints", {"destination": {"type": "poll"}, "event_types": [kind], **addressed})["id"]
            return {**ids, "pep": pep, "pt": self.producer("POST", f"/v1/endpoints/{pep}/poll-tokens")["id"]}
        if "{job}" in row.path:  # the re-queue job that re-enabling the endpoint starts
            return {**ids, "job": self.producer("POST", f"/v1/endpoints/{ep}/enable")["requeue"]["id"]}
        if not any(name in row.path for name in ("{evt}", "{dlv}", "{rpl}")):
            return ids
        evt = self.producer("POST", "/v1/events", {"type": kind, "data": {"n": 1}, **addressed})["id"]
        self.hookline.pump()
        [delivery] = self.producer("GET", f"/v1/events/{evt}")["deliveries"]
        assert delivery["status"] == "failed"
        rpl = self.producer("POST", f"/v1/endpoints/{ep}/replay", WINDOW)["id"]
        return {**ids, "evt": evt, "dlv": delivery["id"], "rpl": rpl}


@pytest.fixture
def world(hookline: Hookline) -> Iterator[World]:
    hookline.add_api_key("acme", API_KEY)
    with running_receiver(_answer) as receiver:
        w = World(hookline, receiver, {"producer": API_KEY})
        for uid in ("cus-a", "cus-b"):
            w.producer("PUT", f"/v1/customers/{uid}", {"name": uid, "limits": {"max_rate_per_second": 100, "max_concurrency": 10}})
        w.producer("PUT", "/v1/event-types/a.b", {"description": "what every set's events are checked against: no schema"})
        w.tokens["session"] = w.producer("POST", "/v1/customers/cus-a/portal-sessions", {})["token"]
        w.tokens["read_only"] = w.producer("POST", "/v1/customers/cus-a/portal-sessions", {"read_only": True})["token"]
        yield w


def _everything(hookline: Hookline) -> Any:
    """The whole table and every queue's depth (its messages visible or delayed): what a refused request must leave
    exactly as it was."""
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    items, start = [], {}
    while True:
        page = table.scan(**start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            break
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
    return sorted(json.dumps(i, sort_keys=True, default=str) for i in items), _depths(hookline)


def _depths(hookline: Hookline) -> dict[str, int]:
    """Every queue's messages, visible and delayed together (a message delayed when the request began may be visible
    by its end), read until two readings agree: moto counts the visible ones and the delayed ones at two instants, so
    a message whose delay ends between them is in neither (seen once in CI, the jobs queue's paced messages)."""
    sqs = boto3.client("sqs")
    wanted = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"]

    def reading() -> dict[str, int]:
        return {
            q.env: sum(int(v) for v in sqs.get_queue_attributes(QueueUrl=hookline.env[q.env], AttributeNames=wanted)["Attributes"].values())
            for q in topology.QUEUES
            if q.env in hookline.env
        }

    last, deadline = reading(), time.monotonic() + 10
    while (now := reading()) != last and time.monotonic() < deadline:
        last = now
    return now


def _fill(template: Any, values: dict[str, str]) -> Any:
    """The row's path or body with the owner's ids; a body field naming no customer is dropped."""
    if isinstance(template, str):
        return template.format(**values).removesuffix("?customer=")
    if isinstance(template, list):
        return [_fill(t, values) for t in template]
    if isinstance(template, dict):
        return {k: _fill(v, values) for k, v in template.items() if not (k == "customer" and v == "{cus}" and not values["cus"])}
    return template


@pytest.mark.parametrize("row", MATRIX, ids=[r.name + (f" {json.dumps(r.body)}" if r.method == "PATCH" else "") for r in MATRIX])
def test_each_key_reaches_exactly_what_the_matrix_says(world: World, row: Row) -> None:
    shared = {owner: world.resources(owner, row) for owner in OWNERS}
    expected = {key: dict(zip(OWNERS, getattr(row, key).split(), strict=True)) for key in KEYS}
    # The producer goes last: its allowed calls may delete customers or revoke the sessions the other keys use.
    for key in ("read_only", "session", "producer"):
        for owner in OWNERS:
            want = expected[key][owner]
            if want == "-":
                continue
            refused = int(want) in (403, 404, 422)
            ids = world.resources(owner, row) if row.changes and not refused else shared[owner]
            before = _everything(world.hookline) if refused else None
            status, answer = world.call(key, row.method, _fill(row.path, ids), _fill(row.body, ids))
            assert status == int(want), f"{key} on {owner}'s: {status} {answer}"
            if refused:
                allowed = ("forbidden", "not_found", "customer_not_found", "above_customer_limit", "use_enable", "job_not_found", "event_type_not_found")
                assert answer["error"]["code"] in allowed
                assert _everything(world.hookline) == before, f"{key} on {owner}'s changed something"
            if row.method == "POST" and row.path == "/v1/endpoints" and key == "session" and status == 201:
                assert answer["customer"] == "cus-a"  # whatever it names, a session's endpoint is its customer's


def test_a_session_lists_only_its_customers_endpoints_and_events(world: World) -> None:
    mine, theirs, own = (world.resources(owner, next(r for r in MATRIX if r.path == "/v1/events/{evt}")) for owner in OWNERS)
    for key in ("session", "read_only"):
        status, listed = world.call(key, "GET", "/v1/endpoints")
        assert status == 200 and [e["id"] for e in listed["items"]] == [mine["ep"]]
        status, event = world.call(key, "GET", f"/v1/events/{mine['evt']}")
        assert status == 200 and [d["endpoint_id"] for d in event["deliveries"]] == [mine["ep"]]
    assert {e["id"] for e in world.producer("GET", "/v1/endpoints")["items"]} == {mine["ep"], theirs["ep"], own["ep"]}


def test_a_sessions_key_set_holds_its_customers_ed25519_keys_only(world: World) -> None:
    # Given an Ed25519 endpoint of A, of B and of the tenant's own
    keys = {}
    for owner in OWNERS:
        addressed = {"customer": c} if (c := CUSTOMER_OF[owner]) else {}
        made = world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, "signing": ED25519, **addressed})
        keys[owner] = (made["id"], made["signing"]["public_key"])
    # When A's sessions read the key set, then it holds A's key alone; the producer's holds all three
    for key in ("session", "read_only"):
        status, jwks = world.call(key, "GET", "/v1/jwks")
        assert status == 200 and [k["endpoint_id"] for k in jwks["keys"]] == [keys["A"][0]]
        assert world.call(key, "GET", f"/v1/endpoints/{keys['A'][0]}")[1]["signing"]["public_key"] == keys["A"][1]
    assert {k["endpoint_id"] for k in world.producer("GET", "/v1/jwks")["keys"]} == {ep for ep, _ in keys.values()}


def test_a_session_sees_a_broadcast_with_its_own_deliveries_only(world: World) -> None:
    # Given an endpoint of A, of B and of the tenant's own, and a broadcast fanned out to all three
    endpoints = {
        owner: world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, **({"customer": c} if (c := CUSTOMER_OF[owner]) else {})})["id"]
        for owner in OWNERS
    }
    broadcast = world.producer("POST", "/v1/events/broadcast", {"type": "news.posted", "data": {"all": True}})["id"]
    world.hookline.pump()
    assert {d["endpoint_id"] for d in world.producer("GET", f"/v1/events/{broadcast}")["deliveries"]} == set(endpoints.values())
    # When A's sessions read it, then they see it, with A's delivery alone
    for key in ("session", "read_only"):
        status, seen = world.call(key, "GET", f"/v1/events/{broadcast}")
        assert status == 200 and seen["broadcast"] == {"status": "done"}  # the fan-out's counters span every customer
        assert [d["endpoint_id"] for d in seen["deliveries"]] == [endpoints["A"]] and seen["deliveries_next"] is None


def test_a_customer_made_again_under_its_uid_does_not_see_what_the_earlier_one_had(world: World) -> None:
    # Given customer A's endpoint and an event addressed to A, with its failed delivery, and an event of a type sent to A alone
    old = world.resources("A", next(r for r in MATRIX if r.path == "/v1/events/{evt}"))
    world.producer("POST", "/v1/events", {"type": "only.for.old.a", "data": {}, "customer": "cus-a"})
    assert "only.for.old.a" in _event_types(world, "session")[1]
    catch_all = world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, "customer": "cus-a"})["id"]  # every type
    # When A is deleted (its endpoints' deletion job not run yet) and a customer is made again under A's uid
    world.producer("DELETE", "/v1/customers/cus-a")
    time.sleep(0.002)  # a later millisecond: creation times are kept to the millisecond
    world.producer("PUT", "/v1/customers/cus-a", {"name": "another A"})
    world.tokens["new_a"] = world.producer("POST", "/v1/customers/cus-a/portal-sessions", {})["token"]
    new_ep = world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, "customer": "cus-a", "event_types": ["fresh"]})["id"]
    new_evt = world.producer("POST", "/v1/events", {"type": "fresh", "data": {}, "customer": "cus-a"})["id"]
    # Then the earlier A's sessions no longer work, and the new A's session sees the new A's endpoint and event only:
    # the earlier A's answer 404 like ids that do not exist, and its endpoint is not listed
    assert world.call("session", "GET", "/v1/endpoints")[0] == 401
    for path in (f"/v1/endpoints/{old['ep']}", f"/v1/events/{old['evt']}", f"/v1/events/{old['evt']}/deliveries/{old['dlv']}", f"/v1/replays/{old['rpl']}"):
        assert world.call("new_a", "GET", path)[0] == 404, path
    status, listed = world.call("new_a", "GET", "/v1/endpoints")
    assert (status, [e["id"] for e in listed["items"]]) == (200, [new_ep])
    assert world.call("new_a", "GET", f"/v1/endpoints/{new_ep}")[0] == 200
    assert world.call("new_a", "GET", f"/v1/events/{new_evt}")[0] == 200
    # And the new A's event reached the new A's endpoint alone, not the earlier A's that takes every type
    assert [d["endpoint_id"] for d in world.producer("GET", f"/v1/events/{new_evt}")["deliveries"]] == [new_ep]
    # And of the types sent, it sees those sent to the new A, none sent to the earlier one
    assert _event_types(world, "new_a")[1] == ["fresh"]
    # And the producer still sees both, until the deletion job removes the earlier A's endpoint
    assert {e["id"] for e in world.producer("GET", "/v1/endpoints?customer=cus-a")["items"]} == {old["ep"], catch_all, new_ep}


def _event_types(world: World, key: str) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every page of `GET /v1/event-types` for the key, two types a page: the registered types by name, and the first page's `sent`."""
    registered: dict[str, dict[str, Any]] = {}
    status, page = world.call(key, "GET", "/v1/event-types?limit=2")
    assert status == 200, page
    sent = page["sent"]
    while True:
        registered.update({t["name"]: t for t in page["items"]})
        if not page["next"]:
            return registered, sent
        status, page = world.call(key, "GET", f"/v1/event-types?limit=2&cursor={page['next']}")
        assert status == 200 and "sent" not in page, page


def test_a_session_lists_only_the_event_types_its_customer_sees(world: World) -> None:
    # Given A's endpoints: one naming order.shipped, one taking every type; B's: one naming refund.issued, one taking every type
    for cus, types in (("cus-a", ["order.shipped"]), ("cus-a", []), ("cus-b", ["refund.issued"]), ("cus-b", [])):
        world.producer("POST", "/v1/endpoints", {"url": world.receiver.url, "customer": cus, **({"event_types": types} if types else {})})
    # And invoice.created registered with a schema; a.b (the fixture's, no schema) sent to the tenant's own endpoints only
    schema = {"type": "object", "required": ["invoice"], "properties": {"invoice": {"type": "string"}}}
    world.producer("PUT", "/v1/event-types/invoice.created", {"description": "An invoice was created", "versions": {"2026-01-01": {"schema": schema}}})
    # When the producer sends invoice.created and payment.failed to B only, welcome.sent to A, a.b to its own, and broadcasts news.posted
    world.producer("POST", "/v1/events", {"type": "invoice.created", "data": {"invoice": "in_1"}, "customer": "cus-b"})
    batch = [{"type": "payment.failed", "data": {}, "customer": "cus-b"}, {"type": "welcome.sent", "data": {}, "customer": "cus-a"}]
    world.producer("POST", "/v1/events/batch", {"events": batch})
    world.producer("POST", "/v1/events", {"type": "a.b", "data": {}})
    world.producer("POST", "/v1/events/broadcast", {"type": "news.posted", "data": {}})
    world.tokens["session_b"] = world.producer("POST", "/v1/customers/cus-b/portal-sessions", {})["token"]
    b_only = {"invoice.created", "payment.failed", "refund.issued"}

    # Then A's sessions list what A's endpoints name and what was sent to A, registered or not, and none of B's types
    for key in ("session", "read_only"):
        registered, sent = _event_types(world, key)
        assert (sorted(registered), sorted(sent)) == ([], ["news.posted", "order.shipped", "welcome.sent"])
        # And reading B's types, or the tenant's own, answers exactly as a type the catalog does not hold
        unknown = world.call(key, "GET", "/v1/event-types/no.such.type")
        for name in (*b_only, "a.b"):
            status, answer = world.call(key, "GET", f"/v1/event-types/{name}")
            assert (status, answer) == (404, {"error": {**unknown[1]["error"], "message": unknown[1]["error"]["message"].replace("no.such.type", name)}})
        assert world.call(key, "GET", "/v1/event-types/order.shipped")[0] == 404  # A's own name, but not in the catalog
    # And B's session lists its own: the type with a schema (with its versions), the one sent, the one its endpoint names
    registered, sent = _event_types(world, "session_b")
    assert (sorted(registered), sorted(sent)) == (["invoice.created"], ["news.posted", "payment.failed", "refund.issued"])
    assert registered["invoice.created"]["versions"] == ["2026-01-01"]
    status, entry = world.call("session_b", "GET", "/v1/event-types/invoice.created")
    assert status == 200 and entry["versions"]["2026-01-01"]["schema"] == schema

    # When A's endpoint subscribes to invoice.created too, A sees it (what its endpoint can receive), with its catalog entry
    world.call("session", "POST", "/v1/endpoints", {"url": world.receiver.url, "event_types": ["invoice.created"]})
    registered, sent = _event_types(world, "session")
    assert sorted(registered) == ["invoice.created"] and "payment.failed" not in sent and "refund.issued" not in sent

    # And the producer still sees the whole catalog and every type sent
    registered, sent = _event_types(world, "producer")
    assert sorted(registered) == ["a.b", "invoice.created"] and sorted(sent) == ["news.posted", "payment.failed", "welcome.sent"]


def _v1_routes() -> list[Any]:
    """The API's `/v1` routes, as its resolver serves them."""
    from hookline.entrypoints import api

    return [r for r in api.served() if r.path.startswith("/v1")]


_PARAMS = {
    "ep": "endpoint_id",
    "pep": "endpoint_id",
    "pt": "token_id",
    "evt": "event_id",
    "dlv": "delivery_id",
    "rpl": "replay_id",
    "cus": "uid",
    "type": "name",
    "ver": "version",
    "job": "job_id",
}


def _route_of(row: Row) -> tuple[str, str]:
    """The route a matrix row calls, as the resolver names it: (`PATCH`, `/v1/endpoints/<endpoint_id>`)."""
    return row.method, re.sub(r"\{(\w+)\}", lambda m: f"<{_PARAMS[m.group(1)]}>", row.path.split("?")[0])


def test_every_v1_route_declares_its_access() -> None:
    routes = _v1_routes()
    assert routes and all(r.declared for r in routes), [r.path for r in routes if not r.declared]
    # And the matrix tries every one of them
    served = {(r.method, r.path) for r in routes}
    assert served - {_route_of(row) for row in MATRIX} == set(), "routes the access matrix does not try"


def test_a_poll_token_polls_its_own_endpoint_and_nothing_else(world: World) -> None:
    # Given two polling endpoints of A and one of B, and a poll token of A's first
    row = next(r for r in MATRIX if r.path == "/v1/endpoints/{pep}/poll")
    mine, other, theirs = world.resources("A", row), world.resources("A", row), world.resources("B", row)
    made = world.producer("POST", f"/v1/endpoints/{mine['pep']}/poll-tokens")
    world.tokens["poll"] = made["token"]
    # Then it polls its endpoint
    status, page = world.call("poll", "GET", f"/v1/endpoints/{mine['pep']}/poll")
    assert (status, page["webhooks"], page["done"]) == (200, [], True)
    # And another endpoint's poll, of its customer's or another's, is 404 as if it did not exist; every other route 403;
    # none of them changes anything
    refusals = [
        ("GET", f"/v1/endpoints/{other['pep']}/poll", 404),
        ("GET", f"/v1/endpoints/{theirs['pep']}/poll", 404),
        ("GET", f"/v1/endpoints/{mine['pep']}", 403),
        ("GET", "/v1/endpoints", 403),
        ("POST", f"/v1/endpoints/{mine['pep']}/poll-tokens", 403),
        ("DELETE", f"/v1/endpoints/{mine['pep']}/poll-tokens/{made['id']}", 403),
        ("POST", f"/v1/endpoints/{mine['pep']}/test", 403),
        ("GET", "/v1/event-types", 403),
    ]
    before = _everything(world.hookline)
    for method, path, want in refusals:
        status, answer = world.call("poll", method, path)
        assert (status, answer["error"]["code"]) == (want, "not_found" if want == 404 else "forbidden"), (method, path)
    assert world.call("poll", "POST", "/v1/events", {"type": "a.b", "data": {}})[0] == 403
    assert _everything(world.hookline) == before
    # And through API Gateway's cache, an answer cached on a refused path still polls (the authorizer does not judge the
    # path: its answer is kept for every path)
    gw = _gateway(world)
    assert _through(gw, made["token"], "GET", f"/v1/endpoints/{mine['pep']}")[0] == 403
    assert _through(gw, made["token"], "GET", f"/v1/endpoints/{mine['pep']}/poll")[0] == 200
    # And its id with a secret of the same shape but not its own is refused by the authorizer
    world.tokens["forged"] = made["token"][:-1] + ("A" if made["token"][-1] != "A" else "B")
    assert world.call("forged", "GET", f"/v1/endpoints/{mine['pep']}/poll")[0] == 401
    # And revoked (another endpoint's id for it is 404), the authorizer no longer accepts it
    assert world.call("producer", "DELETE", f"/v1/endpoints/{other['pep']}/poll-tokens/{made['id']}")[0] == 404
    assert world.call("producer", "DELETE", f"/v1/endpoints/{mine['pep']}/poll-tokens/{made['id']}")[0] == 204
    assert world.call("poll", "GET", f"/v1/endpoints/{mine['pep']}/poll")[0] == 401


def _portal_rows() -> list[Row]:
    """Every matrix row of every `/v1` route a portal session may call (all but the producer's own), from the route table."""
    from hookline.core.access import Access

    reachable = {(r.method, r.path) for r in _v1_routes() if r.declared is not None and r.declared.access is not Access.PRODUCER}
    rows = [row for row in MATRIX if _route_of(row) in reachable]
    assert {_route_of(row) for row in rows} == reachable
    return rows


def _gateway(world: World) -> Gateway:
    """Local mode's front door over the real handlers, with API Gateway's authorizer cache at its longest and a clock
    that never moves: every answer it caches is used for as long as the test runs (within the cache window)."""
    api, authorizer = world.hookline.handlers["api"], world.hookline.handlers["authorizer"]
    return Gateway(
        lambda e: api(e, None), lambda e: authorizer(e, None), region="us-east-1", authorizer_cache_seconds=MAX_AUTHORIZER_CACHE_SECONDS, clock=lambda: 0.0
    )


def _through(gw: Gateway, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    raw = b"" if body is None else json.dumps(body).encode()
    reply = gw.handle(
        IncomingRequest(method, path, [("authorization", f"Bearer {token}"), ("content-type", "application/json")], raw, "127.0.0.1"), "127.0.0.1:8787"
    )
    return reply.status, (json.loads(reply.body) if reply.body else None)


def test_a_deleted_customers_cached_session_reaches_nothing_of_the_customer_made_again_under_its_uid(world: World) -> None:
    """Issue 50, finding 1: the authorizer's cached answer for the earlier customer's session is refused on every route."""
    gw = _gateway(world)
    stale = world.tokens["session"]
    # Given customer A's session in use, so the gateway caches the authorizer's answer
    assert _through(gw, stale, "GET", "/v1/endpoints")[0] == 200
    # When A is deleted and another customer is made under A's uid (a later millisecond: creation times are kept to it)
    world.producer("DELETE", "/v1/customers/cus-a")
    time.sleep(0.002)
    world.producer("PUT", "/v1/customers/cus-a", {"name": "another A", "limits": {"max_rate_per_second": 100, "max_concurrency": 10}})
    world.tokens["new_a"] = world.producer("POST", "/v1/customers/cus-a/portal-sessions", {})["token"]
    # Then, within the cache window, the earlier session answers 401 on every route a session may call, aimed at the
    # new A's resources (its endpoint, secret, events, deliveries, replays, jobs), and changes nothing
    for row in _portal_rows():
        ids = world.resources("A", row)
        before = _everything(world.hookline)
        status, answer = _through(gw, stale, row.method, _fill(row.path, ids), _fill(row.body, ids))
        assert (status, answer["error"]["code"]) == (401, "unauthorized"), f"{row.name}: {status} {answer}"
        assert _everything(world.hookline) == before, f"{row.name} changed something"
    # And the new A's session, through the same cache, answers on every route as the matrix says a session of A's does
    for row in _portal_rows():
        ids = world.resources("A", row)
        status, answer = _through(gw, world.tokens["new_a"], row.method, _fill(row.path, ids), _fill(row.body, ids))
        against_a, _, against_own = row.session.split()
        assert status == int(against_a if against_a != "-" else against_own), f"{row.name}: {status} {answer}"
    assert _through(gw, world.tokens["new_a"], "GET", "/v1/session")[1]["customer"]["name"] == "another A"
