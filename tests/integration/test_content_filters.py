"""Content filters per endpoint: an EventBridge event pattern decides which events of its types it receives."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Hookline
from tests.support.receiver import running_receiver

OVER_100 = {"data": {"amount": [{"numeric": [">=", 100]}]}}


def test_a_filtered_endpoint_receives_only_the_events_that_match(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an endpoint that takes orders of 100 or more, and one with no filter
        status, big = hookline.api("POST", "/v1/endpoints", {"url": receiver.url + "/big", "event_types": ["order.paid"], "filter": OVER_100})
        assert (status, big["filter"]) == (201, OVER_100)
        status, every = hookline.api("POST", "/v1/endpoints", {"url": receiver.url + "/every", "event_types": ["order.paid"]})
        assert (status, every["filter"]) == (201, None)
        # When orders of 150 and 50 come in
        status, large = hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"amount": 150}})
        assert (status, large["deliveries"]) == (202, 2)
        status, small = hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"amount": 50}})
        # Then the 50 is planned for the unfiltered endpoint only: a filtered-out endpoint costs no delivery
        assert (status, small["deliveries"]) == (202, 1)
        hookline.pump_until(lambda: len(receiver.requests) == 3, seconds=30)
        got = sorted((r.path.rsplit("/", 1)[1], json.loads(r.body)["data"]["amount"]) for r in receiver.requests)
        assert got == [("big", 150), ("every", 50), ("every", 150)]
        # And the filter is stored as given: reading the endpoint shows it
        assert hookline.api("GET", f"/v1/endpoints/{big['id']}")[1]["filter"] == OVER_100


def test_a_patch_replaces_or_removes_the_filter(hookline: Hookline) -> None:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://receiver.example.com/x", "filter": OVER_100})
    assert status == 201
    # When the filter is replaced
    eu = {"customer": [{"prefix": "eu-"}]}
    status, changed = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"filter": eu})
    assert (status, changed["filter"]) == (200, eu)
    # Then an event for another customer prefix is not delivered to it, and removing the filter lets every event through
    status, answer = hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"amount": 500}})
    assert (status, answer["deliveries"]) == (202, 0)
    status, changed = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"filter": None})
    assert (status, changed["filter"]) == (200, None)
    assert hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"amount": 5}})[1]["deliveries"] == 1


@pytest.mark.parametrize(
    "pattern",
    [
        {},
        {"data": {"amount": [{"numeric": [">=", "100"]}]}},
        {"data": {"amount": 100}},
        {"type": [{"wildcard": "order.*"}]},
        {"detail": {"x": [1]}},
        "amount >= 100",
        {"data": {"amount": [{"numeric": [">", 10**400]}]}},
        {"data": {"amount": [10**400]}},
    ],
    ids=["empty", "numeric-string", "leaf-not-array", "wildcard", "unknown-top-field", "not-an-object", "bound-beyond-a-float", "value-beyond-a-float"],
)
def test_a_malformed_filter_is_a_422_and_creates_nothing(hookline: Hookline, pattern: object) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": "https://receiver.example.com/x", "filter": pattern})
    assert status == 422, body
    assert body["error"]["code"] in ("invalid_filter", "wrong_type")
    assert body["error"]["message"].startswith("'filter")
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


def test_a_broadcast_reaches_only_the_endpoints_whose_filter_it_matches(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given two endpoints of the tenant: one wants the terms of the EU, the other those of the US
        for region in ("eu", "us"):
            status, _ = hookline.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/{region}", "filter": {"data": {"region": [region]}}})
            assert status == 201
        # When the tenant broadcasts new EU terms, and the fan-out job and its deliveries run
        status, answer = hookline.api("POST", "/v1/events/broadcast", {"type": "terms.updated", "data": {"region": "eu"}})
        assert status == 202
        hookline.pump()
        # Then only the EU endpoint received it
        assert [r.path.rsplit("/", 1)[1] for r in receiver.requests] == ["eu"]
        shown = hookline.api("GET", f"/v1/events/{answer['id']}")[1]
        assert shown["broadcast"]["deliveries"] == 1
