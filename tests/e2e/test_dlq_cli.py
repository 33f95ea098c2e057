"""The operators' DLQ drain CLI: it starts a drain job and watches it, against a running local mode, and (with a
stand-in for Lambda) against the stack."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import boto3
import pytest

from hookline.core.models import DeliveryTask
from hookline.wiring import container, topology
from local import running
from local.dlq import INVOKE_CONFIG, WATCH_EVERY_SECONDS, build_parser, deployed_invoker, drain_command, local_invoker, main, run
from local.run import LocalHookline

REPO = Path(__file__).resolve().parents[2]


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
        # When an operator drains one endpoint's with the CLI (`make dlq-drain ENDPOINT=ep_a LOCAL=1`): it starts the
        # drain's job, which the running local mode's job-queue poller runs, and watches it to its end
        for name in ("AWS_ENDPOINT_URL", topology.TABLE.env, *(q.env for q in topology.QUEUES)):
            monkeypatch.setenv(name, "")
        args = build_parser().parse_args(["--local", "--aws-endpoint", hl.aws_endpoint, "--endpoint-id", "ep_a", "--rate", "100"])
        job = run(local_invoker(hl.aws_endpoint), drain_command(args), sleep=lambda _s: time.sleep(0.2))
        container.reset()
        # Then that task left for the retry queue, whose poller handed exactly it (unchanged, bar its freshness) to the
        # function, and the other is still in the DLQ
        assert (job["status"], job["counts"]["moved"], job["counts"]["skipped"]) == ("done", 1, 1)
        assert arrived.wait_for(1, seconds=10) == [replace(tasks["ep_a"], fresh=False).to_message()]
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
    """The deployed jobs function's answers to the CLI's invocations, in order."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers, self.payloads = answers, []

    def invoke(self, FunctionName: str, Payload: bytes, Qualifier: str = "") -> dict[str, Any]:  # noqa: N803 - boto3's names
        assert Qualifier == "live"  # the alias in service, as every event source invokes it
        self.payloads.append(json.loads(Payload))
        return {"Payload": io.BytesIO(json.dumps(self.answers.pop(0)).encode())}


def _job(status: str, steps: int, moved: int) -> dict[str, Any]:
    return {"job": {"id": "job_x", "kind": "drain_dlq", "status": status, "steps": steps, "counts": {"moved": moved, "skipped": 0, "poison": 1}}}


def test_the_deployed_drain_is_started_then_watched_to_its_end_printing_as_it_moves(capsys: pytest.CaptureFixture[str]) -> None:
    client = _FakeLambda([_job("running", 0, 0), _job("running", 3, 300), _job("running", 3, 300), _job("done", 5, 420)])
    slept: list[float] = []
    ended = run(deployed_invoker("hookline-jobs", client), {"kind": "drain_dlq", "rate": 10}, sleep=slept.append)
    assert ended == _job("done", 5, 420)["job"]
    # One start, then reads of the job every two seconds until it ended
    assert client.payloads == [{"kind": "drain_dlq", "rate": 10}, *[{"kind": "job", "job_id": "job_x"}] * 3]
    assert slept == [WATCH_EVERY_SECONDS] * 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("drain job_x started; Ctrl-C stops watching")
    assert err[1:] == [  # printed when it moved, not at every read
        "drain job_x: running, 300 moved, 0 left (others'), 1 poison left",
        "drain job_x: done, 420 moved, 0 left (others'), 1 poison left",
    ]
    # `--watch job_…` watches one started before; a refused start is answered as it is
    client = _FakeLambda([_job("done", 5, 420)])
    assert run(deployed_invoker("f", client), {"kind": "drain_dlq"}, job_id="job_x")["status"] == "done"
    assert client.payloads == [{"kind": "job", "job_id": "job_x"}]
    refused = {"error": {"code": "validation_failed", "message": "'rate' must be 0.1 to 1000 per second"}}
    assert run(deployed_invoker("f", _FakeLambda([refused])), {"kind": "drain_dlq", "rate": 0}) == refused


