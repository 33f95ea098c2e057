"""Shared fixtures: a fresh moto AWS per test, provisioned from hookline.wiring.topology."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.loaders
import freezegun
import pytest
from aws_lambda_powertools.utilities.parser import models as _powertools_models  # noqa: F401  - built outside any frozen clock
from boto3.dynamodb.conditions import Key
from freezegun.api import real_monotonic
from hypothesis import settings
from moto import mock_aws

import local  # noqa: F401  - puts the layer on sys.path, as Lambda's /opt/python
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.entrypoints import api as _api
from hookline.wiring import container, topology
from local.atomic import atomic_dynamodb_writes
from local.lambda_runtime import load_handler
from local.pollers import SqsPoller
from local.resources import provision, queue_arn
from tests.support.events import http_event, sqs_event

# Local modes the tests start (`python -m local.run` included) keep no state across restarts, so they neither read nor
# overwrite the repository's (tests/e2e/test_local_restart.py names a directory of its own).
os.environ["HOOKLINE_LOCAL_DATA_DIR"] = "off"

# Every property test, unless it says otherwise: no time limit per example (Hypothesis's default, 200 ms, fails a test
# on a busy machine, not a broken rule), and the same examples on every run (a fresh clone's CI must pass every time).
settings.register_profile("hookline", deadline=None, derandomize=True, database=None)
settings.load_profile("hookline")

# Powertools' pydantic models must never see freezegun's FakeDatetime; moto must (SQS delays in virtual time).
# The HTTP client's request deadline and duration are real network time: freezegun judges real or frozen by the
# few frames above each clock call, so without this a deeper call stack could mix the two within one request.
# Libraries that never read the clock in a frozen test are not scanned for clock references when a clock freezes:
# freezegun reads every attribute of every loaded module the first time, and the CDK's modules resolve their names
# lazily, so that scan imported much of the CDK and took seconds of CPU in each test process (4.6 s of a 4.9 s test).
_NEVER_FROZEN = ["aws_cdk", "jsii", "constructs", "cdk_nag", "cfnlint", "matplotlib", "numpy", "PIL", "playwright", "mypy"]
freezegun.configure(extend_ignore_list=["aws_lambda_powertools", "pydantic", "pydantic_core", "hookline.adapters.http", *_NEVER_FROZEN])
# Every router of the API imported now, outside any frozen clock: the API imports a router when a request first names
# its path (hookline.entrypoints.api.ROUTERS), and one first imported while a test froze the clock would take
# freezegun's FakeDatetime for its `datetime` parameters. tests/integration/test_api_routers.py tries that lazy path
# in fresh interpreters.
_api.include(_api.MODULES)

TEST_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "HOOKLINE_ALLOW_PRIVATE_NETWORKS": "127.0.0.0/8,::1/128",
    "HOOKLINE_ALLOW_HTTP": "true",
    "HOOKLINE_ALLOWED_PORTS": "*",
    "POWERTOOLS_SERVICE_NAME": "hookline",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "hookline",
}


# How long a drain of the job queue waits for a step queued ahead of time (a job's steps are at least 1 s apart).
JOB_STEP_WAIT = 2.0


@dataclass
class Hookline:
    """The real handlers over a moto AWS: call them as API Gateway and SQS would."""

    env: dict[str, str]
    handlers: dict[str, Any]
    # One SQS client and each queue's ARN, kept for the test: a boto3 client costs tens of milliseconds of CPU to
    # make, and a test that pumps in a loop drained four queues a round with a new client for each (a third of its time).
    _sqs: Any = None
    _arns: dict[str, str] = field(default_factory=dict)
    _table: Any = None

    @property
    def sqs(self) -> Any:
        if self._sqs is None:
            self._sqs = boto3.client("sqs")
        return self._sqs

    def api(self, method: str, path: str, body: Any = None, tenant: str | None = "acme", **kw: Any) -> tuple[int, Any]:
        result = self.handlers["api"](http_event(method, path, body, tenant, **kw), None)
        text = result.get("body") or ""
        return result["statusCode"], (json.loads(text) if text else None)

    def queued(self, queue: topology.QueueSpec = topology.DELIVERY_QUEUE, max_messages: int = 10) -> list[dict[str, Any]]:
        sqs = self.sqs
        got: list[dict[str, Any]] = []
        while True:
            batch = sqs.receive_message(
                QueueUrl=self.env[queue.env], MaxNumberOfMessages=10, VisibilityTimeout=30, AttributeNames=["All"], MessageAttributeNames=["All"]
            ).get("Messages", [])
            if not batch:
                return got
            for m in batch:
                sqs.delete_message(QueueUrl=self.env[queue.env], ReceiptHandle=m["ReceiptHandle"])
            got.extend(batch)
            if len(got) >= max_messages:
                return got

    def queued_once_visible(self, count: int, seconds: float = 30.0, queue: topology.QueueSpec = topology.DELIVERY_QUEUE) -> list[dict[str, Any]]:
        """`queued`, gathered until `count` messages came (real time, up to `seconds`): a repeated request's copies
        wait out their DelaySeconds before SQS hands them out."""
        got: list[dict[str, Any]] = []
        deadline = real_monotonic() + seconds
        while len(got) < count:
            assert real_monotonic() < deadline, f"{len(got)} of {count} messages after {seconds} s"
            got.extend(self.queued(queue))
            if len(got) < count:
                time.sleep(0.2)  # real time: freezegun leaves sleep alone
        return got

    def deliver(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return dict(self.handlers["delivery"](sqs_event(messages), None))

    def drain(self, queue: topology.QueueSpec = topology.DELIVERY_QUEUE) -> int:
        """Hand everything visible on a queue to the function that consumes it; returns how many messages ran.

        On the job queue it also waits (up to JOB_STEP_WAIT seconds) for steps queued a moment ahead: a job queues
        its next step at least a second ahead (hookline.services.jobs), so a job runs to its end here.
        """
        [consumer] = [f.name for f in topology.FUNCTIONS if f.sqs_source and f.sqs_source.queue == queue]
        if queue.fifo:
            return self._drain_in_order(queue, consumer)
        total = 0
        arn = self.queue_arn(queue)
        deadline = real_monotonic() + JOB_STEP_WAIT
        while True:
            while messages := self.queued(queue):
                self.handlers[consumer](sqs_event(messages, arn), None)
                total += len(messages)
                deadline = real_monotonic() + JOB_STEP_WAIT
            # Visible ones count too: a delayed step that turned visible after the receive above is no longer delayed.
            if queue != topology.JOBS_QUEUE or real_monotonic() > deadline or not self._waiting(queue) or not self._jobs_running():
                return total
            time.sleep(0.2)  # real time: freezegun leaves sleep alone

    def _drain_in_order(self, queue: topology.QueueSpec, consumer: str) -> int:
        """A FIFO queue as Lambda's event source drains it, through local mode's poller: a message stays on the queue
        (its visibility as the handler left it) unless the handler's answer lets it go, so its message group waits."""
        poller = SqsPoller(
            name=consumer,
            sqs=self.sqs,
            queue_url=self.env[queue.env],
            queue_arn=self.queue_arn(queue),
            invoke=lambda event: self.handlers[consumer](event, None),
            batch_size=10,
            region=TEST_ENV["AWS_DEFAULT_REGION"],
            wait_seconds=0,
        )
        total = 0
        while True:
            deleted, kept = poller.poll_once()
            total += deleted + kept
            if not deleted + kept:
                return total

    def drain_dlq(self, **command: Any) -> dict[str, Any]:
        """The operators' DLQ drain (`make dlq-drain`): start its job through the jobs function, run its steps to
        the end; the job as it ended (`counts`: moved, skipped, poison)."""
        started = self.handlers["jobs"]({"kind": "drain_dlq", **command}, None)
        assert "job" in started, started
        self.drain(topology.JOBS_QUEUE)
        job: dict[str, Any] = self.handlers["jobs"]({"kind": "job", "job_id": started["job"]["id"]}, None)["job"]
        assert job["status"] == "done", job
        return job

    def _jobs_running(self) -> bool:
        """Whether a job is still running (its mark, hookline.adapters.dynamo.jobs): a delayed step of a finished
        job (the message a plan queued for the apply its invocation took itself) is not worth waiting for."""
        if self._table is None:
            self._table = boto3.resource("dynamodb").Table(self.env[topology.TABLE.env])
        return bool(self._table.query(KeyConditionExpression=Key(keys.PK).eq(keys.RUNNING_JOBS), Limit=1)["Items"])

    def _waiting(self, queue: topology.QueueSpec) -> int:
        """Messages delayed or visible on the queue (not those in flight)."""
        names = ["ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessages"]
        attrs = self.sqs.get_queue_attributes(QueueUrl=self.env[queue.env], AttributeNames=names)["Attributes"]
        return sum(int(attrs[n]) for n in names)

    def queue_arn(self, queue: topology.QueueSpec) -> str:
        """The queue's ARN, as the event source mapping names it on each record (the delivery code tells its lane from it)."""
        if queue.key not in self._arns:
            self._arns[queue.key] = queue_arn(self.sqs, self.env[queue.env])
        return self._arns[queue.key]

    def pump(self) -> int:
        """Run everything now visible on the delivery, retry and replay queues."""
        return self.drain(topology.JOBS_QUEUE) + self.drain(topology.DELIVERY_QUEUE) + self.drain(topology.RETRY_QUEUE) + self.drain(topology.ORDERED_QUEUE)

    def pump_until(self, done: Callable[[], bool], seconds: float = 30.0) -> None:
        """Pump until `done()` holds, waiting (in real time, up to `seconds`) for deferred tasks to turn visible: on a
        loaded machine a slow receiver's tasks may be deferred to the retry lane with a second of jitter."""
        deadline = real_monotonic() + seconds
        while not done():
            assert real_monotonic() < deadline, f"not done after {seconds} s of pumping"
            if not self.pump():
                time.sleep(0.1)  # real time: freezegun leaves sleep alone

    def add_api_key(self, tenant: str, key: str) -> None:
        ApiKeyRepository(boto3.resource("dynamodb").Table(self.env[topology.TABLE.env])).add(tenant, key, "2026-01-01T00:00:00.000Z")


