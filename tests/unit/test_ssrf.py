"""The SSRF guard's address rules. Pure."""

from __future__ import annotations

import ipaddress

import pytest

from hookline.core.ssrf import AddressRefused, UrlPolicy, check, literal_address, refusal


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd00:ec2::254",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "2002:7f00:0001::1",
        "240.0.0.1",
    ],
)
def test_refused(address: str) -> None:
    with pytest.raises(AddressRefused):
        check(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert str(check(address)) == address


def test_allowed_networks_are_the_one_exception() -> None:
    allowed = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
    assert refusal(ipaddress.ip_address("127.0.0.1"), allowed) is None
    assert refusal(ipaddress.ip_address("::1"), allowed) is None
    assert refusal(ipaddress.ip_address("10.0.0.1"), allowed) is not None


@pytest.mark.parametrize(
    "host",
    [
        "2130706433",
        "0177.0.0.1",
        "0x7f.0.0.1",
        "0x7f000001",
        "127.1",
        "127.0.0.1.",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "169.254.169.254.",
        "0251.0376.0251.0376",
        "localhost",
        "LOCALHOST.",
    ],
)
def test_odd_notations_of_forbidden_addresses_are_caught(host: str) -> None:
    assert UrlPolicy().refusal("https", host, 443) is not None


def test_names_pass_the_literal_check_and_wait_for_resolution() -> None:
    assert literal_address("hooks.example.com") is None
    assert literal_address("deadbeef.example") is None
    assert UrlPolicy().refusal("https", "hooks.example.com", 443) is None


def test_https_only_and_allowed_ports_by_default() -> None:
    policy = UrlPolicy()
    assert policy.refusal("http", "hooks.example.com", 80) == "plain http is not allowed; use https"
    assert "port 8443" in (policy.refusal("https", "hooks.example.com", 8443) or "")
    relaxed = UrlPolicy(allow_http=True, allowed_ports=None)
    assert relaxed.refusal("http", "hooks.example.com", 9000) is None
