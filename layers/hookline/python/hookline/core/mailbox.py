"""The customer emails' sender, as people write it: `Name <address>` or a bare address.

One parser for HOOKLINE_NOTIFICATION_SENDER, read by the settings' check, the stack's SES grant (the address's
identity and its domain's), the preflight (which identities to read) and the email adapter (the From: header).
It is strict where email.utils.parseaddr is lenient (parseaddr takes `Hookline <a@b.example> <c@d.example>`
for an empty address and `Hookline` for an address): what it cannot read as one address SES can send from is
refused with the reason, so a stack never deploys a grant that names no identity SES checks.

SES takes 7-bit ASCII addresses only (it does not support SMTPUTF8, RFC 6531): a domain in Unicode must be
written in Punycode, a local part must be ASCII. The display name may be any text; the From: header carries it
RFC 2047 encoded when it is not ASCII, as SES requires.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from email.header import Header
from email.utils import formataddr

# RFC 5322's dot-atom: atext runs separated by single dots. Quoted local parts ("a b"@example.com) are refused.
LOCAL_PART = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
# A host name: letters, digits and inner hyphens, 1..63 a label. At least two labels: SES verifies a domain.
DOMAIN_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
MAX_DOMAIN = 253
# `Name <address>`: the name is whatever precedes the one pair of angle brackets.
NAMED = re.compile(r"(?P<name>[^<>]*)<(?P<address>[^<>]*)>")


class MailboxError(ValueError):
    """A sender that is not one address SES can send from; the message says why."""


@dataclass(frozen=True)
class Mailbox:
    """One sender: its bare address and the display name written before it (empty when none was)."""

    address: str
    name: str = ""

    @property
    def domain(self) -> str:
        """The address's domain: the SES identity that verifies it in the usual production set-up."""
        return self.address.rsplit("@", 1)[1]

    @property
    def header(self) -> str:
        """The From: value (SES's FromEmailAddress): `Name <address>`, the name quoted where RFC 5322 needs it
        and RFC 2047 encoded when not ASCII, on one line; the bare address without a name."""
        if not self.name:
            return self.address
        if self.name.isascii():
            return formataddr((self.name, self.address))
        # Header splits the name into encoded words of at most 75 characters; a space, not a fold, joins them.
        return f"{Header(self.name, 'utf-8').encode(linesep=' ')} <{self.address}>"


def parse_mailbox(raw: str) -> Mailbox:
    """`Name <address>`, `"Name, Inc." <address>`, `<address>` or `address` -> its Mailbox.

    Raises MailboxError naming the reason: no address, two addresses, no domain, a control character (a newline
    or carriage return would start another mail header), or an address SES cannot send from.
    """
    text = raw.strip()
    if bad := next((c for c in text if unicodedata.category(c) == "Cc"), None):
        raise MailboxError(f"holds a control character (U+{ord(bad):04X}); a newline or carriage return would start another mail header")
    name, address = _split(text)
    _check_address(address)
    return Mailbox(address, name)


def _split(text: str) -> tuple[str, str]:
    """(display name, address) as written, the name unquoted."""
    if "<" not in text and ">" not in text:
        return "", text
    if text.count("<") > 1 and text.count(">") > 1:
        raise MailboxError("two addresses: give one")
    match = NAMED.fullmatch(text)
    if match is None:
        raise MailboxError("write it `Name <address>` or as a bare address (nothing after the `>`, one `<` before it)")
    name = match["name"].strip()
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        name = re.sub(r"\\(.)", r"\1", name[1:-1])
    elif "@" in name:
        raise MailboxError(f"two addresses: the name {name!r} reads as an address too (quote it if it is a name)")
    return name, match["address"].strip()


def _check_address(address: str) -> None:
    if not address:
        raise MailboxError("no address")
    if address.count("@") > 1:
        raise MailboxError("two addresses: give one")
    if "@" not in address:
        raise MailboxError(f"no address: {address!r} has no @domain")
    local, domain = address.split("@")
    if not domain:
        raise MailboxError(f"no domain after the @ of {address!r}")
    if not local:
        raise MailboxError(f"no local part before the @ of {address!r}")
    if not address.isascii():
        raise MailboxError(
            f"{address!r} is not 7-bit ASCII, and SES sends only from ASCII addresses: write a Unicode domain in Punycode (xn--...); a local part must be ASCII"
        )
    if not LOCAL_PART.fullmatch(local):
        raise MailboxError(f"{local!r} is not an address's local part (letters, digits and !#$%&'*+/=?^_`{{|}}~- between single dots)")
    labels = domain.split(".")
    if len(labels) < 2 or len(domain) > MAX_DOMAIN or not all(DOMAIN_LABEL.fullmatch(label) for label in labels):
        raise MailboxError(f"{domain!r} is not a domain SES can verify (a host name with a dot, such as example.com)")
