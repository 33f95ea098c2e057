"""The SSRF guard at endpoint creation and at delivery, with a real receiver and injected DNS."""

from __future__ import annotations

import ipaddress

import pytest

from hookline.adapters.http import WebhookClient
from hookline.core import classify
from hookline.core.ssrf import UrlPolicy
from hookline.wiring import container
from tests.conftest import Hookline
from tests.support.receiver import running_receiver

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # plain http in the cloud
        "https://hooks.example.com:8443/x",  # a port that is not allowed
        "https://2130706433/x",  # 127.0.0.1 in decimal
        "https://0x7f.1/x",  # 127.0.0.1 in hex, short form
        "https://[::ffff:169.254.169.254]/latest",  # the metadata service, IPv4-mapped
        "https://169.254.169.254./latest",  # trailing dot
        "https://localhost/x",
        "https://user@10.0.0.1/x",  # userinfo trick
    ],
)
def test_cloud_policy_refuses_at_creation(hookline: Hookline, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("HOOKLINE_ALLOW_HTTP", "false")
    monkeypatch.setenv("HOOKLINE_ALLOWED_PORTS", "443,80")
    monkeypatch.setenv("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "")
    container.reset()
    status, body = hookline.api("POST", "/v1/endpoints", {"url": url})
    assert status == 422, body
    assert body["error"]["code"] in ("forbidden_url", "invalid_url")
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


def test_a_name_resolving_to_a_private_address_is_refused_without_a_request() -> None:
    with running_receiver() as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        # DNS says the public-looking name points at loopback (rebinding), and loopback is not allowed
        client = WebhookClient(3, 5, 4096, UrlPolicy(allow_http=True, allowed_ports=None), resolver=lambda _h, _p: ["127.0.0.1"])
        result = client.post(f"http://hooks.example.com:{port}/webhook", b"{}", {})
        assert result.error == classify.SSRF_BLOCKED
        assert receiver.requests == []


def test_the_vetted_address_is_the_one_connected_to() -> None:
    with running_receiver() as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        answers = iter([["127.0.0.1"], ["10.9.9.9"]])  # a second lookup would say something else
        client = WebhookClient(3, 5, 4096, UrlPolicy(LOOPBACK, allow_http=True, allowed_ports=None), resolver=lambda _h, _p: next(answers))
        result = client.post(f"http://hooks.example.com:{port}/webhook", b"{}", {"content-type": "application/json"})
        # One resolution, checked, then connected to: the request arrived, addressed to the name
        assert result.status_code == 200
        assert [r.headers["host"] for r in receiver.requests] == [f"hooks.example.com:{port}"]


def test_delivery_time_refusal_is_a_recorded_permanent_failure(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_receiver() as receiver:
        status, _ = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert status == 201
        monkeypatch.setenv("HOOKLINE_ALLOWED_PORTS", "443")
        container.reset()
        status, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.pump()
        [delivery] = hookline.api("GET", f"/v1/events/{accepted['id']}")[1]["deliveries"]
        assert delivery["status"] == "failed"
        assert delivery["attempts"][0]["error"] == "ssrf_blocked"
        assert "port" in delivery["attempts"][0]["reason"]
        assert receiver.requests == []
