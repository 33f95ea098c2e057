"""The OpenAPI document (docs/openapi.yaml) against the router and the live API.

The document must be valid OpenAPI 3.1, name exactly the routes the router
serves, carry examples that satisfy their own schemas, and describe what the
real handler (against moto) actually answers, status codes included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_openapi
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.entrypoints.api import served
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import http_event
from tests.support.receiver import Answer, Received, running_receiver

SPEC_PATH = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
BASE_URI = "urn:hookline:openapi"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON = "application/json"


def _load() -> dict[str, Any]:
    with SPEC_PATH.open(encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    assert isinstance(doc, dict)
    return doc


SPEC = _load()
REGISTRY: Registry[Any] = Registry().with_resource(BASE_URI, Resource.from_contents(SPEC, default_specification=DRAFT202012))


# -- helpers: walking the document ---------------------------------------------------------


def _escape(segment: str) -> str:
    """One JSON-pointer segment, percent-quoted for use in a URI fragment."""
    return quote(segment.replace("~", "~0").replace("/", "~1"), safe="")


def _pointer(*segments: str) -> str:
    return "".join("/" + _escape(s) for s in segments)


def _follow(node: dict[str, Any], at: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """An OpenAPI object (response, parameter, ...) and where it lives, following a local $ref."""
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are used: {ref}"
        at = tuple(s.replace("~1", "/").replace("~0", "~") for s in ref[2:].split("/"))
        node = SPEC
        for segment in at:
            node = node[segment]
    return node, at


def _validator(at: tuple[str, ...]) -> Draft202012Validator:
    """A validator for the schema at `at` inside the document, its $refs resolved against the document."""
    return Draft202012Validator({"$ref": f"{BASE_URI}#{_pointer(*at)}"}, registry=REGISTRY, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _errors(at: tuple[str, ...], instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}" for e in _validator(at).iter_errors(instance)]


def _operations() -> Iterator[tuple[str, str, dict[str, Any], tuple[str, ...]]]:
    for path, item in SPEC["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method], ("paths", path, method)


def _media_examples(media: dict[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if "example" in media:
        out.append(("example", media["example"]))
    for name, entry in (media.get("examples") or {}).items():
        example, _ = _follow(entry, ())
        if "value" in example:
            out.append((name, example["value"]))
    return out


def _all_media() -> Iterator[tuple[str, dict[str, Any], tuple[str, ...]]]:
    """Every JSON media object of a request body or response: (label, media, where)."""
    for method, path, op, at in _operations():
        if "requestBody" in op:
            body, body_at = _follow(op["requestBody"], (*at, "requestBody"))
            yield f"{method} {path} request", body["content"][JSON], (*body_at, "content", JSON)
        for status, response in op["responses"].items():
            resolved, response_at = _follow(response, (*at, "responses", status))
            for media_type, media in (resolved.get("content") or {}).items():
                yield f"{method} {path} {status}", media, (*response_at, "content", media_type)


def _resolve_schema(schema: dict[str, Any]) -> dict[str, Any]:
    node, _ = _follow(schema, ())
    return node


def _undocumented(schema: dict[str, Any], instance: Any, where: str = "$") -> list[str]:
    """Fields of `instance` that `schema` does not name (a closed reading of an open schema).

    The document keeps response objects open so that they can grow; the live
    check reads them closed, so a field the code adds without documenting it fails.
    Free-form objects (no `properties`, e.g. an event's `data`) are not inspected.
    """
    schema = _resolve_schema(schema)
    parts = [schema] + [_resolve_schema(s) for s in schema.get("allOf", [])]
    if isinstance(instance, list):
        items = [p["items"] for p in parts if "items" in p]
        return [f for i, v in enumerate(instance) for s in items for f in _undocumented(s, v, f"{where}[{i}]")]
    if not isinstance(instance, dict):
        return []
    properties: dict[str, Any] = {}
    for part in parts:
        properties |= part.get("properties", {})
    if not properties:
        return []
    found = [f"{where}.{k}" for k in instance if k not in properties]
    for key, value in instance.items():
        if key in properties:
            found += _undocumented(properties[key], value, f"{where}.{key}")
    return found


# -- the document on its own ------------------------------------------------------------------


def test_document_is_valid_openapi_3_1() -> None:
    # Given the document as committed
    # When the OpenAPI validator reads it
    validate_openapi(SPEC)
    # Then it passes, and it is 3.1 with every operation named once
    assert SPEC["openapi"].startswith("3.1")
    operation_ids = [op["operationId"] for _, _, op, _ in _operations()]
    assert len(operation_ids) == len(set(operation_ids))


def _router_routes() -> set[tuple[str, str]]:
    assert served(), "found no routes on the routers"
    return {(r.method, re.sub(r"<(\w+)>", r"{\1}", r.path)) for r in served()}


def test_every_served_route_is_documented_and_vice_versa() -> None:
    # Given the routes registered on the Powertools resolver and the operations of the document
    served = _router_routes()
    documented = {(method, path) for method, path, _, _ in _operations()}
    # When they are compared as (METHOD, path) pairs, `<name>` read as `{name}`
    # Then they are the same set
    assert served - documented == set(), "served but not documented"
    assert documented - served == set(), "documented but not served"


def test_a_method_a_path_does_not_serve_is_405_allowing_the_documented_methods(hookline: Hookline) -> None:
    # Given every documented path, its parameters filled in (`/v1/events/broadcast` also matches `/v1/events/{event_id}`)
    for path, item in SPEC["paths"].items():
        documented = ", ".join(sorted(m.upper() for m in METHODS if m in item))
        concrete = re.sub(r"\{\w+\}", "x1", path)
        # When a method no route serves there is asked for
        result = hookline.handlers["api"](http_event("OPTIONS", concrete, tenant="acme"), None)
        # Then the answer is a JSON 405 whose Allow names exactly the methods the document lists for the path
        assert (result["statusCode"], result["headers"].get("Allow")) == (405, documented), path
        assert json.loads(result["body"])["error"]["code"] == "method_not_allowed", path


def test_security_is_global_and_health_is_public() -> None:
    # Given the document's security settings
    # Then bearer auth applies everywhere, and only GET /health opts out
    assert SPEC["security"] == [{"bearerAuth": []}]
    scheme = SPEC["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    public = {(method, path) for method, path, op, _ in _operations() if op.get("security") == []}
    assert public == {("GET", "/health"), ("GET", "/portal"), ("GET", "/portal/{name}")}
    # And every authenticated operation documents the 401
    for method, path, op, _ in _operations():
        if (method, path) not in public:
            assert "401" in op["responses"], f"{method} {path}"


def test_every_example_satisfies_its_schema() -> None:
    # Given every example in the document: of request bodies, responses, parameters and schemas
    checked = 0
    problems: list[str] = []
    for label, media, at in _all_media():
        for name, value in _media_examples(media):
            problems += [f"{label} [{name}] {e}" for e in _errors((*at, "schema"), value)]
            checked += 1
    for method, path, op, at in _operations():
        params = [*SPEC["paths"][path].get("parameters", []), *op.get("parameters", [])]
        for param in params:
            resolved, param_at = _follow(param, (*at, "parameters"))
            if "example" in resolved:
                problems += [f"{method} {path} parameter {resolved['name']}: {e}" for e in _errors((*param_at, "schema"), resolved["example"])]
                checked += 1
    for name, schema in SPEC["components"]["schemas"].items():
        for i, value in enumerate(schema.get("examples", [])):
            problems += [f"schema {name} example {i}: {e}" for e in _errors(("components", "schemas", name), value)]
            checked += 1
    # When each is validated (JSON Schema 2020-12, formats asserted)
    # Then none fails
    assert problems == []
    assert checked > 40


def test_every_request_body_and_success_response_has_an_example() -> None:
    # Given every operation
    missing = []
    for method, path, op, at in _operations():
        if "requestBody" in op:
            body, _ = _follow(op["requestBody"], (*at, "requestBody"))
            if not _media_examples(body["content"][JSON]):
                missing.append(f"{method} {path} request body")
        for status, response in op["responses"].items():
            resolved, _ = _follow(response, ())
            if status.startswith("2") and "content" in resolved and not all(_media_examples(media) for media in resolved["content"].values()):
                missing.append(f"{method} {path} {status}")
    # Then each request body and each 2xx response with content shows at least one example
    assert missing == []


def test_request_bodies_are_closed_and_name_the_fields_the_api_accepts() -> None:
    # Given the request-body schemas
    schemas = SPEC["components"]["schemas"]
    bodies = {_follow(op["requestBody"]["content"][JSON]["schema"], ())[1][-1] for _, _, op, _ in _operations() if "requestBody" in op}
    assert bodies == {
        "CreateEndpoint",
        "UpdateEndpoint",
        "CreateEvent",
        "CreateEventBatch",
        "CreateBroadcast",
        "ReplayRequest",
        "PutCustomer",
        "CreatePortalSession",
        "PutPortalSettings",
        "PutEventType",
        "PutVersion",
        "FilterTest",
    }
    # Then each rejects unknown fields, as the API does (422 unknown_field), and so does the filter tester's sample event
    for name in (*bodies, "SampleEvent"):
        assert schemas[name].get("additionalProperties") is False, name
    # And the endpoint bodies name exactly the fields their models accept
    assert set(schemas["CreateEndpoint"]["properties"]) == set(CreateEndpoint.model_fields)
    assert set(schemas["UpdateEndpoint"]["properties"]) == set(UpdateEndpoint.model_fields)


# -- the live API against the document --------------------------------------------------------


class LiveApi:
    """Calls the real handler and checks each answer against the document's response for it."""

    def __init__(self, hookline: Hookline):
        self.hookline = hookline
        self.seen: set[tuple[str, str, str]] = set()

    def call(
        self,
        method: str,
        template: str,
        body: Any = None,
        *,
        tenant: str | None = "acme",
        query: dict[str, str] | None = None,
        raw_body: str | None = None,
        **params: str,
    ) -> tuple[int, Any]:
        op = SPEC["paths"][template][method.lower()]
        documented = {_follow(p, ())[0]["name"] for p in op.get("parameters", []) if _follow(p, ())[0]["in"] == "query"}
        assert set(query or {}) <= documented, f"undocumented query parameter on {method} {template}"
        path = template.format(**params)
        if not template.startswith("/v1") and template != "/health":
            return self._page(method, template, path, op, query)
        kw: dict[str, Any] = {"query": query} if query else {}
        if raw_body is not None:
            kw["raw_body"] = raw_body
        status, got = self.hookline.api(method, path, body, tenant=tenant, **kw)
        label = f"{method} {path} -> {status} {json.dumps(got)[:400]}"
        if 200 <= status < 300 and body is not None:
            # A body the API accepted must be one the document allows
            assert _errors(("paths", template, method.lower(), "requestBody", "content", JSON, "schema"), body) == [], f"accepted, not documented: {label}"
        assert str(status) in op["responses"], f"undocumented status: {label}"
        response, response_at = _follow(op["responses"][str(status)], ("paths", template, method.lower(), "responses", str(status)))
        if "content" not in response:
            assert got is None, f"the document promises no body: {label}"
        else:
            assert _errors((*response_at, "content", JSON, "schema"), got) == [], label
            if 200 <= status < 300:
                assert _undocumented(response["content"][JSON]["schema"], got) == [], label
        self.seen.add((method, template, str(status)))
        return status, got

    def _page(self, method: str, template: str, path: str, op: dict[str, Any], query: dict[str, str] | None) -> tuple[int, Any]:
        """The portal's page and files: not JSON; their status and content type must be documented."""
        result = self.hookline.handlers["api"](http_event(method, path, tenant=None, query=query), None)
        status, kind = result["statusCode"], result["headers"]["Content-Type"].split(";")[0]
        assert str(status) in op["responses"], f"undocumented status: {method} {path} -> {status}"
        response, _ = _follow(op["responses"][str(status)], ())
        if 200 <= status < 300:
            assert kind in response["content"], f"undocumented content type {kind}: {method} {path}"
        self.seen.add((method, template, str(status)))
        return status, result["body"]


def _example(method: str, path: str, name: str | None = None) -> dict[str, Any]:
    media = SPEC["paths"][path][method.lower()]["requestBody"]["content"][JSON]
    if name is None:  # the one example, or the first of several
        value = media["example"] if "example" in media else next(iter(media["examples"].values()))["value"]
    else:
        value = media["examples"][name]["value"]
    assert isinstance(value, dict)
    return dict(value)


def _answer(request: Received) -> Answer:
    if request.path.endswith("/down"):
        return Answer(503, b"down for maintenance")
    if json.loads(request.body).get("type") == "user.created":
        return Answer(400, b'{"error":"unknown user"}')
    return Answer(200, b"ok")


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_live_success_responses_match_the_document(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_DELIVERY_ROLE_ARNS", "arn:aws:iam::123456789012:role/hookline-DeliveryFunctionRole")
    container.reset()
    api = LiveApi(hookline)
    with running_receiver(_answer) as receiver:
        # Given the service is up
        assert api.call("GET", "/health", tenant=None)[0] == 200

        # When a customer is created from the document's examples, replaced, and the replacement repeated
        status, _ = api.call("PUT", "/v1/customers/{uid}", _example("PUT", "/v1/customers/{uid}", "minimal"), uid="org_4711")
        assert status == 201
        status, customer = api.call("PUT", "/v1/customers/{uid}", _example("PUT", "/v1/customers/{uid}", "full"), uid="org_4711")
        assert (status, customer["limits"]) == (200, {"max_rate_per_second": 20.0, "max_concurrency": 10})
        assert api.call("PUT", "/v1/customers/{uid}", _example("PUT", "/v1/customers/{uid}", "full"), uid="org_4711") == (200, customer)
        # Then it reads back, alone and listed
        assert api.call("GET", "/v1/customers/{uid}", uid="org_4711") == (200, customer)
        assert api.call("GET", "/v1/customers", query={"limit": "10"}) == (200, {"items": [customer], "next": None})
        # And portal sessions are made for it from the document's examples, then all revoked
        for example in ("default", "read_only"):
            status, session = api.call(
                "POST", "/v1/customers/{uid}/portal-sessions", _example("POST", "/v1/customers/{uid}/portal-sessions", example), uid="org_4711"
            )
            assert (status, session["customer"], session["read_only"]) == (201, "org_4711", example == "read_only")
        assert api.call("DELETE", "/v1/customers/{uid}/portal-sessions", uid="org_4711") == (204, None)
        # And an endpoint registered for it is listed by customer
        status, theirs = api.call("POST", "/v1/endpoints", {**_example("POST", "/v1/endpoints", "for_customer"), "url": receiver.url})
        # its rate defaults to the customer's ceiling (20/s), under the endpoint default (50/s)
        assert (status, theirs["customer"], theirs["rate_limit_per_second"]) == (201, "org_4711", 20.0)
        status, page = api.call("GET", "/v1/endpoints", query={"customer": "org_4711"})
        assert (status, [e["id"] for e in page["items"]]) == (200, [theirs["id"]])

        # When endpoints are registered from the document's own request examples
        status, billing = api.call("POST", "/v1/endpoints", {**_example("POST", "/v1/endpoints", "full"), "url": receiver.url})
        assert status == 201
        assert billing["headers"] == {"X-Api-Key": "b1llIng-rcv-7f3a", "X-Environment": "production"}
        status, every = api.call("POST", "/v1/endpoints", {**_example("POST", "/v1/endpoints", "minimal"), "url": receiver.url})
        assert status == 201
        status, crm = api.call("POST", "/v1/endpoints", _example("POST", "/v1/endpoints", "minimal"))
        assert status == 201
        # Then they read back, one by one and as pages
        assert api.call("GET", "/v1/endpoints/{endpoint_id}", endpoint_id=billing["id"])[0] == 200
        status, page = api.call("GET", "/v1/endpoints", query={"limit": "2"})
        assert status == 200
        assert page["next"]
        assert api.call("GET", "/v1/endpoints", query={"cursor": page["next"]})[0] == 200

        # When the third endpoint is changed with the document's PATCH examples
        for name in ("retarget", "disable"):
            status, changed = api.call("PATCH", "/v1/endpoints/{endpoint_id}", _example("PATCH", "/v1/endpoints/{endpoint_id}", name), endpoint_id=crm["id"])
            assert status == 200
        assert changed["status"] == "disabled"
        # And null resets a field to its default, as documented
        status, reset = api.call("PATCH", "/v1/endpoints/{endpoint_id}", {"description": None, "headers": None}, endpoint_id=billing["id"])
        assert (status, reset["description"], reset["headers"]) == (200, "", {})
        status, _ = api.call("PATCH", "/v1/endpoints/{endpoint_id}", {"headers": {"X-Environment": "production"}}, endpoint_id=billing["id"])
        assert status == 200

        # When events are sent: the documented examples (one idempotent) and one the receiver refuses
        status, paid = api.call("POST", "/v1/events", _example("POST", "/v1/events", "idempotent"))
        assert status == 202
        assert paid["deliveries"] == 3  # billing, every, and crm's (disabled: stored paused)
        assert api.call("POST", "/v1/events", _example("POST", "/v1/events", "idempotent")) == (202, paid)
        status, refused = api.call("POST", "/v1/events", _example("POST", "/v1/events", "anonymous"))
        assert status == 202
        assert api.call("POST", "/v1/events", _example("POST", "/v1/events", "for_customer"))[1]["deliveries"] == 1
        hookline.drain()
        # Then the events read back with their deliveries and attempts
        status, event = api.call("GET", "/v1/events/{event_id}", event_id=paid["id"])
        assert status == 200
        assert sorted(d["status"] for d in event["deliveries"]) == ["paused", "succeeded", "succeeded"]
        status, event = api.call("GET", "/v1/events/{event_id}", event_id=refused["id"])
        assert status == 200
        [failed] = [d for d in event["deliveries"] if d["endpoint_id"] == every["id"]]
        assert failed["status"] == "failed"
        assert failed["attempts"][0]["status_code"] == 400
        # And the endpoint's failed deliveries, stats and health show it
        now = datetime.now(UTC)
        window = {"since": _iso(now - timedelta(hours=1)), "until": _iso(now + timedelta(hours=1))}
        status, failures = api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", query={"status": "failed", **window}, endpoint_id=every["id"])
        assert status == 200
        assert [d["id"] for d in failures["items"]] == [failed["id"]]
        status, paused = api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", query={"status": "paused", "limit": "10"}, endpoint_id=crm["id"])
        assert status == 200
        assert [d["event_id"] for d in paused["items"]] == [paid["id"]]
        status, stats = api.call("GET", "/v1/endpoints/{endpoint_id}/stats", query=window, endpoint_id=every["id"])
        assert status == 200
        assert stats["attempts"] == 2
        assert api.call("GET", "/v1/endpoints/{endpoint_id}", endpoint_id=every["id"])[0] == 200
        status, customer_stats = api.call("GET", "/v1/customers/{uid}/stats", query=window, uid="org_4711")
        assert (status, customer_stats["endpoints"], customer_stats["attempts"], customer_stats["succeeded"]) == (200, 1, 1, 1)

        # When the failed delivery is retried by hand
        status, retried = api.call("POST", "/v1/events/{event_id}/deliveries/{delivery_id}/retry", event_id=refused["id"], delivery_id=failed["id"])
        assert status == 202
        assert retried["generation"] == 1
        # Then its repeat before the attempt is made is accepted again, and a retry of a paused delivery is a documented conflict
        status, again = api.call("POST", "/v1/events/{event_id}/deliveries/{delivery_id}/retry", event_id=refused["id"], delivery_id=failed["id"])
        assert (status, again["generation"]) == (202, 1)
        status, _ = api.call("POST", "/v1/events/{event_id}/deliveries/{delivery_id}/retry", event_id=paid["id"], delivery_id=paused["items"][0]["id"])
        assert status == 409
        hookline.pump()

        # When a window is replayed: the document's example (an old window) and the last hour
        assert api.call("POST", "/v1/endpoints/{endpoint_id}/replay", _example("POST", "/v1/endpoints/{endpoint_id}/replay"), endpoint_id=every["id"])[0] == 202
        status, replay = api.call("POST", "/v1/endpoints/{endpoint_id}/replay", {**window, "status": "failed"}, endpoint_id=every["id"])
        assert status == 202
        hookline.pump()
        # Then its progress reads back
        status, progress = api.call("GET", "/v1/replays/{replay_id}", replay_id=replay["id"])
        assert status == 200
        assert progress["matched"] == 1

        # When an endpoint delivers into a customer's queue (the document's example), its role's template is served
        status, queue = api.call("POST", "/v1/endpoints", _example("POST", "/v1/endpoints", "aws_queue"))
        assert (status, queue["url"], queue["destination"]["type"]) == (201, None, "sqs")
        status, template = api.call("GET", "/v1/endpoints/{endpoint_id}/role-template", endpoint_id=queue["id"])
        assert (status, template["Outputs"]["RoleArn"]["Value"]) == (200, {"Fn::GetAtt": ["HooklineDeliveryRole", "Arn"]})
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=queue["id"])[0] == 204

        # When an endpoint signs with Ed25519 and GitHub's format (the document's example), its key pair rotates with its secret
        status, signed = api.call("POST", "/v1/endpoints", {**_example("POST", "/v1/endpoints", "signed"), "url": receiver.url})
        assert (status, signed["signing"]["also"]) == (201, [{"scheme": "hmac", "preset": "github"}])
        status, rotated = api.call("POST", "/v1/endpoints/{endpoint_id}/secret/rotate", endpoint_id=signed["id"])
        assert status == 200 and rotated["public_key"] != signed["signing"]["public_key"]
        # Then the key set holds both its keys while the replaced one signs
        status, jwks = api.call("GET", "/v1/jwks")
        assert (status, [k["endpoint_id"] for k in jwks["keys"]]) == (200, [signed["id"]] * 2)
        assert api.call("PATCH", "/v1/endpoints/{endpoint_id}", _example("PATCH", "/v1/endpoints/{endpoint_id}", "signing"), endpoint_id=signed["id"])[0] == 200
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=signed["id"])[0] == 204
        # When a polling endpoint (the document's example) has a poll token made, is polled with it, and it is revoked
        status, polled = api.call("POST", "/v1/endpoints", _example("POST", "/v1/endpoints", "polling"))
        assert (status, polled["url"], polled["destination"]) == (201, None, {"type": "poll"})
        status, token = api.call("POST", "/v1/endpoints/{endpoint_id}/poll-tokens", endpoint_id=polled["id"])
        assert (status, token["endpoint_id"]) == (201, polled["id"])
        status, page = api.call("GET", "/v1/endpoints/{endpoint_id}/poll", query={"limit": "10"}, endpoint_id=polled["id"])
        assert (status, page) == (200, {"webhooks": [], "cursor": None, "done": True})
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}/poll-tokens/{token_id}", endpoint_id=polled["id"], token_id=token["id"]) == (204, None)
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=polled["id"])[0] == 204

        # When the secret is rotated and the endpoints are tested
        assert api.call("POST", "/v1/endpoints/{endpoint_id}/secret/rotate", endpoint_id=billing["id"])[0] == 200
        status, secrets = api.call("GET", "/v1/endpoints/{endpoint_id}/secret", endpoint_id=billing["id"])
        assert (status, sorted(secrets)) == (200, ["created_at", "previous_expires_at", "previous_secret", "previous_secrets", "secret"])
        status, tested = api.call("POST", "/v1/endpoints/{endpoint_id}/test", endpoint_id=billing["id"])
        assert (status, tested["succeeded"]) == (200, True)
        status, enabled = api.call("POST", "/v1/endpoints/{endpoint_id}/enable", endpoint_id=billing["id"])
        assert status == 200
        assert enabled["test"]["status_code"] == 200
        assert receiver.requests[-1].headers["x-environment"] == "production"
        # And the enable names the job re-queueing the paused backlog (none here), which reads back running, then done
        assert enabled["requeue"]["status"] == "running"
        status, job = api.call("GET", "/v1/jobs/{job_id}", job_id=enabled["requeue"]["id"])
        assert (status, job["kind"], job["status"], job["endpoint_id"], job["steps"]) == (200, "requeue_paused", "running", billing["id"], 0)
        hookline.drain(topology.JOBS_QUEUE)
        status, job = api.call("GET", "/v1/jobs/{job_id}", job_id=enabled["requeue"]["id"])
        assert (status, job["status"], job["counts"]) == (200, "done", {"requeued": 0})
        down = receiver.url.replace("/webhook", "/down")
        assert api.call("PATCH", "/v1/endpoints/{endpoint_id}", {"url": down}, endpoint_id=crm["id"])[0] == 200
        status, refusal = api.call("POST", "/v1/endpoints/{endpoint_id}/enable", endpoint_id=crm["id"])
        assert status == 424
        assert refusal["error"]["attempt"]["status_code"] == 503

        # When events come in a batch: the document's example, then one whose first event conflicts with it (207)
        status, batch = api.call("POST", "/v1/events/batch", _example("POST", "/v1/events/batch"))
        assert (status, batch["accepted"]) == (202, 2)
        conflicting = {"events": [{**_example("POST", "/v1/events/batch")["events"][0], "data": {"changed": True}}, {"type": "a.b", "data": {}}]}
        status, mixed = api.call("POST", "/v1/events/batch", conflicting)
        assert (status, [r["status"] for r in mixed["results"]]) == (207, [409, 202])

        # When the document's broadcast is sent, repeated, and fanned out
        status, broadcast = api.call("POST", "/v1/events/broadcast", _example("POST", "/v1/events/broadcast"))
        assert (status, broadcast["status"]) == (202, "fanning_out")
        assert api.call("POST", "/v1/events/broadcast", _example("POST", "/v1/events/broadcast")) == (202, broadcast)
        status, shown = api.call("GET", "/v1/events/{event_id}", event_id=broadcast["id"])
        assert (status, shown["broadcast"]["status"], shown["deliveries"]) == (200, "fanning_out", [])
        hookline.pump()
        # Then it reads back done, its deliveries a page at a time
        seen, query = [], {"limit": "1"}
        while True:
            status, shown = api.call("GET", "/v1/events/{event_id}", query=query, event_id=broadcast["id"])
            assert (status, shown["broadcast"]["status"]) == (200, "done")
            seen += shown["deliveries"]
            if not shown["deliveries_next"]:
                break
            query = {"limit": "1", "cursor": shown["deliveries_next"]}
        assert len(seen) == shown["broadcast"]["deliveries"] >= 1

        # When the portal's calls are made: the page and its files, the caller, the types sent, the settings, the failures, one delivery
        status, chart = api.call("GET", "/v1/endpoints/{endpoint_id}/failures", endpoint_id=every["id"])
        assert status == 200 and chart["total"] == sum(h["count"] for h in chart["hours"])
        assert api.call("GET", "/portal", tenant=None, query={"t": "acme"})[0] == 200
        assert api.call("GET", "/portal/{name}", tenant=None, name="portal.js")[0] == 200
        assert api.call("GET", "/v1/session")[1]["kind"] == "api_key"
        status, types = api.call("GET", "/v1/event-types")
        assert (status, types["items"], types["next"]) == (200, [], None)
        assert "invoice.paid" in types["sent"]  # sent, not registered: the pick-list's other half
        assert api.call("PUT", "/v1/portal-settings", _example("PUT", "/v1/portal-settings")) == api.call("GET", "/v1/portal-settings")
        status, one = api.call("GET", "/v1/events/{event_id}/deliveries/{delivery_id}", event_id=refused["id"], delivery_id=failed["id"])
        assert (status, one["event_type"]) == (200, _example("POST", "/v1/events", "anonymous")["type"])
        # And the filter tester answers the document's examples: an order of 150 passes the filter for 100 or more, one of 50
        # does not, nor does a broadcast (no customer) a filter on the customer's uid
        for name, passes in (("matching", True), ("not_matching", False), ("customer_prefix", False)):
            assert api.call("POST", "/v1/filters/test", _example("POST", "/v1/filters/test", name)) == (200, {"matches": passes})

        # When the document's versions are set up: a new default, a sunset on the first version, one more version
        status, added = api.call("PUT", "/v1/versions/{version}", _example("PUT", "/v1/versions/{version}", "make_default"), version="2026-10-01")
        assert (status, added["default"], added["deprecated"]) == (201, True, False)
        status, sunset = api.call("PUT", "/v1/versions/{version}", _example("PUT", "/v1/versions/{version}", "sunset"), version="2026-01-01")
        assert (status, sunset["default"], sunset["deprecated"]) == (200, False, True)  # every tenant has 2026-01-01
        assert api.call("PUT", "/v1/versions/{version}", _example("PUT", "/v1/versions/{version}", "add"), version="2026-12-01")[0] == 201
        # And invoice.paid is registered from the document's example, replaced, and read back alone and listed
        status, registered = api.call("PUT", "/v1/event-types/{name}", _example("PUT", "/v1/event-types/{name}"), name="invoice.paid")
        assert (status, sorted(registered["versions"])) == (201, ["2026-01-01", "2026-10-01"])
        assert api.call("PUT", "/v1/event-types/{name}", _example("PUT", "/v1/event-types/{name}"), name="invoice.paid")[0] == 200
        status, one = api.call("GET", "/v1/event-types/{name}", name="invoice.paid")
        assert (status, one["versions"]) == (200, registered["versions"])
        status, types = api.call("GET", "/v1/event-types", query={"limit": "10"})
        assert (status, [(t["name"], t["versions"]) for t in types["items"]]) == (200, [("invoice.paid", ["2026-01-01", "2026-10-01"])])
        assert "invoice.paid" not in types["sent"] and "user.created" in types["sent"]
        # And an endpoint is pinned by the document's example (to 2026-01-01, which every tenant has), and one to the new default;
        # another is upgraded to it after a test event
        status, first = api.call("POST", "/v1/endpoints", _example("POST", "/v1/endpoints", "pinned"))
        assert (status, first["version"]) == (201, "2026-01-01")
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=first["id"])[0] == 204
        status, ledger = api.call("POST", "/v1/endpoints", {**_example("POST", "/v1/endpoints", "pinned"), "url": receiver.url, "version": "2026-10-01"})
        assert (status, ledger["version"]) == (201, "2026-10-01")
        upgrade = _example("PATCH", "/v1/endpoints/{endpoint_id}", "upgrade")
        status, refusal = api.call("PATCH", "/v1/endpoints/{endpoint_id}", upgrade, endpoint_id=crm["id"])
        assert (status, refusal["error"]["attempt"]["status_code"]) == (424, 503)  # crm answers 503: it stays on 2026-01-01
        status, upgraded = api.call("PATCH", "/v1/endpoints/{endpoint_id}", upgrade, endpoint_id=theirs["id"])
        assert (status, upgraded["version"]) == (200, "2026-10-01")
        assert [json.loads(r.body)["version"] for r in receiver.requests if json.loads(r.body)["type"] == "hookline.test"][-1] == "2026-10-01"

        # When invoice.paid is sent as of the new default: derived for the older pins, then with the producer's own rendering
        status, versioned = api.call("POST", "/v1/events", _example("POST", "/v1/events", "versioned"))
        assert (status, versioned["deliveries"]) == (202, 4)  # billing, every and crm (paused) at 2026-01-01, ledger at 2026-10-01
        status, rendered = api.call("POST", "/v1/events", _example("POST", "/v1/events", "with_rendering"))
        assert status == 202
        hookline.drain()
        # Then each endpoint got its version's shape, and the event and its deliveries say which
        status, shown = api.call("GET", "/v1/events/{event_id}", event_id=versioned["id"])
        assert (status, shown["version"], shown["data"]) == (200, "2026-10-01", _example("POST", "/v1/events", "versioned")["data"])
        assert sorted(d["version"] for d in shown["deliveries"]) == ["2026-01-01", "2026-01-01", "2026-01-01", "2026-10-01"]
        sent = [json.loads(r.body) for r in receiver.requests]
        assert {b["version"]: b["data"] for b in sent if b["id"] == versioned["id"]} == {
            "2026-01-01": {"invoice": "in_125", "amount": 4200, "currency": "eur"},
            "2026-10-01": {"invoice": "in_125", "amount_cents": 4200, "currency": "eur"},
        }
        supplied = _example("POST", "/v1/events", "with_rendering")["versions"]["2026-01-01"]
        assert [b["data"] for b in sent if b["id"] == rendered["id"] and b["version"] == "2026-01-01"][:1] == [supplied]
        # And the usage report says who still receives each version
        status, report = api.call("GET", "/v1/versions")
        assert (status, report["default"], [v["version"] for v in report["items"]]) == (200, "2026-10-01", ["2026-01-01", "2026-10-01", "2026-12-01"])
        usage = {v["version"]: v["usage"] for v in report["items"]}
        assert usage["2026-10-01"]["endpoints"] == {"count": 2, "more": False, "ids": sorted([ledger["id"], theirs["id"]])}
        assert usage["2026-10-01"]["deliveries_7d"] >= 1 and usage["2026-10-01"]["last_delivery_at"] is not None  # ledger's (a grant may defer one)
        assert usage["2026-01-01"]["endpoints"]["count"] == 3 and usage["2026-01-01"]["deliveries_7d"] > 2
        assert usage["2026-12-01"] == {"endpoints": {"count": 0, "more": False, "ids": []}, "deliveries_7d": 0, "last_delivery_at": None}

        # When the paused endpoint's receiver is fixed and it is re-enabled
        status, paused = api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", query={"status": "paused", "limit": "100"}, endpoint_id=crm["id"])
        assert status == 200 and len(paused["items"]) >= 3 and not paused["next"]
        assert api.call("PATCH", "/v1/endpoints/{endpoint_id}", {"url": receiver.url}, endpoint_id=crm["id"])[0] == 200
        status, enabled = api.call("POST", "/v1/endpoints/{endpoint_id}/enable", endpoint_id=crm["id"])
        assert (status, enabled["status"], enabled["requeue"]["status"]) == (200, "active", "running")
        requeue = enabled["requeue"]["id"]
        # And its job is resumed while it runs (a second chain of steps, harmless)
        status, resumed = api.call("POST", "/v1/jobs/{job_id}/resume", job_id=requeue)
        assert (status, resumed["id"], resumed["status"]) == (202, requeue, "running")
        hookline.drain(topology.JOBS_QUEUE)
        # Then the job is done, each paused delivery re-queued once
        status, job = api.call("GET", "/v1/jobs/{job_id}", job_id=requeue)
        assert (status, job["status"], job["counts"]) == (200, "done", {"requeued": len(paused["items"])})
        # And resuming a finished job answers it as it is
        assert api.call("POST", "/v1/jobs/{job_id}/resume", job_id=requeue) == (202, job)
        hookline.pump()
        status, left = api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", query={"status": "paused"}, endpoint_id=crm["id"])
        assert (status, left["items"]) == (200, [])

        # When an endpoint is deleted
        assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=crm["id"])[0] == 204
        # And the customer is deleted: at once, its endpoints by the job the answer names
        status, deleted = api.call("DELETE", "/v1/customers/{uid}", uid="org_4711")
        assert (status, deleted["job"]["status"]) == (202, "running")
        assert api.call("GET", "/v1/customers/{uid}", uid="org_4711")[0] == 404
        status, job = api.call("GET", "/v1/jobs/{job_id}", job_id=deleted["job"]["id"])
        assert (status, job["kind"], job["customer"], job["status"]) == (200, "delete_customer_endpoints", "org_4711", "running")
        hookline.drain(topology.JOBS_QUEUE)
        # Then its endpoint goes with it, and the job reads back done
        assert api.call("GET", "/v1/endpoints/{endpoint_id}", endpoint_id=theirs["id"])[0] == 404
        status, job = api.call("GET", "/v1/jobs/{job_id}", job_id=deleted["job"]["id"])
        assert (status, job["status"], job["counts"]) == (200, "done", {"endpoints_deleted": 1})

    # Then every documented operation was exercised with one of its 2xx answers
    succeeded = {(m, p) for m, p, s in api.seen if s.startswith("2")}
    assert {(m, p) for m, p, _, _ in _operations()} - succeeded == set()


