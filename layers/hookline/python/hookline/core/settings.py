"""One typed settings object, read from the environment.

Every knob is an environment variable. The README's settings table documents
them all; `tests/unit/test_settings.py` checks that the table and this module
agree. This module is pure: `hookline.wiring.settings.get_settings()` reads the
environment, once per process.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from hookline.core import sqs
from hookline.core.mailbox import Mailbox, MailboxError, parse_mailbox
from hookline.core.profiles import DEFAULT_SIZE, PROFILES, SIZES
from hookline.core.ssrf import Network, UrlPolicy

# HOOKLINE_STACK_NAME: CloudFormation's rule for stack names, short enough that `<stack>-delivery-dlq` and every
# other physical name stays within SQS's and Step Functions' 80 characters and EventBridge Scheduler's 64.
MAX_STACK_NAME = 32
STACK_NAME = re.compile(f"[A-Za-z][A-Za-z0-9-]{{0,{MAX_STACK_NAME - 1}}}")
# HOOKLINE_ALARM_EMAIL's addresses: what SNS's email protocol accepts, loosely (one @, no spaces or commas).
EMAIL = re.compile(r"[^@\s,]+@[^@\s,]+\.[^@\s,]+")
# HOOKLINE_SIZE: hookline.core.profiles gives each one's settings, infra/sizing.py what it reserves.
MAX_BATCHING_WINDOW_SECONDS = 300  # SQS event sources gather a batch for at most 5 minutes
MEMORY_MB = (128, 10240)  # what Lambda accepts
TABLE_BILLINGS = ("on_demand", "provisioned")
TABLE_CAPACITY_TARGET_PERCENT = 70  # provisioned billing: auto scaling keeps this share of the capacity used
MAX_TABLE_CAPACITY = 40_000  # a table's (and an index's) default quota of read or write capacity units, per unit kind
MAX_HOPS_UP_TO_SECONDS = 86_400  # a retry wait hops for at most a day (96 hops of 900 s); longer ones wait in Step Functions

# A revoked portal session (or API key) must stop working within a minute; the authorizer's cache bounds that.
MAX_AUTHORIZER_CACHE_SECONDS = 60
DEFAULT_MAX_ENDPOINTS_PER_OWNER = 500  # HOOKLINE_MAX_ENDPOINTS_PER_OWNER's default
# Ingest reads an event's owner's endpoints inside its request, and a customer's statistics each of its endpoints'
# (in parallel): 1,000 such reads stay well inside API Gateway's 29 s.
MAX_ENDPOINTS_PER_OWNER = 1_000


class SettingsError(ValueError):
    """An environment variable holds a value that cannot be used."""


# Settings an earlier release read under another name: set, the old name stops the command that reads it (synth,
# local mode, a function's start) with the new one, rather than being ignored for the default.
RENAMED = {"HOOKLINE_REPLAY_CONCURRENCY": "HOOKLINE_JOBS_CONCURRENCY", "HOOKLINE_REPLAY_BATCH_SIZE": "HOOKLINE_JOBS_BATCH_SIZE"}
# Settings an earlier release read whose meaning this one replaced (a breaker's cooldown that grew with the outage,
# now a fixed probe interval): set, they stop synth and local mode rather than being silently ignored.
REPLACED = {
    "HOOKLINE_BREAKER_COOLDOWN_FRACTION": "HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS",
    "HOOKLINE_BREAKER_MAX_COOLDOWN_SECONDS": "HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS",
}
RETIRED = (*RENAMED, *REPLACED)


def renamed(name: str) -> str:
    """What to say of a setting an earlier release read under `name` (one of RETIRED)."""
    if name in RENAMED:
        return f"{name} was renamed {RENAMED[name]} in this release: set {RENAMED[name]} instead"
    return f"{name} is no longer read: this release replaced it with {REPLACED[name]}; set that instead, or remove it"


def _setting(env: str, default: Any, doc: str) -> Any:
    return field(default=default, metadata={"env": env, "doc": doc})


@dataclass(frozen=True)
class Settings:
    # Resources. The stack and the local runner fill these from hookline.topology.
    table_name: str = _setting("HOOKLINE_TABLE_NAME", "hookline", "DynamoDB table holding endpoints, events, deliveries, attempts and API keys.")
    delivery_queue_url: str = _setting("HOOKLINE_DELIVERY_QUEUE_URL", "", "SQS queue of delivery tasks (first attempts).")
    delivery_dlq_url: str = _setting("HOOKLINE_DELIVERY_DLQ_URL", "", "Dead-letter queue of the delivery queue.")
    jobs_queue_url: str = _setting(
        "HOOKLINE_JOBS_QUEUE_URL",
        "",
        "The jobs queue: the steps of bulk jobs (re-queues, deletions, broadcasts, time-window replays, DLQ drains).",
    )
    jobs_dlq_url: str = _setting("HOOKLINE_JOBS_DLQ_URL", "", "Dead-letter queue of the jobs queue.")
    previous_job_queue_url: str = _setting(
        "HOOKLINE_REPLAY_QUEUE_URL",
        "",
        "The previous release's job queue (named `replay`), kept for one release: the jobs function's sweep moves its messages to the jobs queue.",
    )
    previous_job_dlq_url: str = _setting("HOOKLINE_REPLAY_DLQ_URL", "", "Dead-letter queue of the previous release's job queue, kept for one release with it.")
    retry_queue_url: str = _setting("HOOKLINE_RETRY_QUEUE_URL", "", "SQS queue of retry tasks (every attempt after the first).")
    ordered_queue_url: str = _setting(
        "HOOKLINE_ORDERED_QUEUE_URL", "", "SQS FIFO queue of the ordered endpoints' tasks, each endpoint its own message group (every attempt)."
    )
    ordered_dlq_url: str = _setting("HOOKLINE_ORDERED_DLQ_URL", "", "Dead-letter queue (FIFO) of the ordered queue.")
    retry_state_machine_arn: str = _setting(
        "HOOKLINE_RETRY_STATE_MACHINE_ARN", "", "Step Functions state machine that waits out long delays, then queues the task."
    )
    notifications_topic_arn: str = _setting(
        "HOOKLINE_NOTIFICATIONS_TOPIC_ARN", "", "SNS topic for operational notifications (circuit opened, recovered, endpoint disabled, delivery exhausted)."
    )
    secrets_key_arn: str = _setting(
        "HOOKLINE_SECRETS_KEY_ARN",
        "",
        "The stack's KMS key, which seals endpoints' `auth` secrets (envelope encryption). Empty: endpoints with `auth` are refused.",
    )
    notification_sender: str = _setting(
        "HOOKLINE_NOTIFICATION_SENDER",
        "",
        "Who emails customers when their endpoint is disabled or recovers: a bare address or `Name <address>`. The email comes from the address, whose domain or itself (or the identity HOOKLINE_NOTIFICATION_IDENTITY_ARN names) SES must have verified, and shows the name (RFC 2047 encoded when not ASCII). Synth and the preflight refuse anything but one 7-bit ASCII address with a domain, and name the reason. Empty: no email (SNS still gets the notification).",
    )
    portal_base: str = _setting(  # not named *_url: that suffix marks a per-function resource setting (infra.functions)
        "HOOKLINE_PORTAL_BASE_URL",
        "",
        "Where the portal is served (the API's URL, or the producer's domain in front of it). Portal links use it, else the request's own host; customer emails carry a portal link only when it is set.",
    )
    # Retries.
    retry_base_seconds: float = _setting("HOOKLINE_RETRY_BASE_SECONDS", 30.0, "Backoff base: the ceiling after attempt n fails is min(cap, base x 2^n).")
    retry_max_delay_seconds: float = _setting("HOOKLINE_RETRY_MAX_DELAY_SECONDS", 21600.0, "Backoff cap, also the longest Retry-After honoured.")
    retry_jitter: str = _setting("HOOKLINE_RETRY_JITTER", "full", "`full` (uniform in [0, ceiling]) or `equal` (half the ceiling as a floor).")
    max_attempts: int = _setting("HOOKLINE_MAX_ATTEMPTS", 12, "Attempts per delivery, the first included.")
    max_age_seconds: float = _setting("HOOKLINE_MAX_AGE_SECONDS", 259200.0, "No attempt is scheduled later than this after the event was accepted.")
    sqs_max_delay_seconds: int = _setting(
        "HOOKLINE_SQS_MAX_DELAY_SECONDS", 900, "Delays up to this go on SQS with DelaySeconds (max 900); longer ones hop (HOOKLINE_SQS_HOPS_UP_TO_SECONDS)."
    )
    sqs_hops_up_to_seconds: int = _setting(
        "HOOKLINE_SQS_HOPS_UP_TO_SECONDS",
        21600,
        "Retry waits longer than HOOKLINE_SQS_MAX_DELAY_SECONDS and at most this (0 to 86400) hop through the retry queue, at most 900 s (SQS's limit) a hop, queued again without an attempt until due (a hop costs a hundredth of a wait in Step Functions, or less); longer ones wait in Step Functions. 0: every longer wait goes through Step Functions.",
    )
    # Per-endpoint isolation.
    breaker_threshold: int = _setting(
        "HOOKLINE_BREAKER_THRESHOLD", 10, "Consecutive health failures (timeouts, connection errors, 5xx, 429) that open an endpoint's breaker."
    )
    breaker_failure_rate: float = _setting(
        "HOOKLINE_BREAKER_FAILURE_RATE", 0.9, "The breaker also opens when this share of the last HOOKLINE_BREAKER_WINDOW attempts failed."
    )
    breaker_window: int = _setting("HOOKLINE_BREAKER_WINDOW", 50, "Attempts the failure-rate rule looks at.")
    breaker_cooldown_seconds: float = _setting(
        "HOOKLINE_BREAKER_COOLDOWN_SECONDS", 60.0, "Cooldown of a breaker that has just opened: its first probe comes this long after it opened."
    )
    breaker_probe_interval_seconds: float = _setting(
        "HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS",
        300.0,
        "A failed probe reopens the breaker until this long after it was taken: a receiver that stays down gets at most 3600 / this probes an hour, a recovered one its probe within this (plus its next task's return).",
    )
    breaker_timeout_threshold: int = _setting(
        "HOOKLINE_BREAKER_TIMEOUT_THRESHOLD", 5, "Consecutive timeouts that open an endpoint's breaker (each held a worker for the whole deadline)."
    )
    initial_concurrency: int = _setting(
        "HOOKLINE_INITIAL_CONCURRENCY",
        5,
        "Requests in flight a new endpoint starts at; adaptive concurrency raises it up to the endpoint's max_concurrency while its latency holds steady.",
    )
    token_lease_min_rate: float = _setting(
        "HOOKLINE_TOKEN_LEASE_MIN_RATE",
        1000.0,
        "An endpoint whose rate_limit_per_second is at least this is paced by token leases: each warm delivery instance reserves a share of its rate and concurrency for a second in one write and spends it over its batches, instead of a grant and a give-back per batch.",
    )
    disable_after_seconds: float = _setting(
        "HOOKLINE_DISABLE_AFTER_SECONDS", 432000.0, "An endpoint whose breaker stays open this long is disabled with reason `failing` (5 days)."
    )
    # Delivery behaviour.
    connect_timeout_seconds: float = _setting("HOOKLINE_CONNECT_TIMEOUT_SECONDS", 3.0, "TCP/TLS connect timeout of a webhook request.")
    request_timeout_seconds: float = _setting("HOOKLINE_REQUEST_TIMEOUT_SECONDS", 10.0, "Whole-request deadline of a webhook request, connect included.")
    keepalive_seconds: float = _setting(
        "HOOKLINE_KEEPALIVE_SECONDS",
        30.0,
        "How long a connection to a receiver is kept open unused for the next webhook to the same address (a warm function keeps them across batches). A receiver that closes it sooner (Node's 5 s) is noticed, and a send that meets a connection closed under it is sent once more on a new one, with the same webhook-id. 0: a new connection per webhook.",
    )
    response_body_limit_bytes: int = _setting(
        "HOOKLINE_RESPONSE_BODY_LIMIT_BYTES", 4096, "How much of a receiver's response body is kept on an attempt that did not succeed."
    )
    success_body_limit_bytes: int = _setting(
        "HOOKLINE_SUCCESS_BODY_LIMIT_BYTES", 256, "How much of a receiver's response body is kept on a successful attempt (a 2xx body rarely says more)."
    )
    log_successes: bool = _setting(
        "HOOKLINE_LOG_SUCCESSES",
        False,
        "Log a line for every successful attempt. Off in the cloud: the delivery function logs each attempt that did not succeed and one summary per batch, and the delivery log keeps every attempt; local mode turns it on.",
    )
    allow_private_networks: tuple[Network, ...] = _setting(
        "HOOKLINE_ALLOW_PRIVATE_NETWORKS",
        (),
        "Comma-separated CIDRs exempt from the SSRF guard. Empty in the cloud; local mode defaults to `127.0.0.0/8,::1/128`.",
    )
    secret_overlap_seconds: float = _setting(
        "HOOKLINE_SECRET_OVERLAP_SECONDS",
        86400.0,
        "After a secret rotation, deliveries are signed with the replaced secret too for this long (its end is fixed at the rotation).",
    )
    own_account_id: str = _setting(
        "HOOKLINE_OWN_ACCOUNT_ID",
        "",
        "The AWS account the stack runs in (the stack sets it): no endpoint destination, nor its role, may be in it. Empty: not checked (local mode).",
    )
    delivery_role_arns: str = _setting(
        "HOOKLINE_DELIVERY_ROLE_ARNS",
        "",
        "The roles that deliver (comma-separated; the stack sets them): what a customer's destination role trusts, in the template `GET /v1/endpoints/{id}/role-template` serves.",
    )
    allow_http: bool = _setting("HOOKLINE_ALLOW_HTTP", False, "Allow plain-http endpoint URLs. Off in the cloud (https only); local mode turns it on.")
    allowed_ports: str = _setting(
        "HOOKLINE_ALLOWED_PORTS", "443,80", "Ports endpoint URLs may use, comma-separated, or `*` for any (local mode). 80 applies only where http is allowed."
    )
    delivery_concurrency: int = _setting(
        "HOOKLINE_DELIVERY_CONCURRENCY", 90, "Reserved concurrency of the delivery function (HOOKLINE_SIZE sets it; stack configuration)."
    )
    retry_concurrency: int = _setting(
        "HOOKLINE_RETRY_CONCURRENCY",
        60,
        "Reserved concurrency of the retry function, which drains the retry queue (HOOKLINE_SIZE sets it; stack configuration).",
    )
    delivery_memory_mb: int = _setting(
        "HOOKLINE_DELIVERY_MEMORY_MB",
        512,
        "Memory of the delivery function, which sets its share of a vCPU (a whole one at 1,769 MB); HOOKLINE_SIZE sets it. Stack configuration.",
    )
    retry_memory_mb: int = _setting("HOOKLINE_RETRY_MEMORY_MB", 512, "Memory of the retry function (HOOKLINE_SIZE sets it). Stack configuration.")
    jobs_concurrency: int = _setting(
        "HOOKLINE_JOBS_CONCURRENCY",
        4,
        "Reserved concurrency of the jobs function (stack configuration). Its jobs-queue event source takes at most 2 fewer: the sweeper's schedule and `make dlq-drain` invoke it too.",
    )
    jobs_batch_size: int = _setting("HOOKLINE_JOBS_BATCH_SIZE", 1, "Job steps handed to one invocation of the jobs function.")
    sweep_runs_jobs: bool = _setting(
        "HOOKLINE_SWEEP_RUNS_JOBS",
        False,
        "The jobs function's scheduled sweep also runs the jobs queue's messages, as its event source would (hookline.entrypoints.jobs). The stack sets it: on at HOOKLINE_SIZE=small, where the jobs function has no jobs-queue event source; off at every other size. Local mode polls the jobs queue itself: off.",
    )
    ordered_concurrency: int = _setting(
        "HOOKLINE_ORDERED_CONCURRENCY",
        10,
        "Most invocations of the ordered function at once (its event source's maximum concurrency; nothing reserved). Each serves its endpoints one task at a time (stack configuration).",
    )
    ordered_batch_size: int = _setting(
        "HOOKLINE_ORDERED_BATCH_SIZE",
        10,
        "SQS messages handed to one ordered invocation (1..10, SQS's most for a FIFO source): one endpoint's in order, several endpoints side by side.",
    )
    dlq_drain_rate_per_second: float = _setting("HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND", 10.0, "Default pace of the operators' DLQ drain into the retry queue.")
    oldest_message_alarm_seconds: int = _setting(
        "HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS", 900, "Alarm when a queue's oldest message is older than this (stack configuration)."
    )
    delivery_batch_size: int = _setting("HOOKLINE_DELIVERY_BATCH_SIZE", 10, "SQS messages handed to one delivery invocation.")
    delivery_batch_window_seconds: int = _setting(
        "HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS",
        0,
        "How long the delivery queue's event source gathers a batch (0: first attempts leave at once; at least 1 above a batch of 10, as SQS requires). Stack configuration.",
    )
    retry_batch_size: int = _setting(
        "HOOKLINE_RETRY_BATCH_SIZE",
        20,
        "SQS messages handed to one retry invocation (above 10, SQS gathers them for up to a second). The retry lane serves slow and timing-out endpoints, whose requests mostly wait, so an invocation carries more of them.",
    )
    retry_batch_window_seconds: int = _setting(
        "HOOKLINE_RETRY_BATCH_WINDOW_SECONDS",
        1,
        "How long the retry queue's event source gathers a batch (at least 1 above a batch of 10, as SQS requires). Stack configuration.",
    )
    # API.
    max_event_bytes: int = _setting("HOOKLINE_MAX_EVENT_BYTES", 262144, "Largest accepted request body for an event (413 above).")
    repeat_requeue_delay_seconds: int = _setting(
        "HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS",
        60,
        "How long a repeated event request's copy of a delivery not attempted yet waits in the queue before it may run (0 to 900): the first request's task, if it got out, writes no claim, so its copy waits until that task has recorded its attempt (the delivery function's timeout bounds it), which the copy then finds and skips. A delivery the first request never queued goes out that much later.",
    )
    sweep_grace_seconds: float = _setting(
        "HOOKLINE_SWEEP_GRACE_SECONDS",
        120.0,
        "How old a note of a request's not-yet-queued events must be before the sweeper queues what it finds of them (a request takes 30 s at most).",
    )
    sweep_wait_margin_seconds: float = _setting(
        "HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS",
        900.0,
        "How long past its due time a retry waiting in Step Functions (a delay over HOOKLINE_SQS_HOPS_UP_TO_SECONDS) may stay unreceived before the sweeper queues it again. More than the state machine's own retries of its send (about 2 minutes) and a usual retry-queue backlog; a copy queued again claims its attempt, so a late original never sends twice.",
    )
    sweep_interval_minutes: int = _setting("HOOKLINE_SWEEP_INTERVAL_MINUTES", 1, "How often the sweeper runs (the stack's schedule; local mode's timer).")
    catalog_cache_seconds: float = _setting(
        "HOOKLINE_CATALOG_CACHE_SECONDS",
        5.0,
        "How long a process keeps the payload versions and event types it read for ingest; a change applies in other processes after at most this long (0: read every request).",
    )
    max_batch_bytes: int = _setting(
        "HOOKLINE_MAX_BATCH_BYTES", 4194304, "Largest accepted request body for `POST /v1/events/batch` (413 above; Lambda takes at most 6 MB)."
    )
    page_limit_max: int = _setting("HOOKLINE_PAGE_LIMIT_MAX", 100, "Largest `limit` a list route accepts.")
    max_endpoints_per_owner: int = _setting(
        "HOOKLINE_MAX_ENDPOINTS_PER_OWNER",
        DEFAULT_MAX_ENDPOINTS_PER_OWNER,
        f"Most endpoints one customer, or the tenant itself, may have (1..{MAX_ENDPOINTS_PER_OWNER:,}); creating one more answers 409 endpoint_limit_reached. Ingest reads an event's owner's endpoints, and a customer's statistics read each of its endpoints', inside the request: this bounds them.",
    )
    authorizer_cache_seconds: int = _setting(
        "HOOKLINE_AUTHORIZER_CACHE_SECONDS",
        60,
        "How long API Gateway caches an authorizer answer: a revoked API key or portal session keeps working at most this long (0..60).",
    )
    email_portal_session_seconds: int = _setting(
        "HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS",
        86400,
        "Lifetime of the portal session whose link a customer email carries (with HOOKLINE_PORTAL_BASE_URL set); 0: the bare portal address, no session.",
    )
    retention_days: int = _setting("HOOKLINE_RETENTION_DAYS", 30, "Events, deliveries and attempts expire through DynamoDB TTL after this many days.")
    # Deploys.
    deploy_strategy: str = _setting(
        "HOOKLINE_DEPLOY_STRATEGY",
        "canary",
        "How a new version of each function goes live behind its `live` alias: `canary` (CodeDeploy shifts 10 % of traffic for 5 minutes, then all, and rolls back on alarms that say the new version itself failed, by its rate of errors, of tasks dead-lettered through its own fault and of the api's 5xx answers; never on a receiver's exhausted retries) or `all_at_once` (the alias moves at once, no CodeDeploy). Stack configuration.",
    )
    # The stack: read at synth/deploy time (infra/), never by the functions.
    stack_name: str = _setting(
        "HOOKLINE_STACK_NAME",
        "hookline",
        "Name of the CloudFormation stack: `make synth`, `make preflight` and `make deploy` take it from STACK, the name of the stack's settings file (`stacks/<stack>.json`); set here, it must agree. Every physical name (table, queues, state machine, topic, alarms, dashboard, schedules) starts with it, so one account and region holds as many installs as it has names. Stack configuration.",
    )
    size: str = _setting(
        "HOOKLINE_SIZE",
        "default",
        "The sizing profile (hookline.core.profiles, docs/scaling.md): `small`, `default`, `large` or `xlarge`. It sets the delivery lanes' memory, reserved concurrency and batches, the API throttle, the table's billing and the declared HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA; a setting given in the environment wins. `small` reserves nothing, caps each SQS event source at 2 and gives the jobs function no jobs-queue source (its every-minute sweep runs the jobs: HOOKLINE_SWEEP_RUNS_JOBS), so the three sources take at most 6 and leave the API and authorizer at least 4 of the quota of 10 a new account has. Stack configuration.",
    )
    account_concurrency_quota: int = _setting(
        "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA",
        1000,
        "The account's Lambda concurrent-executions quota in the region (Service Quotas, L-B99A9384): synth refuses reserved concurrency that leaves less than AWS's unreserved minimum of 100; `make preflight` reads the real one. Stack configuration.",
    )
    table_billing: str = _setting(
        "HOOKLINE_TABLE_BILLING",
        "on_demand",
        "How the data table and its indexes are billed: `on_demand` (per request) or `provisioned` (capacity units, auto scaled to keep TABLE_CAPACITY_TARGET_PERCENT (70) of them used, between the minimum and maximum below, on the table and on each index: cheaper at steady volume, throttled above the maximum). Provisioned to on-demand: DynamoDB allows four switches in 24 hours. Stack configuration.",
    )
    table_min_read_capacity: int = _setting(
        "HOOKLINE_TABLE_MIN_READ_CAPACITY",
        5,
        "With provisioned billing: the fewest read capacity units the table, and each index, is scaled down to. Stack configuration.",
    )
    table_max_read_capacity: int = _setting(
        "HOOKLINE_TABLE_MAX_READ_CAPACITY",
        4000,
        "With provisioned billing: the most read capacity units the table, and each index, is scaled up to. Stack configuration.",
    )
    table_min_write_capacity: int = _setting(
        "HOOKLINE_TABLE_MIN_WRITE_CAPACITY",
        5,
        "With provisioned billing: the fewest write capacity units the table, and each index, is scaled down to. Stack configuration.",
    )
    table_max_write_capacity: int = _setting(
        "HOOKLINE_TABLE_MAX_WRITE_CAPACITY",
        4000,
        "With provisioned billing: the most write capacity units the table, and each index, is scaled up to. Stack configuration.",
    )
    table_deletion_protection: bool = _setting(
        "HOOKLINE_TABLE_DELETION_PROTECTION",
        True,
        'DynamoDB deletion protection on the data table: while on, no one deletes it (by hand, or a stack update that would). The table is retained by `cdk destroy` either way; to delete it with its data, deploy with this off first (docs/operations.md, "What outlives the stack"). Stack configuration.',
    )
    api_throttle_rate: int = _setting(
        "HOOKLINE_API_THROTTLE_RATE", 100, "The API stage's steady request rate limit, per second (API Gateway answers 429 above it). Stack configuration."
    )
    api_throttle_burst: int = _setting("HOOKLINE_API_THROTTLE_BURST", 200, "The API stage's burst limit, in requests. Stack configuration.")
    alarm_email: str = _setting(
        "HOOKLINE_ALARM_EMAIL",
        "",
        "Addresses (comma-separated) subscribed to the notifications topic at deploy, so the alarms reach someone; each confirms the subscription from the email AWS sends. Stack configuration.",
    )
    alarm_https_endpoint: str = _setting(
        "HOOKLINE_ALARM_HTTPS_ENDPOINT",
        "",
        "An HTTPS URL (a pager's or a chat's webhook) subscribed to the notifications topic at deploy. Stack configuration.",
    )
    notification_identity_arn: str = _setting(
        "HOOKLINE_NOTIFICATION_IDENTITY_ARN",
        "",
        "The SES identity ARN the email grant names, when the sender is verified by another identity than its address or domain (a configuration set's, another region's). Empty: the grant covers the sender's address and its domain. Stack configuration.",
    )
    tracing: bool = _setting(
        "HOOKLINE_TRACING",
        False,
        "X-Ray tracing of the functions: on, each function's active tracing (and its role's xray:PutTraceSegments and PutTelemetryRecords) and Powertools' Tracer, which imports the X-Ray SDK at every cold start; off, neither (POWERTOOLS_TRACE_DISABLED=true), so a cold start imports no X-Ray. Off by default: X-Ray bills every trace it records. The retry state machine traces either way. Stack configuration.",
    )
    # Local mode only.
    api_keys: str = _setting("HOOKLINE_API_KEYS", "", "Local mode: API keys to seed, as `tenant:key,tenant:key`. Empty seeds tenant `local` with a fresh key.")
    port: int = _setting("HOOKLINE_PORT", 8787, "Local mode: port of the API front door on 127.0.0.1.")
    aws_port: int = _setting("HOOKLINE_AWS_PORT", 4566, "Local mode: port of the embedded AWS (moto server) on 127.0.0.1.")
    local_data_dir: str = _setting(
        "HOOKLINE_LOCAL_DATA_DIR",
        ".hookline-local",
        "Local mode: where a clean stop (Ctrl-C) saves the embedded AWS's state and the next `make run` restores it; relative to the repository; `off` keeps nothing. `make run ARGS=--fresh` starts empty.",
    )

    @property
    def url_policy(self) -> UrlPolicy:
        ports = None if self.allowed_ports.strip() == "*" else frozenset(int(p) for p in self.allowed_ports.split(",") if p.strip())
        return UrlPolicy(self.allow_private_networks, self.allow_http, ports)

    @property
    def notification_mailbox(self) -> Mailbox | None:
        """HOOKLINE_NOTIFICATION_SENDER parsed (its address, domain and From: header); None when it is empty."""
        return parse_mailbox(self.notification_sender) if self.notification_sender.strip() else None

    @property
    def alarm_emails(self) -> tuple[str, ...]:
        """HOOKLINE_ALARM_EMAIL's addresses, in order, without blanks or repeats."""
        return tuple(dict.fromkeys(part.strip() for part in self.alarm_email.split(",") if part.strip()))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Parse the settings from an environment mapping (`hookline.wiring.settings` passes os.environ)."""
        if old := [name for name in RETIRED if (env.get(name) or "").strip()]:
            raise SettingsError("; ".join(renamed(name) for name in old))
        values: dict[str, Any] = {}
        size = (env.get("HOOKLINE_SIZE") or "").strip() or DEFAULT_SIZE
        profile = PROFILES.get(size)
        for f in fields(cls):
            name = f.metadata["env"]
            raw = env.get(name)
            if raw is None or raw.strip() == "":
                if profile is not None and f.name in profile.values:
                    values[f.name] = profile.values[f.name]
                continue
            values[f.name] = parse_setting(name, f.default, raw.strip())
        return cls(**values)

    def __post_init__(self) -> None:
        if self.retry_jitter not in ("full", "equal"):
            raise SettingsError(f"HOOKLINE_RETRY_JITTER={self.retry_jitter!r}: must be 'full' or 'equal'")
        self._check_stack()
        self._check_sender()
        self._check_delivery()

    def _check_stack(self) -> None:
        """The settings the stack reads at synth time."""
        if not STACK_NAME.fullmatch(self.stack_name):
            raise SettingsError(
                f"HOOKLINE_STACK_NAME={self.stack_name!r}: a letter, then up to {MAX_STACK_NAME - 1} letters, digits or hyphens (it starts every physical name, and SQS and Step Functions allow 80 characters)"
            )
        if bad := [address for address in self.alarm_emails if not EMAIL.fullmatch(address)]:
            raise SettingsError(f"HOOKLINE_ALARM_EMAIL: {', '.join(bad)}: not an email address")
        if self.alarm_https_endpoint and not self.alarm_https_endpoint.startswith("https://"):
            raise SettingsError(f"HOOKLINE_ALARM_HTTPS_ENDPOINT={self.alarm_https_endpoint!r}: must be an https:// URL")
        if not 0 < self.api_throttle_rate <= self.api_throttle_burst:
            raise SettingsError("HOOKLINE_API_THROTTLE_RATE must be above 0 and at most HOOKLINE_API_THROTTLE_BURST")
        if self.size not in SIZES:
            raise SettingsError(f"HOOKLINE_SIZE={self.size!r}: must be one of {', '.join(SIZES)}")
        if self.table_billing not in TABLE_BILLINGS:
            raise SettingsError(f"HOOKLINE_TABLE_BILLING={self.table_billing!r}: must be one of {', '.join(TABLE_BILLINGS)}")
        for unit, low, high in (
            ("READ", self.table_min_read_capacity, self.table_max_read_capacity),
            ("WRITE", self.table_min_write_capacity, self.table_max_write_capacity),
        ):
            if not 1 <= low <= high <= MAX_TABLE_CAPACITY:
                raise SettingsError(
                    f"HOOKLINE_TABLE_MIN_{unit}_CAPACITY={low} and HOOKLINE_TABLE_MAX_{unit}_CAPACITY={high}: must be 1 <= min <= max <= {MAX_TABLE_CAPACITY:,}"
                )
        if self.deploy_strategy not in ("canary", "all_at_once"):
            raise SettingsError(f"HOOKLINE_DEPLOY_STRATEGY={self.deploy_strategy!r}: must be 'canary' or 'all_at_once'")
        if self.authorizer_cache_seconds > MAX_AUTHORIZER_CACHE_SECONDS:
            raise SettingsError(
                f"HOOKLINE_AUTHORIZER_CACHE_SECONDS={self.authorizer_cache_seconds}: at most {MAX_AUTHORIZER_CACHE_SECONDS}, the bound on how long a revoked session works"
            )

    def _check_sender(self) -> None:
        """HOOKLINE_NOTIFICATION_SENDER: the stack grants its address and domain, the functions send from it."""
        if self.notification_sender.strip():
            try:
                parse_mailbox(self.notification_sender)
            except MailboxError as exc:
                raise SettingsError(f"HOOKLINE_NOTIFICATION_SENDER={self.notification_sender!r}: {exc}") from None

    def _check_delivery(self) -> None:
        """The settings the functions read."""
        for env, seconds, least in (
            ("HOOKLINE_SQS_MAX_DELAY_SECONDS", self.sqs_max_delay_seconds, 1),
            ("HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS", self.repeat_requeue_delay_seconds, 0),
        ):
            if not least <= seconds <= sqs.MAX_DELAY_SECONDS:
                raise SettingsError(f"{env}={seconds}: must be {least}..{sqs.MAX_DELAY_SECONDS} (the SQS limit)")
        if not 0 <= self.sqs_hops_up_to_seconds <= MAX_HOPS_UP_TO_SECONDS:
            raise SettingsError(f"HOOKLINE_SQS_HOPS_UP_TO_SECONDS={self.sqs_hops_up_to_seconds}: must be 0..{MAX_HOPS_UP_TO_SECONDS}")
        if self.allowed_ports.strip() != "*" and not all(p.strip().isdigit() for p in self.allowed_ports.split(",")):
            raise SettingsError(f"HOOKLINE_ALLOWED_PORTS={self.allowed_ports!r}: comma-separated port numbers, or *")
        if self.max_attempts < 1:
            raise SettingsError("HOOKLINE_MAX_ATTEMPTS must be at least 1")
        if not 1 <= self.max_endpoints_per_owner <= MAX_ENDPOINTS_PER_OWNER:
            raise SettingsError(f"HOOKLINE_MAX_ENDPOINTS_PER_OWNER={self.max_endpoints_per_owner}: must be 1..{MAX_ENDPOINTS_PER_OWNER:,}")
        self._check_batches()
        for env, mb in (("HOOKLINE_DELIVERY_MEMORY_MB", self.delivery_memory_mb), ("HOOKLINE_RETRY_MEMORY_MB", self.retry_memory_mb)):
            if not MEMORY_MB[0] <= mb <= MEMORY_MB[1]:
                raise SettingsError(f"{env}={mb}: must be {MEMORY_MB[0]}..{MEMORY_MB[1]} (what Lambda accepts)")
        if not 1 <= self.ordered_batch_size <= 10:
            raise SettingsError(f"HOOKLINE_ORDERED_BATCH_SIZE={self.ordered_batch_size}: must be 1..10 (SQS's most for a FIFO event source)")
        if self.breaker_probe_interval_seconds < self.breaker_cooldown_seconds:
            raise SettingsError(
                f"HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS={self.breaker_probe_interval_seconds:g}: must be at least HOOKLINE_BREAKER_COOLDOWN_SECONDS"
            )
        if self.initial_concurrency < 1 or self.breaker_timeout_threshold < 1:
            raise SettingsError("HOOKLINE_INITIAL_CONCURRENCY and HOOKLINE_BREAKER_TIMEOUT_THRESHOLD must be at least 1")

    def _check_batches(self) -> None:
        """The delivery lanes' batches, as their SQS event sources take them."""
        for lane, size, window in (
            ("DELIVERY", self.delivery_batch_size, self.delivery_batch_window_seconds),
            ("RETRY", self.retry_batch_size, self.retry_batch_window_seconds),
        ):
            if not 1 <= size <= 100:
                raise SettingsError(f"HOOKLINE_{lane}_BATCH_SIZE={size}: must be 1..100 (what one invocation sends side by side)")
            if not 0 <= window <= MAX_BATCHING_WINDOW_SECONDS or (size > 10 and window < 1):
                raise SettingsError(
                    f"HOOKLINE_{lane}_BATCH_WINDOW_SECONDS={window}: must be 0..{MAX_BATCHING_WINDOW_SECONDS}, and at least 1 with a batch above 10 (SQS's rule)"
                )

    @classmethod
    def documented(cls) -> list[tuple[str, str, str]]:
        """(env var, default, description) for every setting, for the README table."""
        rows = []
        for f in fields(cls):
            default = f.default
            shown = ",".join(str(n) for n in default) if isinstance(default, tuple) else str(default)
            rows.append((f.metadata["env"], shown, f.metadata["doc"]))
        return rows


def parse_setting(name: str, default: Any, raw: str) -> Any:
    """`raw`, the variable `name`'s text, as a value of `default`'s type (SettingsError when it is not one)."""
    try:
        if isinstance(default, bool):
            return raw.lower() in {"1", "true", "yes", "on"}
        if isinstance(default, int):
            value: Any = int(raw)
        elif isinstance(default, float):
            value = float(raw)
        elif isinstance(default, tuple):
            return parse_networks(raw)
        else:
            return raw
    except ValueError as exc:
        raise SettingsError(f"{name}={raw!r}: {exc}") from None
    if value < 0:
        raise SettingsError(f"{name}={raw!r}: must not be negative")
    return value


def parse_networks(raw: str) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in raw.split(",") if part.strip())
