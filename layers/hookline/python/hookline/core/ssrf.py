"""The SSRF guard: which addresses a webhook may never reach. Pure.

An address is refused unless it is globally routable unicast, or it lies in a
network the operator allowed (HOOKLINE_ALLOW_PRIVATE_NETWORKS, for local mode
and tests). IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4,
Teredo) are judged by the address they embed too.

A host is judged as the resolver is asked for it (`lookup_name`): endpoint
creation and every delivery normalize it the same way, so a literal written
with fullwidth digits or ideographic full stops is refused at creation, as
delivery would refuse it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_EXTRA_BLOCKED = (
    ipaddress.ip_network("100.64.0.0/10"),  # CGNAT
    ipaddress.ip_network("255.255.255.255/32"),
    ipaddress.ip_network("fd00:ec2::/32"),  # EC2's IPv6 metadata service lives here
)


class AddressRefused(Exception):
    def __init__(self, address: str, reason: str):
        super().__init__(f"{address} refused: {reason}")
        self.address = address
        self.reason = reason


def _embedded(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = []
    if ip.ipv4_mapped:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour:
        found.append(ip.sixtofour)
    if ip.teredo:
        found.extend(ip.teredo)
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _reason(ip: IPAddress) -> str | None:
    if ip.is_loopback:
        return "loopback address"
    if ip.is_link_local:
        return "link-local address (includes the metadata service)"
    if ip.is_multicast:
        return "multicast address"
    if ip.is_unspecified:
        return "unspecified address"
    if any(ip in net for net in _EXTRA_BLOCKED if net.version == ip.version):
        return "reserved or shared address space"
    if ip.is_private:
        return "private address"
    if ip.is_reserved or not ip.is_global:
        return "reserved address"
    return None


def refusal(ip: IPAddress, allowed: Iterable[Network] = ()) -> str | None:
    """Why `ip` may not be contacted, or None if it may."""
    allowed = tuple(allowed)
    if any(ip.version == net.version and ip in net for net in allowed):
        return None
    for inner in _embedded(ip):
        if any(inner in net for net in allowed if net.version == 4):
            return None
        why = _reason(inner)
        if why:
            return f"embeds {inner}: {why}"
    return _reason(ip)


def check(address: str, allowed: Iterable[Network] = ()) -> IPAddress:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    why = refusal(ip, allowed)
    if why:
        raise AddressRefused(address, why)
    return ip


def lookup_name(host: str) -> str:
    """`host` as the resolver is asked for it: IDNA-encoded by Python's `idna` codec, the one socket.getaddrinfo
    applies to a text host. Its nameprep (NFKC, case folding) maps fullwidth digits and letters, circled digits and
    the like to ASCII, and it splits labels at the ideographic and halfwidth full stops (U+3002, U+FF0E, U+FF61) as
    at `.`; so `１２７。０．０｡１` is looked up as `127.0.0.1`. ASCII is kept as it is.

    ValueError for a host no resolver can be asked for (an empty or over-long label, a character nameprep prohibits).
    """
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ValueError(f"host {host[:64]!r} is not a valid IDNA host name: {exc}") from None


def literal_address(host: str) -> IPAddress | None:
    """The address a host names literally, in any notation a resolver accepts, or None for a name.

    Catches what `ipaddress` alone misses: decimal (2130706433), octal (0177.0.0.1),
    hex (0x7f.1) and short (127.1) IPv4 forms, a trailing dot, and bracketed IPv6.
    """
    text = host.strip().rstrip(".").strip("[]")
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    if text and all(c in "0123456789abcdefxABCDEFX." for c in text) and any(c.isdigit() for c in text):
        number = _inet_aton(text)
        return None if number is None else ipaddress.IPv4Address(number)
    return None


def _inet_aton(text: str) -> int | None:
    """The number the C library's inet_aton reads from `text` (1-4 parts: decimal, 0-octal, 0x-hex), or None."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                values.append(int(part[2:], 16))
            elif len(part) > 1 and part.startswith("0"):
                values.append(int(part[1:], 8))
            else:
                values.append(int(part, 10))
        except ValueError:
            return None
    *head, last = values
    if any(v > 0xFF for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = last
    for i, v in enumerate(head):
        number |= v << (8 * (3 - i))
    return number


@dataclass(frozen=True)
class UrlPolicy:
    """Where webhooks may go: https only and ports 443/80 by default in the cloud."""

    allowed_networks: tuple[Network, ...] = ()
    allow_http: bool = False
    allowed_ports: frozenset[int] | None = frozenset({443, 80})  # None: any port

    def refusal(self, scheme: str, host: str, port: int) -> str | None:
        """Why a request to `host` (as the URL gives it; judged as `lookup_name` makes it) may not be sent, or None
        when only the addresses a name resolves to remain to be checked. ValueError for a host `lookup_name` refuses."""
        host = lookup_name(host)
        if scheme == "http" and not self.allow_http:
            return "plain http is not allowed; use https"
        if scheme not in ("http", "https"):
            return "only http(s) URLs are allowed"
        if self.allowed_ports is not None and port not in self.allowed_ports:
            return f"port {port} is not allowed (allowed: {', '.join(str(p) for p in sorted(self.allowed_ports))})"
        name = host.rstrip(".").lower()
        if name == "localhost" or name.endswith(".localhost"):
            return refusal(ipaddress.ip_address("127.0.0.1"), self.allowed_networks)
        ip = literal_address(host)
        return refusal(ip, self.allowed_networks) if ip is not None else None
