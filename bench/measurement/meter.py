"""Billable AWS units of real handler runs, counted from the AWS calls they make.

`Meter` hooks botocore's event system on the boto3 default session, so every
client hookline builds afterwards reports each call. DynamoDB writes are billed
on the larger of the item's size before and after (read through a separate,
unmetered client), reads on the size of what came back; SQS and SNS requests
in 64 KB chunks; a Step Functions execution on the states of the wait machine.
Lambda time comes from `bench.models.duration`'s stated model: what each invocation
did (its tasks, requests, AWS calls and limiter sleeps, attributed to it across
the handler's thread pools) priced at the CPU figure set for the path. Every
webhook request's bytes are data transfer out; every write's change in item
size is storage kept for the retention period.
"""

from __future__ import annotations

import io
import json
import math
import threading
import time
from base64 import b64decode
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any

import boto3

from bench.measurement import connections
from bench.measurement.harness import redirect_logs
from bench.models import duration
from bench.models.prices import US_EAST_1, Prices
from hookline.adapters import aws, system
from hookline.adapters.destinations import AwsDestinations
from hookline.adapters.http import WebhookClient, request_size
from hookline.core.settings import Settings
from hookline.entrypoints import delivery as delivery_entrypoint
from hookline.services.delivery.endpoint_pool import EndpointPool
from hookline.wiring import container, topology

KB = 1024
SQS_CHUNK = 64 * KB
# Lambda writes START, END and REPORT lines of its own for every invocation.
PLATFORM_LOG_BYTES = 350
# DynamoDB bills 100 bytes of overhead per stored item (and per index entry) on top of its attributes.
ITEM_OVERHEAD_BYTES = 100
RETENTION_DAYS = Settings().retention_days
DAYS_PER_MONTH = 30.4375


@dataclass
class Units:
    """Billable units; by service when priced."""

    lambda_requests: float = 0.0
    lambda_gb_seconds: float = 0.0
    dynamodb_write_units: float = 0.0
    dynamodb_read_units: float = 0.0
    sqs_requests: float = 0.0
    sfn_transitions: float = 0.0
    api_requests: float = 0.0
    sns_publishes: float = 0.0
    log_bytes: float = 0.0
    dynamodb_stored_bytes: float = 0.0  # table and index bytes added, kept for the retention period (TTL deletes are free)
    transfer_out_bytes: float = 0.0  # webhook requests leaving AWS (TLS handshake included)
    conditional_conflicts: float = 0.0  # failed conditional writes (billed as writes; counted here to show they happen)
    # Calls into a customer's account (hookline.adapters.destinations, on its own boto3 session): the puts are billed
    # to the resource's owner and AssumeRole is free, so `dollars` prices neither; bench.measurement.destinations does.
    destination_puts: float = 0.0
    destination_put_bytes: float = 0.0  # what the puts carried (an SQS message's body and attributes)
    assume_role_calls: float = 0.0
    # Connections opened to receivers (TCP, and TLS for https): a webhook reuses its endpoint's connection when the same
    # warm instance sent to that endpoint within the connection's life: HOOKLINE_KEEPALIVE_SECONDS or the receiver's
    # keep-alive timeout, whichever is shorter (bench.measurement.connections.lifetime; hookline.adapters.http.ConnectionPools).
    # Modelled per endpoint URL, each endpoint taken as a host of its own: the client's pool would also share one
    # host's connections between its endpoints, which the benchmark's one receiver would flatter.
    handshakes: float = 0.0

    def __add__(self, other: Units) -> Units:
        return Units(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def __sub__(self, other: Units) -> Units:
        return Units(**{f.name: getattr(self, f.name) - getattr(other, f.name) for f in fields(self)})

    def scaled(self, k: float) -> Units:
        return Units(**{f.name: getattr(self, f.name) * k for f in fields(self)})

    def as_dict(self) -> dict[str, float]:
        return {f.name: round(getattr(self, f.name), 6) for f in fields(self)}

    def dollars(self, p: Prices = US_EAST_1) -> dict[str, float]:
        """Cost by service."""
        return {
            "lambda": self.lambda_requests * p.lambda_request + self.lambda_gb_seconds * p.lambda_gb_second_arm64,
            "dynamodb": self.dynamodb_write_units * p.dynamodb_write_unit + self.dynamodb_read_units * p.dynamodb_read_unit,
            "sqs": self.sqs_requests * p.sqs_request,
            "step_functions": self.sfn_transitions * p.sfn_transition,
            "api_gateway": self.api_requests * p.http_api_request,
            "sns": self.sns_publishes * p.sns_publish,
            "cloudwatch_logs": self.log_bytes / 1e9 * p.logs_ingested_gb,
            "dynamodb_storage": self.dynamodb_stored_bytes / 1e9 * months_kept() * p.dynamodb_storage_gb_month,
            "dynamodb_pitr": self.dynamodb_stored_bytes / 1e9 * months_kept() * p.dynamodb_pitr_gb_month,
            "data_transfer_out": self.transfer_out_bytes / 1e9 * p.data_transfer_out_gb,
        }


def months_kept(days: float = RETENTION_DAYS) -> float:
    """GB-months a byte stored once is billed for: the retention period, after which TTL deletes it."""
    return days / DAYS_PER_MONTH


def stored_bytes(item: dict[str, Any] | None) -> int:
    return 0 if not item else item_size(item) + ITEM_OVERHEAD_BYTES


# -- DynamoDB item sizes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html)


def value_size(value: dict[str, Any]) -> int:
    [(kind, v)] = value.items()
    if kind == "S":
        return len(v.encode("utf-8"))
    if kind == "N":
        digits = str(v).lstrip("-").replace(".", "").strip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(v) if isinstance(v, bytes) else len(b64decode(v))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode("utf-8")) for s in v)
    if kind == "NS":
        return sum(value_size({"N": n}) for n in v)
    if kind == "BS":
        return sum(len(b) if isinstance(b, bytes) else len(b64decode(b)) for b in v)
    if kind == "L":
        return 3 + sum(1 + value_size(x) for x in v)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + value_size(x) for k, x in v.items())
    raise ValueError(f"unknown DynamoDB type {kind}")


