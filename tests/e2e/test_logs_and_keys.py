"""Readable delivery log lines, and the API-key CLI against a moto server."""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import pytest

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.wiring import topology
from local import keys
from local.logs import ReadableLogStream, render
from local.resources import provision


def test_a_delivery_attempt_renders_as_one_line() -> None:
    # Given the delivery function's Powertools entry for one attempt
    entry = {
        "level": "INFO",
        "message": "delivery attempt",
        "service": "hookline",
        "event_id": "evt_1",
        "delivery_id": "dlv_1",
        "endpoint_id": "ep_1",
        "attempt": 1,
        "outcome": "succeeded",
        "status_code": 200,
        "duration_ms": 12,
        "error": None,
    }
    # When it is rendered, Then it is one readable line
    assert render(entry, clock="12:00:01") == "12:00:01 attempt 1 evt_1 -> ep_1 200 succeeded 12ms"
    failed = {**entry, "outcome": "failed", "status_code": None, "error": "connect_timeout"}
    assert render(failed, clock="12:00:01") == "12:00:01 attempt 1 evt_1 -> ep_1 --- failed 12ms error=connect_timeout"


def test_the_stream_rewrites_json_lines_and_passes_other_text() -> None:
    out = io.StringIO()
    stream = ReadableLogStream(out)
    stream.write(json.dumps({"level": "WARNING", "message": "hi", "service": "hookline", "tenant": "acme"}) + "\n")
    stream.write("plain text\n")
    first, second = out.getvalue().splitlines()
    assert first.endswith("WARNING  hookline: hi tenant=acme")
    assert second == "plain text"


@pytest.mark.slow
def test_the_keys_cli_stores_a_key_for_the_tenant(moto_endpoint: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Given a provisioned table on a moto server, and credentials in the environment
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    prefix = f"k{uuid.uuid4().hex[:8]}"
    table_name = provision(prefix, session=moto_endpoint.session(), endpoint_url=moto_endpoint.url)[topology.TABLE.env]

    # When the CLI creates a key for acme
    assert keys.main(["--tenant", "acme", "--table", table_name, "--endpoint-url", moto_endpoint.url]) == 0

    # Then it prints the key (alone on stdout), and the authorizer's repository finds it for acme
    key = capsys.readouterr().out.strip()
    assert key.startswith("hk_")
    table = moto_endpoint.session().resource("dynamodb", endpoint_url=moto_endpoint.url).Table(table_name)
    record = ApiKeyRepository(table).find(key)
    assert record is not None and record.tenant == "acme"


@pytest.mark.slow
def test_the_keys_cli_fails_cleanly_on_a_missing_table(moto_endpoint: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    assert keys.main(["--tenant", "acme", "--table", "no-such-table", "--endpoint-url", moto_endpoint.url]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no-such-table" in captured.err


def test_the_keys_cli_defaults_to_the_stacks_table() -> None:
    # Given no --table, Then the key goes to the table the stack names from the topology
    args = keys.build_parser().parse_args(["--tenant", "acme"])
    assert args.table == topology.TABLE.physical_name(topology.DEFAULT_PREFIX)
    assert args.endpoint_url is None
