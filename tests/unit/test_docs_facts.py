"""Every constant the docs quote is the code's: README.md, docs/architecture.md, operations.md, retries.md, security.md,
scaling.md and portal.md (the portal page's own constants are read from its JavaScript).

Each fact names a stable phrase of a doc and the text the sentence holding it must contain, computed from the
constant it quotes: change the constant (or the doc's number) and the fact fails, naming both. A sentence is one
sentence of a paragraph or list item, one cell of a table, or one line of a code block. Nothing runs but imports:
no network, no AWS, no CDK (the monitoring constants of infra/monitoring.py, which imports aws_cdk, are read from
its source). The README's settings table is checked row for row by tests/unit/test_settings.py, and the deploy
section's numbers by tests/e2e/test_deploy_docs.py; neither is repeated here.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from hookline.adapters import destinations as destination_puts
from hookline.adapters import sealing
from hookline.adapters.dynamo import endpoints as endpoint_items
from hookline.adapters.dynamo import event_items, keys
from hookline.adapters.dynamo import portal as portal_items
from hookline.adapters.dynamo import waits as wait_notes
from hookline.core import (
    adaptive,
    apikeys,
    auth,
    breaker,
    classify,
    customers,
    models,
    patterns,
    policy,
    polling,
    portal,
    ratelimit,
    rotation,
    sessions,
    stats,
    validation,
    versions,
    waits,
)
from hookline.core import destinations as destination_kinds
from hookline.core import settings as settings_module
from hookline.core.backoff import BackoffPolicy
from hookline.core.config import hand_on_seconds, retry_policy
from hookline.core.contract import destinations as destination_models
from hookline.core.contract import fields as contract_fields
from hookline.core.replay import FAILURES_READ_BOUND
from hookline.core.settings import MAX_AUTHORIZER_CACHE_SECONDS, MAX_BATCHING_WINDOW_SECONDS, MAX_STACK_NAME, Settings
from hookline.entrypoints import portal_kinds
from hookline.entrypoints.api import routing as api_routing
from hookline.services import broadcast, bulk, cas, catalog, drain, jobs, replay
from hookline.services import endpoints as endpoint_service
from hookline.services import events as event_service
from hookline.services import portal as portal_service
from hookline.services.delivery import emails as delivery_emails
from hookline.services.delivery import endpoint_pool
from hookline.wiring import container, topology
from infra import deploy_names, quotas, sizing
from local import frontdoor

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "layers" / "hookline" / "python" / "hookline"
README = "README.md"
ARCHITECTURE = "docs/architecture.md"
OPERATIONS = "docs/operations.md"
RETRIES = "docs/retries.md"
SECURITY = "docs/security.md"
SCALING = "docs/scaling.md"
PORTAL = "docs/portal.md"
DOCS = {name: (REPO / name).read_text() for name in (README, ARCHITECTURE, OPERATIONS, RETRIES, SECURITY, SCALING, PORTAL)}
S = Settings()
DAY = 86_400
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 12: "twelve"}
SHARES = {0.2: "a fifth", 0.25: "a quarter", 0.5: "half"}


def _units(text: str) -> list[str]:
    """A doc's paragraphs and list items (each joined into one line), table cells and code-block lines."""
    units: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            units.append(" ".join(paragraph))
            paragraph.clear()

    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            fenced = not fenced
        elif fenced:
            units.append(stripped)
        elif not stripped:
            flush()
        elif stripped.startswith("|"):
            flush()
            units.extend(cell.strip() for cell in stripped.strip("|").split(" | "))
        else:
            if stripped.startswith("#") or re.match(r"([*-]|\d+\.) ", stripped):
                flush()
            paragraph.append(stripped)
    flush()
    return units


