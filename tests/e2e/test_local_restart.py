"""`python -m local.run` keeps its state across restarts (issue 50, finding 8): a clean stop (SIGINT, as Ctrl-C sends)
saves the embedded AWS, the next start restores it, a pending delivery included; after SIGKILL the start says the last
run did not stop cleanly; `--fresh` starts empty."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from local.receiver import WebhookReceiver

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
KEY = "restartkey123456"
AUTH = {"Authorization": f"Bearer {KEY}"}
UP = "Ctrl-C stops everything."  # the banner's last line


@contextmanager
def local_mode(data_dir: Path, *args: str, stop: signal.Signals = signal.SIGINT) -> Iterator[tuple[str, list[str]]]:
    """`python -m local.run` on free ports with its state in `data_dir`: (API URL, the output so far, which grows
    with what it prints when it stops)."""
    env = {
        **os.environ,
        "HOOKLINE_PORT": "0",
        "HOOKLINE_AWS_PORT": "0",
        "HOOKLINE_API_KEYS": f"acme:{KEY}",
        "HOOKLINE_LOCAL_DATA_DIR": str(data_dir),
        "HOOKLINE_LOCAL_STATE_DIR": str(data_dir / "running"),
        "HOOKLINE_RETRY_BASE_SECONDS": "1",  # the failed first attempt's retry waits in SQS for at most 2 s
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "local.run", "--no-demo", "--json-logs", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        while line := process.stdout.readline():
            lines.append(line)
            if UP in line:
                break
        api = re.search(r"^\s+API\s+(http://\S+)", "".join(lines), flags=re.M)
        assert api, "".join(lines)
        yield api.group(1), lines
        process.send_signal(stop)
        out, _ = process.communicate(timeout=120)
        lines.append(out)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _get(api: str, path: str) -> requests.Response:
    return requests.get(f"{api}{path}", headers=AUTH, timeout=30)


def test_a_clean_stop_keeps_everything_and_a_pending_delivery_arrives_after_the_restart(tmp_path: Path) -> None:
    with WebhookReceiver(port=0, status=500) as receiver:
        # Given local mode with a customer, its endpoint (a receiver failing for now) and an event whose delivery is pending
        with local_mode(tmp_path) as (api, lines):
            assert "Local state: starting empty" in "".join(lines)
            assert requests.put(f"{api}/v1/customers/c1", json={"name": "C One"}, headers=AUTH, timeout=30).status_code == 201
            # (with a bearer token, sealed with local mode's KMS key: the key must outlive the restart to open it)
            bearer = {"type": "bearer", "token": "tk-kept-across-restarts"}
            endpoint = requests.post(f"{api}/v1/endpoints", json={"url": receiver.url, "customer": "c1", "auth": bearer}, headers=AUTH, timeout=30).json()
            accepted = requests.post(f"{api}/v1/events", json={"type": "invoice.paid", "customer": "c1", "data": {"n": 1}}, headers=AUTH, timeout=30)
            assert accepted.status_code == 202, accepted.text
            event = accepted.json()["id"]
            assert receiver.arrived.wait(60)  # the first attempt failed: the delivery waits for its retry
            # When local mode stops cleanly (Ctrl-C's SIGINT) while the receiver still fails
            receiver.status = 500
        first = "".join(lines)
        assert "local state saved in" in first and "Traceback" not in first, first
        # And starts again, the receiver now answering 200 and verifying the signature
        receiver.received.clear()
        receiver.status, receiver.secret = 200, endpoint["secret"]
        with local_mode(tmp_path, stop=signal.SIGKILL) as (api, lines):
            # Then it says it restored its state, and the customer, the endpoint, the event and its delivery are there
            assert "Local state: restored from the clean stop of" in "".join(lines), "".join(lines)
            assert _get(api, "/v1/customers/c1").json()["name"] == "C One"
            assert _get(api, f"/v1/endpoints/{endpoint['id']}").status_code == 200
            deliveries = _get(api, f"/v1/events/{event}").json()["deliveries"]
            # (restored with the attempt that failed before the stop; its retry, due already, may have gone out by now)
            assert len(deliveries) == 1 and deliveries[0]["attempts"][0]["status_code"] == 500, deliveries
            # And the pending delivery arrives, signed with the endpoint's secret, with its bearer token opened
            deadline = time.monotonic() + 90
            while not any(w.verified and w.status == 200 for w in receiver.received) and time.monotonic() < deadline:
                time.sleep(0.2)
            arrived = [w for w in receiver.received if w.verified and w.status == 200]
            assert [w.json().get("data") for w in arrived] == [{"n": 1}]
            assert arrived[0].headers["authorization"] == "Bearer tk-kept-across-restarts"
    # When it was killed (SIGKILL: no save) and starts again with --fresh
    with local_mode(tmp_path, "--fresh") as (api, lines):
        started = "".join(lines)
        # Then it says the last run did not stop cleanly, and that it starts empty
        assert "did not stop cleanly (killed or crashed): what it changed is lost." in started, started
        assert "Local state: starting empty (--fresh)" in started, started
        assert _get(api, "/v1/customers/c1").status_code == 404
