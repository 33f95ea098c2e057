"""Property-based fuzzing of every API route through the real handler over moto.

Whatever the path, query, headers, body or authorizer context, the API answers
2xx or a 4xx JSON error (`{"error": {"code", "message"}}`): never a 5xx and
never a traceback. No test here reaches the internet: deliveries are never
pumped, and the only endpoints `enable` can reach point at 127.0.0.1:9, which
refuses the connection at once.
"""

from __future__ import annotations

import base64
import gzip
import json
import string
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookline.adapters.dynamo.ops import encode_cursor
from hookline.core import ids
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.events import http_event

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Every route, as (method, path template); `{name}` is a path parameter.
ROUTES: list[tuple[str, str]] = [
    ("GET", "/health"),
    ("POST", "/v1/endpoints"),
    ("GET", "/v1/endpoints"),
    ("GET", "/v1/endpoints/{endpoint}"),
    ("PATCH", "/v1/endpoints/{endpoint}"),
    ("DELETE", "/v1/endpoints/{endpoint}"),
    ("POST", "/v1/endpoints/{endpoint}/secret/rotate"),
    ("POST", "/v1/endpoints/{loopback_endpoint}/enable"),
    ("GET", "/v1/endpoints/{endpoint}/secret"),
    ("POST", "/v1/endpoints/{loopback_endpoint}/test"),
    ("GET", "/v1/endpoints/{endpoint}/deliveries"),
    ("GET", "/v1/endpoints/{endpoint}/stats"),
    ("GET", "/v1/endpoints/{endpoint}/failures"),
    ("POST", "/v1/endpoints/{endpoint}/replay"),
    ("GET", "/v1/replays/{replay}"),
    ("POST", "/v1/events"),
    ("POST", "/v1/events/batch"),
    ("POST", "/v1/events/broadcast"),
    ("GET", "/v1/events/{event}"),
    ("GET", "/v1/events/{event}/deliveries/{delivery}"),
    ("POST", "/v1/events/{event}/deliveries/{delivery}/retry"),
    ("GET", "/v1/session"),
    ("GET", "/v1/event-types"),
    ("GET", "/v1/portal-settings"),
    ("PUT", "/v1/portal-settings"),
    ("GET", "/portal"),
    ("GET", "/portal/{asset}"),
    ("PUT", "/v1/customers/{customer}"),
    ("GET", "/v1/customers"),
    ("GET", "/v1/customers/{customer}"),
    ("GET", "/v1/customers/{customer}/stats"),
    ("DELETE", "/v1/customers/{customer}"),
    ("POST", "/v1/customers/{customer}/portal-sessions"),
    ("DELETE", "/v1/customers/{customer}/portal-sessions"),
]

TENANT = "acme"
OTHER = "other"
LOOPBACK = "http://127.0.0.1:9/"  # nothing listens on the discard port: refused at once

# A valid body per body-taking route, which the mutation strategy then breaks.
VALID_BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/v1/endpoints"): {
        "url": "https://example.com/hook",
        "event_types": ["order.created", "invoice.paid"],
        "description": "fuzz",
        "rate_limit_per_second": 5,
        "max_concurrency": 2,
        "customer": "fuzz-co",
    },
    ("PATCH", "/v1/endpoints/{endpoint}"): {
        "url": "https://example.org/other",
        "event_types": ["a.b"],
        "description": "patched",
        "rate_limit_per_second": 1.5,
        "max_concurrency": 3,
        "status": "disabled",
    },
    ("POST", "/v1/endpoints/{endpoint}/replay"): {"since": "2020-01-01T00:00:00Z", "until": "2030-01-01T00:00:00Z", "status": "failed"},
    ("POST", "/v1/events"): {"type": "order.created", "data": {"n": 1, "items": [{"sku": "a"}]}, "id": "order-1"},
    ("POST", "/v1/events/batch"): {
        "events": [{"type": "order.created", "data": {"n": 2}, "id": "order-2"}, {"type": "order.paid", "data": {"n": [1.5]}, "customer": "fuzz-co"}]
    },
    ("POST", "/v1/events/broadcast"): {"type": "plan.changed", "data": {"plan": "pro", "from": [1.5]}, "id": "broadcast-1"},
    ("POST", "/v1/customers/{customer}/portal-sessions"): {"ttl_seconds": 600, "read_only": True},
    ("PUT", "/v1/portal-settings"): {"producer_name": "Fuzz Co", "allowed_origins": ["https://app.fuzz.example"]},
    ("PUT", "/v1/customers/{customer}"): {
        "name": "Fuzz Co",
        "email": "hooks@fuzz.example.com",
        "metadata": {"plan": "pro", "region": "eu"},
        "limits": {"max_rate_per_second": 20, "max_concurrency": 4},
    },
}
CUSTOMER = "fuzz-co"  # each tenant has a customer of this uid, with an endpoint


