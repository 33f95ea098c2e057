"""The one source of resource names and handler wiring.

The CDK stack (infra/) and the local runner (local/) both build hookline from
these specs, so the cloud and the laptop cannot drift apart: the same tables,
queues, redrive policies, environment variables, event sources and handlers.
Pure data: no boto3, no CDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from hookline.adapters.dynamo import keys
from hookline.core.deadletters import RETRY_WAIT_FAILED
from hookline.core.destinations import ROLE_NAME_PREFIX
from hookline.core.settings import MAX_BATCHING_WINDOW_SECONDS, Settings

DEFAULT_PREFIX = "hookline"
# Every deployed function is published as a version behind this alias; every event source, the API, the authorizer
# and the operators' tools (make dlq-drain) invoke it, so a deploy or a rollback moves them all at once (infra.deploys).
LIVE_ALIAS = "live"


@dataclass(frozen=True)
class IndexSpec:
    """A global secondary index with string keys, projecting all attributes or only the keys."""

    name: str
    partition_key: str
    sort_key: str
    projection: Literal["ALL", "KEYS_ONLY"] = "ALL"


@dataclass(frozen=True)
class TableSpec:
    key: str
    env: str  # environment variable that carries the physical name
    partition_key: str = "pk"
    sort_key: str = "sk"
    ttl_attribute: str = "expires_at"
    indexes: tuple[IndexSpec, ...] = ()

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
    fifo: bool = False  # a FIFO queue: its name ends in `.fifo`, as SQS requires; its dead-letter queue is one too

    def physical_name(self, prefix: str) -> str:
        return f"{prefix}-{self.key}.fifo" if self.fifo else f"{prefix}-{self.key}"


# A send that fails is tried again 6 times over about 2 minutes (2, 4, ... 64 s apart); one that hangs gives up after a minute.
SEND_RETRY: dict[str, Any] = {"ErrorEquals": ["States.ALL"], "IntervalSeconds": 2, "MaxAttempts": 6, "BackoffRate": 2.0}
SEND_TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class StateMachineSpec:
    """A Step Functions Standard state machine that waits until `$.until`, then
    sends `$.task` to `target` with a direct SQS integration (no Lambda in between).

    A send that still fails after its retries (or times out) is caught: the task goes to `dead_letter` with the
    `reason` attribute `retry_wait_failed` (hookline.core.deadletters), the error's name in `error` and the whole
    error output (`Error`, `Cause`) as JSON in `detail`, beside `until` and the execution's name. The execution then
    fails all the same (`RetryWaitFailed`), so the state machine's failed-executions alarm sees it; so does it when
    the send to the dead-letter queue fails too. The sweeper (hookline.core.waits) re-queues the task in any case,
    as it does for an execution that was stopped or never started."""

    key: str
    env: str  # environment variable that carries the state machine ARN
    target: QueueSpec
    dead_letter: QueueSpec

    def physical_name(self, prefix: str) -> str:
        return f"{prefix}-{self.key}"

    def definition(self, target_queue_url: str, dead_letter_queue_url: str) -> dict[str, Any]:
        return {
            "Comment": "hookline: wait out a long retry delay, then queue the delivery task (or dead-letter it, saying why)",
            "StartAt": "WaitUntilDue",
            "States": {
                "WaitUntilDue": {"Type": "Wait", "TimestampPath": "$.until", "Next": "QueueTask"},
                "QueueTask": {
                    "Type": "Task",
                    "Resource": "arn:aws:states:::sqs:sendMessage",
                    "Parameters": {"QueueUrl": target_queue_url, "MessageBody.$": "$.task"},
                    "TimeoutSeconds": SEND_TIMEOUT_SECONDS,
                    "Retry": [dict(SEND_RETRY)],
                    # The error output goes beside the input ($.task and $.until stay), for the dead letter's attributes.
                    "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.failure", "Next": "DeadLetterTask"}],
                    "End": True,
                },
                "DeadLetterTask": {
                    "Type": "Task",
                    "Resource": "arn:aws:states:::sqs:sendMessage",
                    "Parameters": {
                        "QueueUrl": dead_letter_queue_url,
                        "MessageBody.$": "$.task",
                        "MessageAttributes": {
                            "reason": {"DataType": "String", "StringValue": RETRY_WAIT_FAILED},
                            "error": {"DataType": "String", "StringValue.$": "$.failure.Error"},
                            "detail": {"DataType": "String", "StringValue.$": "States.JsonToString($.failure)"},
                            "until": {"DataType": "String", "StringValue.$": "$.until"},
                            "execution": {"DataType": "String", "StringValue.$": "$$.Execution.Name"},
                        },
                    },
                    "TimeoutSeconds": SEND_TIMEOUT_SECONDS,
                    "Retry": [dict(SEND_RETRY)],
                    "Next": "WaitFailed",
                },
                "WaitFailed": {
                    "Type": "Fail",
                    "Error": "RetryWaitFailed",
                    "Cause": f"the task could not be put back on the retry queue; it is on the delivery DLQ with the reason {RETRY_WAIT_FAILED}",
                },
            },
        }

    def happy_path(self) -> list[str]:
        """The states an execution whose send succeeds passes through, in order (each one state transition)."""
        definition = self.definition("", "")
        states = definition["States"]
        path = [str(definition["StartAt"])]
        while not states[path[-1]].get("End"):
            path.append(str(states[path[-1]]["Next"]))
        return path


@dataclass(frozen=True)
class ScheduleSpec:
    """A function invoked directly on a timer with a fixed event: EventBridge Scheduler in the stack, a thread in local mode."""

    key: str
    function: str  # the FunctionSpec's name
    event: tuple[tuple[str, str], ...]  # the invocation's event, as pairs
    interval_setting: str  # the Settings field with the interval in minutes

    def payload(self) -> dict[str, str]:
        return dict(self.event)


@dataclass(frozen=True)
class TopicSpec:
    """An SNS topic for operational notifications (endpoint.circuit_opened, …)."""

    key: str
    env: str  # environment variable that carries the topic ARN

    def physical_name(self, prefix: str) -> str:
        return f"{prefix}-{self.key}"


@dataclass(frozen=True)
class KeySpec:
    """A KMS key hookline's own code encrypts with: the stack's key (the one its table and topics use), which seals
    endpoints' `auth` secrets and their OAuth2 tokens (hookline.adapters.sealing). Local mode makes one in moto's KMS."""

    key: str
    env: str  # environment variable that carries the key's ARN

    def alias(self, prefix: str) -> str:
        return f"alias/{prefix}-{self.key}"


@dataclass(frozen=True)
class EmailIdentitySpec:
    """A verified SES identity the functions send email from. Not created by the stack: it is verified
    outside it and named by a setting, which reaches the functions with the behaviour settings."""

    key: str
    env: str  # environment variable that carries the identity (an email address)
    setting: str  # the Settings field naming it; empty: no grant at all


@dataclass(frozen=True)
class CustomerDestinationsSpec:
    """The customers' own queues, topics, event buses, streams and buckets (hookline.core.destinations), in their
    accounts: never the stack's own. Reached only through a role of theirs whose name starts with `role_name_prefix`,
    assumed with the endpoint's external id."""

    key: str
    role_name_prefix: str


