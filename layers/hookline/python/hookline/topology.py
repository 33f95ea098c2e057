"""The one source of resource names and handler wiring.

The CDK stack (infra/) and the local runner (local/) both build hookline from
these specs, so the cloud and the laptop cannot drift apart: the same tables,
queues, redrive policies, environment variables, event sources and handlers.
Pure data: no boto3, no CDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DEFAULT_PREFIX = "hookline"


@dataclass(frozen=True)
class TableSpec:
    key: str
    env: str  # environment variable that carries the physical name
    partition_key: str = "pk"
    sort_key: str = "sk"
    ttl_attribute: str = "expires_at"

    def physical_name(self, prefix: str) -> str:
        return f"{prefix}-{self.key}"


@dataclass(frozen=True)
class QueueSpec:
    key: str
    env: str  # environment variable that carries the queue URL
    retention_seconds: int
    visibility_timeout_seconds: int = 30
    dead_letter: QueueSpec | None = None
    max_receive_count: int = 5

    def physical_name(self, prefix: str) -> str:
        return f"{prefix}-{self.key}"


Access = Literal["read", "read_write", "send", "consume"]


@dataclass(frozen=True)
class Grant:
    resource: TableSpec | QueueSpec
    access: Access


@dataclass(frozen=True)
class SqsSource:
    queue: QueueSpec
    batch_size_setting: str  # Settings field holding the batch size
    max_batching_window_seconds: int = 0


@dataclass(frozen=True)
class FunctionSpec:
    name: str  # folder under functions/, and the function's logical name
    timeout_seconds: int
    memory_mb: int
    grants: tuple[Grant, ...] = ()
    sqs_source: SqsSource | None = None
    # Settings field whose value becomes the reserved concurrency (None = unreserved).
    reserved_concurrency_setting: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def handler_path(self) -> str:
        return f"functions/{self.name}/handler.py"

    @property
    def handler(self) -> str:
        return "handler.handler"

    @property
    def env_resources(self) -> tuple[TableSpec | QueueSpec, ...]:
        seen: dict[str, TableSpec | QueueSpec] = {}
        for g in self.grants:
            seen.setdefault(g.resource.env, g.resource)
            if isinstance(g.resource, QueueSpec) and g.resource.dead_letter and g.access == "consume":
                seen.setdefault(g.resource.dead_letter.env, g.resource.dead_letter)
        return tuple(seen.values())


DAY = 86_400

TABLE = TableSpec(key="data", env="HOOKLINE_TABLE_NAME")

DELIVERY_TIMEOUT_SECONDS = 60
# Standard-queue retention counts from the original enqueue time, even after a
# message moves to the DLQ, so the DLQ keeps messages longer than its source.
DELIVERY_DLQ = QueueSpec(key="delivery-dlq", env="HOOKLINE_DELIVERY_DLQ_URL", retention_seconds=14 * DAY)
DELIVERY_QUEUE = QueueSpec(
    key="delivery",
    env="HOOKLINE_DELIVERY_QUEUE_URL",
    retention_seconds=4 * DAY,
    # Lambda's guidance: at least 6x the consumer's timeout.
    visibility_timeout_seconds=6 * DELIVERY_TIMEOUT_SECONDS,
    dead_letter=DELIVERY_DLQ,
    max_receive_count=5,
)

API = FunctionSpec(
    name="api",
    timeout_seconds=15,
    memory_mb=512,
    grants=(Grant(TABLE, "read_write"), Grant(DELIVERY_QUEUE, "send")),
)
AUTHORIZER = FunctionSpec(name="authorizer", timeout_seconds=5, memory_mb=256, grants=(Grant(TABLE, "read"),))
DELIVERY = FunctionSpec(
    name="delivery",
    timeout_seconds=DELIVERY_TIMEOUT_SECONDS,
    memory_mb=512,
    grants=(Grant(TABLE, "read_write"), Grant(DELIVERY_QUEUE, "consume")),
    sqs_source=SqsSource(queue=DELIVERY_QUEUE, batch_size_setting="delivery_batch_size"),
    reserved_concurrency_setting="delivery_concurrency",
)

TABLES: tuple[TableSpec, ...] = (TABLE,)
QUEUES: tuple[QueueSpec, ...] = (DELIVERY_DLQ, DELIVERY_QUEUE)  # dead-letter queues first
FUNCTIONS: tuple[FunctionSpec, ...] = (API, AUTHORIZER, DELIVERY)