# -- the world each test fuzzes against --------------------------------------------------


@dataclass
class World:
    """Real objects of the tenant (and of another tenant), to aim fuzzed paths at."""

    hookline: Hookline
    own: dict[str, list[str]] = field(default_factory=dict)
    foreign: dict[str, list[str]] = field(default_factory=dict)

    def ids_for(self, kind: str) -> list[str]:
        return self.own.get(kind, []) + self.foreign.get(kind, [])


def _ok(result: tuple[int, Any], status: int) -> Any:
    got, body = result
    assert got == status, body
    return body


def _populate(hl: Hookline, tenant: str) -> dict[str, list[str]]:
    """One example.com endpoint, one loopback endpoint, an event with its deliveries, a broadcast fanned out (its job run,
    no delivery sent), a replay, and a customer with an endpoint."""
    _ok(hl.api("PUT", f"/v1/customers/{CUSTOMER}", {"name": f"{tenant}'s customer"}, tenant=tenant), 201)
    theirs = _ok(hl.api("POST", "/v1/endpoints", {"url": f"https://example.com/{tenant}/{CUSTOMER}", "customer": CUSTOMER}, tenant=tenant), 201)["id"]
    main = _ok(hl.api("POST", "/v1/endpoints", {"url": f"https://example.com/{tenant}"}, tenant=tenant), 201)["id"]
    loop = _ok(hl.api("POST", "/v1/endpoints", {"url": LOOPBACK + tenant, "event_types": ["never.sent"]}, tenant=tenant), 201)["id"]
    event = _ok(hl.api("POST", "/v1/events", {"type": "order.created", "data": {"n": 1}, "id": f"seed-{tenant}"}, tenant=tenant), 202)["id"]
    deliveries = [d["id"] for d in _ok(hl.api("GET", f"/v1/events/{event}", tenant=tenant), 200)["deliveries"]]
    window = {"since": "2020-01-01T00:00:00Z", "until": "2030-01-01T00:00:00Z"}
    replay = _ok(hl.api("POST", f"/v1/endpoints/{main}/replay", window, tenant=tenant), 202)["id"]
    broadcast = _ok(hl.api("POST", "/v1/events/broadcast", {"type": "order.created", "data": {"n": 2}, "id": f"all-{tenant}"}, tenant=tenant), 202)["id"]
    hl.drain(topology.JOBS_QUEUE)  # the broadcast's fan-out (and the replay's step): deliveries stored and queued, none sent
    return {
        "endpoint": [main, theirs],
        "loopback_endpoint": [loop],
        "event": [event, broadcast],
        "delivery": deliveries,
        "replay": [replay],
        "customer": [CUSTOMER],
        "asset": ["portal.js", "portal.css"],
    }


@pytest.fixture
def world(hookline: Hookline) -> World:
    return World(hookline, own=_populate(hookline, TENANT), foreign=_populate(hookline, OTHER))


# -- strategies ---------------------------------------------------------------------------