Resource = TableSpec | QueueSpec | StateMachineSpec | TopicSpec | KeySpec | EmailIdentitySpec | CustomerDestinationsSpec
# receive: take messages off a queue by hand (ReceiveMessage, DeleteMessage, …), as the DLQ drain does.
# send_email: ses:SendEmail from that identity alone.
# deliver: put one delivery into a customer's destination (and assume the customer's role for it).
# seal: seal and open secrets with a key (kms:GenerateDataKey, kms:Decrypt), under an endpoint's encryption context.
Access = Literal["read", "read_write", "send", "consume", "receive", "start", "publish", "send_email", "deliver", "seal"]


@dataclass(frozen=True)
class Grant:
    resource: Resource
    access: Access


@dataclass(frozen=True)
class SqsSource:
    queue: QueueSpec
    batch_size_setting: str  # Settings field holding the batch size
    max_batching_window_seconds: int = 0  # none on a FIFO queue (SQS FIFO event sources take no batching window)
    max_pollers_setting: str | None = None  # Settings field capping the source's concurrency, for a function with no reservation
    batching_window_setting: str | None = None  # Settings field holding the window, where HOOKLINE_SIZE sets it

    def batching_window(self, settings: Settings) -> int:
        """Seconds the event source gathers a batch for, at these settings."""
        return self.max_batching_window_seconds if self.batching_window_setting is None else int(getattr(settings, self.batching_window_setting))


