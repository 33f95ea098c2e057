"""Each route's contract (hookline.entrypoints.api.routing.RouteContract), built on Powertools' public seams: what a
route reads is taken from its signature, a body is read as JSON whatever its content type says, the caller is known
only while its route runs, and the methods a path serves come from the routers' own table (404 and 405)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from hookline.entrypoints import api
from hookline.entrypoints.api import events, portal
from hookline.entrypoints.api.routing import Reads, allowed_methods, caller, reads_of
from tests.support.events import http_event

FILTER_TEST = {"filter": {"type": ["a.b"]}, "event": {"type": "a.b", "data": {}}}


@pytest.mark.parametrize(
    ("route", "reads"),
    [
        (portal.portal_page, Reads(frozenset({"t"}), body=False, body_optional=False)),
        (portal.create_portal_session, Reads(frozenset(), body=True, body_optional=True)),
        (events.create_events, Reads(frozenset(), body=True, body_optional=False)),
        (portal.health, Reads(frozenset(), body=False, body_optional=False)),
    ],
)
def test_what_a_route_reads_comes_from_its_signature(route: Any, reads: Reads) -> None:
    assert reads_of(route) == reads


@pytest.mark.parametrize("content_type", [None, "application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_is_read_as_json_whatever_its_content_type_says(content_type: str | None) -> None:
    # Given a producer's request whose content type names anything (or nothing)
    event = http_event("POST", "/v1/filters/test", FILTER_TEST)
    event["headers"] = {"Content-Type": content_type} if content_type else {}
    sent = copy.deepcopy(event)
    # When the API answers it
    answer = api.handle(event, None)
    # Then the body was read as JSON, and the caller's event is as it sent it
    assert (answer["statusCode"], json.loads(answer["body"])) == (200, {"matches": True})
    assert event == sent


def test_the_caller_is_known_only_while_its_route_runs() -> None:
    # Given a request that a declared route answered
    assert api.handle(http_event("POST", "/v1/filters/test", FILTER_TEST), None)["statusCode"] == 200
    # Then, after it, no caller is known
    with pytest.raises(AssertionError):
        caller()


@pytest.mark.parametrize(
    ("path", "methods"),
    [
        ("/v1/events/broadcast", ("POST",)),  # its own route, not /v1/events/<event_id> with "broadcast" for an id
        ("/v1/events/evt_1", ("GET",)),
        ("/v1/endpoints/ep_1", ("DELETE", "GET", "PATCH")),
        ('/v1/endpoints/ep"1', ()),  # a character no path parameter takes
        ("/v1/endpoints/ep_1/extra/more", ()),
        ("/nothing", ()),
    ],
)
def test_the_methods_a_path_serves(path: str, methods: tuple[str, ...]) -> None:
    assert allowed_methods(api.served(), path) == methods


def test_a_path_no_route_takes_is_404_and_another_method_405() -> None:
    assert api.handle(http_event("GET", "/nothing"), None)["statusCode"] == 404
    answer = api.handle(http_event("PUT", "/v1/events/broadcast"), None)
    assert (answer["statusCode"], answer["headers"]["Allow"]) == (405, "POST")


def test_the_document_says_which_routes_are_public_as_the_routes_and_the_front_door_do() -> None:
    # Given the generated document, the routes without `@allow`, and local mode's front door (the stack's routes)
    from hookline.entrypoints.api.document import document
    from local import frontdoor

    doc = document()
    marked = {(m.upper(), p) for p, item in doc["paths"].items() for m, op in item.items() if op.get("security") == []}
    undeclared = {(r.method, r.path.replace("<name>", "{name}")) for r in api.served() if r.declared is None}
    # Then the operations marked `security: []` are exactly the undeclared routes, the ones the front door lets in
    # without the authorizer; every other operation is under the API's bearer scheme
    assert marked == undeclared == {("GET", "/health"), ("GET", "/portal"), ("GET", "/portal/{name}")}
    assert {route for route in marked if route != ("GET", "/portal/{name}")} == set(frontdoor.PUBLIC_ROUTES)
    assert " ".join(("GET", "/portal/{name}")) == frontdoor.PORTAL_ASSET_ROUTE
    assert doc["security"] == [{"bearerAuth": []}]
    assert all("401" in op["responses"] for p, item in doc["paths"].items() for m, op in item.items() if (m.upper(), p) not in marked)


def test_every_route_is_under_a_key_that_names_its_router() -> None:
    # Given every route, by the router module that registered it
    import importlib

    by_module = {name: importlib.import_module(f"hookline.entrypoints.api.{name}").router.served for name in api.MODULES}
    for name, routes in by_module.items():
        for route in routes:
            key = api.key_of(route.path)
            # Then its key names its module (so a request of its path loads it first), no parameter in the key
            assert name in api.ROUTERS.get(key, ()), (route, key)
            assert "<" not in key, route
    # And every module a key names serves a route under it
    assert all(any(api.key_of(r.path) == key for r in by_module[name]) for key, names in api.ROUTERS.items() for name in names)