PREFIXES = ["evt", "ep", "dlv", "rpl", "whsec", "x", "EP", "ep_ep"]
segment_text = st.text(alphabet=st.characters(blacklist_characters="/"), max_size=40)
long_segment = st.builds(lambda s, n: (s * n)[:n], st.text(alphabet=st.characters(blacklist_characters="/"), min_size=1, max_size=3), st.integers(65, 4000))
prefixed_ids = st.builds(ids.new_id, st.sampled_from(PREFIXES)) | st.builds(ids.derived_id, st.sampled_from(PREFIXES), st.text(max_size=8))


def _mutate_id(value: str, how: int) -> str:
    return [value.upper(), value + "0", value[:-1], value.replace("_", "-"), value + "\u00e9", " " + value, value[:3] + "i" + value[4:]][how % 7]


def segment(world: World, kind: str) -> st.SearchStrategy[str]:
    options: list[st.SearchStrategy[str]] = [segment_text, long_segment, prefixed_ids]
    # `enable` and `test` send a test event: aim them only at loopback endpoints, never at example.com.
    real = world.ids_for(kind)
    if real:
        options += [st.sampled_from(real), st.builds(_mutate_id, st.sampled_from(real), st.integers(0, 6))]
    if kind != "loopback_endpoint":
        others = [i for k, v in world.own.items() if k not in (kind, "endpoint") for i in v]
        options.append(st.sampled_from(others))
    return st.one_of(options)


def fill(world: World, template: str, draw: Any) -> str:
    path = template
    for kind in ("loopback_endpoint", "endpoint", "replay", "event", "delivery", "customer", "asset"):
        token = "{" + kind + "}"
        if token in path:
            path = path.replace(token, draw(segment(world, kind)))
    return path


