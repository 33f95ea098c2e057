"""Operators' DLQ drain: move dead-lettered deliveries to the retry queue at a set pace.

    python -m local.dlq [--endpoint-id ep_…] [--tenant T] [--rate 10] [--max 1000]
        invokes the deployed replay function (`hookline-replay`) with {"kind": "drain_dlq", …}.
    python -m local.dlq --local [--aws-endpoint http://127.0.0.1:4566] …
        runs the same drain in this process against local mode's embedded AWS: the running
        local mode's (it announces its ports, see local.running), else HOOKLINE_AWS_PORT's (4566).

`make dlq-drain` wraps it. Tasks hookline dead-lettered itself come back as
manual replays with a fresh attempt budget; poison messages stay in the DLQ.
Progress prints to stderr as it goes (each batch locally, each pass of at most
90 s against the stack); the totals print to stdout as JSON at the end.

Against the stack, each pass is one synchronous invoke that the client waits
for longer than the function may run, and never retries: a retried invoke
would start a second, overlapping drain. Passes repeat while the drain
answers `more`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import boto3
from botocore.config import Config

import local  # noqa: F401  - puts the layer on sys.path
from hookline.adapters.dlq import TIME_BUDGET_SECONDS
from hookline.wiring import topology
from local import running

# The client outwaits the replay function's own timeout (which outlasts the drain's time budget), and never retries.
INVOKE_CONFIG = Config(read_timeout=topology.REPLAY_TIMEOUT_SECONDS + 30, connect_timeout=10, retries={"total_max_attempts": 1, "mode": "standard"})
assert TIME_BUDGET_SECONDS < topology.REPLAY_TIMEOUT_SECONDS < INVOKE_CONFIG.read_timeout


def drain_command(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"kind": "drain_dlq"}
    if args.endpoint_id:
        command["endpoint_id"] = args.endpoint_id
    if args.tenant:
        command["tenant"] = args.tenant
    if args.rate:
        command["rate"] = args.rate
    if args.max:
        command["max_messages"] = args.max
    return command


def _say(report: dict[str, Any], moved_before: int = 0) -> None:
    print(
        f"drain: {moved_before + int(report.get('moved', 0))} moved so far, {report.get('poison', 0)} poison left, more: {bool(report.get('more'))}",
        file=sys.stderr,
        flush=True,
    )


def run_local(command: dict[str, Any], aws_endpoint: str, prefix: str = topology.DEFAULT_PREFIX) -> dict[str, Any]:
    """Point this process at local mode's moto server and run the drain, printing its progress after each batch."""
    os.environ["AWS_ENDPOINT_URL"] = aws_endpoint
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    sqs = boto3.client("sqs")
    for queue in topology.QUEUES:
        os.environ[queue.env] = sqs.get_queue_url(QueueName=queue.physical_name(prefix))["QueueUrl"]
    from hookline.entrypoints.replay import drain
    from hookline.wiring import container

    container.reset()
    return drain(command, progress=_say)


def run_deployed(command: dict[str, Any], function_name: str, client: Any = None) -> dict[str, Any]:
    """Invoke the drain pass after pass while it answers `more`, printing each pass; the totals of all of them."""
    client = client or boto3.client("lambda", config=INVOKE_CONFIG)
    totals: dict[str, Any] = {"moved": 0, "skipped": 0, "poison": 0, "more": False}
    wanted = int(command.get("max_messages") or 0)
    while True:
        left = {**command, **({"max_messages": wanted - totals["moved"]} if wanted else {})}
        # The alias every deployed function serves from: the release in service, not $LATEST.
        result = client.invoke(FunctionName=function_name, Qualifier=topology.LIVE_ALIAS, Payload=json.dumps(left).encode())
        payload: dict[str, Any] = json.loads(result["Payload"].read() or b"{}")
        if "error" in payload or "errorMessage" in payload:
            return payload
        _say(payload, totals["moved"])
        totals = {"moved": totals["moved"] + payload.get("moved", 0), "skipped": payload.get("skipped", 0), "poison": payload.get("poison", 0), "more": False}
        if not payload.get("more") or not payload.get("moved") or (wanted and totals["moved"] >= wanted):
            totals["more"] = bool(payload.get("more"))
            return totals


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m local.dlq", description="Drain hookline's dead-letter queue into the retry queue.")
    parser.add_argument("--endpoint-id", default="", help="only this endpoint's deliveries")
    parser.add_argument("--tenant", default="", help="only this tenant's deliveries")
    parser.add_argument("--rate", type=float, default=0.0, help="messages per second (default HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND)")
    parser.add_argument("--max", type=int, default=0, help="stop after this many messages")
    parser.add_argument("--local", action="store_true", help="drain local mode's DLQ instead of the deployed stack's")
    parser.add_argument("--aws-endpoint", default="", help="local mode's embedded AWS (default: the running local mode's, else HOOKLINE_AWS_PORT's)")
    parser.add_argument("--function", default=f"{topology.DEFAULT_PREFIX}-{topology.REPLAY.name}", help="the deployed replay function")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = drain_command(args)
    if args.local:
        endpoint = args.aws_endpoint or running.running_aws_endpoint() or f"http://127.0.0.1:{os.environ.get('HOOKLINE_AWS_PORT', '4566')}"
        report = run_local(command, endpoint)
    else:
        report = run_deployed(command, args.function)
    print(json.dumps(report))
    return 0 if "error" not in report else 1


if __name__ == "__main__":
    sys.exit(main())
