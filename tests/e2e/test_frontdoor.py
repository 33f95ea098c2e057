"""The front door turns HTTP into API Gateway HTTP API events (fake authorizer and api)."""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from local.frontdoor import HEADER_COUNT_LIMIT, LINE_LIMIT, FrontDoor, Gateway

pytestmark = pytest.mark.slow


class FakeFunctions:
    def __init__(self) -> None:
        self.authorizer_events: list[dict[str, Any]] = []
        self.api_events: list[dict[str, Any]] = []
        self.api_result: Any = {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": '{"ok":true}'}
        self.authorizer_raises = False

    def authorizer(self, event: dict[str, Any]) -> dict[str, Any]:
        self.authorizer_events.append(event)
        if self.authorizer_raises:
            raise RuntimeError("authorizer crashed")
        key = event["identitySource"][0]
        if key == "Bearer good":
            return {"isAuthorized": True, "context": {"tenant": "t1"}}
        return {"isAuthorized": False}

    def api(self, event: dict[str, Any]) -> Any:
        self.api_events.append(event)
        return self.api_result


@pytest.fixture
def fakes() -> FakeFunctions:
    return FakeFunctions()


@pytest.fixture
def door(fakes: FakeFunctions) -> Iterator[FrontDoor]:
    front = FrontDoor(Gateway(fakes.api, fakes.authorizer, region="us-east-1", authorizer_cache_seconds=300), port=0)
    front.start()
    yield front
    front.stop()


GOOD = {"Authorization": "Bearer good"}


def test_a_request_becomes_authorizer_and_payload_v2_events(door: FrontDoor, fakes: FakeFunctions) -> None:
    # When an authorized request with a query string reaches /v1/...
    response = requests.post(f"{door.url}/v1/things/abc?x=1&x=2&y=", data=b'{"a":1}', headers={**GOOD, "X-Custom": "Yes"}, timeout=10)

    # Then the api's answer comes back
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    # And the authorizer saw a payload-v2 REQUEST event with the Authorization header as identity source
    (auth,) = fakes.authorizer_events
    assert auth["type"] == "REQUEST"
    assert auth["version"] == "2.0"
    assert auth["identitySource"] == ["Bearer good"]
    assert auth["routeKey"] == "ANY /v1/{proxy+}"
    assert auth["routeArn"].endswith("/$default/POST/v1/things/abc")
    # And the api saw an HTTP API payload-v2.0 event carrying the authorizer's context
    (event,) = fakes.api_events
    assert event["version"] == "2.0"
    assert event["routeKey"] == "ANY /v1/{proxy+}"
    assert event["rawPath"] == "/v1/things/abc"
    assert event["rawQueryString"] == "x=1&x=2&y="
    assert event["queryStringParameters"] == {"x": "1,2", "y": ""}
    assert event["pathParameters"] == {"proxy": "things/abc"}
    assert event["headers"]["x-custom"] == "Yes"
    assert event["headers"]["authorization"] == "Bearer good"
    assert event["body"] == '{"a":1}'
    assert event["isBase64Encoded"] is False
    ctx = event["requestContext"]
    assert ctx["http"]["method"] == "POST"
    assert ctx["http"]["path"] == "/v1/things/abc"
    assert ctx["http"]["sourceIp"] == "127.0.0.1"
    assert ctx["stage"] == "$default"
    assert ctx["requestId"] and ctx["timeEpoch"] > 0 and ctx["accountId"] and ctx["apiId"]
    assert ctx["authorizer"] == {"lambda": {"tenant": "t1"}}


def test_binary_bodies_go_in_base64_and_base64_answers_are_decoded(door: FrontDoor, fakes: FakeFunctions) -> None:
    # Given an api that answers a base64 body
    fakes.api_result = {
        "statusCode": 201,
        "headers": {"content-type": "application/octet-stream"},
        "body": base64.b64encode(b"\xff\x00").decode(),
        "isBase64Encoded": True,
    }
    # When a request with a non-UTF-8 body arrives
    response = requests.put(f"{door.url}/v1/blob", data=b"\xff\xfe", headers=GOOD, timeout=10)
    # Then the api got it base64-encoded, and the client gets the decoded bytes
    assert fakes.api_events[0]["isBase64Encoded"] is True
    assert base64.b64decode(fakes.api_events[0]["body"]) == b"\xff\xfe"
    assert response.status_code == 201
    assert response.content == b"\xff\x00"


def test_authorizer_answers_are_cached_per_authorization_header(door: FrontDoor, fakes: FakeFunctions) -> None:
    # When the same key is used twice and another key once
    for headers in (GOOD, GOOD, {"Authorization": "Bearer other"}):
        requests.get(f"{door.url}/v1/x", headers=headers, timeout=10)
    # Then the authorizer ran once per distinct header
    assert [e["identitySource"] for e in fakes.authorizer_events] == [["Bearer good"], ["Bearer other"]]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer bad"}], ids=["missing", "denied"])
def test_unauthorized_requests_get_401_and_never_reach_the_api(door: FrontDoor, fakes: FakeFunctions, headers: dict[str, str]) -> None:
    response = requests.get(f"{door.url}/v1/x", headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert fakes.api_events == []


def test_a_missing_header_does_not_invoke_the_authorizer(door: FrontDoor, fakes: FakeFunctions) -> None:
    requests.get(f"{door.url}/v1/x", timeout=10)
    assert fakes.authorizer_events == []


def test_health_skips_the_authorizer(door: FrontDoor, fakes: FakeFunctions) -> None:
    response = requests.get(f"{door.url}/health", timeout=10)
    assert response.status_code == 200
    assert fakes.authorizer_events == []
    assert fakes.api_events[0]["routeKey"] == "GET /health"
    assert "authorizer" not in fakes.api_events[0]["requestContext"]


def test_a_crashing_authorizer_is_a_500(door: FrontDoor, fakes: FakeFunctions) -> None:
    fakes.authorizer_raises = True
    response = requests.get(f"{door.url}/v1/x", headers=GOOD, timeout=10)
    assert response.status_code == 500
    assert fakes.api_events == []


def test_a_result_without_status_code_is_inferred_as_200_json(door: FrontDoor, fakes: FakeFunctions) -> None:
    fakes.api_result = {"hello": "world"}
    response = requests.get(f"{door.url}/v1/x", headers=GOOD, timeout=10)
    assert response.status_code == 200
    assert json.loads(response.content) == {"hello": "world"}


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/"), ("GET", "/v1"), ("GET", "/v1/"), ("POST", "/health"), ("GET", "/other"), ("TRACE", "/health"), ("BREW", "/x")]
)
def test_paths_no_route_matches_go_to_the_api_function_unauthorized(door: FrontDoor, fakes: FakeFunctions, method: str, path: str) -> None:
    # Given GET /health, the portal's GET routes and ANY /v1/{proxy+}, When a request matches none of them (any method)
    fakes.api_result = {"statusCode": 404, "headers": {"content-type": "application/json"}, "body": '{"error":{"code":"not_found","message":"x"}}'}
    response = requests.request(method, f"{door.url}{path}", headers=GOOD, timeout=10)
    # Then it is $default's: the api function answers it, without the authorizer, in its JSON shape
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
    assert fakes.authorizer_events == [] and [(e["routeKey"], e["requestContext"]["http"]["method"]) for e in fakes.api_events] == [("$default", method)]


@pytest.mark.parametrize(
    ("headers", "path", "status", "code"),
    [
        ({}, "/v1/" + "a" * (LINE_LIMIT + 1), 414, "uri_too_long"),
        ({"X-Big": "b" * LINE_LIMIT}, "/v1/x", 431, "headers_too_large"),
        ({f"X-H{i}": "1" for i in range(HEADER_COUNT_LIMIT + 1)}, "/v1/x", 431, "headers_too_large"),
    ],
    ids=["long-url", "long-header", "many-headers"],
)
def test_oversized_requests_get_the_json_error_envelope(
    door: FrontDoor, fakes: FakeFunctions, headers: dict[str, str], path: str, status: int, code: str
) -> None:
    # When a request's line or headers are more than the HTTP server reads
    response = requests.get(f"{door.url}{path}", headers={**GOOD, **headers}, timeout=10)
    # Then it answers in hookline's JSON error envelope (not an HTML page), and nothing reached the functions
    assert (response.status_code, response.headers["content-type"]) == (status, "application/json")
    assert response.json()["error"]["code"] == code and response.json()["error"]["message"]
    assert fakes.authorizer_events == [] and fakes.api_events == []


BURST = 200


def test_a_burst_of_200_connections_is_held_and_answered(fakes: FakeFunctions) -> None:
    # Given a front door that listens but accepts nothing yet (its accept loop not started)
    door = FrontDoor(Gateway(fakes.api, fakes.authorizer, region="us-east-1", authorizer_cache_seconds=300), port=0)
    clients: list[socket.socket] = []
    try:
        # When 200 clients connect and send their request before any is accepted
        for _ in range(BURST):
            client = socket.create_connection(("127.0.0.1", door.port), timeout=30)
            client.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            clients.append(client)
        door.start()
        # Then every one is answered: none was refused or reset while the listen backlog held it
        answers = [_read_all(client) for client in clients]
    finally:
        for client in clients:
            client.close()
        door.stop()
    assert [a.split(b"\r\n", 1)[0] for a in answers] == [b"HTTP/1.1 200 OK"] * BURST


def _read_all(client: socket.socket) -> bytes:
    chunks = []
    while chunk := client.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