def iso_times() -> st.SearchStrategy[str]:
    offsets = st.sampled_from(["Z", "+00:00", "+14:00", "-12:00", "+05:30", "", "+23:59", "-23:59"])
    moments = st.datetimes().map(lambda d: d.isoformat())
    return st.one_of(
        st.builds(lambda d, o: d + o, moments, offsets),
        st.sampled_from(["0001-01-01T00:00:00Z", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", "9999-12-31T23:59:59.999Z", "2024-02-30T00:00:00Z"]),
        st.sampled_from(["2020-01-01", "2020-01-01T00:00:00", "now", "", "Z", "2020-01-01T00:00:00ZZ", "1e10", "-1"]),
    )


def cursors(world: World) -> st.SearchStrategy[str]:
    """Garbage, plus well-formed cursors aimed at the tenant's and others' partitions."""
    endpoints = world.ids_for("endpoint") + world.ids_for("loopback_endpoint")
    pk = st.sampled_from([f"T#{TENANT}", f"T#{OTHER}", "", "T#", f"C#{TENANT}", f"C#{OTHER}"]) | st.text(max_size=20)
    pk |= st.sampled_from([f"E#{t}#{e}" for t in (TENANT, OTHER) for e in world.ids_for("event")])  # a broadcast's deliveries pages
    gsi = st.builds(lambda t, e: f"EPD#{t}#{e}", st.sampled_from([TENANT, OTHER]), st.sampled_from(endpoints)) | st.text(max_size=20)
    owners = st.builds(lambda t, c: f"CE#{t}#{c}", st.sampled_from([TENANT, OTHER]), st.sampled_from([CUSTOMER, ""])) | st.text(max_size=20)
    keys = (
        st.fixed_dictionaries({"pk": pk, "sk": st.text(max_size=40)})
        | st.fixed_dictionaries({"pk": pk, "sk": st.text(max_size=40), "gsi1pk": gsi, "gsi1sk": st.text(max_size=60)})
        | st.fixed_dictionaries({"pk": pk, "sk": st.text(max_size=40), "gsi2pk": owners, "gsi2sk": st.sampled_from(endpoints) | st.text(max_size=40)})
    )
    crafted = st.builds(encode_cursor, keys | st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=4))
    raw_b64 = st.binary(max_size=60).map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="))
    return st.one_of(crafted, raw_b64, st.text(max_size=80))


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


def queries(world: World) -> st.SearchStrategy[dict[str, str]]:
    values = {
        "limit": st.one_of(st.integers(-5, 200).map(str), st.text(max_size=12), st.sampled_from(["", "1e3", "0x10", " 5", "1_0", "\u0665", "9" * 400])),
        "cursor": cursors(world),
        "status": st.sampled_from(["failed", "paused", "pending", "succeeded", "", "FAILED"]) | st.text(max_size=12),
        "since": iso_times() | st.text(max_size=30),
        "until": iso_times() | st.text(max_size=30),
        "customer": st.sampled_from([CUSTOMER, "nobody", "", "x" * 65, "a#b", "é"]) | st.text(max_size=20),
    }
    known = st.fixed_dictionaries({}, optional=values)
    extra = st.dictionaries(st.text(alphabet=string.ascii_letters + string.digits + "_[]", min_size=1, max_size=10), st.text(max_size=20), max_size=3)
    return st.builds(lambda a, b: {**b, **a}, known, extra)


def _mutations(valid: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid body with fields dropped, retyped, oversized or added."""
    names = sorted(valid)
    huge = st.builds(lambda c, n: c * n, st.sampled_from(["a", "\u00e9", "\U0001f600", " ", "0"]), st.integers(1000, 70000))
    weird = st.one_of(
        json_values,
        huge,
        st.sampled_from([[], {}, "", None, True, 0, -1, 1e308, 10**30, "http://", "https://[::1]/", "https://127.0.0.1:0/", "ftp://example.com"]),
    )

    @st.composite
    def mutate(draw: Any) -> dict[str, Any]:
        body = dict(valid)
        for name in draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names))):
            if draw(st.booleans()):
                del body[name]
            else:
                body[name] = draw(weird)
        body.update(draw(st.dictionaries(st.text(max_size=10), weird, max_size=2)))
        return body

    return mutate()


def urls() -> st.SearchStrategy[str]:
    hosts = st.sampled_from(
        ["example.com", "127.0.0.1", "[::1]", "[::ffff:10.0.0.1]", "0177.0.0.1", "2130706433", "169.254.169.254", "localhost", "a..b", "[zz]", "", "0x7f.1"]
    )
    hosts = hosts | st.text(alphabet=st.characters(blacklist_characters="/?#"), max_size=20)
    ports = st.sampled_from(["", ":0", ":9", ":443", ":65536", ":-1", ":abc", ":99999999999"])
    return st.builds(lambda s, h, p, rest: f"{s}://{h}{p}/{rest}", st.sampled_from(["http", "https", "HTTPS", "ftp", ""]), hosts, ports, st.text(max_size=20))


def raw_texts(route: tuple[str, str]) -> st.SearchStrategy[str]:
    """Body text that is not a serialization of a Python value: broken JSON and JSON's oddities."""
    valid = VALID_BODIES.get(route, {"x": 1})
    text = json.dumps(valid)
    return st.one_of(
        st.text(max_size=200),
        st.builds(lambda n: text[:n], st.integers(0, len(text))),
        st.sampled_from(
            [
                "",
                " ",
                "null",
                "[]",
                "{}",
                '"str"',
                "{",
                "\x00",
                "\ufeff{}",
                '{"a":1,"a":2}',
                "[" * 5000 + "]" * 5000,
                '{"a":' * 40 + "1" + "}" * 40,
                '{"type":"a","data":{"x":NaN}}',
                '{"type":"a","data":{"x":Infinity}}',
                '{"type":"a","data":{"x":1e400}}',
                '{"type":"a","data":{"x":"\\ud800"}}',
                '{"type":"a","data":{"\\udc00":1}}',
                '{"url":"https://example.com/","description":"\\ud83d"}',
                '{"since":"2020-01-01T00:00:00Z","until":"\\udfff"}',
            ]
        ),
    )


@st.composite
def bodies(draw: Any, route: tuple[str, str]) -> tuple[str | None, bool]:
    """(event body, isBase64Encoded) for any route, valid-looking or not."""
    valid = VALID_BODIES.get(route)
    kinds = ["none", "raw", "json", "b64_bytes", "b64_invalid"] + (["mutation", "mutation", "b64_mutation"] if valid else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None, draw(st.booleans())
    if kind == "raw":
        return draw(raw_texts(route)), False
    if kind == "json":
        return json.dumps(draw(json_values)), False
    if kind == "b64_bytes":
        return base64.b64encode(draw(st.binary(max_size=200))).decode(), True
    if kind == "b64_invalid":
        return draw(st.sampled_from(["!!!", "abc", "a", "====", "YQ", "e30", "\u00e9", "e30=\n"]) | st.text(max_size=40)), True
    body = draw(_mutations(valid or {}))
    if "url" in body and draw(st.booleans()):
        body["url"] = draw(urls())
    text = json.dumps(body)
    if kind == "b64_mutation":
        return base64.b64encode(text.encode()).decode(), True
    return text, False


header_names = st.sampled_from(
    ["content-type", "content-encoding", "accept-encoding", "origin", "x-forwarded-for", "authorization", "content-length", "host", "cookie", "x-api-key"]
) | st.text(alphabet=string.ascii_lowercase + string.digits + "-_", min_size=1, max_size=20)
header_values = st.sampled_from(["gzip", "application/json; charset=latin-1", "text/plain", "*", "-1", "", "br, gzip, deflate"]) | st.text(max_size=60)


def authorizers() -> st.SearchStrategy[Any]:
    """The authorizer context: the tenant, another tenant, or missing in the ways API Gateway can miss it."""
    session = {"tenant": TENANT, "customer": CUSTOMER, "read_only": False, "expires_at": 4102444800}  # 2100: a portal session
    valid = st.sampled_from([{"lambda": {"tenant": TENANT}}, {"lambda": {"tenant": OTHER}}, {"lambda": session}, {"lambda": {**session, "read_only": True}}])
    return (
        valid
        | valid
        | valid
        | st.sampled_from(
            [
                "missing",
                {},
                {"lambda": {}},
                {"lambda": None},
                {"lambda": {"tenant": ""}},
                {"lambda": {"tenant": None}},
                {"lambda": {**session, "expires_at": 1}},
                {"lambda": {**session, "expires_at": "soon"}},
                {"lambda": {**session, "customer": 7}},
                None,
            ]
        )
    )


@st.composite
def requests(draw: Any, world: World, method: str, template: str) -> dict[str, Any]:
    path = fill(world, template, draw)
    query = draw(queries(world)) if draw(st.integers(0, 2)) else {}
    body, b64 = draw(bodies((method, template)))
    event = http_event(method, path, tenant=None, query=query or None, raw_body=body)
    event["isBase64Encoded"] = b64
    auth = draw(authorizers())
    if auth != "missing":
        event["requestContext"]["authorizer"] = auth
    if draw(st.booleans()):
        event["headers"] = {**event["headers"], **draw(st.dictionaries(header_names, header_values, max_size=5))}
    if draw(st.integers(0, 5)) == 0:
        event["headers"].pop("content-type", None)
    return event


# -- the property ---------------------------------------------------------------------------


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def assert_well_behaved(result: dict[str, Any]) -> None:
    status = result["statusCode"]
    assert isinstance(status, int)
    assert 200 <= status < 500, f"{status}: {result.get('body')}"
    text = result.get("body") or ""
    if result.get("isBase64Encoded"):
        raw = base64.b64decode(text)
        encoding = {k.lower(): v for k, v in (result.get("headers") or {}).items()}.get("content-encoding")
        text = (gzip.decompress(raw) if encoding == "gzip" else raw).decode()
    assert "Traceback" not in text
    assert 'File "' not in text
    if status == 204:
        assert text == ""
        return
    content_type = {k.lower(): v for k, v in (result.get("headers") or {}).items()}.get("content-type", "")
    if status < 400 and content_type.startswith(("text/html", "text/javascript", "text/css")):
        return  # the portal page and its files
    body = json.loads(text, parse_constant=_no_constants)  # strict JSON: no NaN or Infinity
    if status >= 400:
        assert isinstance(body, dict) and isinstance(body.get("error"), dict), body
        assert isinstance(body["error"].get("code"), str) and body["error"]["code"], body
        assert isinstance(body["error"].get("message"), str), body


def call(world: World, event: dict[str, Any]) -> dict[str, Any]:
    result = world.hookline.handlers["api"](event, None)
    assert_well_behaved(result)
    return result


# -- the tests ------------------------------------------------------------------------------
def _own_path(world: World, template: str) -> str:
    """The template with the tenant's own first id of each kind."""
    for kind, values in world.own.items():
        template = template.replace("{" + kind + "}", values[0])
    return template


@pytest.mark.parametrize(("method", "template"), ROUTES, ids=[f"{m} {t}" for m, t in ROUTES])
@FUZZ
@given(data=st.data())
def test_any_request_to_a_route_gets_2xx_or_a_4xx_json_error(world: World, method: str, template: str, data: st.DataObject) -> None:
    call(world, data.draw(requests(world, method, template), label="event"))


BODY_ROUTES = list(VALID_BODIES)


@pytest.mark.parametrize(("method", "template"), BODY_ROUTES, ids=[f"{m} {t}" for m, t in BODY_ROUTES])
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_mutated_bodies_from_the_tenant_get_2xx_or_a_4xx_json_error(world: World, method: str, template: str, data: st.DataObject) -> None:
    # The tenant's own real ids, so validation past the lookup is what gets fuzzed.
    path = _own_path(world, template)
    body = data.draw(_mutations(VALID_BODIES[method, template]), label="body")
    if "url" in body and data.draw(st.booleans()):
        body["url"] = data.draw(urls(), label="url")
    if template == "/v1/endpoints/{endpoint}/replay":
        for name in ("since", "until"):
            if data.draw(st.booleans()):
                body[name] = data.draw(iso_times(), label=name)
    call(world, http_event(method, path, body, tenant=TENANT))


TIME_ROUTES = [
    ("GET", "/v1/events/{event}"),
    ("GET", "/v1/endpoints/{endpoint}/deliveries"),
    ("GET", "/v1/endpoints/{endpoint}/stats"),
    ("GET", "/v1/endpoints/{endpoint}/failures"),
    ("GET", "/v1/endpoints"),
    ("GET", "/v1/customers"),
    ("GET", "/v1/customers/{customer}/stats"),
]


@pytest.mark.parametrize(("method", "template"), TIME_ROUTES, ids=[f"{m} {t}" for m, t in TIME_ROUTES])
@settings(FUZZ, max_examples=50)
@given(data=st.data())
def test_query_strings_on_the_tenants_own_endpoint_get_2xx_or_a_4xx_json_error(world: World, method: str, template: str, data: st.DataObject) -> None:
    path = _own_path(world, template)
    query = data.draw(queries(world), label="query")
    call(world, http_event(method, path, tenant=TENANT, query=query or None))


@FUZZ
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "get", ""]) | st.text(max_size=8),
    path=st.one_of(
        st.text(max_size=80),
        st.builds(lambda parts: "/" + "/".join(parts), st.lists(segment_text, max_size=6)),
        st.builds(lambda m, t: t.split("{")[0] + m, st.text(max_size=20), st.sampled_from([t for _, t in ROUTES])),
        st.sampled_from([t for _, t in ROUTES]).map(lambda t: t + "/"),
        st.sampled_from([t for _, t in ROUTES]).map(lambda t: "//" + t.upper()),
    ),
    tenant=st.sampled_from([TENANT, None]),
)
def test_unknown_paths_and_methods_get_a_4xx_json_error(world: World, method: str, path: str, tenant: str | None) -> None:
    call(world, http_event(method, path, {"x": 1}, tenant=tenant))


