"""The Python client over a fake API: routes and bodies, retries with one idempotency key, Retry-After, errors, pagination."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest

from hookline_client import HooklineClient, HooklineConnectionError, HooklineError
from hookline_client._transport import path_segment, retry_after_seconds
from tests.clients.fake_api import Answer, FakeApi, Request, fake_api

KEY = "hk_test_key"
ACCEPTED = Answer(202, {"id": "evt_1", "deliveries": 1})
UNAVAILABLE = Answer(503, {"error": {"code": "unavailable", "message": "the event could not be queued; repeat the request with the same id"}})


@pytest.fixture
def api() -> Iterator[FakeApi]:
    with fake_api() as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(api: FakeApi, sleeps: list[float]) -> Iterator[HooklineClient]:
    with HooklineClient(api.url, KEY, timeout=5, max_retries=3, sleep=sleeps.append) as c:
        yield c


def test_send_posts_the_event_with_the_key_and_returns_the_answer(api: FakeApi, client: HooklineClient) -> None:
    api.answer(ACCEPTED)
    accepted = client.events.send("invoice.paid", {"invoice": "in_1"}, id="invoice-in_1-paid", customer="org_1", versions={"2026-01-01": {"n": 1}})
    assert accepted == {"id": "evt_1", "deliveries": 1}
    [request] = api.requests
    assert (request.method, request.path) == ("POST", "/v1/events")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("hookline-client-python/")
    assert request.json() == {
        "type": "invoice.paid",
        "data": {"invoice": "in_1"},
        "id": "invoice-in_1-paid",
        "customer": "org_1",
        "versions": {"2026-01-01": {"n": 1}},
    }


def test_a_503_is_retried_with_the_same_event_id_the_client_made(api: FakeApi, client: HooklineClient, sleeps: list[float]) -> None:
    # Given the API fails the first send with 503 and accepts the second
    api.answer(UNAVAILABLE, ACCEPTED)
    # When an event is sent without an id
    assert client.events.send("user.created", {"user": "u1"})["id"] == "evt_1"
    # Then both tries carried one id, made by the client (the API's idempotency key), and the same bytes
    first, second = api.requests
    key = first.json()["id"]
    assert key.startswith("hlc_") and len(key) == 36
    assert second.body == first.body
    # And the client waited one jittered backoff (half to all of 0.5 s) before the retry
    [wait] = sleeps
    assert 0.25 <= wait <= 0.5
    # And the next logical call gets a new id
    api.answer(ACCEPTED)
    client.events.send("user.created", {"user": "u1"})
    assert api.requests[-1].json()["id"] != key


def test_retry_after_is_honoured(api: FakeApi, client: HooklineClient, sleeps: list[float]) -> None:
    api.answer(Answer(429, {"message": "Too Many Requests"}, {"Retry-After": "7"}), Answer(503, {}, {"Retry-After": "0"}), ACCEPTED)
    client.events.send("user.created", {}, id="u-1")
    assert sleeps == [7.0, 0.0]
    assert len({r.body for r in api.requests}) == 1


def test_a_retry_after_beyond_the_cap_is_raised_rather_than_waited(api: FakeApi, sleeps: list[float]) -> None:
    api.answer(Answer(503, {"error": {"code": "unavailable", "message": "down"}}, {"Retry-After": "3600"}))
    with HooklineClient(api.url, KEY, sleep=sleeps.append, max_retry_after=60) as client, pytest.raises(HooklineError) as raised:
        client.events.get("evt_1")
    assert (raised.value.status, raised.value.code) == (503, "unavailable")
    assert sleeps == []
    assert len(api.requests) == 1


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 3, 14, 9, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Sat, 14 Mar 2026 09:00:30 GMT", now=lambda: now) == 30.0
    assert retry_after_seconds("Sat, 14 Mar 2026 08:00:00 GMT", now=lambda: now) == 0.0
    assert retry_after_seconds("soon", now=lambda: now) is None
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("1.5") == 1.5


def test_a_4xx_is_not_retried_and_raises_the_apis_code_message_and_details(api: FakeApi, client: HooklineClient, sleeps: list[float]) -> None:
    error = {"code": "schema_violation", "message": "data.amount must be an integer", "pointer": "/amount", "rule": "type", "version": "2026-01-01"}
    api.answer(Answer(422, {"error": error}))
    with pytest.raises(HooklineError) as raised:
        client.events.send("invoice.paid", {"amount": "x"})
    assert (raised.value.status, raised.value.code, raised.value.message) == (422, "schema_violation", "data.amount must be an integer")
    assert raised.value.details == {"pointer": "/amount", "rule": "type", "version": "2026-01-01"}
    assert str(raised.value) == "422 schema_violation: data.amount must be an integer"
    assert len(api.requests) == 1
    assert sleeps == []


def test_retries_stop_after_max_retries_with_growing_waits(api: FakeApi, client: HooklineClient, sleeps: list[float]) -> None:
    api.answer(*[UNAVAILABLE] * 4)
    with pytest.raises(HooklineError) as raised:
        client.events.send("user.created", {})
    assert raised.value.status == 503
    assert len(api.requests) == 4  # the call and max_retries=3 retries, all with the same id
    assert len({r.json()["id"] for r in api.requests}) == 1
    assert [ceiling / 2 <= wait <= ceiling for wait, ceiling in zip(sleeps, (0.5, 1.0, 2.0), strict=True)] == [True] * 3


def test_an_answer_without_the_envelope_still_raises_a_typed_error(api: FakeApi, sleeps: list[float]) -> None:
    # API Gateway's throttle answers {"message"}, a proxy may answer HTML
    api.answer(Answer(429, {"message": "Too Many Requests"}), Answer(502, b"<html>Bad Gateway</html>"))
    with HooklineClient(api.url, KEY, sleep=sleeps.append, max_retries=0) as client:
        with pytest.raises(HooklineError) as throttled:
            client.endpoints.get("ep_1")
        with pytest.raises(HooklineError) as proxied:
            client.endpoints.get("ep_1")
    assert (throttled.value.status, throttled.value.code, throttled.value.message) == (429, "too_many_requests", "Too Many Requests")
    assert (proxied.value.status, proxied.value.code, proxied.value.message) == (502, "server_error", "<html>Bad Gateway</html>")


def test_creating_an_endpoint_is_not_retried_after_a_5xx_but_is_after_a_429(api: FakeApi, client: HooklineClient, sleeps: list[float]) -> None:
    # A 5xx may come after the endpoint was created: a retry could make a second one
    api.answer(Answer(500, {"error": {"code": "internal_error", "message": "internal error"}}))
    with pytest.raises(HooklineError) as raised:
        client.endpoints.create("https://example.com/hook")
    assert raised.value.code == "internal_error"
    assert len(api.requests) == 1
    # API Gateway's 429 answers before hookline's code runs: nothing was created, so it is retried
    api.answer(Answer(429, {"message": "Too Many Requests"}), Answer(201, {"id": "ep_1", "secret": "whsec_x"}))
    assert client.endpoints.create("https://example.com/hook", event_types=["a.b"], customer="org_1")["id"] == "ep_1"
    assert [r.json() for r in api.requests[1:]] == [{"url": "https://example.com/hook", "event_types": ["a.b"], "customer": "org_1"}] * 2
    assert len(sleeps) == 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection_is_retried_then_raised_for_every_call(sleeps: list[float]) -> None:
    with HooklineClient(f"http://127.0.0.1:{_closed_port()}", KEY, max_retries=2, sleep=sleeps.append) as client:
        with pytest.raises(HooklineConnectionError) as raised:
            client.events.send("a.b", {})
        assert (raised.value.status, raised.value.code) == (0, "connection_error")
        # Nothing reached the API, so even a non-idempotent call is retried
        with pytest.raises(HooklineConnectionError):
            client.endpoints.create("https://example.com/hook")
    assert len(sleeps) == 4


def test_a_read_timeout_retries_an_event_with_its_id_but_not_an_endpoint_creation(api: FakeApi, sleeps: list[float]) -> None:
    # A 1 s timeout against answers 3 s late: the retry that succeeds has a whole second for a loopback round trip
    with HooklineClient(api.url, KEY, timeout=1.0, sleep=sleeps.append) as client:
        api.answer(Answer(202, {"id": "evt_late"}, delay=3.0), ACCEPTED)
        assert client.events.send("a.b", {})["id"] == "evt_1"
        assert api.requests[0].body == api.requests[1].body
        api.answer(Answer(201, {"id": "ep_late"}, delay=3.0))
        with pytest.raises(HooklineConnectionError):
            client.endpoints.create("https://example.com/hook")
    assert len(api.requests) == 3


def test_a_batch_gives_each_event_without_an_id_one_kept_across_retries(api: FakeApi, client: HooklineClient) -> None:
    results = {
        "accepted": 2,
        "failed": 0,
        "results": [{"index": 0, "status": 202, "id": "evt_a", "deliveries": 1}, {"index": 1, "status": 202, "id": "evt_b", "deliveries": 0}],
    }
    api.answer(UNAVAILABLE, Answer(202, results))
    events = [{"type": "a.b", "data": {"n": 1}, "id": "mine-1"}, {"type": "a.b", "data": {"n": 2}, "customer": "org_1"}]
    answer = client.events.send_batch(events)
    first, second = (r.json()["events"] for r in api.requests)
    assert first == second
    assert first[0]["id"] == "mine-1" and first[1]["id"].startswith("hlc_")
    # And each result names its event's key, the caller's or the client's, to send a failed one again as itself
    assert answer == {**results, "results": [{**r, "key": first[r["index"]]["id"]} for r in results["results"]]}
    assert first[1]["customer"] == "org_1"
    assert "id" not in events[1]  # the caller's dicts are left as they were
    assert api.requests[0].path == "/v1/events/batch"


def _paged(request: Request) -> Answer:
    pages = {"": (["ep_1", "ep_2"], "c1"), "c1": (["ep_3"], "c2"), "c2": ([], None)}
    items, nxt = pages[request.query.get("cursor", "")]
    return Answer(200, {"items": [{"id": i} for i in items], "next": nxt})


def test_lists_iterate_over_every_page_by_cursor(api: FakeApi, client: HooklineClient) -> None:
    api.responder = _paged
    endpoints = client.endpoints.list(customer="org_1", page_size=2)
    assert api.requests == []  # nothing is fetched before the iteration
    assert [e["id"] for e in endpoints] == ["ep_1", "ep_2", "ep_3"]
    assert [(r.path, r.query) for r in api.requests] == [
        ("/v1/endpoints", {"customer": "org_1", "limit": "2"}),
        ("/v1/endpoints", {"customer": "org_1", "limit": "2", "cursor": "c1"}),
        ("/v1/endpoints", {"customer": "org_1", "limit": "2", "cursor": "c2"}),
    ]
    assert [p.next for p in client.customers.list().pages()] == ["c1", "c2", None]


def test_failed_deliveries_are_a_paged_query_of_the_endpoint(api: FakeApi, client: HooklineClient) -> None:
    api.responder = _paged
    since = datetime(2026, 3, 14, 10, 0, tzinfo=timezone(timedelta(hours=1)))
    assert len(list(client.deliveries.failed("ep_1", since=since, until="2026-03-15T00:00:00Z", newest_first=True, page_size=10))) == 3
    first = api.requests[0]
    assert first.path == "/v1/endpoints/ep_1/deliveries"
    assert first.query == {"status": "failed", "since": "2026-03-14T09:00:00Z", "until": "2026-03-15T00:00:00Z", "order": "desc", "limit": "10"}


def test_the_delivery_log_is_a_paged_query_of_the_endpoint_by_status_or_event(api: FakeApi, client: HooklineClient) -> None:
    api.responder = _paged
    assert len(list(client.deliveries.list("ep_1", page_size=10))) == 3
    assert api.requests[0].path == "/v1/endpoints/ep_1/deliveries"
    assert api.requests[0].query == {"status": "all", "order": "desc", "limit": "10"}
    api.requests.clear()
    list(client.deliveries.list("ep_1", status="succeeded", event="invoice-in_123-paid", newest_first=False))
    assert api.requests[0].query == {"status": "succeeded", "event": "invoice-in_123-paid"}


def test_the_other_routes_and_bodies(api: FakeApi, client: HooklineClient) -> None:
    customer = {"uid": "org:1", "name": "Org"}
    session = {
        "token": "hps_x",
        "url": "http://127.0.0.1/portal?t=acme#token=hps_x",
        "customer": "org:1",
        "read_only": True,
        "expires_at": "2026-03-14T10:00:00.000Z",
    }
    api.answer(
        Answer(201, customer),
        Answer(200, customer),
        Answer(201, session),
        Answer(201, session),
        Answer(202, {"id": "rpl_1", "status": "running", "job": {"id": "job_1", "status": "running"}}),
        Answer(200, {"id": "evt_1", "deliveries": []}),
        Answer(200, {"id": "dlv_1"}),
        Answer(200, {"id": "rpl_1"}),
        Answer(202, {"id": "evt_b", "status": "fanning_out", "job": {"id": "job_b", "status": "running"}}),
    )
    client.customers.put("org:1", "Org", email="ops@org.example", metadata={"plan": "pro"}, limits={"max_concurrency": 5})
    client.customers.get("org:1")
    assert client.portal_link("org:1", ttl_seconds=600, read_only=True) == session["url"]
    assert client.customers.portal_session("org:1")["token"] == "hps_x"
    client.endpoints.replay("ep_1", since=datetime(2026, 3, 14, tzinfo=UTC), until="2026-03-14T12:00:00Z", status="failed")
    client.events.get("invoice-in_1-paid")
    client.deliveries.get("evt_1", "dlv_1")
    client.replays.get("rpl_1")
    client.events.broadcast("terms.updated", {"v": 2}, id="terms-2")
    assert [(r.method, r.path, r.json() if r.body else None) for r in api.requests] == [
        ("PUT", "/v1/customers/org:1", {"name": "Org", "email": "ops@org.example", "metadata": {"plan": "pro"}, "limits": {"max_concurrency": 5}}),
        ("GET", "/v1/customers/org:1", None),
        ("POST", "/v1/customers/org:1/portal-sessions", {"ttl_seconds": 600, "read_only": True}),
        ("POST", "/v1/customers/org:1/portal-sessions", {}),
        ("POST", "/v1/endpoints/ep_1/replay", {"since": "2026-03-14T00:00:00Z", "until": "2026-03-14T12:00:00Z", "status": "failed"}),
        ("GET", "/v1/events/invoice-in_1-paid", None),
        ("GET", "/v1/events/evt_1/deliveries/dlv_1", None),
        ("GET", "/v1/replays/rpl_1", None),
        ("POST", "/v1/events/broadcast", {"type": "terms.updated", "data": {"v": 2}, "id": "terms-2"}),
    ]


def test_ids_stay_one_path_segment_and_naive_times_are_refused(client: HooklineClient) -> None:
    assert path_segment("org.1:a-b_c") == "org.1:a-b_c"
    assert path_segment("a/b?c#d") == "a%2Fb%3Fc%23d"
    with pytest.raises(ValueError, match="non-empty"):
        client.events.get("")
    with pytest.raises(ValueError, match="time zone"):
        client.endpoints.replay("ep_1", since=datetime(2026, 3, 14), until="2026-03-15T00:00:00Z")


def test_the_client_checks_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="http"):
        HooklineClient("127.0.0.1:8787", KEY)
    with pytest.raises(ValueError, match="api_key"):
        HooklineClient("http://127.0.0.1:8787", "")
    assert "hk_" not in repr(HooklineClient("http://127.0.0.1:8787/", KEY))
    monkeypatch.delenv("HOOKLINE_KEY", raising=False)
    monkeypatch.setenv("HOOKLINE_URL", "http://127.0.0.1:8787")
    with pytest.raises(ValueError, match="HOOKLINE_KEY"):
        HooklineClient.from_env()
    monkeypatch.setenv("HOOKLINE_KEY", KEY)
    assert HooklineClient.from_env(max_retries=0).base_url == "http://127.0.0.1:8787"


def test_a_send_that_fails_for_good_names_the_key_to_repeat_it_with(api: FakeApi, client: HooklineClient) -> None:
    # Given an API that answers 503 to every try (the event may be stored: a repeat must carry the same key)
    api.answer(*[UNAVAILABLE] * 4)
    # When an event is sent without an id, Then the error names the key the client made and sent on every try
    with pytest.raises(HooklineError) as failed:
        client.events.send("user.created", {"user": "u1"})
    sent = {r.json()["id"] for r in api.requests}
    assert len(api.requests) == 4 and sent == {failed.value.idempotency_key}
    assert failed.value.code == "unavailable" and f"idempotency key {failed.value.idempotency_key}" in str(failed.value)


def test_a_batch_that_fails_as_a_whole_names_every_events_key(api: FakeApi, client: HooklineClient) -> None:
    api.answer(Answer(400, {"error": {"code": "malformed_body", "message": "no"}}))
    with pytest.raises(HooklineError) as failed:
        client.events.send_batch([{"type": "a.b", "data": {}, "id": "mine"}, {"type": "a.b", "data": {}}])
    [request] = api.requests
    assert failed.value.details["keys"] == [e["id"] for e in request.json()["events"]]


def test_a_key_with_a_newline_is_refused_without_showing_it() -> None:
    with pytest.raises(ValueError, match="whitespace") as refused:
        HooklineClient("http://127.0.0.1:8787", "hk_secret_part\n")
    assert "secret_part" not in str(refused.value)