def item_size(item: dict[str, Any] | None) -> int:
    """Bytes DynamoDB bills for an item in its typed (wire) form: names plus values."""
    if not item:
        return 0
    return sum(len(name.encode("utf-8")) + value_size(v) for name, v in item.items())


def _entry(item: dict[str, Any] | None, projection: str, entry_keys: list[str]) -> dict[str, Any] | None:
    """What an index holds of an item: all of it, or (KEYS_ONLY) its table and index keys."""
    if item is None or projection == "ALL":
        return item
    return {k: item[k] for k in entry_keys if k in item}


def write_units(before: int, after: int) -> float:
    return float(max(1, math.ceil(max(before, after) / KB)))


def read_units(total_bytes: int, consistent: bool) -> float:
    units = max(1, math.ceil(total_bytes / (4 * KB)))
    return float(units if consistent else units / 2)


def chunks(size: int, chunk: int = SQS_CHUNK) -> int:
    return max(1, math.ceil(size / chunk))


class _CountingStream(io.TextIOBase):
    def __init__(self) -> None:
        self.bytes = 0

    def write(self, s: str) -> int:
        self.bytes += len(s.encode("utf-8"))
        return len(s)


class Meter:
    """Counts the billable units of everything run while it is installed (inside a moto `mock_aws`)."""

    def __init__(self) -> None:
        self.units = Units()
        self._lock = threading.Lock()  # hooks fire from the handler's threads
        self._raw = boto3.session.Session().client("dynamodb")  # unmetered: reads item sizes around writes
        self._keys: dict[str, tuple[list[str], list[tuple[list[str], str]]]] = {}
        self._before: dict[int, list[tuple[str, dict[str, Any], int]]] = {}
        self._stdout = _CountingStream()
        self._logs = redirect_logs(self._stdout)
        self._transitions = len(topology.RETRY_WAIT.happy_path())  # a wait whose send succeeds
        # CPU ms the duration model charges: per task for the queue consumers, per invocation for the API (set per path).
        self.cpu_ms_per_task = 0.0
        self.cpu_ms_per_api_call = 0.0
        self.assumptions = duration.ASSUMED
        self.unattributed = 0  # calls, sends or sleeps seen outside any invocation (must stay 0 while measuring)
        self.keepalive_seconds = connections.lifetime(Settings().keepalive_seconds)  # how long a kept connection lives
        self._last_send: dict[str, float] = {}  # per endpoint URL, when this (warm) process last sent to it
        self._current = threading.local()
        self._patched: list[tuple[Any, str, Any]] = []
        # Calls on the destination adapter's own sessions, by "service.Operation", and the latest put's parameters.
        self.destination_calls: Counter[str] = Counter()
        self.last_put: dict[str, Any] = {}

    # -- installation ---------------------------------------------------------------

    def install(self) -> None:
        boto3.setup_default_session()
        events = boto3.DEFAULT_SESSION.events
        events.register("before-call.dynamodb", self._dynamodb_before)
        events.register("after-call.dynamodb", self._dynamodb_after)
        events.register("before-parameter-build.sqs", self._sqs)
        events.register("before-parameter-build.sfn.StartExecution", self._sfn)
        events.register("before-parameter-build.sns.Publish", self._sns)
        events.register("before-call", self._aws_call)
        self._patch()
        aws.reset_clients()  # hookline's clients are rebuilt from the metered session
        container.reset()  # and the services, with the metered sleep
        # Log lines (Powertools logger and EMF metrics) go to a counter instead of the terminal.
        self._logs.__enter__()

    def uninstall(self) -> None:
        self._logs.__exit__(None, None, None)
        for owner, name, original in reversed(self._patched):
            setattr(owner, name, original)
        self._patched.clear()
        # A fresh default session, without the meter's handlers, for whatever runs next in this process; and
        # hookline's clients rebuilt from it (they were made from the metered one)
        boto3.setup_default_session()
        aws.reset_clients()
        container.reset()

    # -- attributing work to the invocation it belongs to ------------------------------------

    def _invocation(self) -> duration.Invocation | None:
        return getattr(self._current, "invocation", None)

    def _carry(self, work: Callable[..., Any]) -> Callable[..., Any]:
        """`work` as run on a pool thread, attributed to the invocation that handed it over."""
        inv = self._invocation()

        def run(*args: Any, **kwargs: Any) -> Any:
            saved = self._invocation()
            self._current.invocation = inv
            try:
                return work(*args, **kwargs)
            finally:
                self._current.invocation = saved

        return run

    def _replace(self, owner: Any, name: str, value: Any) -> None:
        self._patched.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def _patch(self) -> None:
        meter = self
        pool_map = EndpointPool.map
        real_sleep = system.sleep
        post = WebhookClient.post
        task_pool = delivery_entrypoint._task_pool
        destinations_init = AwsDestinations.__init__

        def mapped(pool: EndpointPool, work: Callable[[Any], Any], items: list[Any]) -> list[Any]:
            return pool_map(pool, meter._carry(work), items)

        class _CarryingPool:
            """The delivery handler's task pool, each task attributed to the invocation that submitted it."""

            def __init__(self, pool: Any) -> None:
                self._pool = pool

            def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
                return self._pool.submit(meter._carry(fn), *args, **kwargs)

        def pool() -> Any:
            return _CarryingPool(task_pool())

        def slept(seconds: float) -> None:
            started = time.perf_counter()
            real_sleep(seconds)
            inv = meter._invocation()
            if inv is None:
                meter.unattributed += 1
            else:
                with meter._lock:
                    inv.sleeps.append((started, time.perf_counter()))

        def posted(client: WebhookClient, url: str, body: bytes, headers: Any) -> Any:
            sent = request_size(url, body, headers)  # the request as the webhook client writes it
            now = time.monotonic()
            with meter._lock:
                fresh = now - meter._last_send.get(url, -math.inf) >= meter.keepalive_seconds
                meter._last_send[url] = now
            if fresh:
                sent += meter.assumptions.tls_client_bytes
                meter._add("handshakes", 1)
            meter._add("transfer_out_bytes", sent)
            inv = meter._invocation()
            if inv is None:
                meter.unattributed += 1
            else:
                with meter._lock:
                    inv.sends += 1
                    inv.handshakes += 1 if fresh else 0
            return post(client, url, body, headers)

        def destinations(adapter: AwsDestinations, *args: Any, **kwargs: Any) -> None:
            """The adapter builds its clients on a boto3 session of its own: the meter hooks that one too."""
            destinations_init(adapter, *args, **kwargs)
            events = adapter._session.events
            events.register("before-call", meter._aws_call)
            events.register("before-parameter-build", meter._destination_call)

        self._replace(EndpointPool, "map", mapped)
        self._replace(AwsDestinations, "__init__", destinations)
        self._replace(delivery_entrypoint, "_task_pool", pool)
        self._replace(system, "sleep", slept)
        self._replace(WebhookClient, "post", posted)

    def _aws_call(self, **_: Any) -> None:
        inv = self._invocation()
        if inv is not None:
            with self._lock:
                inv.aws_calls += 1

    @contextmanager
    def measure(self) -> Iterator[Callable[[], Units]]:
        """Units spent inside the block: `with meter.measure() as spent: ...; spent()`."""
        with self._lock:
            start = self.units + Units()
        logs_start = self._stdout.bytes
        result: list[Units] = []
        yield lambda: result[0]
        with self._lock:
            spent = self.units - start
        spent.log_bytes += self._stdout.bytes - logs_start
        result.append(spent)

    def _add(self, field: str, amount: float) -> None:
        with self._lock:
            setattr(self.units, field, getattr(self.units, field) + amount)

    # -- Lambda -------------------------------------------------------------------------

    def invoke(self, spec: topology.FunctionSpec, handler: Callable[[dict[str, Any], Any], Any], event: dict[str, Any]) -> Any:
        """One invocation: a request, and GB-seconds (billed per started ms) from the duration model at the function's memory."""
        inv = duration.Invocation(tasks=len(event["Records"]) if spec.sqs_source is not None else 1)
        saved = self._invocation()
        self._current.invocation = inv
        try:
            result = handler(event, None)
        finally:
            self._current.invocation = saved
        cpu = self.cpu_ms_per_task * inv.tasks if spec.sqs_source is not None else self.cpu_ms_per_api_call
        ms = duration.billed_ms(spec.memory_mb, cpu, inv, self.assumptions)
        self._add("lambda_requests", 1)
        self._add("lambda_gb_seconds", spec.memory_mb / 1024 * ms / 1000)
        self._add("log_bytes", PLATFORM_LOG_BYTES)
        if spec.sqs_source is not None:
            # The event source mapping's ReceiveMessage and DeleteMessageBatch are billed SQS requests too.
            self._add("sqs_requests", 2)
        return result

    def api_request(self, body_bytes: int) -> None:
        self._add("api_requests", chunks(body_bytes, 512 * KB))

    # -- DynamoDB -----------------------------------------------------------------------

    def _schema(self, table: str) -> tuple[list[str], list[tuple[list[str], str]]]:
        """The table's key attributes, and each index's key attributes with its projection (ALL or KEYS_ONLY)."""
        if table not in self._keys:
            desc = self._raw.describe_table(TableName=table)["Table"]
            keys = [k["AttributeName"] for k in desc["KeySchema"]]
            indexes = [([k["AttributeName"] for k in g["KeySchema"]], g["Projection"]["ProjectionType"]) for g in desc.get("GlobalSecondaryIndexes", [])]
            self._keys[table] = (keys, indexes)
        return self._keys[table]

    def _item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self._raw.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item

    def _writes(self, operation: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(table, key) of every item a write request touches."""
        if operation in ("PutItem", "UpdateItem", "DeleteItem"):
            table = body["TableName"]
            keys, _ = self._schema(table)
            source = body["Item"] if operation == "PutItem" else body["Key"]
            return [(table, {k: source[k] for k in keys})]
        if operation == "BatchWriteItem":
            out = []
            for table, requests in body["RequestItems"].items():
                keys, _ = self._schema(table)
                for r in requests:
                    source = r["PutRequest"]["Item"] if "PutRequest" in r else r["DeleteRequest"]["Key"]
                    out.append((table, {k: source[k] for k in keys}))
            return out
        return []

    def _dynamodb_before(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        body = json.loads(params.get("body") or b"{}")
        context["hookline_meter_request"] = body
        touched = self._writes(model.name, body)
        if touched:
            context["hookline_meter_before"] = [(t, k, self._item(t, k)) for t, k in touched]

    def _dynamodb_after(self, model: Any, http_response: Any, context: dict[str, Any], **_: Any) -> None:
        touched: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = context.get("hookline_meter_before", [])
        if touched and http_response.status_code >= 400 and b"ConditionalCheckFailed" in (http_response.content or b""):
            self._add("conditional_conflicts", 1)
        for table, key, before in touched:
            after = self._item(table, key)
            self._add("dynamodb_write_units", write_units(item_size(before), item_size(after)))
            self._add("dynamodb_stored_bytes", stored_bytes(after) - stored_bytes(before))
            table_keys, indexes = self._schema(table)
            for index_keys, projection in indexes:
                had = before is not None and all(k in before for k in index_keys)
                has = after is not None and all(k in after for k in index_keys)
                # An ALL index's entry is the item; a KEYS_ONLY one's holds the table's and the index's keys alone.
                entry_before = _entry(before, projection, table_keys + index_keys) if had else None
                entry_after = _entry(after, projection, table_keys + index_keys) if has else None
                if entry_before == entry_after:
                    continue  # nothing the index holds changed: no index write
                self._add("dynamodb_stored_bytes", stored_bytes(entry_after) - stored_bytes(entry_before))
                moved = had and has and any(before[k] != after[k] for k in index_keys)  # type: ignore[index]
                size = item_size(entry_after if has else entry_before)
                self._add("dynamodb_write_units", write_units(0, size) * (2 if moved else 1))
        request = context.get("hookline_meter_request", {})
        if model.name in ("GetItem", "Query", "Scan"):
            reply = json.loads(http_response.content or b"{}")
            items = [reply["Item"]] if reply.get("Item") else reply.get("Items", [])
            # A query is billed on the total it read, rounded up to 4 KB once.
            self._add("dynamodb_read_units", read_units(sum(item_size(i) for i in items), bool(request.get("ConsistentRead"))))
        elif model.name == "BatchGetItem":
            reply = json.loads(http_response.content or b"{}")
            for table, wanted in request.get("RequestItems", {}).items():
                found = reply.get("Responses", {}).get(table, [])
                consistent = bool(wanted.get("ConsistentRead"))
                # Each key is its own read, rounded up to 4 KB; a missing item still costs the minimum.
                sizes = [item_size(i) for i in found] + [0] * max(0, len(wanted.get("Keys", [])) - len(found))
                self._add("dynamodb_read_units", sum(read_units(size, consistent) for size in sizes))

    # -- SQS, Step Functions, SNS ------------------------------------------------------------

    def _sqs(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if model.name == "SendMessage":
            self._add("sqs_requests", chunks(_message_bytes(params)))
        elif model.name == "SendMessageBatch":
            self._add("sqs_requests", chunks(sum(_message_bytes(e) for e in params["Entries"])))
        else:
            self._add("sqs_requests", 1)

    def _sfn(self, params: dict[str, Any], **_: Any) -> None:
        # Wait, then the Task that sends the task to SQS: two transitions and one SQS request.
        self._add("sfn_transitions", self._transitions)
        self._add("sqs_requests", chunks(len(json.loads(params["input"])["task"].encode())))

    def _sns(self, params: dict[str, Any], **_: Any) -> None:
        self._add("sns_publishes", chunks(len(params.get("Message", "").encode())))

    # -- a customer's account (the destination adapter's session) --------------------------------------

    def _destination_call(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        with self._lock:
            self.destination_calls[f"{model.service_model.service_name}.{model.name}"] += 1
        if model.name == "AssumeRole":
            self._add("assume_role_calls", 1)
            return
        with self._lock:
            self.last_put = {"operation": model.name, "params": dict(params)}
        self._add("destination_puts", 1)
        self._add("destination_put_bytes", _message_bytes(params) if model.name in ("SendMessage", "Publish") else _put_bytes(params))


def _put_bytes(params: dict[str, Any]) -> int:
    """What a put other than SendMessage or Publish carried: a record's data, an object's body, events' details."""
    if "Entries" in params:
        return sum(len(str(e.get("Detail", "")).encode()) for e in params["Entries"])
    data = params.get("Data", params.get("Body", b""))
    return len(data if isinstance(data, bytes) else str(data).encode())


def _message_bytes(params: dict[str, Any]) -> int:
    size = len((params.get("MessageBody") or params.get("Message") or "").encode())
    for name, attr in (params.get("MessageAttributes") or {}).items():
        size += len(name) + len(attr.get("DataType", "")) + len(str(attr.get("StringValue", "")).encode())
    return size