# -- known-nasty inputs, every one of them every run (hypothesis may not draw each) ------------

NASTY_BODIES: list[tuple[str, bool]] = [
    *((text, False) for text in ["[" * 5000 + "]" * 5000, '{"a":' * 40 + "1" + "}" * 40, "\ufeff{}", "\x00", "{"]),
    # JSON may escape a lone surrogate; no UTF-8 encoding of it exists.
    *(
        (text, False)
        for text in [
            '{"type":"a","data":{"x":"\\ud800"}}',
            '{"type":"a","data":{"\\udc00":1}}',
            '{"type":"a\\ud800","data":{}}',
            '{"type":"a","data":{},"id":"\\udfff"}',
            '{"url":"https://example.com/","description":"\\ud83d"}',
            '{"url":"https://example.com/\\ud800"}',
            '{"url":"https://example.com/","event_types":["\\ud800"]}',
            '{"since":"2020-01-01T00:00:00Z","until":"\\udfff"}',
            '{"\\ud800":1}',
        ]
    ),
    # Python's json accepts these; they have no JSON serialization.
    *((text, False) for text in ['{"type":"a","data":{"x":NaN}}', '{"type":"a","data":{"x":Infinity}}', '{"type":"a","data":{"x":1e400}}']),
    *(
        (text, False)
        for text in ['{"rate_limit_per_second":NaN}', '{"rate_limit_per_second":1e400}', '{"url":"https://example.com/","rate_limit_per_second":NaN}']
    ),
    # Dates at the ends of datetime's range.
    *(
        (json.dumps({"since": since, "until": until}), False)
        for since, until in [
            ("0001-01-01T00:00:00+05:00", "2020-01-01T00:00:00Z"),
            ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59-05:00"),
            ("2020-01-01T00:00:00Z", "9999-12-31T23:59:59.999-14:00"),
        ]
    ),
    # isBase64Encoded with a body that is not base64.
    *((text, True) for text in ["abc", "a", "YQ", "e30", "!!!", "\u00e9", "e30=e30="]),
]