@dataclass(frozen=True)
class FunctionSpec:
    name: str  # the function's logical name
    timeout_seconds: int
    memory_mb: int
    grants: tuple[Grant, ...] = ()
    sqs_source: SqsSource | None = None
    # Settings field whose value becomes the reserved concurrency (None = unreserved).
    reserved_concurrency_setting: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    # Folder under functions/ holding the code; the same code may be deployed twice.
    code: str = ""
    # The function in its handler.py that Lambda calls: code deployed twice tells its two uses apart by their entries.
    entry: str = "handler"
    memory_setting: str | None = None  # Settings field holding the memory, where HOOKLINE_SIZE sets it (memory_mb: its default)

    def memory(self, settings: Settings) -> int:
        """Megabytes of memory the function gets at these settings."""
        return self.memory_mb if self.memory_setting is None else int(getattr(settings, self.memory_setting))

    @property
    def source_dir(self) -> str:
        return self.code or self.name

    @property
    def handler_path(self) -> str:
        return f"functions/{self.source_dir}/handler.py"

    @property
    def handler(self) -> str:
        return f"handler.{self.entry}"

    @property
    def env_resources(self) -> tuple[Resource, ...]:
        seen: dict[str, Resource] = {}
        for g in self.grants:
            if isinstance(g.resource, EmailIdentitySpec | CustomerDestinationsSpec):
                continue  # a setting, or the customers' resources named by each endpoint: no resource of the stack's
            seen.setdefault(g.resource.env, g.resource)
            if isinstance(g.resource, QueueSpec) and g.resource.dead_letter and g.access == "consume":
                seen.setdefault(g.resource.dead_letter.env, g.resource.dead_letter)
        return tuple(seen.values())


DAY = 86_400

# A sparse index of the deliveries that need a customer's attention (failed or
# paused) or wait for a retry (pending, after an attempt), per endpoint, by
# status and time: a delivery that succeeds at once never writes to it.
ENDPOINT_DELIVERIES_INDEX = IndexSpec(name=keys.INDEX, partition_key=keys.GSI_PK, sort_key=keys.GSI_SK)
# Every endpoint item, by its owner (one customer, or the tenant itself) and id:
# an event addressed to a customer reads that customer's endpoints and no other's.
CUSTOMER_ENDPOINTS_INDEX = IndexSpec(name=keys.CUSTOMER_INDEX, partition_key=keys.GSI2_PK, sort_key=keys.GSI2_SK)
# Every endpoint item by its payload version, keys only: how many endpoints (and which) a version still has.
ENDPOINT_VERSIONS_INDEX = IndexSpec(name=keys.VERSION_INDEX, partition_key=keys.GSI3_PK, sort_key=keys.GSI3_SK, projection="KEYS_ONLY")
# The previous release's delivery log: its deliveries by endpoint and creation time, keys only, over LOG_SHARDS partitions
# an endpoint. Read only now (an endpoint's deliveries are kept in its log partitions, hookline.adapters.dynamo.keys);
# written only for that release's deliveries, until they expire. Kept so an upgrade loses none of its log; a later
# release drops it once HOOKLINE_RETENTION_DAYS have passed since this one was deployed.
ENDPOINT_LOG_INDEX = IndexSpec(name=keys.LOG_INDEX, partition_key=keys.GSI4_PK, sort_key=keys.GSI4_SK, projection="KEYS_ONLY")
TABLE = TableSpec(
    key="data",
    env="HOOKLINE_TABLE_NAME",
    partition_key=keys.PK,
    sort_key=keys.SK,
    ttl_attribute=keys.TTL,
    indexes=(ENDPOINT_DELIVERIES_INDEX, CUSTOMER_ENDPOINTS_INDEX, ENDPOINT_VERSIONS_INDEX, ENDPOINT_LOG_INDEX),
)
NOTIFICATIONS = TopicSpec(key="notifications", env="HOOKLINE_NOTIFICATIONS_TOPIC_ARN")
# The customer emails about a disabled or recovered endpoint go out from the delivery and retry functions.
NOTIFICATION_SENDER = EmailIdentitySpec(key="notification-sender", env="HOOKLINE_NOTIFICATION_SENDER", setting="notification_sender")
# Seals endpoints' `auth` secrets (the API, creating and changing them, and sending test events) and opens them (every
# function that delivers), which also seal the OAuth2 tokens they share in the table.
SECRETS_KEY = KeySpec(key="secrets", env="HOOKLINE_SECRETS_KEY_ARN")
CUSTOMER_DESTINATIONS = CustomerDestinationsSpec(key="customer-destinations", role_name_prefix=ROLE_NAME_PREFIX)

