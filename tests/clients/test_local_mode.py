"""The Python client and the `hookline` command against the real service in local mode.

One local mode for the module, and one test: its steps build on each other (a customer, its
endpoints, events, their deliveries), and one test cannot be split across pytest-xdist's workers,
which would start a second local mode.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hookline_client import Event, HooklineClient, HooklineError, cli, verify
from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
UID = "org_client"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """`hookline ARGV` in this process (its URL and key from the environment); its standard output."""
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert status == 0, (argv, captured.err)
    return captured.out


def test_client_and_cli_against_local_mode(hookline: LocalHookline, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with WebhookReceiver(port=0) as ok_receiver, WebhookReceiver(port=0, status=400) as failing_receiver:
        client = HooklineClient(hookline.base_url, hookline.api_key, timeout=10)
        endpoints = the_client_sends_and_reads_back(client, ok_receiver, failing_receiver)
        monkeypatch.setenv("HOOKLINE_URL", hookline.base_url)
        monkeypatch.setenv("HOOKLINE_KEY", hookline.api_key)
        the_cli_does_the_same(capsys, endpoints, ok_receiver.url)
        the_installed_command_runs(endpoints["failing"])
        the_readme_examples_run(capsys)
        # Last, as a replay restarts the failed delivery the steps above list
        both_replay_the_failures(client, capsys, endpoints["failing"])


def the_client_sends_and_reads_back(client: HooklineClient, ok_receiver: WebhookReceiver, failing_receiver: WebhookReceiver) -> dict[str, str]:
    # A customer, and two endpoints of it: one that accepts invoice.paid, one that refuses invoice.failed (400: not retried)
    customer = client.customers.put(UID, "Client Test Org", metadata={"plan": "pro"})
    assert (customer["uid"], customer["name"], customer["metadata"]) == (UID, "Client Test Org", {"plan": "pro"})
    assert client.customers.get(UID)["created_at"] == customer["created_at"]
    ok = client.endpoints.create(ok_receiver.url, customer=UID, event_types=["invoice.paid"], description="accepts")
    ok_receiver.secret = ok["secret"]
    failing = client.endpoints.create(failing_receiver.url, customer=UID, event_types=["invoice.failed"])
    assert ok["secret"].startswith("whsec_") and failing["customer"] == UID

    # An event, and a batch of two (one with the producer's id, one with the client's)
    sent = client.events.send("invoice.paid", {"invoice": "in_1", "amount": 4200}, customer=UID)
    assert sent["id"].startswith("evt_") and sent["deliveries"] == 1
    batch = client.events.send_batch(
        [
            {"type": "invoice.paid", "data": {"invoice": "in_2"}, "customer": UID, "id": "client-in_2-paid"},
            {"type": "invoice.failed", "data": {"invoice": "in_3"}, "customer": UID},
        ]
    )
    assert (batch["accepted"], batch["failed"], [r["status"] for r in batch["results"]]) == (2, 0, [202, 202])
    # The same send again (same id, same body) names the same event and makes nothing new
    assert client.events.send("invoice.paid", {"invoice": "in_2"}, customer=UID, id="client-in_2-paid")["id"] == batch["results"][0]["id"]

    # The event and its delivery read back; the webhook arrived signed, and hookline_client.verify accepts it
    def delivered() -> Event | None:
        read = client.events.get(sent["id"])
        return read if [d["status"] for d in read["deliveries"]] == ["succeeded"] else None

    event = wait_for(delivered)
    assert (event["type"], event["customer"], event["data"]) == ("invoice.paid", UID, {"invoice": "in_1", "amount": 4200})
    assert event["deliveries"][0]["endpoint_id"] == ok["id"] and event["deliveries"][0]["attempts"][0]["status_code"] == 200
    assert client.events.get("client-in_2-paid")["id"] == batch["results"][0]["id"]
    webhook = next(w for w in wait_for(lambda: list(ok_receiver.received)) if w.json()["id"] == sent["id"])
    assert webhook.verified is True
    assert verify(webhook.body, webhook.headers, ok["secret"])["data"] == {"invoice": "in_1", "amount": 4200}
    detail = client.deliveries.get(sent["id"], event["deliveries"][0]["id"])
    assert (detail["event_type"], detail["status"]) == ("invoice.paid", "succeeded")

    # The refused one is listed as failed under its endpoint
    [failed] = wait_for(lambda: list(client.deliveries.failed(failing["id"])))
    assert (failed["event_id"], failed["status"], failed["endpoint_id"]) == (batch["results"][1]["id"], "failed", failing["id"])
    attempts = client.deliveries.get(failed["event_id"], failed["id"])["attempts"]
    assert [(a["status_code"], a["outcome"]) for a in attempts] == [(400, "failed")]

    # The customer's endpoints, a page of one at a time
    assert sorted(e["id"] for e in client.endpoints.list(customer=UID, page_size=1)) == sorted([ok["id"], failing["id"]])
    assert client.endpoints.get(ok["id"])["health"]["circuit"]["state"] == "closed"

    # A portal link
    link = client.portal_link(UID, ttl_seconds=600)
    assert link.startswith(client.base_url + "/portal?") and "#token=hps_" in link

    # Refusals are typed errors with the API's codes
    with pytest.raises(HooklineError) as unknown:
        client.events.send("invoice.paid", {}, customer="org_nobody")
    assert (unknown.value.status, unknown.value.code) == (404, "customer_not_found")
    with pytest.raises(HooklineError) as conflict:
        client.events.send("invoice.paid", {"invoice": "other"}, customer=UID, id="client-in_2-paid")
    assert (conflict.value.status, conflict.value.code) == (409, "idempotency_conflict")
    return {"ok": ok["id"], "failing": failing["id"], "event": sent["id"]}


def the_cli_does_the_same(capsys: pytest.CaptureFixture[str], endpoints: dict[str, str], receiver_url: str) -> None:
    sent: dict[str, Any] = json.loads(run_cli(capsys, "events", "send", "invoice.paid", '{"invoice": "in_4"}', "--customer", UID, "--json"))
    assert sent["id"].startswith("evt_") and sent["deliveries"] == 1
    assert run_cli(capsys, "events", "send", "invoice.paid", "{}", "--customer", UID).startswith("accepted evt_")
    shown = run_cli(capsys, "events", "get", endpoints["event"])
    assert "DELIVERY" in shown and endpoints["ok"] in shown and "succeeded" in shown
    listed = run_cli(capsys, "endpoints", "list", "--customer", UID)
    assert endpoints["ok"] in listed and endpoints["failing"] in listed
    created = json.loads(run_cli(capsys, "endpoints", "create", receiver_url, "--customer", UID, "--event-type", "cli.test", "--json"))
    assert created["secret"].startswith("whsec_") and created["event_types"] == ["cli.test"]
    assert created["id"] in run_cli(capsys, "endpoints", "get", created["id"])
    [failed] = json.loads(run_cli(capsys, "deliveries", "failed", endpoints["failing"], "--json"))
    assert failed["status"] == "failed"
    table = run_cli(capsys, "deliveries", "failed", endpoints["failing"], "--since", "1h")
    assert failed["id"] in table and failed["event_id"] in table
    link = run_cli(capsys, "portal-link", UID, "--read-only").strip()
    assert "/portal?" in link and "#token=hps_" in link
    assert run_cli(capsys, "customers", "get", UID).startswith(f"{UID}  Client Test Org")
    assert cli.main(["events", "get", "no-such-event"]) == 1
    assert "404 not_found" in capsys.readouterr().err


def both_replay_the_failures(client: HooklineClient, capsys: pytest.CaptureFixture[str], failing_endpoint: str) -> None:
    now = datetime.now(UTC)
    replay = client.endpoints.replay(failing_endpoint, since=now - timedelta(hours=1), until=now)
    assert replay["status"] == "running" and replay["job"]["id"].startswith("job_")
    assert client.replays.get(replay["id"])["endpoint_id"] == failing_endpoint
    assert run_cli(capsys, "replay", failing_endpoint, "--since", "2h").startswith("replay rpl_")


def the_readme_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's "Python client and CLI" examples as written (the CLI lines without a placeholder id)."""
    section = README.split("\n## Python client and CLI\n", 1)[1].split("\n## ", 1)[0]
    [python] = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    exec(compile(python, "README.md", "exec"), {})  # the README's own example
    [shell] = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    lines = [shlex.split(line) for line in shell.splitlines() if line.strip() and "…" not in line]
    assert len(lines) >= 3 and all(argv[0] == "hookline" for argv in lines)
    run_cli(capsys, "customers", "put", "org_4711", "--name", "Globex GmbH")  # the customer the portal-link line names
    for argv in lines:
        run_cli(capsys, *argv[1:])
    assert cli.main(["--json", "events", "get", "invoice-in_124-paid"]) == 0  # the event the Python example sent
    assert json.loads(capsys.readouterr().out)["data"] == {"invoice": "in_124", "amount": 990}


def the_installed_command_runs(failing_endpoint: str) -> None:
    """The console script pip installed (requirements-dev.txt installs ./clients/python), as a process of its own."""
    command = Path(sys.executable).parent / "hookline"
    assert command.exists(), f"{command} is missing: pip install -e ./clients/python (requirements-dev.txt does)"
    done = subprocess.run(
        [str(command), "deliveries", "failed", failing_endpoint, "--json"], capture_output=True, text=True, timeout=60, env=os.environ.copy(), check=False
    )
    assert done.returncode == 0, done.stderr
    assert [d["status"] for d in json.loads(done.stdout)] == ["failed"]