NASTY_TIMES = ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00+05:00", "0001-01-01T23:59:59+23:59", "9999-12-31T23:59:59-05:00", "9999-12-31T23:59:59Z"]


def test_known_nasty_bodies_get_2xx_or_a_4xx_json_error(world: World) -> None:
    failures = []
    for method, template in VALID_BODIES:
        path = _own_path(world, template)
        for text, b64 in NASTY_BODIES:
            event = http_event(method, path, tenant=TENANT, raw_body=text)
            event["isBase64Encoded"] = b64
            try:
                result = call(world, event)
                accepted = []
                if template in ("/v1/events", "/v1/events/broadcast") and result["statusCode"] == 202:
                    accepted = [json.loads(result["body"])["id"]]
                if template == "/v1/events/batch" and result["statusCode"] in (202, 207):
                    accepted = [r["id"] for r in json.loads(result["body"])["results"] if r["status"] == 202]
                for event_id in accepted:
                    # What was accepted must read back as JSON too.
                    read_back = f"/v1/events/{event_id}"
                    try:
                        call(world, http_event("GET", read_back, tenant=TENANT))
                    except (AssertionError, ValueError) as exc:
                        raise AssertionError(f"then GET {read_back}: {exc}") from None
            except (AssertionError, ValueError) as exc:
                failures.append(f"{method} {path} body={text[:80]!r} isBase64Encoded={b64}: {str(exc)[:200]}")
    assert not failures, "\n".join(failures)


def test_known_nasty_times_get_2xx_or_a_4xx_json_error(world: World) -> None:
    failures = []
    endpoint = world.own["endpoint"][0]
    for path in (f"/v1/endpoints/{endpoint}/deliveries", f"/v1/endpoints/{endpoint}/stats", f"/v1/customers/{CUSTOMER}/stats"):
        for name in ("since", "until"):
            for value in NASTY_TIMES:
                try:
                    call(world, http_event("GET", path, tenant=TENANT, query={name: value}))
                except AssertionError as exc:
                    failures.append(f"GET {path}?{name}={value}: {str(exc)[:200]}")
    assert not failures, "\n".join(failures)