DELIVERY_TIMEOUT_SECONDS = 60
# A claim outlives the longest possible invocation, and expires well before the
# queue's visibility timeout hands a crashed worker's task to someone else.
CLAIM_LEASE_SECONDS = 2 * DELIVERY_TIMEOUT_SECONDS
# The delivery lanes' visibility timeout: AWS's rule for an SQS event source (Lambda Developer Guide, "Using Lambda with
# Amazon SQS"): at least 6x the function's timeout plus its MaximumBatchingWindowInSeconds, here the longest window
# the settings accept (HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS, HOOKLINE_RETRY_BATCH_WINDOW_SECONDS), so every one deploys.
LANE_VISIBILITY_TIMEOUT_SECONDS = 6 * DELIVERY_TIMEOUT_SECONDS + MAX_BATCHING_WINDOW_SECONDS
# One dead-letter queue for both delivery queues: what hookline could not
# process (moved by the redrive policies) and what exhausted its attempts (sent
# by the worker, with the reason in message attributes). Standard-queue
# retention counts from the original enqueue time, even after a message moves
# to the DLQ, so the DLQ keeps messages longer than its sources.
DELIVERY_DLQ = QueueSpec(key="delivery-dlq", env="HOOKLINE_DELIVERY_DLQ_URL", retention_seconds=14 * DAY)
DELIVERY_QUEUE = QueueSpec(
    key="delivery",
    env="HOOKLINE_DELIVERY_QUEUE_URL",
    retention_seconds=4 * DAY,
    visibility_timeout_seconds=LANE_VISIBILITY_TIMEOUT_SECONDS,
    dead_letter=DELIVERY_DLQ,
    max_receive_count=5,
)
# Every attempt after the first: a retry backlog never delays first attempts.
RETRY_QUEUE = QueueSpec(
    key="retry",
    env="HOOKLINE_RETRY_QUEUE_URL",
    retention_seconds=4 * DAY,
    visibility_timeout_seconds=LANE_VISIBILITY_TIMEOUT_SECONDS,
    dead_letter=DELIVERY_DLQ,
    max_receive_count=5,
)
# A task whose send after the wait fails lands on the delivery DLQ, drainable like any other (core.deadletters).
RETRY_WAIT = StateMachineSpec(key="retry-wait", env="HOOKLINE_RETRY_STATE_MACHINE_ARN", target=RETRY_QUEUE, dead_letter=DELIVERY_DLQ)

# The ordered lane (README, "Ordered endpoints"): the tasks of ordered endpoints, each endpoint its own message group,
# so SQS hands out one endpoint's tasks in order and none while one is in flight. A retry or a deferral holds the
# task's own message (its visibility is the wait) and so the line behind it. Every hold is a receive: the redrive
# policy allows SQS's most, and what hookline itself fails on is held ORDERED_FAULT_HOLD_SECONDS a time.
# Retention is SQS's longest, so a line held for a whole retry schedule (HOOKLINE_MAX_AGE_SECONDS) keeps its tasks.
ORDERED_DLQ = QueueSpec(key="ordered-dlq", env="HOOKLINE_ORDERED_DLQ_URL", retention_seconds=14 * DAY, fifo=True)
ORDERED_QUEUE = QueueSpec(
    key="ordered",
    env="HOOKLINE_ORDERED_QUEUE_URL",
    retention_seconds=14 * DAY,
    visibility_timeout_seconds=6 * DELIVERY_TIMEOUT_SECONDS,
    dead_letter=ORDERED_DLQ,
    max_receive_count=1000,
    fifo=True,
)
ORDERED_FAULT_HOLD_SECONDS = 30

