"""Settings parse from the environment, and the README's table documents each as its metadata does."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from hookline.core.settings import Settings, SettingsError

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults() -> None:
    s = Settings.from_env({})
    assert s.connect_timeout_seconds == 3.0
    assert s.request_timeout_seconds == 10.0
    assert s.response_body_limit_bytes == 4096
    assert s.allow_private_networks == ()
    assert s.max_event_bytes == 262_144


def test_values_parse_by_type() -> None:
    s = Settings.from_env(
        {
            "HOOKLINE_CONNECT_TIMEOUT_SECONDS": "1.5",
            "HOOKLINE_DELIVERY_CONCURRENCY": "7",
            "HOOKLINE_ALLOW_PRIVATE_NETWORKS": "127.0.0.0/8, ::1/128",
            "HOOKLINE_TABLE_NAME": "t",
        }
    )
    assert s.connect_timeout_seconds == 1.5
    assert s.delivery_concurrency == 7
    assert s.allow_private_networks == (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
    assert s.table_name == "t"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HOOKLINE_PORT", "eighty"),
        ("HOOKLINE_DELIVERY_CONCURRENCY", "-1"),
        ("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "not-a-cidr"),
        ("HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS", "901"),  # past SQS's DelaySeconds
        ("HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS", "-1"),
        ("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", "86401"),  # past a day of hops
        ("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", "-1"),
    ],
)
def test_bad_values_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def _readme_settings_rows() -> list[tuple[str, str, str]]:
    """The README's settings table, one (variable, default, meaning) per row, as written."""
    lines = README.read_text().splitlines()
    start = lines.index("| variable | default | meaning |") + 2  # past the header and its separator
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        variable, default, meaning = (cell.strip() for cell in line.strip().removeprefix("|").removesuffix("|").split(" | "))
        rows.append((variable, default, meaning))
    return rows


def _documented_rows() -> list[tuple[str, str, str]]:
    """Settings.documented() as the README's table shows it: code-formatted values, `empty` for an empty default."""
    return [(f"`{env}`", f"`{default}`" if default else "empty", doc) for env, default, doc in Settings.documented()]


def test_readme_table_agrees_with_the_settings_row_for_row() -> None:
    # Given the settings' own metadata and the README's table
    expected, written = _documented_rows(), _readme_settings_rows()
    # Then they agree row for row: name, default and description, in the same order
    table = "\n".join(f"| {v} | {d} | {m} |" for v, d, m in expected)
    assert written == expected, f"the README's settings table should read:\n{table}"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"HOOKLINE_TABLE_BILLING": "reserved"}, "HOOKLINE_TABLE_BILLING"),
        ({"HOOKLINE_TABLE_MIN_READ_CAPACITY": "50", "HOOKLINE_TABLE_MAX_READ_CAPACITY": "40"}, "HOOKLINE_TABLE_MIN_READ_CAPACITY"),
        ({"HOOKLINE_TABLE_MIN_WRITE_CAPACITY": "0"}, "HOOKLINE_TABLE_MIN_WRITE_CAPACITY"),
        ({"HOOKLINE_TABLE_MAX_WRITE_CAPACITY": "40001"}, "HOOKLINE_TABLE_MAX_WRITE_CAPACITY"),
    ],
)
def test_table_billing_and_capacity_bounds_are_checked(env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        Settings.from_env(env)
    assert Settings.from_env({"HOOKLINE_TABLE_BILLING": "provisioned"}).table_billing == "provisioned"


@pytest.mark.parametrize(
    ("sender", "reason"),
    [
        ("Hookline", "no address"),
        ("Hookline <a@example.com> <b@example.com>", "two addresses"),
        ("Hookline <noreply@>", "no domain"),
        ("noreply@example.com\r\nBcc: victim@example.net", "control character"),
        ("noreply@café.example", "Punycode"),
    ],
)
def test_a_malformed_notification_sender_is_refused_with_the_reason(sender: str, reason: str) -> None:
    # Given a sender that is not one address SES can send from, set directly (as synth's tests do) or from the environment
    for make in (lambda: Settings(notification_sender=sender), lambda: Settings.from_env({"HOOKLINE_NOTIFICATION_SENDER": sender})):
        # Then the settings refuse it, naming the variable and why
        with pytest.raises(SettingsError, match="HOOKLINE_NOTIFICATION_SENDER") as refused:
            make()
        assert reason in str(refused.value)


def test_the_notification_sender_is_parsed_into_its_mailbox() -> None:
    mailbox = Settings.from_env({"HOOKLINE_NOTIFICATION_SENDER": "Hookline <noreply@mail.example.com>"}).notification_mailbox
    assert mailbox is not None and (mailbox.address, mailbox.domain, mailbox.name) == ("noreply@mail.example.com", "mail.example.com", "Hookline")
    assert Settings().notification_mailbox is None


@pytest.mark.parametrize(
    ("old", "new"), [("HOOKLINE_REPLAY_CONCURRENCY", "HOOKLINE_JOBS_CONCURRENCY"), ("HOOKLINE_REPLAY_BATCH_SIZE", "HOOKLINE_JOBS_BATCH_SIZE")]
)
def test_a_setting_an_earlier_release_named_otherwise_stops_with_its_new_name(old: str, new: str) -> None:
    # An install that still sets the old name would otherwise get the default without a word
    with pytest.raises(SettingsError, match=f"{old} was renamed {new} in this release: set {new} instead"):
        Settings.from_env({old: "3"})
    assert Settings.from_env({old: ""}) == Settings.from_env({})


@pytest.mark.parametrize("old", ["HOOKLINE_BREAKER_COOLDOWN_FRACTION", "HOOKLINE_BREAKER_MAX_COOLDOWN_SECONDS"])
def test_a_setting_this_release_replaced_stops_with_what_replaced_it(old: str) -> None:
    # The breaker's cooldown no longer grows with the outage: an install still tuning it would be ignored silently
    with pytest.raises(SettingsError, match=f"{old} is no longer read: this release replaced it with HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS"):
        Settings.from_env({old: "0.5"})
