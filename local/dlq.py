"""Operators' DLQ drain: move dead-lettered deliveries to the retry queue at a set pace.

    python -m local.dlq [--endpoint-id ep_…] [--tenant T] [--rate 10] [--max 1000]
        invokes the deployed replay function (`hookline-replay`) with {"kind": "drain_dlq", …}.
    python -m local.dlq --local [--aws-endpoint http://127.0.0.1:4566] …
        runs the same drain in this process against local mode's embedded AWS.

`make dlq-drain` wraps it. Tasks hookline dead-lettered itself come back as
manual replays with a fresh attempt budget; poison messages stay in the DLQ.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import boto3

import local  # noqa: F401  - puts the layer on sys.path
from hookline.wiring import topology


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


def run_local(command: dict[str, Any], aws_endpoint: str, prefix: str = topology.DEFAULT_PREFIX) -> dict[str, Any]:
    """Point this process at local mode's moto server and run the replay handler's drain."""
    os.environ["AWS_ENDPOINT_URL"] = aws_endpoint
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    sqs = boto3.client("sqs")
    for queue in topology.QUEUES:
        os.environ[queue.env] = sqs.get_queue_url(QueueName=queue.physical_name(prefix))["QueueUrl"]
    from hookline.entrypoints.replay import handle
    from hookline.wiring import container

    container.reset()
    return handle(command, None)


def run_deployed(command: dict[str, Any], function_name: str) -> dict[str, Any]:
    result = boto3.client("lambda").invoke(FunctionName=function_name, Payload=json.dumps(command).encode())
    payload: dict[str, Any] = json.loads(result["Payload"].read() or b"{}")
    return payload


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m local.dlq", description="Drain hookline's dead-letter queue into the retry queue.")
    parser.add_argument("--endpoint-id", default="", help="only this endpoint's deliveries")
    parser.add_argument("--tenant", default="", help="only this tenant's deliveries")
    parser.add_argument("--rate", type=float, default=0.0, help="messages per second (default HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND)")
    parser.add_argument("--max", type=int, default=0, help="stop after this many messages")
    parser.add_argument("--local", action="store_true", help="drain local mode's DLQ instead of the deployed stack's")
    parser.add_argument("--aws-endpoint", default=f"http://127.0.0.1:{os.environ.get('HOOKLINE_AWS_PORT', '4566')}")
    parser.add_argument("--function", default=f"{topology.DEFAULT_PREFIX}-{topology.REPLAY.name}", help="the deployed replay function")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = drain_command(args)
    report = run_local(command, args.aws_endpoint) if args.local else run_deployed(command, args.function)
    print(json.dumps(report))
    return 0 if "error" not in report else 1


if __name__ == "__main__":
    sys.exit(main())
