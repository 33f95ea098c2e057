"""The README's local-mode walk-through and the operators' local commands, run exactly as written against local mode.

A command that drifts from the code fails `make test` here (the last test shows it does, with a planted typo)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from hookline.core.models import DeliveryTask
from hookline.wiring import topology
from local import running
from local.run import LocalHookline
from tests.e2e.conftest import find_free_port
from tests.support import walkthrough
from tests.support.walkthrough import Ports

README = (walkthrough.REPO / "README.md").read_text()
OPERATIONS = (walkthrough.REPO / "docs" / "operations.md").read_text()


@pytest.fixture(scope="module")
def local_mode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalHookline, Ports, Path]]:
    state = tmp_path_factory.mktemp("state") / "local.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINE_LOCAL_STATE_FILE", str(state))
        hookline = LocalHookline(port=0, aws_port=0, readable_logs=False)
        hookline.start()
        try:
            running.announce(hookline.aws_endpoint, hookline.base_url)  # as `make run` does
            aws_port = int(hookline.aws_endpoint.rsplit(":", 1)[1])
            yield hookline, Ports(api=hookline.port, aws=aws_port, receiver=find_free_port(), key=hookline.api_key), state
        finally:
            running.withdraw()
            hookline.stop()


def walk_the_readme(text: str, ports: Ports, workdir: Path) -> None:
    """The walk-through's commands, run as written, and what the README says they lead to."""
    [steps] = walkthrough.blocks(text, "## Walk-through (local mode)")[:1]
    ran = walkthrough.run(steps, ports, workdir)
    # The webhook arrived at the receiver, and its signature verified against the secret the endpoint was created with
    received = walkthrough.receiver_output(workdir)
    assert "POST /webhook -> 200 signature OK" in received, received
    assert '"invoice": "in_123"' in received
    # The event was accepted with one delivery, and reads back by the id the producer gave it, delivered
    posted, read_back = ran[-2], ran[-1]
    assert json.loads(posted.output)["deliveries"] == 1, posted.output
    event = json.loads(read_back.output)
    assert event["id"] == json.loads(posted.output)["id"]
    assert [(d["status"], [a["status_code"] for a in d["attempts"]]) for d in event["deliveries"]] == [("succeeded", [200])]


@pytest.mark.slow
def test_the_readme_walk_through_runs_as_written(local_mode: tuple[LocalHookline, Ports, Path], tmp_path: Path) -> None:
    walk_the_readme(README, local_mode[1], tmp_path)


@pytest.mark.slow
def test_the_aws_cli_lines_work_with_no_aws_configuration(local_mode: tuple[LocalHookline, Ports, Path], tmp_path: Path) -> None:
    _, ports, _ = local_mode
    [_, cli] = walkthrough.blocks(README, "## Walk-through (local mode)")
    [listing] = walkthrough.run(cli, ports, tmp_path)[-1:]
    urls = json.loads(listing.output)["QueueUrls"]
    assert {q.physical_name(topology.DEFAULT_PREFIX) for q in topology.QUEUES} <= {u.rsplit("/", 1)[1] for u in urls}


@pytest.mark.slow
def test_the_operators_local_drain_moves_the_dead_letters(local_mode: tuple[LocalHookline, Ports, Path], tmp_path: Path) -> None:
    hookline, ports, state = local_mode
    sqs = boto3.client("sqs", endpoint_url=hookline.aws_endpoint)
    dlq, retry = hookline.resources[topology.DELIVERY_DLQ.env], hookline.resources[topology.RETRY_QUEUE.env]
    task = DeliveryTask("local", "evt_1", "dlv_1", "ep_1", 12, dead_lettered="max_attempts")
    sqs.send_message(QueueUrl=dlq, MessageBody=task.to_message(), MessageAttributes={"reason": {"DataType": "String", "StringValue": "max_attempts"}})
    drain_block = _drain_block()
    # The first documented line drains every dead letter; it finds the running local mode by itself
    [ran] = walkthrough.run(drain_block[:1], ports, tmp_path, extra_env={"HOOKLINE_LOCAL_STATE_FILE": str(state)})
    # (the drain's job as it ended is the last JSON line; its progress and, under `make test`, make's "Entering
    # directory" come before)
    ended = json.loads([line for line in ran.output.splitlines() if line.startswith("{") and '"drain_dlq"' in line][-1])
    assert (ended["status"], ended["counts"]["moved"]) == ("done", 1), ran.output
    attrs = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    assert attrs["ApproximateNumberOfMessages"] == "0"
    assert retry  # (the retry queue's poller has the task now; the delivery restarts it as a manual replay)


def _drain_block() -> list[str]:
    found = [cmds for cmds in (walkthrough.commands(b) for b in walkthrough.FENCE.findall(OPERATIONS)) if any(c.startswith("make dlq-drain") for c in cmds)]
    assert found, "docs/operations.md shows no `make dlq-drain` block"
    return found[0]


@pytest.mark.slow
def test_a_typo_in_a_documented_command_fails_the_walk_through(local_mode: tuple[LocalHookline, Ports, Path], tmp_path: Path) -> None:
    _, ports, _ = local_mode
    # A new port for this run's receiver, and a path mistyped in the event's POST
    ports = Ports(ports.api, ports.aws, find_free_port(), ports.key)
    planted = README.replace("curl -s -X POST localhost:8787/v1/events ", "curl -s -X POST localhost:8787/v1/evnets ", 1)
    assert planted != README
    with pytest.raises(AssertionError):
        walk_the_readme(planted, ports, tmp_path)