@pytest.fixture(scope="session", autouse=True)
def _one_model_cache_for_every_botocore_session() -> Iterator[None]:
    """Every botocore loader in the test process shares one cache of the service models and endpoint rules it read.

    botocore caches what it loads per session, and a test makes several sessions: boto3's default one (moto resets
    it for each mock), and one per provision. Each new session decoded the same JSON again (the endpoints file,
    each service's model and rules): about a sixth of the moto tier's time. The files do not change while the
    tests run, and a session already hands one loaded model to all its clients; this hands it to every session.
    """
    shared: dict[Any, Any] = {}
    init = botocore.loaders.Loader.__init__

    def sharing(self: botocore.loaders.Loader, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self._cache = shared

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.loaders.Loader, "__init__", sharing)
        yield


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    for k, v in TEST_ENV.items():
        monkeypatch.setenv(k, v)
    with mock_aws(), atomic_dynamodb_writes():
        container.reset()
        yield
    container.reset()


@pytest.fixture
def hookline(aws: None, monkeypatch: pytest.MonkeyPatch) -> Hookline:
    env = provision()  # every table, queue, state machine and topic of the topology
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    container.reset()
    handlers = {spec.name: load_handler(spec)[1] for spec in topology.FUNCTIONS}
    return Hookline(env=env, handlers=handlers)


@pytest.fixture
def earned_concurrency(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> Hookline:
    """`hookline` whose endpoints start at their max_concurrency, as if adaptive concurrency had already raised
    them there: for tests about something else than pacing that send a whole batch to one endpoint at once."""
    monkeypatch.setenv("HOOKLINE_INITIAL_CONCURRENCY", "100")
    container.reset()
    return hookline


@pytest.fixture(autouse=True)
def _clean_env() -> Iterator[None]:
    saved = os.environ.get("AWS_ENDPOINT_URL")
    yield
    if saved is None:
        os.environ.pop("AWS_ENDPOINT_URL", None)