JOBS_TIMEOUT_SECONDS = 120
# Jobs: the steps of every bulk job (hookline.services.jobs): a re-enabled endpoint's re-queue, a deleted customer's
# endpoints, a broadcast's fan-out, a customer's time-window replay, the operators' DLQ drain.
JOBS_DLQ = QueueSpec(key="jobs-dlq", env="HOOKLINE_JOBS_DLQ_URL", retention_seconds=14 * DAY)
JOBS_QUEUE = QueueSpec(
    key="jobs",
    env="HOOKLINE_JOBS_QUEUE_URL",
    retention_seconds=4 * DAY,
    visibility_timeout_seconds=6 * JOBS_TIMEOUT_SECONDS,
    dead_letter=JOBS_DLQ,
    max_receive_count=5,
)
# The previous release's job queue and its DLQ, which it named "replay" (issue 51): kept for this release only, under
# their old names and logical ids, so an upgrade loses none of their messages. Nothing sends to it any more but the
# previous release's functions while a deploy replaces them; the jobs function's sweep moves each message it holds to
# the jobs queue (hookline.services.jobsweep.PreviousJobQueueDrain). The next release removes both once they are empty.
PREVIOUS_JOB_DLQ = QueueSpec(key="replay-dlq", env="HOOKLINE_REPLAY_DLQ_URL", retention_seconds=14 * DAY)
PREVIOUS_JOB_QUEUE = replace(JOBS_QUEUE, key="replay", env="HOOKLINE_REPLAY_QUEUE_URL", dead_letter=PREVIOUS_JOB_DLQ)

API = FunctionSpec(
    name="api",
    timeout_seconds=15,
    memory_mb=512,
    # The job queue and the topic: re-enabling an endpoint sends its test event and starts the job that requeues its paused backlog.
    # The customers' destinations: the test event (on request, on enable, on a version change) goes where deliveries go.
    grants=(
        Grant(TABLE, "read_write"),
        Grant(DELIVERY_QUEUE, "send"),
        Grant(RETRY_QUEUE, "send"),
        Grant(ORDERED_QUEUE, "send"),
        Grant(JOBS_QUEUE, "send"),
        Grant(NOTIFICATIONS, "publish"),
        Grant(CUSTOMER_DESTINATIONS, "deliver"),
        Grant(SECRETS_KEY, "seal"),
    ),
)
AUTHORIZER = FunctionSpec(name="authorizer", timeout_seconds=5, memory_mb=256, grants=(Grant(TABLE, "read"),))
# What every function that delivers needs, whichever lane it drains.
_SENDER_GRANTS = (
    Grant(TABLE, "read_write"),
    Grant(NOTIFICATIONS, "publish"),
    Grant(NOTIFICATION_SENDER, "send_email"),
    Grant(CUSTOMER_DESTINATIONS, "deliver"),
    Grant(SECRETS_KEY, "seal"),
)
_DELIVERY_GRANTS = (*_SENDER_GRANTS, Grant(RETRY_QUEUE, "send"), Grant(DELIVERY_DLQ, "send"), Grant(RETRY_WAIT, "start"))
DELIVERY = FunctionSpec(
    name="delivery",
    timeout_seconds=DELIVERY_TIMEOUT_SECONDS,
    memory_mb=512,
    memory_setting="delivery_memory_mb",
    grants=(*_DELIVERY_GRANTS, Grant(DELIVERY_QUEUE, "consume")),
    sqs_source=SqsSource(queue=DELIVERY_QUEUE, batch_size_setting="delivery_batch_size", batching_window_setting="delivery_batch_window_seconds"),
    reserved_concurrency_setting="delivery_concurrency",
)
RETRY = FunctionSpec(
    name="retry",
    code="delivery",
    entry="retry",  # the retry lane (functions/delivery/handler.py)
    timeout_seconds=DELIVERY_TIMEOUT_SECONDS,
    memory_mb=512,
    memory_setting="retry_memory_mb",
    grants=(*_DELIVERY_GRANTS, Grant(RETRY_QUEUE, "consume")),
    sqs_source=SqsSource(
        queue=RETRY_QUEUE, batch_size_setting="retry_batch_size", max_batching_window_seconds=1, batching_window_setting="retry_batch_window_seconds"
    ),
    reserved_concurrency_setting="retry_concurrency",
)
# The ordered lane's consumer, the same code again: it holds a task that must wait instead of queueing it again, and
# dead-letters onto the ordered lane's own (FIFO) dead-letter queue. No reservation: its event source's cap
# (HOOKLINE_ORDERED_CONCURRENCY) bounds it, and a FIFO source never runs more than one batch per message group.
ORDERED = FunctionSpec(
    name="ordered",
    code="delivery",
    entry="ordered",
    timeout_seconds=DELIVERY_TIMEOUT_SECONDS,
    memory_mb=512,
    grants=(*_SENDER_GRANTS, Grant(ORDERED_DLQ, "send"), Grant(ORDERED_QUEUE, "consume")),
    sqs_source=SqsSource(queue=ORDERED_QUEUE, batch_size_setting="ordered_batch_size", max_pollers_setting="ordered_concurrency"),
)