def sentences(text: str) -> list[str]:
    return [s for unit in _units(text) for s in re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!])\s+(?=[A-Z`*(\"])", unit)]


SENTENCES = {name: sentences(text) for name, text in DOCS.items()}


def said(doc: str, phrase: str) -> list[str]:
    """Every sentence of the doc that holds the phrase (at least one)."""
    found = [s for s in SENTENCES[doc] if phrase in s]
    assert found, f"{doc} has no sentence with {phrase!r}: the fact's phrase moved, or the statement went"
    return found


def section(doc: str, heading: str) -> str:
    """The text under a heading, up to the next heading of its level or above."""
    text = DOCS[doc]
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n") + len(heading) + 1
    following = re.search(rf"^#{{1,{level}}} ", text[start:], flags=re.M)
    return text[start : start + following.start()] if following else text[start:]


def source_constant(path: Path, name: str) -> object:
    """A module-level constant read from a module's source, for a module too costly to import (aws_cdk)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("minutes", "seconds"):
                [arg] = value.args
                amount = ast.literal_eval(arg)
                assert isinstance(amount, int | float)
                return timedelta(**{value.func.attr: amount})
            return ast.literal_eval(value)
    raise AssertionError(f"{path} assigns no {name}")


def script_constant(name: str, const: str) -> int:
    """A numeric `const NAME = 123;` of one of the portal page's scripts (portal_static/<name>)."""
    found = re.search(rf"^(?:export )?const {const} = (\d+);", (PACKAGE / "entrypoints" / "portal_static" / name).read_text(), flags=re.M)
    assert found, f"portal_static/{name} declares no numeric {const}"
    return int(found[1])


PORTAL_PAGE_SIZE = script_constant("api.js", "PAGE_SIZE")
JOB_POLL_MS = script_constant("settings.js", "JOB_POLL_MS")
JOB_POLL_LIMIT = script_constant("settings.js", "JOB_POLL_LIMIT")
REPLAY_POLL_MS = script_constant("failures.js", "REPLAY_POLL_MS")

MONITORING = REPO / "infra" / "monitoring.py"
API_5XX_PERCENT = source_constant(MONITORING, "API_5XX_PERCENT")
API_5XX_LEAST = source_constant(MONITORING, "API_5XX_LEAST")
BREAKER_SPIKE_THRESHOLD = source_constant(MONITORING, "BREAKER_SPIKE_THRESHOLD")
ALARM_PERIOD = source_constant(MONITORING, "PERIOD")
assert isinstance(ALARM_PERIOD, timedelta)
FAULT_EVENTS = source_constant(REPO / "tests" / "integration" / "test_faults.py", "EVENTS")


def minutes(d: timedelta | float) -> int:
    seconds = d.total_seconds() if isinstance(d, timedelta) else d
    assert seconds % 60 == 0, seconds
    return int(seconds // 60)


def hours(seconds: float) -> str:
    return f"{seconds / 3600:g} h"


def thousands(n: int) -> str:
    return f"{n:,}"


def an_hour(seconds: float) -> str:
    assert seconds == 3600, f"the docs say 'an hour' for {seconds} s"
    return "an hour"


_XLARGE = Settings.from_env({"HOOKLINE_SIZE": "xlarge"})


def a_second(seconds: float) -> str:
    assert seconds == 1, f"the docs say 'a second' for {seconds} s"
    return "a second"


def a_minute(seconds: float) -> str:
    assert seconds == 60, f"the docs say 'a minute' for {seconds} s"
    return "a minute"


def every_minute(interval_minutes: int) -> str:
    return "every minute" if interval_minutes == 1 else f"every {interval_minutes} minutes"


def statuses(codes: frozenset[int]) -> str:
    *rest, last = sorted(codes)
    return ", ".join(str(c) for c in rest) + f" or {last}"


RETRY_SEND = topology.SEND_RETRY
RETRY_SEND_SECONDS = sum(RETRY_SEND["IntervalSeconds"] * RETRY_SEND["BackoffRate"] ** i for i in range(RETRY_SEND["MaxAttempts"]))
# A deferral hops through SQS at most its longest delay at a time: HOOKLINE_SQS_MAX_DELAY_SECONDS's default is that limit.
HOP = S.sqs_max_delay_seconds
DEFER_HOPS = waits.DEFER_HOPS_UP_TO_SECONDS // HOP
DRAIN_LOOKS = drain.IDLE_STEPS * drain.DRAIN_RECEIVES * 10  # ten letters a receive
RESERVED = sizing.reserved_total(S)


@dataclass(frozen=True)
class Fact:
    doc: str
    phrase: str  # a stable phrase of the sentence that quotes the value
    says: str  # what that sentence must also hold, from the code
    source: str  # the constant, for the failure message


FACTS = [
    # README.md: local mode's front door
    Fact(README, "a request line over", f"a request line over {thousands(frontdoor.LINE_LIMIT)} bytes with 414", "local.frontdoor.LINE_LIMIT"),
    Fact(
        README,
        "sealed in the table for every other one",
        f"until {auth.TOKEN_REFRESH_MARGIN_SECONDS:g} seconds before",
        "core.auth.TOKEN_REFRESH_MARGIN_SECONDS",
    ),
    Fact(
        README, "sealed in the table for every other one", f"{auth.TOKEN_DEFAULT_SECONDS:g} seconds when the answer has none", "core.auth.TOKEN_DEFAULT_SECONDS"
    ),
    Fact(README, "a request line over", f"more than {frontdoor.HEADER_COUNT_LIMIT} headers with 431", "local.frontdoor.HEADER_COUNT_LIMIT"),
    Fact(README, "It holds a burst of", f"a burst of {frontdoor.LISTEN_BACKLOG} connections", "local.frontdoor.LISTEN_BACKLOG"),
    # README.md: the API
    Fact(
        README,
        '"rate_limit_per_second"? (',
        f'"rate_limit_per_second"? ({models.DEFAULT_RATE_LIMIT_PER_SECOND:g})',
        "core.models.DEFAULT_RATE_LIMIT_PER_SECOND",
    ),
    Fact(README, '"max_concurrency"? (', f'"max_concurrency"? ({models.DEFAULT_MAX_CONCURRENCY})', "core.models.DEFAULT_MAX_CONCURRENCY"),
    Fact(README, "Both limits are ceilings: a new endpoint starts at", f"starts at {S.initial_concurrency} requests in flight", "HOOKLINE_INITIAL_CONCURRENCY"),
    Fact(
        README,
        "One owner (a customer, or the tenant's own) has at most",
        f"`HOOKLINE_MAX_ENDPOINTS_PER_OWNER` endpoints ({S.max_endpoints_per_owner})",
        "HOOKLINE_MAX_ENDPOINTS_PER_OWNER",
    ),
    Fact(README, "each counted up to", f"each counted up to {thousands(endpoint_service.BACKLOG_COUNT_BOUND)}", "services.endpoints.BACKLOG_COUNT_BOUND"),
    Fact(
        README,
        "the replaced secret keeps signing for",
        f"`HOOKLINE_SECRET_OVERLAP_SECONDS` ({hours(S.secret_overlap_seconds)})",
        "HOOKLINE_SECRET_OVERLAP_SECONDS",
    ),
    Fact(README, "one signature per live secret", f"at most {rotation.MAX_LIVE_SECRETS} secrets at once", "core.rotation.MAX_LIVE_SECRETS"),
    Fact(README, "re-queues the paused deliveries (a page of", f"a page of {bulk.REQUEUE_PAGE} per step", "services.bulk.REQUEUE_PAGE"),
    Fact(README, "counted by the hour they were created in", f"reading at most {thousands(FAILURES_READ_BOUND)}", "core.replay.FAILURES_READ_BOUND"),
    Fact(README, '`{"events": [up to', f"up to {validation.MAX_BATCH_EVENTS} events", "core.validation.MAX_BATCH_EVENTS"),
    # README.md: polling endpoints
    Fact(README, "a polling endpoint's next webhooks", f"`limit` 1 to {polling.MAX_LIMIT} ({polling.DEFAULT_LIMIT})", "core.polling.MAX_LIMIT, DEFAULT_LIMIT"),
    Fact(README, "A webhook is readable", f"readable {polling.SETTLE_SECONDS:g} seconds after", "core.polling.SETTLE_SECONDS"),
    Fact(README, "A webhook is readable", f"later than {polling.LATE_SECONDS:g} seconds after acceptance", "core.polling.LATE_SECONDS"),
    Fact(README, "One API Gateway request instead of", f"instead of up to {validation.MAX_BATCH_EVENTS}", "core.validation.MAX_BATCH_EVENTS"),
    Fact(README, "the fan-out runs off the request path as a job", f"a page of {broadcast.PAGE} endpoints per step", "services.broadcast.PAGE"),
    Fact(
        OPERATIONS,
        "each index start at `HOOKLINE_TABLE_MIN_READ_CAPACITY`",
        f"`HOOKLINE_TABLE_MIN_WRITE_CAPACITY` ({S.table_min_write_capacity} each)",
        "HOOKLINE_TABLE_MIN_WRITE_CAPACITY",
    ),
    Fact(
        OPERATIONS,
        "each index start at `HOOKLINE_TABLE_MIN_READ_CAPACITY`",
        f"keeps {settings_module.TABLE_CAPACITY_TARGET_PERCENT} % of",
        "core.settings.TABLE_CAPACITY_TARGET_PERCENT",
    ),
    Fact(
        OPERATIONS,
        "`HOOKLINE_TABLE_MAX_WRITE_CAPACITY` (",
        f"`HOOKLINE_TABLE_MAX_WRITE_CAPACITY` ({S.table_max_write_capacity} each)",
        "HOOKLINE_TABLE_MAX_WRITE_CAPACITY",
    ),
    Fact(
        README,
        "a page reads the tenant's endpoints from the cursor",
        f"has read {thousands(event_service.BROADCAST_SCAN_BOUND)} endpoints",
        "services.events.BROADCAST_SCAN_BOUND",
    ),
    Fact(
        ARCHITECTURE,
        "are found, the endpoints end, or",
        f"{thousands(event_service.BROADCAST_SCAN_BOUND)}",
        "services.events.BROADCAST_SCAN_BOUND",
    ),
    Fact(
        ARCHITECTURE,
        "The mark holds `index_from`,",
        f"{endpoint_items.OWN_INDEX_SETTLE_SECONDS:g} seconds (`OWN_INDEX_SETTLE_SECONDS`)",
        "adapters.dynamo.endpoints.OWN_INDEX_SETTLE_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "then PutItem of the mark, `index_from`",
        f"`index_from` {endpoint_items.OWN_INDEX_SETTLE_SECONDS:g} s on",
        "adapters.dynamo.endpoints.OWN_INDEX_SETTLE_SECONDS",
    ),
    Fact(ARCHITECTURE, "* **Delivery log**: an endpoint's deliveries", f"`keys.DELIVERY_SHARDS` ({keys.DELIVERY_SHARDS}) partitions", "keys.DELIVERY_SHARDS"),
    Fact(ARCHITECTURE, "Query each of the endpoint's", f"each of the endpoint's {keys.DELIVERY_SHARDS} partitions", "keys.DELIVERY_SHARDS"),
    Fact(ARCHITECTURE, "Query the read-only index `endpoint-log`", f"each of its {keys.LOG_SHARDS} partitions", "keys.LOG_SHARDS"),
    Fact(README, '"metadata"? (up to', f"(up to {validation.MAX_METADATA_KEYS} string pairs)", "core.validation.MAX_METADATA_KEYS"),
    Fact(
        README,
        '"max_rate_per_second" (',
        f'"max_rate_per_second" ({customers.DEFAULT_CUSTOMER_RATE_PER_SECOND:g})',
        "core.customers.DEFAULT_CUSTOMER_RATE_PER_SECOND",
    ),
    Fact(README, '"max_concurrency" (', f'"max_concurrency" ({customers.DEFAULT_CUSTOMER_CONCURRENCY})', "core.customers.DEFAULT_CUSTOMER_CONCURRENCY"),
    Fact(README, "its endpoints go by the job (", f"its endpoints go by the job ({bulk.DELETE_PAGE} per step)", "services.bulk.DELETE_PAGE"),
    Fact(README, '"allowed_origins": [up to', f"[up to {portal.MAX_ORIGINS} `https://host[:port]`]", "core.portal.MAX_ORIGINS"),
    Fact(
        README,
        '"ttl_seconds"? (',
        f'"ttl_seconds"? ({sessions.DEFAULT_TTL_SECONDS}, at most {sessions.MAX_TTL_SECONDS})',
        "core.sessions.DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS",
    ),
    Fact(
        README,
        "every session of the customer made so far is refused",
        f"({MAX_AUTHORIZER_CACHE_SECONDS} s at most)",
        "core.settings.MAX_AUTHORIZER_CACHE_SECONDS",
    ),
    Fact(
        README,
        "413 body over",
        f"413 body over {S.max_event_bytes // 1024} KB ({S.max_batch_bytes // 1024**2} MB for a batch)",
        "HOOKLINE_MAX_EVENT_BYTES, HOOKLINE_MAX_BATCH_BYTES",
    ),
    Fact(README, "The job runs on the jobs queue", f"a page of {bulk.REQUEUE_PAGE} per step", "services.bulk.REQUEUE_PAGE"),
    # README.md: what a receiver gets
    Fact(README, "retries stop `HOOKLINE_MAX_AGE_SECONDS` after the event", f"{S.max_age_seconds / DAY:g} days by default", "HOOKLINE_MAX_AGE_SECONDS"),
    Fact(README, "attempts by default; see", f"({S.max_attempts} attempts by default", "HOOKLINE_MAX_ATTEMPTS"),
    Fact(
        README,
        "each has its own rate and concurrency ceiling",
        f"({models.DEFAULT_RATE_LIMIT_PER_SECOND:g}/s and {models.DEFAULT_MAX_CONCURRENCY} at once by default)",
        "core.models defaults",
    ),
    Fact(README, "A new endpoint starts at", f"starts at {S.initial_concurrency} requests at once", "HOOKLINE_INITIAL_CONCURRENCY"),
    Fact(
        README, "earns more while its latency holds steady", f"a timeout, {statuses(adaptive.OVERLOAD_STATUSES)} lowers it", "core.adaptive.OVERLOAD_STATUSES"
    ),
    Fact(
        README,
        "a circuit breaker stops sending after",
        f"after {S.breaker_threshold} consecutive failures ({S.breaker_timeout_threshold} timeouts)",
        "HOOKLINE_BREAKER_THRESHOLD, _TIMEOUT_THRESHOLD",
    ),
    Fact(README, "a circuit breaker stops sending after", f"probing {a_minute(S.breaker_cooldown_seconds)} later", "HOOKLINE_BREAKER_COOLDOWN_SECONDS"),
    Fact(
        README,
        "a circuit breaker stops sending after",
        f"then {every_minute(minutes(S.breaker_probe_interval_seconds))}, until",
        "HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS",
    ),
    Fact(README, "An endpoint failing for", f"An endpoint failing for {S.disable_after_seconds / DAY:g} days is", "HOOKLINE_DISABLE_AFTER_SECONDS"),
    Fact(
        README, "of your response body is kept", f"first {S.response_body_limit_bytes // 1024} KB of your response body", "HOOKLINE_RESPONSE_BODY_LIMIT_BYTES"
    ),
    Fact(README, "of your response body is kept", f"({S.success_body_limit_bytes} bytes of a 2xx's)", "HOOKLINE_SUCCESS_BODY_LIMIT_BYTES"),
    # README.md: payload versions
    Fact(README, "Every tenant has", f"Every tenant has `{versions.BASE_VERSION}`", "core.versions.BASE_VERSION"),
    Fact(README, "or has more than", f"more than {patterns.MAX_PATTERN_POSITIONS} positions", "core.patterns.MAX_PATTERN_POSITIONS"),
    Fact(
        README,
        "`\\w` and `\\d` count as",
        f"count as {patterns.UNICODE_CLASS_POSITIONS}, and a pattern with `\\b` {patterns.UNICODE_CLASS_POSITIONS} times",
        "core.patterns.UNICODE_CLASS_POSITIONS",
    ),
    Fact(
        README,
        "or when a schema's patterns have",
        f"more than {thousands(patterns.MAX_SCHEMA_PATTERN_POSITIONS)} together",
        "core.patterns.MAX_SCHEMA_PATTERN_POSITIONS",
    ),
    Fact(
        README, "the endpoints pinned to it (`count`, read up to", f"read up to {thousands(catalog.PINNED_COUNT_BOUND)}", "services.catalog.PINNED_COUNT_BOUND"
    ),
    Fact(README, "the endpoints pinned to it (`count`, read up to", f"the first {catalog.PINNED_IDS_SHOWN} `ids`", "services.catalog.PINNED_IDS_SHOWN"),
    Fact(README, "the endpoints pinned to it (`count`, read up to", f"over the last {catalog.USAGE_DAYS} days", "services.catalog.USAGE_DAYS"),
    # docs/architecture.md: the map
    Fact(ARCHITECTURE, "authorizer λ: API key or portal session", f"(cached ≤ {MAX_AUTHORIZER_CACHE_SECONDS} s)", "core.settings.MAX_AUTHORIZER_CACHE_SECONDS"),
    Fact(
        ARCHITECTURE,
        "or a deferral ≤",
        f"a delay ≤ {S.sqs_max_delay_seconds} s, or a deferral ≤ {hours(waits.DEFER_HOPS_UP_TO_SECONDS)}",
        "HOOKLINE_SQS_MAX_DELAY_SECONDS, DEFER_HOPS_UP_TO_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "(either queue's redrive policy)",
        f"failing {topology.DELIVERY_QUEUE.max_receive_count} receives",
        "topology.DELIVERY_QUEUE.max_receive_count",
    ),
    Fact(
        ARCHITECTURE, "(either queue's redrive policy)", f"failing {topology.RETRY_QUEUE.max_receive_count} receives", "topology.RETRY_QUEUE.max_receive_count"
    ),
    Fact(
        ARCHITECTURE,
        "one a redrive policy moved there after",
        f"after {topology.DELIVERY_QUEUE.max_receive_count} failed receives",
        "topology.DELIVERY_QUEUE.max_receive_count",
    ),
    Fact(ARCHITECTURE, "──▶ jobs DLQ", f"a step failing {topology.JOBS_QUEUE.max_receive_count} receives", "topology.JOBS_QUEUE.max_receive_count"),
    Fact(ARCHITECTURE, "EventBridge Scheduler, every", f"EventBridge Scheduler, {every_minute(S.sweep_interval_minutes)}", "HOOKLINE_SWEEP_INTERVAL_MINUTES"),
    # docs/architecture.md: the stack and the data flow
    Fact(ARCHITECTURE, "hookline is a CDK stack of managed parts", f"{WORDS[len(topology.FUNCTIONS)]} Lambda functions", "topology.FUNCTIONS"),
    *(Fact(ARCHITECTURE, "hookline is a CDK stack of managed parts", f"`{spec.name}`", f"topology.FUNCTIONS ({spec.name})") for spec in topology.FUNCTIONS),
    Fact(
        ARCHITECTURE,
        "API Gateway caches its answer per header",
        f"`HOOKLINE_AUTHORIZER_CACHE_SECONDS` ({MAX_AUTHORIZER_CACHE_SECONDS} s at most)",
        "core.settings.MAX_AUTHORIZER_CACHE_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "runs the same code on the retry queue",
        f"({S.retry_concurrency}, against the delivery function's {S.delivery_concurrency}) and batches of {S.retry_batch_size}",
        "HOOKLINE_RETRY_CONCURRENCY, _DELIVERY_CONCURRENCY, _RETRY_BATCH_SIZE",
    ),
    Fact(ARCHITECTURE, "runs the same code on the retry queue", "(gathered for at most a second)", "topology.RETRY.sqs_source.max_batching_window_seconds"),
    Fact(
        ARCHITECTURE,
        "a latency baseline of",
        f"a latency baseline of {adaptive.AdaptiveConfig.slow_seconds * 1000:g} ms or more",
        "core.adaptive.AdaptiveConfig.slow_seconds",
    ),
    Fact(
        ARCHITECTURE,
        "is longer than the source's",
        f"({topology.DELIVERY_DLQ.retention_seconds // DAY} days) is longer than the source's ({topology.DELIVERY_QUEUE.retention_seconds // DAY} days)",
        "topology.DELIVERY_DLQ / DELIVERY_QUEUE retention_seconds",
    ),
    Fact(
        ARCHITECTURE,
        "leaves its message invisible until the visibility timeout",
        f"({(topology.DELIVERY_QUEUE.visibility_timeout_seconds - MAX_BATCHING_WINDOW_SECONDS) // topology.DELIVERY_TIMEOUT_SECONDS} × the function timeout plus the longest batching window the settings allow: {topology.DELIVERY_QUEUE.visibility_timeout_seconds // 60} minutes)",
        "topology.DELIVERY_QUEUE.visibility_timeout_seconds",
    ),
    Fact(
        ARCHITECTURE,
        "the claim is a lease that expires after",
        f"expires after {topology.CLAIM_LEASE_SECONDS // topology.DELIVERY_TIMEOUT_SECONDS} × the function timeout",
        "topology.CLAIM_LEASE_SECONDS",
    ),
    Fact(ARCHITECTURE, "(`HOOKLINE_SWEEP_GRACE_SECONDS`,", f"(`HOOKLINE_SWEEP_GRACE_SECONDS`, {S.sweep_grace_seconds:g} s)", "HOOKLINE_SWEEP_GRACE_SECONDS"),
    Fact(
        ARCHITECTURE,
        "the retry queue, after its own retries (",
        f"after its own retries ({RETRY_SEND['MaxAttempts']}, about {round(RETRY_SEND_SECONDS / 60)} minutes) or a {topology.SEND_TIMEOUT_SECONDS} s timeout",
        "topology.SEND_RETRY, SEND_TIMEOUT_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "minute's notes more than `HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS`",
        f"`HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS` ({S.sweep_wait_margin_seconds:g} s)",
        "HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "due, since its own checkpoint, one Query page",
        f"one Query page ({waits.NOTES_PER_PAGE}) at a time and at most {thousands(waits.MAX_NOTES_PER_SWEEP)} notes a run",
        "core.waits.NOTES_PER_PAGE, MAX_NOTES_PER_SWEEP",
    ),
    Fact(
        ARCHITECTURE,
        "a sweeper stopped for longer than a note lives",
        "(its TTL, a week past due)" if timedelta(days=7) == wait_notes.KEPT else "?",
        "adapters.dynamo.waits.KEPT",
    ),
    Fact(
        ARCHITECTURE,
        "up to `core.config.hand_on_seconds`",
        f"`core.config.hand_on_seconds` ({hand_on_seconds(S, topology.DELIVERY_TIMEOUT_SECONDS):g} s)",
        "core.config.hand_on_seconds with topology.DELIVERY_TIMEOUT_SECONDS",
    ),
    # docs/architecture.md: broadcasts and bulk jobs
    Fact(ARCHITECTURE, "one page of 100 endpoints of the tenant's", f"one page of {broadcast.PAGE} endpoints", "services.broadcast.PAGE"),
    Fact(ARCHITECTURE, "A step is bounded:", f"{broadcast.PAGE} puts and at most {math.ceil(broadcast.PAGE / 10)} SQS batches", "services.broadcast.PAGE"),
    Fact(
        ARCHITECTURE,
        "Each minute the sweeper resumes a running job unchanged for",
        f"unchanged for {minutes(jobs.STALLED_AFTER)} minutes",
        "services.jobs.STALLED_AFTER",
    ),
    Fact(
        ARCHITECTURE,
        "the job's first step waits (",
        f"({bulk.ACTIVATION_POLL_SECONDS} s at a time, up to {minutes(bulk.ACTIVATION_WAIT)} minutes)",
        "services.bulk.ACTIVATION_POLL_SECONDS, ACTIVATION_WAIT",
    ),
    Fact(ARCHITECTURE, "Each step takes 100 paused", f"Each step takes {bulk.REQUEUE_PAGE} paused", "services.bulk.REQUEUE_PAGE"),
    Fact(
        ARCHITECTURE,
        "of its endpoints from the customer-endpoints index",
        f"each step deletes {bulk.DELETE_PAGE} of its endpoints",
        "services.bulk.DELETE_PAGE",
    ),
    Fact(
        ARCHITECTURE, "failed (or paused) deliveries of the window from the endpoint-deliveries", f"up to {replay.MAX_PAGE} failed", "services.replay.MAX_PAGE"
    ),
    Fact(
        ARCHITECTURE,
        "(at most ten minutes' worth at the endpoint's rate)",
        f"(at most {WORDS[minutes(replay.PAGE_SECONDS)]} minutes' worth",
        "services.replay.PAGE_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "Each step receives up to",
        f"up to {drain.DRAIN_PAGE} matching dead letters (at most {drain.DRAIN_RECEIVES} receives)",
        "services.drain.DRAIN_PAGE, DRAIN_RECEIVES",
    ),
    Fact(ARCHITECTURE, "receives for 15 minutes (900 s)", f"for {minutes(drain.HIDE_SECONDS)} minutes ({drain.HIDE_SECONDS} s)", "services.drain.HIDE_SECONDS"),
    Fact(
        ARCHITECTURE,
        "empty receives in a row and no letter visible",
        f"({WORDS[drain.EMPTY_RECEIVES]} empty receives in a row",
        "services.drain.EMPTY_RECEIVES",
    ),
    Fact(
        ARCHITECTURE,
        "steps in a row that moved nothing (up to",
        f"after {drain.IDLE_STEPS} steps in a row that moved nothing (up to {thousands(DRAIN_LOOKS)} letters looked at)",
        "services.drain.IDLE_STEPS",
    ),
    Fact(ARCHITECTURE, "the job is cancelled (that release was", an_hour(jobs.UNKNOWN_KIND_PATIENCE.total_seconds()), "services.jobs.UNKNOWN_KIND_PATIENCE"),
    Fact(ARCHITECTURE, "which each process keeps for", f"`HOOKLINE_CATALOG_CACHE_SECONDS` ({S.catalog_cache_seconds:g} s)", "HOOKLINE_CATALOG_CACHE_SECONDS"),
    # docs/architecture.md: per-endpoint isolation
    Fact(ARCHITECTURE, "(410 Gone, a", f"a {S.disable_after_seconds / DAY:g}-day outage", "HOOKLINE_DISABLE_AFTER_SECONDS"),
    Fact(
        ARCHITECTURE,
        "a failed one reopens it until",
        f"reopens it until {minutes(S.breaker_probe_interval_seconds)} minutes after that probe was taken (the first probe comes {S.breaker_cooldown_seconds:g} s after opening)",
        "HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS, _COOLDOWN_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "in hops of at most",
        f"of up to {WORDS[waits.DEFER_HOPS_UP_TO_SECONDS // 3600]} hours wait on the retry queue, in hops of at most {HOP // 60} minutes",
        "core.waits.DEFER_HOPS_UP_TO_SECONDS, HOOKLINE_SQS_MAX_DELAY_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "like retries after a failed attempt whose delay",
        f"`HOOKLINE_SQS_MAX_DELAY_SECONDS` ({S.sqs_max_delay_seconds} s)",
        "HOOKLINE_SQS_MAX_DELAY_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "like retries after a failed attempt whose delay",
        f"`HOOKLINE_SQS_HOPS_UP_TO_SECONDS` ({S.sqs_hops_up_to_seconds // 3600} h)",
        "HOOKLINE_SQS_HOPS_UP_TO_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "parked behind an open breaker costs",
        f"costs {WORDS[int(3600 // S.breaker_probe_interval_seconds)]} hops an hour",
        "3600 / HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "concurrency leases (at most the endpoint's adaptive",
        f"{topology.CLAIM_LEASE_SECONDS // topology.DELIVERY_TIMEOUT_SECONDS} × the function timeout",
        "container.LEASE_SECONDS",
    ),
    Fact(ARCHITECTURE, "One conditional write grants the", "at most half of a limit of 8 or more", "core.ratelimit.batch_share (checked below)"),
    Fact(
        ARCHITECTURE,
        "it then recovers by",
        f"recovers by {ratelimit.LimiterConfig.recovery_per_second:g} requests/s every second",
        "core.ratelimit.LimiterConfig.recovery_per_second",
    ),
    Fact(
        ARCHITECTURE,
        "A 429 halves the effective rate",
        "halves" if ratelimit.LimiterConfig.decrease_factor == 0.5 else "?",
        "core.ratelimit.LimiterConfig.decrease_factor",
    ),
    Fact(ARCHITECTURE, "an endpoint starts at", f"an endpoint starts at {S.initial_concurrency} requests in flight", "HOOKLINE_INITIAL_CONCURRENCY"),
    Fact(
        ARCHITECTURE,
        "while its latency stays within",
        f"within {adaptive.AdaptiveConfig.steady:g}x of its baseline (a baseline under {adaptive.AdaptiveConfig.baseline_floor_seconds * 1000:g} ms counts as {adaptive.AdaptiveConfig.baseline_floor_seconds * 1000:g} ms",
        "core.adaptive.AdaptiveConfig.steady, baseline_floor_seconds",
    ),
    Fact(
        ARCHITECTURE,
        "while its latency stays within",
        f"(past {adaptive.AdaptiveConfig.steady:g}x) it stops growing, past {adaptive.AdaptiveConfig.tolerance:g}x it is lowered",
        "core.adaptive.AdaptiveConfig.steady, tolerance",
    ),
    Fact(
        ARCHITECTURE,
        "while its latency stays within",
        f"by about {SHARES[adaptive.AdaptiveConfig.smoothing]} of its square root",
        "core.adaptive.AdaptiveConfig.smoothing",
    ),
    Fact(
        ARCHITECTURE,
        "while its latency stays within",
        f"(a ceiling, default {models.DEFAULT_MAX_CONCURRENCY}; `rate_limit_per_second` is a ceiling too, default {models.DEFAULT_RATE_LIMIT_PER_SECOND:g}/s)",
        "core.models defaults",
    ),
    Fact(
        ARCHITECTURE,
        "while its latency stays within",
        f"a timeout, {statuses(adaptive.OVERLOAD_STATUSES)} {'halves' if adaptive.AdaptiveConfig.backoff == 0.5 else '?'} it",
        "core.adaptive.OVERLOAD_STATUSES, AdaptiveConfig.backoff",
    ),
    Fact(
        ARCHITECTURE,
        "`HOOKLINE_BREAKER_TIMEOUT_THRESHOLD` (",
        f"`HOOKLINE_BREAKER_TIMEOUT_THRESHOLD` ({S.breaker_timeout_threshold})",
        "HOOKLINE_BREAKER_TIMEOUT_THRESHOLD",
    ),
    Fact(
        ARCHITECTURE,
        "consecutive timeouts, or when",
        f"when {S.breaker_failure_rate * 100:g} % of the last {S.breaker_window} attempts failed",
        "HOOKLINE_BREAKER_FAILURE_RATE, _WINDOW",
    ),
    Fact(
        ARCHITECTURE,
        "endpoint-deliveries` index evaluating at most",
        f'at most {thousands(delivery_emails.WAITING_COUNT_BOUND)} items: above that the email says "at least {delivery_emails.WAITING_COUNT_BOUND}"',
        "services.delivery.emails.WAITING_COUNT_BOUND",
    ),
    Fact(
        ARCHITECTURE,
        "`HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS` (",
        f"`HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS` ({hours(S.email_portal_session_seconds)}",
        "HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "and starts afresh after",
        f"afresh after {an_hour(breaker.BreakerConfig.history_seconds)} without a failure",
        "core.breaker.BreakerConfig.history_seconds",
    ),
    Fact(ARCHITECTURE, "a rate limit is capped at", f"capped at {validation.MAX_RATE_PER_SECOND:g}/s", "core.validation.MAX_RATE_PER_SECOND"),
    Fact(ARCHITECTURE, "`HOOKLINE_TOKEN_LEASE_MIN_RATE` (", f"({thousands(int(S.token_lease_min_rate))}/s)", "HOOKLINE_TOKEN_LEASE_MIN_RATE"),
    Fact(
        ARCHITECTURE,
        "and writes them once they are",
        f"once they are {a_second(stats.HOLD_SECONDS)} old or count {stats.HOLD_ATTEMPTS} attempts",
        "core.stats.HOLD_*",
    ),
    Fact(ARCHITECTURE, "An instance that runs no", f"fewer than {stats.HOLD_ATTEMPTS} attempts' counters", "core.stats.HOLD_ATTEMPTS"),
    Fact(
        ARCHITECTURE,
        "held by the process across its batches until",
        f"until they are {a_second(stats.HOLD_SECONDS)} old or count {stats.HOLD_ATTEMPTS} attempts",
        "core.stats.HOLD_*",
    ),
    Fact(ARCHITECTURE, "held by the process across its batches until", f"or per {stats.HOLD_ATTEMPTS} deliveries", "core.stats.HOLD_ATTEMPTS"),
    Fact(
        ARCHITECTURE,
        "A hot endpoint (token leases) writes",
        f"once per instance {a_second(stats.HOLD_SECONDS)} or per {stats.HOLD_ATTEMPTS} deliveries",
        "core.stats.HOLD_*",
    ),
    Fact(ARCHITECTURE, "A hot endpoint (token leases) writes", f"its delivery log over {keys.DELIVERY_SHARDS} partitions", "keys.DELIVERY_SHARDS"),
    Fact(
        ARCHITECTURE,
        "The version-use item (the tenant's, per version and day) takes",
        f"most one write per instance every {stats.VERSION_USE_HOLD_SECONDS:g} s",
        "core.stats.VERSION_USE_HOLD_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "once per (version, day) and instance every",
        f"`VERSION_USE_HOLD_SECONDS` ({stats.VERSION_USE_HOLD_SECONDS:g} s)",
        "core.stats.VERSION_USE_HOLD_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "endpoints: each instance writes it at most once every",
        f"every {stats.VERSION_USE_HOLD_SECONDS:g} s, so at the xlarge profile's {_XLARGE.delivery_concurrency + _XLARGE.retry_concurrency} delivery and retry "
        f"instances it takes at most {int((_XLARGE.delivery_concurrency + _XLARGE.retry_concurrency) / stats.VERSION_USE_HOLD_SECONDS)} writes a",
        "core.stats.VERSION_USE_HOLD_SECONDS, core.profiles",
    ),
    # docs/architecture.md: the table and its access patterns
    Fact(ARCHITECTURE, "the tenant's payload versions (name, created", f"at most {versions.MAX_VERSIONS})", "core.versions.MAX_VERSIONS"),
    Fact(
        ARCHITECTURE,
        "a string set of the event types the tenant has sent",
        f"(at most {thousands(portal_items.MAX_TYPES)})",
        "adapters.dynamo.portal.MAX_TYPES",
    ),
    Fact(ARCHITECTURE, "recorded outcomes (each failure", f"last {breaker.HISTORY} recorded outcomes", "core.breaker.HISTORY"),
    Fact(
        ARCHITECTURE,
        "a body over",
        f"a body over {event_items.COMPRESS_ABOVE_BYTES} bytes is stored zlib-compressed",
        "adapters.dynamo.event_items.COMPRESS_ABOVE_BYTES",
    ),
    Fact(ARCHITECTURE, "`Select=COUNT`, `Limit`", f"`Limit` {thousands(endpoint_service.BACKLOG_COUNT_BOUND)}", "services.endpoints.BACKLOG_COUNT_BOUND"),
    Fact(ARCHITECTURE, "newest first, pages of 1,000, at most", f"at most {thousands(FAILURES_READ_BOUND)} items", "core.replay.FAILURES_READ_BOUND"),
    Fact(ARCHITECTURE, "Query `UNQ#<minute>#<shard>`,", f"{keys.UNQUEUED_SHARDS} shards", "adapters.dynamo.keys.UNQUEUED_SHARDS"),
    Fact(
        ARCHITECTURE,
        "Query `WAIT#<minute>#<shard>`,",
        f"{keys.WAIT_SHARDS} shards, pages of {waits.NOTES_PER_PAGE}, at most {thousands(waits.MAX_NOTES_PER_SWEEP)} notes a run",
        "adapters.dynamo.keys.WAIT_SHARDS, core.waits",
    ),
    Fact(ARCHITECTURE, "a process remembers at most", f"at most {thousands(portal_service.SEEN_BOUND)} pairs", "services.portal.SEEN_BOUND"),
    Fact(ARCHITECTURE, "keys only, up to", f"up to {thousands(catalog.PINNED_COUNT_BOUND + 1)} keys", "services.catalog.PINNED_COUNT_BOUND"),
    Fact(ARCHITECTURE, "and the write is retried, up to", f"up to {WORDS[cas.SAVE_TRIES]} tries", "services.cas.SAVE_TRIES"),
    Fact(ARCHITECTURE, "cond. on `revision` (", f"({WORDS[catalog.SAVE_TRIES]} tries)", "services.catalog.SAVE_TRIES"),
    Fact(
        ARCHITECTURE,
        "one thread per endpoint (all of a batch's, up to",
        f"up to {endpoint_pool.PARALLEL_ENDPOINTS})",
        "services.delivery.endpoint_pool.PARALLEL_ENDPOINTS",
    ),
    # docs/operations.md
    Fact(
        OPERATIONS,
        "a queue's oldest message is older than",
        f"`HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS` ({S.oldest_message_alarm_seconds} s;",
        "HOOKLINE_OLDEST_MESSAGE_ALARM_SECONDS",
    ),
    Fact(
        OPERATIONS,
        "a queue's oldest message is older than",
        f"{S.sqs_max_delay_seconds} s more, `HOOKLINE_SQS_MAX_DELAY_SECONDS`",
        "HOOKLINE_SQS_MAX_DELAY_SECONDS (infra.monitoring)",
    ),
    Fact(
        OPERATIONS,
        "breakers opened within",
        f"{BREAKER_SPIKE_THRESHOLD} or more endpoints' breakers opened within {minutes(ALARM_PERIOD)} minutes",
        "infra.monitoring.BREAKER_SPIKE_THRESHOLD, PERIOD",
    ),
    Fact(
        OPERATIONS,
        "the API answered 5xx to more than",
        f"more than {API_5XX_PERCENT} % of its requests in {minutes(ALARM_PERIOD)} minutes, {API_5XX_LEAST} or more of them",
        "infra.monitoring.API_5XX_PERCENT, API_5XX_LEAST, PERIOD",
    ),
    Fact(
        OPERATIONS,
        "dependency failure such as DynamoDB throttling) on its",
        f"on its {topology.DELIVERY_QUEUE.max_receive_count}th receive",
        "topology.DELIVERY_QUEUE.max_receive_count",
    ),
    Fact(
        OPERATIONS,
        "or hookline itself failed to process a task",
        f"a task {topology.DELIVERY_QUEUE.max_receive_count} times",
        "topology.DELIVERY_QUEUE.max_receive_count",
    ),
    Fact(
        README,
        "A repeat queues",
        f"`HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS` ({S.repeat_requeue_delay_seconds} s) later",
        "HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS",
    ),
    Fact(
        ARCHITECTURE,
        "the copy waits in the queue for",
        f"({topology.DELIVERY_TIMEOUT_SECONDS} s, the delivery function's timeout",
        "topology.DELIVERY_TIMEOUT_SECONDS: HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS's default is it",
    ),
    Fact(OPERATIONS, "lost the race to other batches on all", f"on all {cas.SAVE_TRIES} tries", "services.cas.SAVE_TRIES"),
    Fact(
        OPERATIONS,
        "the leases expire on their own within",
        f"within {topology.CLAIM_LEASE_SECONDS} s ({topology.CLAIM_LEASE_SECONDS // topology.DELIVERY_TIMEOUT_SECONDS} × the function timeout)",
        "topology.CLAIM_LEASE_SECONDS",
    ),
    Fact(OPERATIONS, "a step on the jobs queue failed", f"failed {topology.JOBS_QUEUE.max_receive_count} times", "topology.JOBS_QUEUE.max_receive_count"),
    Fact(
        OPERATIONS,
        "(retries and deferrals more than",
        f"(retries and deferrals more than {WORDS[S.sqs_hops_up_to_seconds // 3600]} hours away, `HOOKLINE_SQS_HOPS_UP_TO_SECONDS`;",
        "HOOKLINE_SQS_HOPS_UP_TO_SECONDS",
    ),
    Fact(
        OPERATIONS,
        "the sweeper (every minute,",
        f"the sweeper ({every_minute(S.sweep_interval_minutes)}, `HOOKLINE_SWEEP_INTERVAL_MINUTES`)",
        "HOOKLINE_SWEEP_INTERVAL_MINUTES",
    ),
    Fact(
        OPERATIONS,
        "when its send of a long-waited retry to the retry queue still failed after",
        f"after {RETRY_SEND['MaxAttempts']} tries (about {round(RETRY_SEND_SECONDS / 60)} minutes)",
        "topology.SEND_RETRY",
    ),
    Fact(
        OPERATIONS,
        "The sweeper re-queues the retry by itself about",
        f"`HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS` ({minutes(S.sweep_wait_margin_seconds)} minutes)",
        "HOOKLINE_SWEEP_WAIT_MARGIN_SECONDS",
    ),
    Fact(
        OPERATIONS,
        "SQS's redrive policy, after",
        f"after {topology.DELIVERY_QUEUE.max_receive_count} failed receives",
        "topology.DELIVERY_QUEUE.max_receive_count",
    ),
    Fact(OPERATIONS, "step moves up to", f"moves up to {drain.DRAIN_PAGE} matching dead letters", "services.drain.DRAIN_PAGE"),
    Fact(OPERATIONS, "hidden from the drain's receives for", f"for {minutes(drain.HIDE_SECONDS)} minutes", "services.drain.HIDE_SECONDS"),
    Fact(
        OPERATIONS,
        "steps in a row that found none of its own",
        f"after {drain.IDLE_STEPS} steps in a row that found none of its own (up to {thousands(DRAIN_LOOKS)} letters looked at",
        "services.drain.IDLE_STEPS",
    ),
    Fact(
        OPERATIONS,
        "`HOOKLINE_AUTHORIZER_CACHE_SECONDS` (",
        f"`HOOKLINE_AUTHORIZER_CACHE_SECONDS` ({MAX_AUTHORIZER_CACHE_SECONDS} s at most)",
        "core.settings.MAX_AUTHORIZER_CACHE_SECONDS",
    ),
    Fact(OPERATIONS, "An alarm goes off when more than", f"more than {deploy_names.CANARY_PERCENT} failure per 100", "infra.deploy_names.CANARY_PERCENT"),
    Fact(OPERATIONS, "An alarm goes off when more than", f"once at least {deploy_names.CANARY_LEAST} failed", "infra.deploy_names.CANARY_LEAST"),
    Fact(OPERATIONS, "invocations happened within", f"within {minutes(ALARM_PERIOD)} minutes", "infra.monitoring.PERIOD"),
    Fact(OPERATIONS, "a new version that fails fewer than", f"fewer than {deploy_names.CANARY_LEAST} times", "infra.deploy_names.CANARY_LEAST"),
    Fact(OPERATIONS, "An alarm goes off when more than", f"at low volume {deploy_names.CANARY_LEAST} failures", "infra.deploy_names.CANARY_LEAST"),
    Fact(OPERATIONS, "(at most 32 characters", f"(at most {MAX_STACK_NAME} characters", "core.settings.MAX_STACK_NAME"),
    Fact(
        OPERATIONS,
        "The delivery, retry and jobs functions reserve",
        f"`HOOKLINE_DELIVERY_CONCURRENCY` ({S.delivery_concurrency}), `HOOKLINE_RETRY_CONCURRENCY` ({S.retry_concurrency}) and `HOOKLINE_JOBS_CONCURRENCY` ({S.jobs_concurrency}): {RESERVED}",
        "the concurrency settings, infra.sizing.reserved_total",
    ),
    Fact(OPERATIONS, "so the quota must be at least", f"keeps {sizing.UNRESERVED_MINIMUM} of the account's", "infra.sizing.UNRESERVED_MINIMUM"),
    Fact(OPERATIONS, "so the quota must be at least", f"must be at least {RESERVED + sizing.UNRESERVED_MINIMUM}", "infra.sizing"),
    Fact(
        OPERATIONS, "reserves nothing and caps each SQS event source at", f"caps each SQS event source at {sizing.SMALL_POLLERS}", "infra.sizing.SMALL_POLLERS"
    ),
    Fact(OPERATIONS, "(default 1000) unreserved", f"(default {S.account_concurrency_quota})", "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA"),
    Fact(OPERATIONS, "source takes at most its reservation less", f"its reservation less {sizing.DIRECT_HEADROOM}", "infra.sizing.DIRECT_HEADROOM"),
    Fact(
        OPERATIONS, "with bursts of `HOOKLINE_API_THROTTLE_BURST`", f"({S.api_throttle_rate} and {S.api_throttle_burst})", "HOOKLINE_API_THROTTLE_RATE, _BURST"
    ),
    Fact(OPERATIONS, "TTL after `HOOKLINE_RETENTION_DAYS` (", f"`HOOKLINE_RETENTION_DAYS` ({S.retention_days})", "HOOKLINE_RETENTION_DAYS"),
    Fact(
        OPERATIONS,
        "keep messages",
        f"keep messages {topology.DELIVERY_DLQ.retention_seconds // DAY} days, the delivery, retry and jobs queues {topology.DELIVERY_QUEUE.retention_seconds // DAY} days",
        "topology queue retention",
    ),
    Fact(OPERATIONS, "and the sweeper's wait notes", "wait notes a week after" if timedelta(days=7) == wait_notes.KEPT else "?", "adapters.dynamo.waits.KEPT"),
    Fact(OPERATIONS, "The sweeper resumes such a job by itself after", f"after {minutes(jobs.STALLED_AFTER)} minutes", "services.jobs.STALLED_AFTER"),
    Fact(OPERATIONS, "the sweeper resumes the job", f"the sweeper resumes the job {minutes(jobs.STALLED_AFTER)} minutes later", "services.jobs.STALLED_AFTER"),
    Fact(
        OPERATIONS,
        "The job moves the paused backlog (a page of",
        f"(a page of {bulk.REQUEUE_PAGE} per step, at the endpoint's rate), deletes the endpoints ({bulk.DELETE_PAGE} per step), fans the event out ({broadcast.PAGE} endpoints per step) or replays the window ({replay.MAX_PAGE} deliveries a page",
        "services.bulk, broadcast, replay pages",
    ),
    Fact(
        OPERATIONS,
        "a count bounded at",
        f"a count bounded at {thousands(catalog.PINNED_COUNT_BOUND)} and the first {catalog.PINNED_IDS_SHOWN} ids",
        "services.catalog",
    ),
    Fact(OPERATIONS, "the deliveries sent at it over the last", f"over the last {catalog.USAGE_DAYS} days", "services.catalog.USAGE_DAYS"),
    Fact(
        OPERATIONS, "Endpoints stored before payload versions existed read as pinned to", f"pinned to `{versions.BASE_VERSION}`", "core.versions.BASE_VERSION"
    ),
    # docs/retries.md
    Fact(RETRIES, "(never under", f"(never under {BackoffPolicy.floor_seconds:g} s)", "core.backoff.BackoffPolicy.floor_seconds"),
    Fact(RETRIES, "Attempts are capped by `HOOKLINE_MAX_ATTEMPTS`", f"({S.max_attempts}, the first included)", "HOOKLINE_MAX_ATTEMPTS"),
    Fact(RETRIES, "no retry is scheduled later than", f"`HOOKLINE_MAX_AGE_SECONDS` ({hours(S.max_age_seconds)})", "HOOKLINE_MAX_AGE_SECONDS"),
    Fact(
        RETRIES,
        "A `Retry-After` is clamped to",
        f"clamped to [{BackoffPolicy.floor_seconds:g} s, cap], and 0–{BackoffPolicy.retry_after_jitter_seconds:g} s of jitter",
        "core.backoff.BackoffPolicy.retry_after_jitter_seconds",
    ),
    Fact(
        RETRIES,
        "backoff that grows",
        f"grows ×{BackoffPolicy.rate_limited_multiplier:g} per attempt instead of ×{BackoffPolicy.multiplier:g}",
        "core.backoff.BackoffPolicy multipliers",
    ),
    Fact(
        RETRIES,
        "`HOOKLINE_RETRY_BASE_SECONDS=",
        f"`HOOKLINE_RETRY_BASE_SECONDS={S.retry_base_seconds:g}`, `HOOKLINE_RETRY_MAX_DELAY_SECONDS={S.retry_max_delay_seconds:g}`, `HOOKLINE_MAX_ATTEMPTS={S.max_attempts}`, {S.retry_jitter} jitter",
        "the retry settings' defaults",
    ),
    Fact(
        RETRIES,
        "A wait of at most `HOOKLINE_SQS_MAX_DELAY_SECONDS`",
        f"`HOOKLINE_SQS_MAX_DELAY_SECONDS` ({S.sqs_max_delay_seconds}, SQS's limit)",
        "HOOKLINE_SQS_MAX_DELAY_SECONDS",
    ),
    Fact(
        RETRIES,
        "rate or concurrency limit spent) for up to",
        f"for up to {WORDS[waits.DEFER_HOPS_UP_TO_SECONDS // 3600]} hours goes on the retry queue, for at most {HOP} s at a time",
        "core.waits.DEFER_HOPS_UP_TO_SECONDS, HOOKLINE_SQS_MAX_DELAY_SECONDS",
    ),
    Fact(RETRIES, "is planned again at most", f"at most {WORDS[DEFER_HOPS]} times per wait", "DEFER_HOPS_UP_TO_SECONDS / SQS_MAX_DELAY"),
    Fact(
        RETRIES,
        "A longer wait, up to `HOOKLINE_SQS_HOPS_UP_TO_SECONDS`",
        f"`HOOKLINE_SQS_HOPS_UP_TO_SECONDS` ({S.sqs_hops_up_to_seconds} s, {WORDS[S.sqs_hops_up_to_seconds // 3600]} hours: the default backoff cap",
        "HOOKLINE_SQS_HOPS_UP_TO_SECONDS, HOOKLINE_RETRY_MAX_DELAY_SECONDS",
    ),
    Fact(RETRIES, "the breaker opens after", f"`HOOKLINE_BREAKER_THRESHOLD` ({S.breaker_threshold}) consecutive failures", "HOOKLINE_BREAKER_THRESHOLD"),
    Fact(
        RETRIES,
        "or are parked when the endpoint is disabled",
        f"`HOOKLINE_DISABLE_AFTER_SECONDS` ({S.disable_after_seconds / DAY:g} days)",
        "HOOKLINE_DISABLE_AFTER_SECONDS",
    ),
    Fact(
        OPERATIONS,
        "From this release an owner",
        f"`HOOKLINE_MAX_ENDPOINTS_PER_OWNER` endpoints ({S.max_endpoints_per_owner} by default)",
        "HOOKLINE_MAX_ENDPOINTS_PER_OWNER",
    ),
    Fact(OPERATIONS, "if a customer needs more", f"(up to {settings_module.MAX_ENDPOINTS_PER_OWNER:,})", "core.settings.MAX_ENDPOINTS_PER_OWNER"),
    # docs/security.md
    Fact(
        SECURITY,
        "keeps signing until its own `valid_until`",
        f"`HOOKLINE_SECRET_OVERLAP_SECONDS` ({hours(S.secret_overlap_seconds)})",
        "HOOKLINE_SECRET_OVERLAP_SECONDS",
    ),
    Fact(SECURITY, "keeps signing until its own `valid_until`", f"at most `MAX_LIVE_SECRETS` ({rotation.MAX_LIVE_SECRETS},", "MAX_LIVE_SECRETS"),
    Fact(
        SECURITY,
        "An opened data key is kept in the",
        f"process for {sealing.DATA_KEY_CACHE_SECONDS / 60:g} minutes (`DATA_KEY_CACHE_SECONDS`)",
        "adapters.sealing.DATA_KEY_CACHE_SECONDS",
    ),
    Fact(
        SECURITY,
        "per key for `HOOKLINE_AUTHORIZER_CACHE_SECONDS`",
        f"({MAX_AUTHORIZER_CACHE_SECONDS} s, and settings refuse more)",
        "core.settings.MAX_AUTHORIZER_CACHE_SECONDS",
    ),
    Fact(
        SECURITY,
        "is bounded by the time the request has left",
        f"(`HOOKLINE_REQUEST_TIMEOUT_SECONDS`, {S.request_timeout_seconds:g} s)",
        "HOOKLINE_REQUEST_TIMEOUT_SECONDS",
    ),
    Fact(
        SECURITY,
        "The connect and the TLS handshake are bounded by",
        f"(`HOOKLINE_CONNECT_TIMEOUT_SECONDS`, {S.connect_timeout_seconds:g} s)",
        "HOOKLINE_CONNECT_TIMEOUT_SECONDS",
    ),
    Fact(SECURITY, "a revoked session is refused within", f"at most {MAX_AUTHORIZER_CACHE_SECONDS} s", "core.settings.MAX_AUTHORIZER_CACHE_SECONDS"),
    Fact(
        SECURITY,
        "it expires (`ttl_seconds`,",
        f"{hours(sessions.DEFAULT_TTL_SECONDS).replace(' h', '')} h by default, at most {sessions.MAX_TTL_SECONDS // DAY} days",
        "core.sessions.DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS",
    ),
    Fact(
        SECURITY,
        "the email link is a full session",
        f"`HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS` ({hours(S.email_portal_session_seconds)})",
        "HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS",
    ),
    Fact(
        SECURITY,
        "Bodies over",
        f"Bodies over {S.max_event_bytes // 1024} KB ({S.max_batch_bytes // 1024**2} MB for `POST /v1/events/batch`)",
        "HOOKLINE_MAX_EVENT_BYTES, _MAX_BATCH_BYTES",
    ),
    Fact(SECURITY, "The HTTP API stage throttles", f"({S.api_throttle_rate} requests/s, burst {S.api_throttle_burst})", "HOOKLINE_API_THROTTLE_RATE, _BURST"),
    Fact(
        SECURITY,
        "Custom headers per endpoint",
        f"at most {contract_fields.MAX_HEADERS} names and {contract_fields.MAX_HEADER_BYTES // 1024} KB in all",
        "core.contract.fields.MAX_HEADERS, MAX_HEADER_BYTES",
    ),
    *(
        Fact(SECURITY, "Custom headers per endpoint", f"`{name}`", f"core.contract.fields.FORBIDDEN_HEADERS ({name})")
        for name in sorted(contract_fields.FORBIDDEN_HEADERS)
    ),
    Fact(SECURITY, "fire from a seeded RNG while", f"while {FAULT_EVENTS} events are accepted", "tests/integration/test_faults.py EVENTS"),
    # The AWS quotas docs/scaling.md names (infra/quotas.py, from AWS's documentation).
    Fact(
        SCALING,
        "requests a second, burst",
        f"{quotas.API_GATEWAY_THROTTLE_RATE:,} requests a second, burst {quotas.API_GATEWAY_THROTTLE_BURST:,}, per account and region; "
        f"{quotas.API_GATEWAY_LOW_THROTTLE_RATE:,}, burst {quotas.API_GATEWAY_LOW_THROTTLE_BURST:,}, in "
        + ", ".join(quotas.API_GATEWAY_LOW_THROTTLE_REGIONS.values()),
        "infra.quotas.API_GATEWAY_*",
    ),
    Fact(
        SCALING,
        "Service Quotas → Amazon API Gateway",
        f"*Throttle rate* ({quotas.API_GATEWAY_THROTTLE_QUOTA_CODE})",
        "infra.quotas.API_GATEWAY_THROTTLE_QUOTA_CODE",
    ),
    Fact(
        SCALING,
        "open executions per account",
        f"{quotas.STEP_FUNCTIONS_OPEN_EXECUTIONS:,} open executions per account and region",
        "infra.quotas.STEP_FUNCTIONS_OPEN_EXECUTIONS",
    ),
    Fact(
        SCALING,
        "a bucket of 5,000",
        "a bucket of {:,}, refilled {:,} a second, in {}; {:,} and {:,} elsewhere".format(
            *quotas.STEP_FUNCTIONS_STATE_TRANSITIONS,
            ", ".join(list(quotas.STEP_FUNCTIONS_LARGE_REGIONS)[:-1]) + " and " + list(quotas.STEP_FUNCTIONS_LARGE_REGIONS)[-1],
            *quotas.STEP_FUNCTIONS_STATE_TRANSITIONS_ELSEWHERE,
        ),
        "infra.quotas.STEP_FUNCTIONS_STATE_TRANSITIONS*",
    ),
    Fact(SCALING, "long retries fall due faster", f"over {len(topology.RETRY_WAIT.happy_path())} (the transitions", "topology.RETRY_WAIT.happy_path()"),
    Fact(
        SCALING,
        "in those three regions",
        "a bucket of {:,}, refilled {:,} a second, in those three regions; {:,} and {:,} elsewhere".format(
            *quotas.STEP_FUNCTIONS_START_EXECUTION, *quotas.STEP_FUNCTIONS_START_EXECUTION_ELSEWHERE
        ),
        "infra.quotas.STEP_FUNCTIONS_START_EXECUTION*",
    ),
    Fact(SCALING, "longer than SQS's", f"longer than SQS's {S.sqs_max_delay_seconds // 60} minutes", "HOOKLINE_SQS_MAX_DELAY_SECONDS"),
    Fact(SCALING, "Synth refuses a profile whose reservations", f"unreserved minimum of {sizing.UNRESERVED_MINIMUM}", "infra.sizing.UNRESERVED_MINIMUM"),
    Fact(
        SCALING,
        "each drains a backlog",
        f"maximum concurrency is at least {sizing.MIN_POLLERS}, so four capped sources",
        "infra.sizing.MIN_POLLERS",
    ),
    Fact(
        SCALING, "each drains a backlog", f"would take {4 * sizing.SMALL_POLLERS} of a quota of {sizing.SMALL_QUOTA}", "infra.sizing.SMALL_POLLERS, SMALL_QUOTA"
    ),
    Fact(
        SCALING,
        "The three sources take at most",
        f"3 × {sizing.SMALL_POLLERS} = {3 * sizing.SMALL_POLLERS} of {sizing.SMALL_QUOTA} and leave at least {sizing.SMALL_FREE}",
        "infra.sizing.SMALL_POLLERS, SMALL_QUOTA, SMALL_FREE",
    ),
    Fact(
        SCALING,
        "each of its attempts holds an instance",
        f"(`HOOKLINE_REQUEST_TIMEOUT_SECONDS`, {S.request_timeout_seconds:g} s)",
        "HOOKLINE_REQUEST_TIMEOUT_SECONDS",
    ),
    Fact(
        SCALING,
        "the endpoint's breaker parks the rest",
        f"`HOOKLINE_BREAKER_TIMEOUT_THRESHOLD` ({S.breaker_timeout_threshold}) timeouts in a row",
        "HOOKLINE_BREAKER_TIMEOUT_THRESHOLD",
    ),
    Fact(
        SCALING,
        "Producers that send one event a request",
        f"throttle ({S.api_throttle_rate} requests a second in the default profile, `HOOKLINE_API_THROTTLE_RATE`) and API Gateway's "
        f"{quotas.API_GATEWAY_THROTTLE_RATE:,} requests a second",
        "HOOKLINE_API_THROTTLE_RATE, infra.quotas.API_GATEWAY_THROTTLE_RATE",
    ),
    Fact(SCALING, "`POST /v1/events/batch` takes up to", f"up to {validation.MAX_BATCH_EVENTS} events a request", "core.validation.MAX_BATCH_EVENTS"),
    Fact(
        SCALING,
        "Its rate limit goes up to",
        f"up to {validation.MAX_RATE_PER_SECOND:,.0f} a second and its concurrency to {validation.MAX_CONCURRENCY} in flight",
        "core.validation.MAX_RATE_PER_SECOND, MAX_CONCURRENCY",
    ),
    Fact(SCALING, "each warm instance leases", f"`HOOKLINE_TOKEN_LEASE_MIN_RATE` ({S.token_lease_min_rate:,.0f} a second)", "HOOKLINE_TOKEN_LEASE_MIN_RATE"),
    # docs/portal.md
    Fact(PORTAL, "each counted up to", f"each counted up to {endpoint_service.BACKLOG_COUNT_BOUND:,}", "services.endpoints.BACKLOG_COUNT_BOUND"),
    Fact(PORTAL, "a page of 100 at a time", f"a page of {bulk.REQUEUE_PAGE} at a time", "services.bulk.REQUEUE_PAGE"),
    Fact(
        PORTAL,
        "then follows the job",
        f"every {JOB_POLL_MS // 1000} seconds for at most {JOB_POLL_MS * JOB_POLL_LIMIT // 1000} seconds",
        "portal_static/settings.js JOB_POLL_MS, JOB_POLL_LIMIT",
    ),
    Fact(PORTAL, 'with a "More" button', f"It loads {PORTAL_PAGE_SIZE} at a time", "portal_static/api.js PAGE_SIZE"),
    Fact(PORTAL, "a page may show fewer than", f"a page may show fewer than {PORTAL_PAGE_SIZE}", "portal_static/api.js PAGE_SIZE"),
    Fact(
        PORTAL,
        "updates every second until",
        f"updates every {'second' if REPLAY_POLL_MS == 1000 else REPLAY_POLL_MS}",
        "portal_static/failures.js REPLAY_POLL_MS",
    ),
    Fact(
        PORTAL,
        "A session lasts `ttl_seconds`",
        f"{sessions.DEFAULT_TTL_SECONDS // 3600} hour by default, at most {sessions.MAX_TTL_SECONDS // DAY} days",
        "core.sessions.DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS",
    ),
    Fact(PORTAL, "A revoked session is refused within", f"(at most {MAX_AUTHORIZER_CACHE_SECONDS} s)", "core.settings.MAX_AUTHORIZER_CACHE_SECONDS"),
    Fact(
        PORTAL,
        "its hint says what is accepted",
        f"a port other than {S.allowed_ports.split(',')[0]} or {S.allowed_ports.split(',')[1]}",
        "HOOKLINE_ALLOWED_PORTS",
    ),
    Fact(
        SECURITY,
        "the cloud allows https only, on ports",
        f"on ports {S.allowed_ports.split(',')[0]} (and {S.allowed_ports.split(',')[1]} if http is allowed)",
        "HOOKLINE_ALLOWED_PORTS",
    ),
]


@pytest.mark.parametrize("fact", FACTS, ids=[f"{f.doc}: {f.phrase[:40]}" for f in FACTS])
def test_the_docs_quote_the_code(fact: Fact) -> None:
    for sentence in said(fact.doc, fact.phrase):
        assert fact.says in sentence, f"{fact.doc}: the sentence\n  {sentence}\nshould say {fact.says!r} ({fact.source})"


def test_the_quoted_shapes_hold() -> None:
    """What the facts above read off a constant in words: the numbers behind those words."""
    assert ratelimit.batch_share(8) == 4 and ratelimit.batch_share(7) == 7  # "at most half of a limit of 8 or more"
    assert auth.TOKEN_MOST_SECONDS == 86_400  # README, Endpoint authentication: a token is kept "never more than a day"
    # A repeat's copies wait the delivery function's timeout by default (README, architecture.md)
    assert S.repeat_requeue_delay_seconds == topology.DELIVERY_TIMEOUT_SECONDS
    assert topology.RETRY.sqs_source is not None and topology.RETRY.sqs_source.max_batching_window_seconds == 1  # "at most a second"
    assert adaptive.AdaptiveConfig.smoothing in SHARES
    # Tokens: 256 random bits, 43 base64url characters behind the prefix (security.md)
    assert len(sessions.generate_token()) == len(sessions.TOKEN_PREFIX) + 43
    assert len(apikeys.generate_api_key()) == len(apikeys.KEY_PREFIX) + 43
    # uid: "1 to 64 of `A-Za-z0-9._:-`" (README, with an en dash)
    shape = re.fullmatch(r"\^\[(.+)\]\{(\d+),(\d+)\}\$", validation.CUSTOMER_UID.pattern)
    assert shape is not None
    [uid] = said(README, "`uid`: 1")
    assert f"`uid`: {shape[2]}–{shape[3]} of `{shape[1]}`" in uid
    # The canary: 10 % of traffic for 5 minutes (README's settings, operations.md)
    assert "CANARY_10_PERCENT_5_MINUTES" in (REPO / "infra" / "deploys.py").read_text()
    [canary] = said(OPERATIONS, "sends 10 % of the")
    assert "`CodeDeployDefault.LambdaCanary10Percent5Minutes`" in canary and "for 5 minutes" in canary


def test_the_retry_schedule_table_is_the_backoff_policy() -> None:
    """docs/retries.md's default schedule, row for row, from BackoffPolicy and the settings' defaults."""
    policy = retry_policy(S).backoff
    assert (policy.base_seconds, policy.cap_seconds) == (S.retry_base_seconds, S.retry_max_delay_seconds)

    def shown(seconds: float) -> str:
        if seconds < 120:
            return f"{seconds:.0f} s"
        if seconds < 7200:
            return f"{seconds / 60:.1f} min"
        return f"{seconds / 3600:.2f} h"

    rows = ["| 1 | — | — | 0 (immediate) | 0 | 0 | 0 |"]
    expected_total = worst_total = 0.0
    for attempt in range(2, S.max_attempts + 1):
        ceiling = policy.ceiling(attempt - 1)
        expected_total += ceiling / 2
        worst_total += ceiling
        cells = [str(attempt), str(attempt - 1), shown(ceiling), shown(ceiling / 2), shown(ceiling), shown(expected_total), shown(worst_total)]
        rows.append("| " + " | ".join(cells) + " |")
    table = [line for line in section(RETRIES, "### The default schedule").splitlines() if re.match(r"\| \d", line)]
    assert table == rows, "docs/retries.md's schedule should read:\n" + "\n".join(rows)
    [summary] = said(RETRIES, "So one delivery's retries end after about")
    assert f"about {expected_total / 3600:.0f} hours on average and at most about {worst_total / 3600:.0f} hours" in summary


def _job_kinds() -> list[str]:
    """The kinds the job runner runs: the keys of `kinds` in hookline.wiring.container.job_runner, resolved."""
    from hookline.wiring import container

    tree = ast.parse((PACKAGE / "wiring" / "container.py").read_text())
    [runner] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "job_runner"]
    [kinds] = [n for n in ast.walk(runner) if isinstance(n, ast.AnnAssign | ast.Assign) and "kinds" in ast.unparse(n).split("=")[0]]
    assert isinstance(kinds.value, ast.Dict)
    return [str(getattr(container, k.id)) for k in kinds.value.keys if isinstance(k, ast.Name)]


def test_every_job_kind_is_documented() -> None:
    kinds = _job_kinds()
    assert len(kinds) >= 5 and len(set(kinds)) == len(kinds), kinds
    [jobs_row] = [line for line in DOCS[README].splitlines() if line.startswith("| `GET /v1/jobs/{id}` |")]
    bulk_jobs = section(ARCHITECTURE, "### Bulk jobs")
    flows = section(ARCHITECTURE, "### The flows")
    glossary_and_map = section(ARCHITECTURE, "## The map on one page")
    for kind in kinds:
        assert f"`{kind}`" in jobs_row, f"README's GET /v1/jobs/{{id}} row does not name the job kind {kind}"
        assert f"`{kind}`" in bulk_jobs, f"architecture.md's 'Bulk jobs' does not name the job kind {kind}"
        assert kind in flows, f"architecture.md's map does not name the job kind {kind}"
    assert "a `replay_window` job" in glossary_and_map and "a `broadcast` job" in glossary_and_map


def _api_routes() -> tuple[set[tuple[str, str]], set[str]]:
    """(method, path with every parameter as {}) of every route the API serves, and the paths that need no key."""
    from hookline.entrypoints import api

    routes, public = set(), set()
    for route in api.served():
        path = re.sub(r"<[^>]+>", "{}", route.path)
        routes.add((route.method, path))
        if route.declared is None:
            public.add(path)
    return routes, public


def _readme_routes() -> set[tuple[str, str]]:
    """The README's route table as (method, path with every parameter as {})."""
    lines = DOCS[README].splitlines()
    start = lines.index("| route | what it does |") + 2
    found = set()
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        methods: list[str] = []
        for span in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            method, _, path = span.partition(" ")
            methods.append(method)
            if path:
                found |= {(m, re.sub(r"\{[^}]+\}", "{}", path.split("?")[0])) for m in methods}
                methods = []
    return found


def test_the_route_table_is_the_apis() -> None:
    routes, _ = _api_routes()
    documented = _readme_routes()
    assert routes - documented == set(), f"routes the API serves that README's table does not list: {sorted(routes - documented)}"
    assert documented - routes == set(), f"routes README's table lists that the API does not serve: {sorted(documented - routes)}"


def test_the_routes_without_a_key_are_named() -> None:
    _, public = _api_routes()
    assert public == {"/health", "/portal", "/portal/{}"}
    [readme] = said(README, "needs `Authorization: Bearer <key>`")
    assert "Every route but `GET /health`, `GET /portal` and `GET /portal/{file}`" in readme
    [portal_page] = said(ARCHITECTURE, "the only public routes")
    assert "`GET /portal` and `GET /portal/{file}`, the only public routes beside `GET /health`" in portal_page
    # the stack's and local mode's front doors leave the same routes open
    assert all(f'path="{p.replace("{}", "{name}")}"' in (REPO / "infra" / "api.py").read_text() for p in public)


CHANGE_TABLE = "### To change X, edit Y"


def _change_paths() -> list[str]:
    rows = [line for line in section(ARCHITECTURE, CHANGE_TABLE).splitlines() if line.startswith("| ") and not line.startswith(("| to change", "| ---"))]
    assert len(rows) >= 15, rows
    spans = [span for row in rows for span in re.findall(r"`([^`]+)`", row.split(" | ", 1)[1])]
    return [s for s in spans if "/" in s and not s.startswith(("/", "POST ", "GET "))]


def test_every_path_in_the_change_table_exists() -> None:
    paths = _change_paths()
    assert "hookline/core/backoff.py" in paths and "hookline/wiring/topology.py" in paths
    missing = [p for p in paths if not (PACKAGE.parent / p if p.startswith("hookline/") else REPO / p).exists()]
    assert missing == [], f"architecture.md's '{CHANGE_TABLE}' names paths that do not exist: {missing}"


def _change_row(starts: str) -> list[str]:
    [row] = [line for line in section(ARCHITECTURE, CHANGE_TABLE).splitlines() if line.startswith(f"| {starts}")]
    return re.findall(r"`([^`]+)`", row.split(" | ", 1)[1])


def _named(obj: object) -> str:
    """The change table's name of the file that defines `obj`: `hookline/...` in the package, else from the repository's root."""
    found = Path(inspect.getsourcefile(obj))  # type: ignore[arg-type]
    return str(found.relative_to(PACKAGE.parent)) if found.is_relative_to(PACKAGE) else str(found.relative_to(REPO))


def test_the_change_table_names_every_file_a_destination_type_a_route_or_a_retry_rule_touches() -> None:
    # A destination type: the registry, its model, its put and what the two make targets generate from them
    named = _change_row("a new destination type")
    touched = [_named(destination_kinds.Kind), _named(destination_models.HttpDestination), _named(destination_puts.AwsDestinations)]
    touched += [str(portal_kinds.PATH.relative_to(PACKAGE.parent)), "docs/openapi.yaml", "tests/unit/test_destination_kinds.py"]
    assert [p for p in touched if p not in named] == []
    assert all(f"`{name}`" in " ".join(f"`{n}`" for n in named) for name in ("KINDS", "MODELS", "PUTS", "make openapi", "make portal-kinds"))
    # A route: its router, its access, its models, its service and wiring, the document, the access matrix, the front doors
    named = _change_row("a new route")
    touched = [_named(api_routing.allow), "hookline/core/contract/", "hookline/services/", _named(container), "docs/openapi.yaml"]
    touched += ["tests/integration/test_openapi.py", "tests/integration/test_portal_access.py", "infra/api.py", _named(frontdoor)]
    assert [p for p in touched if p not in named] == []
    # A retry rule: the schedule, the classification, the decision, the settings and the policy made of them, the docs
    named = _change_row("the retry schedule") + _change_row("which answers are retried")
    touched = [_named(BackoffPolicy), _named(classify), _named(policy), _named(Settings), _named(retry_policy), "docs/retries.md"]
    assert [p for p in touched if p not in named] == []


GLOSSARY = (
    "Tenant",
    "Customer",
    "Endpoint",
    "Destination",
    "Event",
    "Delivery",
    "Attempt",
    "Task",
    "Generation",
    "Claim",
    "Fresh",
    "Breaker",
    "Health failure",
    "Limiter",
    "Lane",
    "Defer",
    "Pause",
    "Park",
    "Disable",
    "Job",
    "Replay",
    "Broadcast",
    "Unqueued note",
    "Wait note",
    "Sweeper",
    "Dead letter",
    "Payload version",
    "Portal session",
)


def test_the_map_opens_the_architecture_and_its_glossary_defines_each_word_once() -> None:
    text = DOCS[ARCHITECTURE]
    headings = re.findall(r"^#{1,3} .+$", text, flags=re.M)
    assert headings[:5] == ["# Architecture", "## The map on one page", "### The flows", f"{CHANGE_TABLE}", "### Glossary"]
    glossary = section(ARCHITECTURE, "### Glossary")
    defined = re.findall(r"^\* \*\*([^*]+)\*\*", glossary, flags=re.M)
    assert [t for t in GLOSSARY if t not in defined] == []
    assert len(defined) == len(set(defined))
    assert text.count("### Glossary") == 1


def test_every_test_security_md_names_exists() -> None:
    """docs/security.md says which test holds each fix: `tests/<file>.py::<name>`, or `::<name>` after a file in the
    same table row or paragraph. Each name must be a test function defined in that file (parametrized ids aside)."""
    named: list[tuple[str, str]] = []
    for block in (REPO / SECURITY).read_text().split("\n"):
        file = None
        for match in re.finditer(r"(tests/[\w/]+\.py)?::(test_\w+)", block):
            file = match.group(1) or file
            assert file, f"{SECURITY}: ::{match.group(2)} follows no test file"
            named.append((file, match.group(2)))
    assert len(named) >= 16
    missing = [f"{file}::{name}" for file, name in named if not re.search(rf"^def {name}\(", (REPO / file).read_text(), re.M)]
    assert not missing, f"{SECURITY} names tests that do not exist: {missing}"
