"""Loopback and private literals in disguise (fullwidth digits, ideographic full stops, what IDNA's nameprep maps to
an address) are refused when the endpoint is created, by the very check delivery runs before it resolves a name
(issue 50, finding 6)."""

from __future__ import annotations

import ipaddress

import pytest

from hookline.adapters.http import WebhookClient
from hookline.core import classify, ssrf, validation
from hookline.core.errors import ValidationFailed
from hookline.wiring import container
from tests.conftest import Hookline

# (the URL's host, what creation answers: 422 with this code). Every forbidden_url row is an address delivery would
# never contact; an IPv6 literal is ASCII inside its brackets, so a disguised one is no URL at all (invalid_url).
DISGUISED: list[tuple[str, str]] = [
    ("１２７.０.０.１", "forbidden_url"),  # fullwidth digits
    ("127。0。0。1", "forbidden_url"),  # ideographic full stop U+3002
    ("127．0．0．1", "forbidden_url"),  # fullwidth full stop U+FF0E
    ("127｡0｡0｡1", "forbidden_url"),  # halfwidth ideographic full stop U+FF61
    ("１２７。０．0｡1", "forbidden_url"),  # mixed
    ("１２７.０.０.１。", "forbidden_url"),  # with a trailing (ideographic) dot
    ("１２７.０.０.１.", "forbidden_url"),  # with a trailing dot
    ("①②⑦.0.0.1", "forbidden_url"),  # circled digits (NFKC)
    ("０ｘ７ｆ.１", "forbidden_url"),  # 127.0.0.1 in hex, short form, fullwidth
    ("２１３０７０６４３３", "forbidden_url"),  # 127.0.0.1 in decimal, fullwidth
    ("１６９。２５４。１６９。２５４", "forbidden_url"),  # the metadata service
    ("１０｡０｡０｡１", "forbidden_url"),  # a private address
    ("ＬＯＣＡＬＨＯＳＴ", "forbidden_url"),
    ("ⓛocalhost。", "forbidden_url"),
    ("[::1].", "forbidden_url"),  # IPv6 loopback with a trailing dot
    ("[::ｆｆｆｆ:１２７.０.０.１]", "invalid_url"),  # IPv4-mapped IPv6, fullwidth
    ("[::ffff:127。0。0。1]", "invalid_url"),  # IPv4-mapped IPv6 with ideographic full stops
    ("[：：１]", "invalid_url"),  # fullwidth colons
    ("：：１", "invalid_url"),  # fullwidth colons, unbracketed (NFKC would make a port of it)
]


@pytest.fixture
def cloud_policy(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cloud's URL policy, over the one `hookline` sets up for local tests (which allows loopback)."""
    monkeypatch.setenv("HOOKLINE_ALLOW_HTTP", "false")
    monkeypatch.setenv("HOOKLINE_ALLOWED_PORTS", "443,80")
    monkeypatch.setenv("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "")
    container.reset()


@pytest.mark.parametrize(("host", "code"), DISGUISED)
@pytest.mark.usefixtures("cloud_policy")
def test_a_disguised_literal_is_refused_at_creation(hookline: Hookline, host: str, code: str) -> None:
    # When an endpoint is created with a disguised literal
    status, body = hookline.api("POST", "/v1/endpoints", {"url": f"https://{host}/hook"})
    # Then it is refused at once, and nothing is stored
    assert status == 422, body
    assert body["error"]["code"] == code, body
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


def _never_resolved(host: str, port: int) -> list[str]:
    raise AssertionError(f"{host} was looked up: the check before resolution let it through")


@pytest.mark.parametrize(("host", "code"), DISGUISED)
def test_creation_and_delivery_judge_a_host_alike(host: str, code: str) -> None:
    # Given the same policy at creation and at delivery
    policy = ssrf.UrlPolicy()
    url = f"https://{host}/hook"
    # When creation checks the URL, and delivery vets it before any lookup
    with pytest.raises(ValidationFailed) as refused:
        validation.validate_url(url, policy)
    result = WebhookClient(1, 1, 1024, policy, resolver=_never_resolved).post(url, b"{}", {})
    # Then both refuse it, for the same reason, and delivery never asked DNS
    assert refused.value.code == code
    assert result.error == {"forbidden_url": classify.SSRF_BLOCKED, "invalid_url": classify.INVALID_URL}[code]
    if code == "forbidden_url":
        assert refused.value.message == f"'url' is not allowed: {result.detail}"


@pytest.mark.parametrize(
    ("host", "looked_up"),
    [
        ("１２７.０.０.１", "127.0.0.1"),
        ("127。0｡0．1。", "127.0.0.1."),
        ("ＨＯＯＫＳ.example.com", "hooks.example.com"),
        ("hooks.example.com", "hooks.example.com"),
    ],
)
def test_delivery_resolves_the_name_creation_judged(host: str, looked_up: str) -> None:
    # Given a policy that allows loopback, so that the name reaches resolution
    asked: list[str] = []

    def resolver(name: str, port: int) -> list[str]:
        asked.append(name)
        return []

    WebhookClient(1, 1, 1024, ssrf.UrlPolicy(allowed_networks=(ipaddress.ip_network("127.0.0.0/8"),)), resolver=resolver).post(
        f"https://{host}/hook", b"{}", {}
    )
    # Then the resolver is asked for the name as hookline.core.ssrf.lookup_name normalizes it
    assert asked == [looked_up] == [ssrf.lookup_name(host)]
