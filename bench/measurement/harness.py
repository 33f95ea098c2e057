"""hookline's real handlers over an in-process moto AWS, called as API Gateway and SQS call them.

Resources come from `hookline.wiring.topology` (through `local.resources.provision`),
events are shaped by the local front door and SQS pollers, so the benchmark
runs exactly what `make run` and the cloud run.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import requests
from moto import mock_aws

import local  # noqa: F401  - puts the layer on sys.path, as Lambda's /opt/python
from hookline.wiring import container, topology
from hookline.wiring.settings import get_settings
from local.atomic import atomic_dynamodb_writes
from local.frontdoor import IncomingRequest, build_http_event
from local.lambda_runtime import load_handler
from local.pollers import lambda_sqs_record
from local.resources import provision, queue_arn
from local.run import silence_werkzeug

REGION = "us-east-1"
BENCH_ENV = {
    "AWS_DEFAULT_REGION": REGION,
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "HOOKLINE_ALLOW_PRIVATE_NETWORKS": "127.0.0.0/8",
    "HOOKLINE_ALLOW_HTTP": "true",
    "HOOKLINE_ALLOWED_PORTS": "*",
    "POWERTOOLS_SERVICE_NAME": "hookline",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "hookline",
}

PURGE_INTERVAL_SECONDS = 61.0  # SQS allows one PurgeQueue per queue every 60 s; a second sooner is refused

Invoker = Callable[[topology.FunctionSpec, Callable[[dict[str, Any], Any], Any], dict[str, Any]], Any]


def _direct(_spec: topology.FunctionSpec, handler: Callable[[dict[str, Any], Any], Any], event: dict[str, Any]) -> Any:
    return handler(event, None)


@dataclass
class Harness:
    env: dict[str, str]
    handlers: dict[str, Callable[[dict[str, Any], Any], Any]]
    invoke: Invoker = _direct
    _purged_at: dict[str, float] = field(default_factory=dict)  # by queue URL: when this harness last purged it (monotonic)

    def configure(self, **settings: str) -> None:
        """Change settings (HOOKLINE_* values) for what runs next, as a redeploy would."""
        for name, value in settings.items():
            os.environ[name] = value
        get_settings.cache_clear()
        container.reset()

    def api(self, method: str, path: str, body: Any = None, tenant: str = "bench") -> tuple[int, Any]:
        raw = b"" if body is None else json.dumps(body).encode()
        request = IncomingRequest(method, path, [("content-type", "application/json")], raw, "127.0.0.1")
        event = build_http_event(request, region=REGION, domain="bench.local")
        event["requestContext"]["authorizer"] = {"lambda": {"tenant": tenant}}
        result = self.invoke(_spec("api"), self.handlers["api"], event)
        text = result.get("body") or ""
        return result["statusCode"], (json.loads(text) if text else None)

    def receive(self, queue: topology.QueueSpec, limit: int) -> list[dict[str, Any]]:
        """Take up to `limit` visible messages off a queue (as the event source mapping does)."""
        sqs = _sqs()
        got: list[dict[str, Any]] = []
        while len(got) < limit:
            batch = sqs.receive_message(
                QueueUrl=self.env[queue.env], MaxNumberOfMessages=min(10, limit - len(got)), AttributeNames=["All"], MessageAttributeNames=["All"]
            ).get("Messages", [])
            if not batch:
                break
            for m in batch:
                sqs.delete_message(QueueUrl=self.env[queue.env], ReceiptHandle=m["ReceiptHandle"])
            got.extend(batch)
        return got

    def consume(self, queue: topology.QueueSpec, messages: list[dict[str, Any]]) -> Any:
        """One invocation of the queue's consumer with these messages as its batch."""
        return self.invoke_consumer(queue, self.batch_event(queue, messages))

    def batch_event(self, queue: topology.QueueSpec, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The event the queue's event source mapping hands its consumer for these messages."""
        arn = queue_arn(_sqs(), self.env[queue.env])
        return {"Records": [lambda_sqs_record(m, queue_arn=arn, region=REGION) for m in messages]}

    def invoke_consumer(self, queue: topology.QueueSpec, event: dict[str, Any]) -> Any:
        """One invocation of the queue's consumer with an event of `batch_event`: only the handler's own work."""
        [spec] = [f for f in topology.FUNCTIONS if f.sqs_source and f.sqs_source.queue == queue]
        return self.invoke(spec, self.handlers[spec.name], event)

    def drain(self, queue: topology.QueueSpec, batch_size: int = 10) -> int:
        total = 0
        while messages := self.receive(queue, batch_size):
            self.consume(queue, messages)
            total += len(messages)
        return total

    def purge(self, queue: topology.QueueSpec) -> None:
        """Empty the queue, its delayed and in-flight messages too. SQS (and moto) allow one purge of a queue every
        PURGE_INTERVAL_SECONDS and refuse another sooner: this waits out the rest of the interval instead, so a
        measurement that discards two runs within a minute (a busy machine defers a task twice) is slower, not dead."""
        url = self.env[queue.env]
        wait = PURGE_INTERVAL_SECONDS - (time.monotonic() - self._purged_at.get(url, -PURGE_INTERVAL_SECONDS))
        if wait > 0:
            time.sleep(wait)
        _sqs().purge_queue(QueueUrl=url)
        self._purged_at[url] = time.monotonic()


@contextmanager
def redirect_logs(stream: Any) -> Iterator[None]:
    """Send what the handlers print (Powertools log lines, EMF metrics) to `stream`; moto server's request log is dropped."""
    saved_stdout = sys.stdout
    sys.stdout = stream
    handlers = [h for h in logging.getLogger("hookline").handlers if isinstance(h, logging.StreamHandler)]
    saved = [(h, h.setStream(stream)) for h in handlers]
    silence_werkzeug()
    try:
        yield
    finally:
        sys.stdout = saved_stdout
        for h, previous in saved:
            h.setStream(previous)
        for late in logging.getLogger("hookline").handlers:
            if isinstance(late, logging.StreamHandler) and late.stream is stream:
                late.setStream(saved_stdout)  # a logger first built meanwhile


def quiet() -> AbstractContextManager[None]:
    return redirect_logs(open(os.devnull, "w"))


def _sqs() -> Any:
    """The harness's own SQS client, outside the default session that a Meter instruments."""
    return boto3.session.Session().client("sqs", region_name=REGION)


def _spec(name: str) -> topology.FunctionSpec:
    [spec] = [f for f in topology.FUNCTIONS if f.name == name]
    return spec


@contextmanager
def aws_server() -> Iterator[str]:
    """moto served by bench.measurement.awsserver in a process of its own, reset and answering: its URL.

    Its own process: moto's Python work does not compete with the handler's threads for one GIL. bench.measurement.awsserver,
    not `python -m moto.server`: its connections are kept alive between calls, as AWS's are for a warm Lambda."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    moto = subprocess.Popen(
        [sys.executable, "-m", "bench.measurement.awsserver", "-H", "127.0.0.1", "-p", str(port)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.post(url + "/moto-api/reset", timeout=2).raise_for_status()
                break
            except requests.RequestException:
                if time.monotonic() > deadline or moto.poll() is not None:
                    raise RuntimeError("moto server did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        moto.terminate()
        moto.wait(10)


@contextmanager
def _aws(server: bool) -> Iterator[None]:
    """moto in process, or (`server`) a moto server in a process of its own that boto3 reaches over HTTP, as AWS is reached."""
    if not server:
        with mock_aws():
            yield
        return
    with aws_server() as url:
        os.environ["AWS_ENDPOINT_URL"] = url
        yield


@contextmanager
def moto_hookline(server: bool = False, **settings: str) -> Iterator[Harness]:
    """A fresh moto AWS with hookline provisioned; the environment is restored afterwards."""
    saved = dict(os.environ)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update(BENCH_ENV | settings)
    try:
        # In-process moto gets DynamoDB's atomic conditional writes from local.atomic; a moto server
        # subprocess does not (the throughput run's tasks never race on one item).
        with _aws(server), nullcontext() if server else atomic_dynamodb_writes():
            boto3.setup_default_session()
            env = provision()
            os.environ.update(env)
            get_settings.cache_clear()
            container.reset()
            handlers = {spec.name: load_handler(spec)[1] for spec in topology.FUNCTIONS}
            yield Harness(env=env, handlers=handlers)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        get_settings.cache_clear()
        container.reset()
