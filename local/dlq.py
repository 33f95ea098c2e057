"""Operators' DLQ drain: move dead-lettered deliveries to the retry queue at a set pace, as a job, and watch it.

    python -m local.dlq [--endpoint-id ep_…] [--tenant T] [--rate 10] [--max 1000]
        starts a drain job in the deployed stack (a direct invocation of its replay
        function, `hookline-jobs`, at its `live` alias) and watches it until it ends.
    python -m local.dlq --watch job_…
        watches a drain started before (e.g. after Ctrl-C stopped the watching: the job goes on).
    python -m local.dlq --local [--port 8787 | --aws-endpoint http://127.0.0.1:4566] …
        the same against the running local mode (it announces its ports, see local.running),
        whose job-queue poller runs the drain's steps. With several running, `--port` names
        one by its API or embedded AWS port; with none, it says so and starts nothing.

`make dlq-drain` wraps it. Tasks hookline dead-lettered itself come back as manual
replays with a fresh attempt budget; poison messages stay in the DLQ
(hookline.services.drain). Progress prints to stderr as the job's counts change; the
job as it ended prints to stdout as JSON.

Every invocation answers at once (it starts the job, or reads it), so the client's
timeouts are short; a start retried within the minute names the same job.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

import local  # noqa: F401  - puts the layer on sys.path
from hookline.core.settings import Settings
from hookline.wiring import topology
from local import running

INVOKE_CONFIG = Config(read_timeout=30, connect_timeout=10, retries={"total_max_attempts": 3, "mode": "standard"})
WATCH_EVERY_SECONDS = 2.0

Invoke = Callable[[dict[str, Any]], dict[str, Any]]


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


def _say(job: dict[str, Any]) -> None:
    counts = job.get("counts", {})
    print(
        f"drain {job['id']}: {job['status']}, {counts.get('moved', 0)} moved, {counts.get('skipped', 0)} left (others'), {counts.get('poison', 0)} poison left",
        file=sys.stderr,
        flush=True,
    )


def watch(invoke: Invoke, job_id: str, every: float = WATCH_EVERY_SECONDS, sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Read the job until it is no longer running, printing it whenever it moved; the job as it ended."""
    last: tuple[Any, ...] = ()
    while True:
        answer = invoke({"kind": "job", "job_id": job_id})
        if "job" not in answer:
            return answer
        job: dict[str, Any] = answer["job"]
        seen = (job["status"], job["steps"])
        if seen != last:
            _say(job)
            last = seen
        if job["status"] != "running":
            return job
        sleep(every)


def run(invoke: Invoke, command: dict[str, Any], job_id: str = "", sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Start the drain (unless `job_id` names one to watch), then watch it to its end."""
    if not job_id:
        started = invoke(command)
        if "job" not in started:
            return started
        job_id = started["job"]["id"]
        print(f"drain {job_id} started; Ctrl-C stops watching, not the drain (watch again: make dlq-drain JOB={job_id})", file=sys.stderr, flush=True)
    return watch(invoke, job_id, sleep=sleep)


def deployed_invoker(function_name: str, client: Any = None) -> Invoke:
    client = client or boto3.client("lambda", config=INVOKE_CONFIG)

    def invoke(payload: dict[str, Any]) -> dict[str, Any]:
        # The alias every deployed function serves from: the release in service, not $LATEST.
        result = client.invoke(FunctionName=function_name, Qualifier=topology.LIVE_ALIAS, Payload=json.dumps(payload).encode())
        answer: dict[str, Any] = json.loads(result["Payload"].read() or b"{}")
        return answer

    return invoke


def local_invoker(aws_endpoint: str, prefix: str = topology.DEFAULT_PREFIX) -> Invoke:
    """The jobs function's direct invocations, run in this process against local mode's moto server (whose running
    local mode runs the job's steps from its job queue)."""
    os.environ["AWS_ENDPOINT_URL"] = aws_endpoint
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    sqs = boto3.client("sqs")
    for queue in topology.QUEUES:
        os.environ[queue.env] = sqs.get_queue_url(QueueName=queue.physical_name(prefix))["QueueUrl"]
    os.environ[topology.TABLE.env] = topology.TABLE.physical_name(prefix)
    from hookline.entrypoints.jobs import direct
    from hookline.wiring import container

    container.reset()
    return direct


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m local.dlq", description="Drain hookline's dead-letter queue into the retry queue.")
    parser.add_argument("--endpoint-id", default="", help="only this endpoint's deliveries")
    parser.add_argument("--tenant", default="", help="only this tenant's deliveries")
    parser.add_argument("--rate", type=float, default=0.0, help="messages per second (default HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND)")
    parser.add_argument("--max", type=int, default=0, help="stop after this many messages")
    parser.add_argument("--watch", default="", metavar="JOB_ID", help="watch a drain started before instead of starting one")
    parser.add_argument("--local", action="store_true", help="drain local mode's DLQ instead of the deployed stack's")
    parser.add_argument("--port", type=int, default=0, help="with --local: the running local mode whose API or embedded AWS listens on this port")
    parser.add_argument("--aws-endpoint", default="", help="local mode's embedded AWS (default: the running local mode's)")
    # Named after the deployed stack (HOOKLINE_STACK_NAME), as infra/functions.py names it.
    function = f"{Settings.from_env(os.environ).stack_name}-{topology.JOBS.name}"
    parser.add_argument("--function", default=function, help=f"the deployed jobs function (default {function})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.local:
        try:
            endpoint = args.aws_endpoint or running.find(args.port).aws_endpoint
        except running.NotRunning as exc:
            print(f"dlq-drain: {exc}", file=sys.stderr)
            return 2
        try:
            invoke = local_invoker(endpoint)
        except (BotoCoreError, ClientError) as exc:
            print(f"dlq-drain: no hookline local mode answers at {endpoint} ({exc})", file=sys.stderr)
            return 2
    else:
        invoke = deployed_invoker(args.function)
    try:
        ended = run(invoke, drain_command(args), args.watch)
    except KeyboardInterrupt:
        print("stopped watching; the drain goes on", file=sys.stderr)
        return 130
    print(json.dumps(ended))
    return 0 if "error" not in ended and "errorMessage" not in ended else 1


if __name__ == "__main__":
    sys.exit(main())
