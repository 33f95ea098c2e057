"""The sender as people write it: one parser (hookline.core.mailbox) for the grant, the preflight and the From: header."""

from __future__ import annotations

from email.header import decode_header, make_header

import pytest

from hookline.core.mailbox import Mailbox, MailboxError, parse_mailbox


@pytest.mark.parametrize(
    ("written", "address", "name"),
    [
        ("noreply@mail.example.com", "noreply@mail.example.com", ""),
        ("Hookline <noreply@mail.example.com>", "noreply@mail.example.com", "Hookline"),
        ("  Hookline   <  noreply@mail.example.com >  ", "noreply@mail.example.com", "Hookline"),
        ("<noreply@mail.example.com>", "noreply@mail.example.com", ""),
        ('"Hookline, Inc." <noreply@example.com>', "noreply@example.com", "Hookline, Inc."),
        ('"Say \\"hi\\"" <noreply@example.com>', "noreply@example.com", 'Say "hi"'),
        ('"noreply@example.com" <noreply@example.com>', "noreply@example.com", "noreply@example.com"),  # quoted: a name
        ("Café Crème <alerts+ops@xn--caf-dma.example>", "alerts+ops@xn--caf-dma.example", "Café Crème"),
    ],
)
def test_a_name_and_an_address_or_a_bare_address_parse(written: str, address: str, name: str) -> None:
    mailbox = parse_mailbox(written)
    assert (mailbox.address, mailbox.name) == (address, name)
    assert mailbox.domain == address.split("@")[1]


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("", "no address"),
        ("Hookline", "no address: 'Hookline' has no @domain"),
        ("Hookline <>", "no address"),
        ("noreply", "no address"),
        ("Hookline <a@example.com> <b@example.com>", "two addresses"),
        ("a@example.com, b@example.com", "two addresses"),
        ("a@example.com b@example.com", "two addresses"),
        ("a@example.com <b@example.com>", "two addresses"),
        ("noreply@", "no domain"),
        ("Hookline <noreply@>", "no domain"),
        ("@example.com", "no local part"),
        ("noreply@localhost", "not a domain SES can verify"),
        ("noreply@-bad-.example.com", "not a domain SES can verify"),
        ("noreply@example..com", "not a domain SES can verify"),
        ("noreply@example.com\nBcc: victim@example.net", "control character (U+000A)"),
        ("Hookline\r\nBcc: x@example.net <noreply@example.com>", "control character (U+000D)"),
        ("Hook\tline <noreply@example.com>", "control character (U+0009)"),
        ("Hookline <noreply@example.com> trailing", "write it `Name <address>`"),
        ("Hookline noreply@example.com>", "write it `Name <address>`"),
        ("noreply@café.example", "write a Unicode domain in Punycode"),
        ("réponse@example.com", "not 7-bit ASCII"),
        ("no reply@example.com", "is not an address's local part"),
        ('"no reply"@example.com', "is not an address's local part"),
        ("no..reply@example.com", "is not an address's local part"),
    ],
)
def test_a_malformed_sender_is_refused_with_the_reason(written: str, reason: str) -> None:
    with pytest.raises(MailboxError) as refused:
        parse_mailbox(written)
    assert reason in str(refused.value)


@pytest.mark.parametrize(
    ("mailbox", "header"),
    [
        (Mailbox("noreply@example.com"), "noreply@example.com"),
        (Mailbox("noreply@example.com", "Hookline"), "Hookline <noreply@example.com>"),
        (Mailbox("noreply@example.com", "Hookline, Inc."), '"Hookline, Inc." <noreply@example.com>'),
        (Mailbox("noreply@example.com", "Café"), "=?utf-8?b?Q2Fmw6k=?= <noreply@example.com>"),
    ],
)
def test_the_from_header_keeps_the_name_quoted_or_encoded_as_mail_needs(mailbox: Mailbox, header: str) -> None:
    assert mailbox.header == header


def test_a_long_unicode_name_is_encoded_in_words_of_at_most_75_characters_on_one_line() -> None:
    name = "Équipe des notifications de la plateforme de webhooks"
    header = Mailbox("noreply@example.com", name).header
    encoded, address = header.rsplit(" ", 1)
    assert address == "<noreply@example.com>" and "\n" not in header and "\r" not in header
    assert all(len(word) <= 75 for word in encoded.split())
    assert str(make_header(decode_header(encoded))) == name


def test_what_the_header_carries_parses_back_to_the_same_mailbox() -> None:
    for written in ("Hookline <noreply@example.com>", '"Hookline, Inc." <noreply@example.com>', "noreply@example.com"):
        mailbox = parse_mailbox(written)
        assert parse_mailbox(mailbox.header) == mailbox