def test_each_invocation_answers_at_once_so_the_client_waits_briefly_and_may_retry() -> None:
    # A start retried within the minute names the same running drain (hookline.services.drain), so retries are safe
    assert INVOKE_CONFIG.read_timeout <= 30 and INVOKE_CONFIG.retries["total_max_attempts"] > 1


def test_the_local_drain_finds_the_running_local_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_LOCAL_STATE_DIR", str(tmp_path))
    with pytest.raises(running.NotRunning):
        running.find()
    running.announce("http://127.0.0.1:45123", "http://127.0.0.1:8080")
    assert running.find().aws_endpoint == "http://127.0.0.1:45123"
    running.withdraw()
    assert not list(tmp_path.iterdir())
    # A state file left by a process that is gone is no local mode
    running.state_file(8080, 45123).write_text(json.dumps({"pid": 2**22 + 7, "aws_endpoint": "http://127.0.0.1:45123", "api_url": "http://127.0.0.1:8080"}))
    assert running.running() == []


SECOND_LOCAL_MODE = """
import sys
from local import running
running.announce("http://127.0.0.1:45124", "http://127.0.0.1:8081")
print("up", flush=True)
sys.stdin.readline()
running.withdraw()
"""


def test_a_second_local_mode_that_starts_and_stops_leaves_the_first_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_LOCAL_STATE_DIR", str(tmp_path))
    # Given a local mode (this process) and a second one on other ports (a process of its own), each announced
    first = running.announce("http://127.0.0.1:45123", "http://127.0.0.1:8080")
    second = subprocess.Popen([sys.executable, "-c", SECOND_LOCAL_MODE], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert second.stdout is not None and second.stdout.readline() == "up\n"
        # Then each has a state file of its own, by its port pair, and either is found by either of its ports
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, running.state_file(8081, 45124).name])
        assert [mode.ports for mode in running.running()] == [(8080, 45123), (8081, 45124)]
        assert running.find(8081).aws_endpoint == running.find(45124).aws_endpoint == "http://127.0.0.1:45124"
        assert running.find(45123).api_url == "http://127.0.0.1:8080"
        # With two running and no port, the drain does not guess: it names both and how to choose
        with pytest.raises(running.NotRunning, match=r"2 local modes are running; name one .* PORT=") as several:
            running.find()
        assert "http://127.0.0.1:8080" in str(several.value) and "http://127.0.0.1:8081" in str(several.value)
        # When the second stops, its file goes, and the first is still found
        second.communicate("\n", timeout=30)
        assert second.returncode == 0
    finally:
        if second.poll() is None:
            second.kill()
    assert [p.name for p in tmp_path.iterdir()] == [first.name]
    assert running.find().aws_endpoint == "http://127.0.0.1:45123"
    with pytest.raises(running.NotRunning, match=r"no local mode is running on port 8081; these are:\n  API http://127.0.0.1:8080"):
        running.find(8081)
    running.withdraw()
    assert not list(tmp_path.iterdir())


def test_with_no_local_mode_running_the_local_drain_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOOKLINE_LOCAL_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("HOOKLINE_AWS_PORT", "4566")
    # `make dlq-drain LOCAL=1` with none running: one clear line, no attempt at a default port, no traceback
    assert main(["--local"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dlq-drain: no local mode is running") and "make run" in err, err
    assert "4566" not in err and "Traceback" not in err
    # `PORT=…` names a local mode that is not there
    assert main(["--local", "--port", "8081"]) == 2
    assert capsys.readouterr().err.startswith("dlq-drain: no local mode is running on port 8081")


def test_make_dlq_drain_passes_port_with_local() -> None:
    dry = subprocess.run(["make", "-n", "dlq-drain", "LOCAL=1", "PORT=8081"], cwd=REPO, capture_output=True, text=True, check=True, timeout=60)
    [line] = [line for line in dry.stdout.splitlines() if "-m local.dlq" in line]
    assert line.split()[-3:] == ["--local", "--port", '"8081"']
