"""The operators' DLQ drain CLI against a running local mode's embedded AWS."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import boto3
import pytest

from hookline.adapters.dlq import TIME_BUDGET_SECONDS
from hookline.core.models import DeliveryTask
from hookline.wiring import container, topology
from local import running
from local.dlq import INVOKE_CONFIG, build_parser, drain_command, run_deployed, run_local
from local.run import LocalHookline


@pytest.mark.slow
def test_make_dlq_drain_moves_matching_tasks_to_the_retry_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalHookline(port=0, aws_port=0, api_keys="acme:hk_cli_test_key_1234", readable_logs=False) as hl:
        sqs = boto3.client("sqs", endpoint_url=hl.aws_endpoint)
        dlq, retry = hl.resources[topology.DELIVERY_DLQ.env], hl.resources[topology.RETRY_QUEUE.env]
        arrived = _record_what_the_poller_hands_over(hl, retry)
        # Given a dead-lettered task for each of two endpoints
        tasks = {}
        for endpoint_id in ("ep_a", "ep_b"):
            tasks[endpoint_id] = task = DeliveryTask("acme", "evt_1", f"dlv_{endpoint_id}", endpoint_id, 3, dead_lettered="max_attempts")
            sqs.send_message(QueueUrl=dlq, MessageBody=task.to_message(), MessageAttributes={"reason": {"DataType": "String", "StringValue": "max_attempts"}})
        # When an operator drains one endpoint's with the CLI (`make dlq-drain ENDPOINT=ep_a LOCAL=1`)
        for name in ("AWS_ENDPOINT_URL", *(q.env for q in topology.QUEUES)):
            monkeypatch.setenv(name, "")
        args = ["--local", "--aws-endpoint", hl.aws_endpoint, "--endpoint-id", "ep_a", "--rate", "100"]
        report = run_local(drain_command(build_parser().parse_args(args)), hl.aws_endpoint)
        container.reset()
        # Then that task left for the retry queue, whose poller handed exactly it (unchanged) to the function, and the other is still in the DLQ
        assert (report["moved"], report["skipped"]) == (1, 1)
        assert arrived.wait_for(1, seconds=10) == [tasks["ep_a"].to_message()]
        attrs = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["All"])["Attributes"]
        assert int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"]) == 1


class _Arrivals:
    """Message bodies a poller handed to its function, in order."""

    def __init__(self) -> None:
        self._bodies: list[str] = []
        self._lock = threading.Lock()

    def add(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._bodies.extend(r["body"] for r in event["Records"])

    def wait_for(self, count: int, seconds: float) -> list[str]:
        """What arrived once `count` bodies did, or when `seconds` ran out (the poller long-polls for 1 s at a time)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                if len(self._bodies) >= count:
                    break
            time.sleep(0.05)
        with self._lock:
            return list(self._bodies)


def _record_what_the_poller_hands_over(hl: LocalHookline, queue_url: str) -> _Arrivals:
    arrivals = _Arrivals()
    [poller] = [p for p in hl.pollers if p.queue_url == queue_url]
    invoke = poller.invoke

    def recording(event: dict[str, Any]) -> Any:
        arrivals.add(event)
        return invoke(event)

    poller.invoke = recording
    return arrivals


class _FakeLambda:
    """The deployed replay function's answers, pass by pass."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers, self.payloads = answers, []

    def invoke(self, FunctionName: str, Payload: bytes, Qualifier: str = "") -> dict[str, Any]:  # noqa: N803 - boto3's names
        assert Qualifier == "live"  # the alias in service, as every event source invokes it
        self.payloads.append(json.loads(Payload))
        return {"Payload": io.BytesIO(json.dumps(self.answers.pop(0)).encode())}


def test_the_deployed_drain_runs_pass_after_pass_printing_each_and_adds_them_up(capsys: pytest.CaptureFixture[str]) -> None:
    passes = [{"moved": 900, "skipped": 0, "poison": 1, "more": True}, {"moved": 120, "skipped": 2, "poison": 1, "more": False}]
    client = _FakeLambda(passes)
    totals = run_deployed({"kind": "drain_dlq", "rate": 10}, "hookline-replay", client)
    assert totals == {"moved": 1020, "skipped": 2, "poison": 1, "more": False}
    assert capsys.readouterr().err.splitlines() == [
        "drain: 900 moved so far, 1 poison left, more: True",
        "drain: 1020 moved so far, 1 poison left, more: False",
    ]
    # --max holds across passes
    client = _FakeLambda([{"moved": 5, "poison": 0, "more": True}, {"moved": 3, "poison": 0, "more": True}])
    assert run_deployed({"kind": "drain_dlq", "max_messages": 8}, "f", client)["moved"] == 8
    assert [p["max_messages"] for p in client.payloads] == [8, 3]


def test_the_client_outwaits_the_function_and_never_retries_an_invoke() -> None:
    # A retried invoke would start a second drain over the first: one attempt, and a read timeout past the function's own
    assert INVOKE_CONFIG.retries == {"total_max_attempts": 1, "mode": "standard"}
    assert TIME_BUDGET_SECONDS < topology.REPLAY_TIMEOUT_SECONDS < INVOKE_CONFIG.read_timeout


def test_the_local_drain_finds_the_running_local_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_LOCAL_STATE_FILE", str(tmp_path / "state.json"))
    assert running.running_aws_endpoint() is None
    running.announce("http://127.0.0.1:45123", "http://127.0.0.1:8080")
    assert running.running_aws_endpoint() == "http://127.0.0.1:45123"
    # A state file left by a process that is gone is no local mode
    (tmp_path / "state.json").write_text(json.dumps({"pid": 2**22 + 7, "aws_endpoint": "http://127.0.0.1:1"}))
    assert running.running_aws_endpoint() is None
    running.announce("http://127.0.0.1:45123", "http://127.0.0.1:8080")
    running.withdraw()
    assert not (tmp_path / "state.json").exists()
