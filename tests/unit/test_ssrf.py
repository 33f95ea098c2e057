"""The SSRF guard's address rules. Pure."""

from __future__ import annotations

import ipaddress

import pytest

from hookline.ssrf import AddressRefused, check, refusal


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