def test_live_error_responses_match_the_document(hookline: Hookline) -> None:
    api = LiveApi(hookline)
    # Given one endpoint and one event
    _, endpoint = api.call("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    _, event = api.call("POST", "/v1/events", {"type": "a.b", "data": {}, "id": "order-7"})
    ep = endpoint["id"]
    unknown_ep, unknown_evt, unknown_dlv = "ep_01kkntq2cnt8b8hz3pj95wjvcc", "evt_01kkntq2cne6s1c99tvp6dvkt6", "dlv_01kkntq2cnerx003w04ypt75j4"

    # When requests go wrong in every documented way, each answer matches the document
    # 400: malformed JSON
    assert api.call("POST", "/v1/endpoints", raw_body="{not json")[0] == 400
    assert api.call("POST", "/v1/events", raw_body="")[0] == 400
    # 401: no tenant from the authorizer
    assert api.call("GET", "/v1/endpoints", tenant=None)[0] == 401
    # 404: unknown or malformed ids on every route that takes one
    assert api.call("GET", "/v1/endpoints/{endpoint_id}", endpoint_id=unknown_ep)[0] == 404
    assert api.call("PATCH", "/v1/endpoints/{endpoint_id}", {"description": "x"}, endpoint_id="nope")[0] == 404
    assert api.call("DELETE", "/v1/endpoints/{endpoint_id}", endpoint_id=unknown_ep)[0] == 404
    assert api.call("POST", "/v1/endpoints/{endpoint_id}/secret/rotate", endpoint_id=unknown_ep)[0] == 404
    assert api.call("POST", "/v1/endpoints/{endpoint_id}/enable", endpoint_id=unknown_ep)[0] == 404
    assert api.call("GET", "/v1/endpoints/{endpoint_id}/secret", endpoint_id=unknown_ep)[0] == 404
    assert api.call("POST", "/v1/endpoints/{endpoint_id}/test", endpoint_id=unknown_ep)[0] == 404
    assert api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", endpoint_id=unknown_ep)[0] == 404
    assert api.call("GET", "/v1/endpoints/{endpoint_id}/stats", endpoint_id=unknown_ep)[0] == 404
    assert (
        api.call("POST", "/v1/endpoints/{endpoint_id}/replay", {"since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z"}, endpoint_id=unknown_ep)[0]
        == 404
    )
    assert api.call("GET", "/v1/replays/{replay_id}", replay_id="rpl_bh2s1be9ng8g0p4z59zep35xe8")[0] == 404
    # 404 job_not_found: an unknown or malformed job id
    for status, got in (
        api.call("GET", "/v1/jobs/{job_id}", job_id="job_01km5392zyx2x3fnt8zam6tbwc"),
        api.call("GET", "/v1/jobs/{job_id}", job_id="rpl_bh2s1be9ng8g0p4z59zep35xe8"),
        api.call("POST", "/v1/jobs/{job_id}/resume", job_id="job_01km5392zyx2x3fnt8zam6tbwc"),
    ):
        assert (status, got["error"]["code"]) == (404, "job_not_found")
    assert api.call("GET", "/v1/events/{event_id}", event_id=unknown_evt)[0] == 404
    assert api.call("POST", "/v1/events/{event_id}/deliveries/{delivery_id}/retry", event_id=event["id"], delivery_id=unknown_dlv)[0] == 404
    # 404 customer_not_found: an unknown customer, wherever one is named
    for status, got in (
        api.call("GET", "/v1/customers/{uid}", uid="nobody"),
        api.call("GET", "/v1/customers/{uid}", uid="x" * 65),
        api.call("DELETE", "/v1/customers/{uid}", uid="nobody"),
        api.call("GET", "/v1/customers/{uid}/stats", uid="nobody"),
        api.call("GET", "/v1/endpoints", query={"customer": "nobody"}),
        api.call("POST", "/v1/endpoints", {"url": "https://example.com/hook", "customer": "nobody"}),
        api.call("POST", "/v1/events", {"type": "a.b", "data": {}, "customer": "nobody"}),
    ):
        assert (status, got["error"]["code"]) == (404, "customer_not_found")
    # 409: the same idempotency key with another body
    assert api.call("POST", "/v1/events", {"type": "a.b", "data": {"changed": True}, "id": "order-7"})[0] == 409
    assert api.call("POST", "/v1/events/broadcast", {"type": "a.b", "data": {}, "id": "order-7"})[0] == 409  # an ordinary event's id
    # 413: a body over the limit
    assert api.call("POST", "/v1/events", {"type": "a.b", "data": {"blob": "x" * 300_000}})[0] == 413
    assert api.call("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {"blob": "x" * 300_000}}]})[0] == 413
    # 422: an unknown field on every body the API takes, bad values, bad query parameters
    for method, template, body in (
        ("POST", "/v1/endpoints", {"url": "https://example.com/hook", "secret": "whsec_x"}),
        ("PATCH", "/v1/endpoints/{endpoint_id}", {"enabled": False}),
        ("POST", "/v1/events", {"type": "a.b", "data": {}, "priority": 1}),
        ("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {}}], "priority": 1}),
        ("POST", "/v1/events/broadcast", {"type": "a.b", "data": {}, "customer": "org_1"}),
        ("POST", "/v1/endpoints/{endpoint_id}/replay", {"since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z", "force": True}),
        ("POST", "/v1/filters/test", {"filter": {"type": ["a.b"]}, "event": {"type": "a.b", "data": {}}, "endpoint_id": ep}),
    ):
        status, got = api.call(method, template, body, endpoint_id=ep)
        assert (status, got["error"]["code"]) == (422, "unknown_field"), (method, template)
        # and the document refuses it too
        assert _errors(("paths", template, method.lower(), "requestBody", "content", JSON, "schema"), body), (method, template)
    assert api.call("POST", "/v1/endpoints", {"url": "https://example.com/hook", "headers": {"Webhook-Id": "x"}})[1]["error"]["code"] == "forbidden_header"
    status, got = api.call("PUT", "/v1/customers/{uid}", {"name": "Globex", "plan": "pro"}, uid="org_1")
    assert (status, got["error"]["code"]) == (422, "unknown_field")
    assert _errors(("components", "schemas", "PutCustomer"), {"name": "Globex", "plan": "pro"})
    assert api.call("PUT", "/v1/customers/{uid}", {"name": "Globex"}, uid="x" * 65)[1]["error"]["code"] == "invalid_customer_uid"
    assert api.call("PUT", "/v1/customers/{uid}", {"name": "Globex", "email": "nobody"}, uid="org_1")[1]["error"]["code"] == "invalid_email"
    assert api.call("PUT", "/v1/customers/{uid}", {"name": "Globex", "limits": {"max_concurrency": 2}}, uid="org_1")[0] == 201
    status, got = api.call("POST", "/v1/endpoints", {"url": "https://example.com/hook", "customer": "org_1", "max_concurrency": 3})
    assert (status, got["error"]["code"]) == (422, "above_customer_limit")
    assert "ceiling of 2" in got["error"]["message"]
    assert api.call("POST", "/v1/endpoints", {"url": "http://169.254.169.254/latest"})[0] == 422
    assert api.call("GET", "/v1/endpoints", query={"limit": "0"})[0] == 422
    assert api.call("GET", "/v1/events/{event_id}", query={"limit": "0"}, event_id=event["id"])[0] == 422
    assert api.call("GET", "/v1/endpoints", query={"cursor": "bm90LWEtY3Vyc29y"})[0] == 422
    assert api.call("GET", "/v1/endpoints/{endpoint_id}/deliveries", query={"status": "delivered"}, endpoint_id=ep)[0] == 422
    assert api.call("GET", "/v1/endpoints/{endpoint_id}/stats", query={"since": "yesterday"}, endpoint_id=ep)[0] == 422
    # 404 event_type_not_found: a type the catalog does not hold
    status, got = api.call("GET", "/v1/event-types/{name}", name="invoice.refunded")
    assert (status, got["error"]["code"]) == (404, "event_type_not_found")
    # 422: the catalog's and the versions' refusals (given a new default, a sunset passed, and invoice.paid registered)
    assert api.call("PUT", "/v1/versions/{version}", {"default": True}, version="2026-10-01")[0] == 201
    assert api.call("PUT", "/v1/versions/{version}", {"sunset_at": "2026-11-01T00:00:00Z"}, version="2026-01-01")[0] == 200
    assert api.call("PUT", "/v1/event-types/{name}", _example("PUT", "/v1/event-types/{name}"), name="invoice.paid")[0] == 201
    assert api.call("PUT", "/v1/event-types/{name}", {"versions": {"2026-10-01": {"schema": {"type": "object"}}}}, name="no.downgrade")[0] == 201
    newer = api.call("POST", "/v1/endpoints", {"url": "https://example.com/hook"})[1]["id"]  # pinned to the new default
    refusals: list[tuple[str, str, dict[str, Any], dict[str, Any], str]] = [
        ("PUT", "/v1/event-types/{name}", {"versions": {"2026-01-01": {"schema": {"type": 5}}}}, {"name": "x"}, "invalid_schema"),
        ("PUT", "/v1/event-types/{name}", {"versions": {"2026-10-01": {"transform": [{"op": "move", "path": "/a"}]}}}, {"name": "x"}, "invalid_transform"),
        ("PUT", "/v1/event-types/{name}", {"schema": {}}, {"name": "x"}, "unknown_field"),
        ("PUT", "/v1/versions/{version}", {"sunset": "2027-01-01T00:00:00Z"}, {"version": "2027-01-01"}, "unknown_field"),
        ("PUT", "/v1/versions/{version}", {}, {"version": "next-week"}, "validation_failed"),
        ("PUT", "/v1/versions/{version}", {"sunset_at": "2027-01-01T00:00:00Z"}, {"version": "2026-10-01"}, "default_sunset"),
        ("POST", "/v1/endpoints", {"url": "https://example.com/hook", "version": "2031-01-01"}, {}, "unknown_version"),
        ("POST", "/v1/endpoints", {"url": "https://example.com/hook", "version": "2026-01-01"}, {}, "version_sunset"),
        ("PATCH", "/v1/endpoints/{endpoint_id}", {"version": "2026-01-01"}, {"endpoint_id": newer}, "version_sunset"),
        ("POST", "/v1/events", {"type": "invoice.paid", "data": {"invoice": "in_1", "amount_cents": -1}}, {}, "schema_violation"),
        ("POST", "/v1/events", {"type": "a.b", "data": {}, "versions": {"2031-01-01": {}}}, {}, "unknown_version"),
        ("POST", "/v1/events", {"type": "no.downgrade", "data": {}}, {}, "version_unavailable"),  # ep is pinned to 2026-01-01
        ("POST", "/v1/events/broadcast", {"type": "no.downgrade", "data": {}}, {}, "version_unavailable"),
        ("POST", "/v1/filters/test", {"filter": {"type": [{"wildcard": "a.*"}]}, "event": {"type": "a.b", "data": {}}}, {}, "invalid_filter"),
    ]
    for method, template, body, params, code in refusals:
        status, got = api.call(method, template, body, **params)
        assert (status, got["error"]["code"]) == (422, code), (method, template, body)
        if code == "unknown_field":
            assert _errors(("paths", template, method.lower(), "requestBody", "content", JSON, "schema"), body), (method, template)
    status, got = api.call("POST", "/v1/events", {"type": "invoice.paid", "data": {"invoice": "in_1", "amount_cents": -1}})
    assert got["error"] | {"message": ""} == {"code": "schema_violation", "message": "", "pointer": "/amount_cents", "rule": "minimum", "version": "2026-10-01"}
    status, got = api.call("POST", "/v1/events", {"type": "no.downgrade", "data": {}})
    assert (got["error"]["version"], got["error"]["endpoint_id"]) == ("2026-01-01", ep)
    # and a batch answers them per event, the others accepted (207)
    status, batch = api.call("POST", "/v1/events/batch", {"events": [{"type": "no.downgrade", "data": {}}, {"type": "a.b", "data": {}}]})
    assert (status, [(r["status"], r.get("error", {}).get("code")) for r in batch["results"]]) == (207, [(422, "version_unavailable"), (202, None)])
    # Then every error status the document lists for the live-reachable cases was seen
    statuses = {s for _, _, s in api.seen}
    assert {"400", "401", "404", "409", "413", "422"} <= statuses


def test_error_responses_are_the_error_envelope_or_api_gateways() -> None:
    # Given every documented non-2xx response
    allowed = {"Error", "TestEventFailed", "RotationRefused", "GatewayError"}
    for method, path, op, at in _operations():
        for status, response in op["responses"].items():
            if status.startswith("2"):
                continue
            resolved, _ = _follow(response, (*at, "responses", status))
            schema = resolved["content"][JSON]["schema"]
            # Then its body is hookline's error envelope or API Gateway's own answer, nothing else
            refs = [s["$ref"] for s in schema.get("anyOf", [schema])]
            assert {r.rsplit("/", 1)[-1] for r in refs} <= allowed, f"{method} {path} {status}"
            assert status in ("401", "403", "429") or "GatewayError" not in str(refs), f"{method} {path} {status}"
