"""Settings parse from the environment, and the README documents every one."""

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
    ("name", "value"), [("HOOKLINE_PORT", "eighty"), ("HOOKLINE_DELIVERY_CONCURRENCY", "-1"), ("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "not-a-cidr")]
)
def test_bad_values_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_readme_table_lists_every_setting() -> None:
    text = README.read_text()
    for env, _default, _doc in Settings.documented():
        assert f"`{env}`" in text, f"{env} missing from the README settings table"
