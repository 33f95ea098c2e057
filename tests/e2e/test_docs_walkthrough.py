"""The README's local-mode walk-through and the operators' local commands, run exactly as written against local mode.

A command that drifts from the code fails `make test` here (the last test shows it does, with a planted typo). The
walk-through's receiver verifies signatures (a tampered copy of the webhook is refused), and the `make run` banner
prints the walk-through's commands with the same names (HOOKLINE_URL, HOOKLINE_KEY), so one pasted from either works."""

from __future__ import annotations

import json
import re
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
PORTAL = (walkthrough.REPO / "docs" / "portal.md").read_text()
NAMES = {"HOOKLINE_URL", "HOOKLINE_KEY"}  # the API's URL and key, in every document's commands and the banner


@pytest.fixture(scope="module")
def local_mode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalHookline, Ports, Path]]:
    state = tmp_path_factory.mktemp("state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKLINE_LOCAL_STATE_DIR", str(state))
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
    """The walk-through's commands, run as written, and what the README says they lead to; then a tampered copy of
    the webhook sent to the walk-through's receiver, which refuses it."""
    [steps] = walkthrough.blocks(text, "## Walk-through (local mode)")[:1]
    *ran, tampered = walkthrough.run([*steps, walkthrough.tamper_command(workdir)], ports, workdir)
    # The webhook arrived at the receiver, and its signature verified against the secret the endpoint was created with
    received = walkthrough.receiver_output(workdir)
    assert "POST /webhook -> 200 signature OK" in received, received
    assert '"invoice": "in_123"' in received
    # A copy with its signature headers as they came and its amount changed is refused: the receiver verifies
    assert tampered.output == "401", tampered.output
    assert "POST /webhook -> 401 signature FAILED" in walkthrough.receiver_output(workdir)
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
    [ran] = walkthrough.run(drain_block[:1], ports, tmp_path, extra_env={"HOOKLINE_LOCAL_STATE_DIR": str(state)})
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
    planted = README.replace('curl -s -X POST "$HOOKLINE_URL/v1/events" ', 'curl -s -X POST "$HOOKLINE_URL/v1/evnets" ', 1)
    assert planted != README
    with pytest.raises(AssertionError):
        walk_the_readme(planted, ports, tmp_path)


def _exported(command: str) -> dict[str, str]:
    """The variables an `export A=… B=…` command sets."""
    assert command.startswith("export "), command
    return dict(re.findall(r"(\w+)=(\S+)", command.removeprefix("export ")))


def _banner_commands(banner: str) -> list[str]:
    """The commands of the banner's "Try it" part (its lines up to "Delivery attempts"), as a shell block's."""
    try_it = banner.split("\nTry it", 1)[1].split("\n", 1)[1].split("\nDelivery attempts", 1)[0]
    return walkthrough.commands(try_it)


@pytest.mark.slow
def test_the_banner_prints_the_readmes_walk_through_with_the_same_names(local_mode: tuple[LocalHookline, Ports, Path]) -> None:
    hookline, ports, _ = local_mode
    [readme] = walkthrough.blocks(README, "## Walk-through (local mode)")[:1]
    banner = _banner_commands(hookline.banner())
    # The banner exports the names the README's commands use, set to this local mode's URL and key
    assert _exported(banner[0]) == {"HOOKLINE_URL": hookline.base_url, "HOOKLINE_KEY": hookline.api_key}
    assert set(_exported(readme[0])) == set(_exported(banner[0])) == NAMES
    # And prints the README's commands exactly, the README's placeholders filled in: either can be pasted
    assert [walkthrough.localize(command, ports) for command in banner] == [walkthrough.localize(command, ports) for command in readme]


def test_the_docs_name_the_api_url_and_key_as_the_banner_does() -> None:
    # Every curl to the API in the README and the portal guide goes to $HOOKLINE_URL with $HOOKLINE_KEY: no port or
    # other name hard-coded (the walk-through's export line is the one place that names local mode's default port)
    curls = [c for text in (README, PORTAL) for body in walkthrough.FENCE.findall(text) for c in walkthrough.commands(body) if "/v1/" in c]
    assert len(curls) >= 9, curls
    for command in curls:
        assert '"$HOOKLINE_URL/v1/' in command and "Bearer $HOOKLINE_KEY" in command, command
    for text in (README, PORTAL):
        assert not re.search(r"\$\{?(API|KEY)\b", text), re.findall(r".*\$\{?(?:API|KEY)\b.*", text)
        assert "localhost:8787" not in text
    # The local walk-through's first command sets both names, and the deployed one's first event too
    [local_steps] = walkthrough.blocks(README, "## Walk-through (local mode)")[:1]
    assert set(_exported(local_steps[0])) == NAMES
    assert {"export HOOKLINE_URL", "export HOOKLINE_KEY"} <= {c.split("=", 1)[0] for c in walkthrough.commands(README.split("### 5. The first event", 1)[1])}