JOBS = FunctionSpec(
    name="jobs",
    timeout_seconds=JOBS_TIMEOUT_SECONDS,
    memory_mb=256,
    grants=(
        Grant(TABLE, "read_write"),
        # A broadcast's fan-out and the sweeper queue first attempts on the delivery queue; replays and re-queues the
        # retry queue; the tasks of ordered endpoints go to the ordered lane from each.
        Grant(DELIVERY_QUEUE, "send"),
        Grant(RETRY_QUEUE, "send"),
        Grant(ORDERED_QUEUE, "send"),
        Grant(JOBS_QUEUE, "send"),
        # The DLQ drain: receives letters, moves them to the retry queue, deletes them; it never sends to the DLQ.
        Grant(DELIVERY_DLQ, "receive"),
        # The sweep moves the previous release's job queue's messages to the jobs queue (receives, sends, deletes).
        Grant(PREVIOUS_JOB_QUEUE, "receive"),
        Grant(JOBS_QUEUE, "consume"),
    ),
    sqs_source=SqsSource(queue=JOBS_QUEUE, batch_size_setting="jobs_batch_size"),
    reserved_concurrency_setting="jobs_concurrency",
)

TABLES: tuple[TableSpec, ...] = (TABLE,)
QUEUES: tuple[QueueSpec, ...] = (
    DELIVERY_DLQ,
    JOBS_DLQ,
    PREVIOUS_JOB_DLQ,
    ORDERED_DLQ,
    DELIVERY_QUEUE,
    RETRY_QUEUE,
    ORDERED_QUEUE,
    JOBS_QUEUE,
    PREVIOUS_JOB_QUEUE,
)  # dead-letter queues first
STATE_MACHINES: tuple[StateMachineSpec, ...] = (RETRY_WAIT,)
TOPICS: tuple[TopicSpec, ...] = (NOTIFICATIONS,)
KEYS: tuple[KeySpec, ...] = (SECRETS_KEY,)
# Queues that hookline sends delayed messages to (SQS DelaySeconds, up to 900 s):
# their oldest message can be that much older without anything being stuck.
DELAYED_QUEUES: tuple[QueueSpec, ...] = (RETRY_QUEUE, JOBS_QUEUE, PREVIOUS_JOB_QUEUE)
# Queues whose messages wait on purpose: an ordered endpoint's line is held behind a delivery its receiver keeps
# failing, as long as the retry schedule lasts (HOOKLINE_MAX_AGE_SECONDS). Their oldest message's age says how a
# customer's receiver fares, not how hookline does: graphed, not alarmed (the ordered function's errors and internal
# failures are).
HELD_QUEUES: tuple[QueueSpec, ...] = (ORDERED_QUEUE,)
FUNCTIONS: tuple[FunctionSpec, ...] = (API, AUTHORIZER, DELIVERY, RETRY, ORDERED, JOBS)
# The sweeper (hookline.services.sweeper): queues what was stored and never queued.
SWEEP_SCHEDULE = ScheduleSpec(key="sweep", function=JOBS.name, event=(("kind", "sweep"),), interval_setting="sweep_interval_minutes")
SCHEDULES: tuple[ScheduleSpec, ...] = (SWEEP_SCHEDULE,)
