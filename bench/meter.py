"""Billable AWS units of real handler runs, counted from the AWS calls they make.

`Meter` hooks botocore's event system on the boto3 default session, so every
client hookline builds afterwards reports each call. DynamoDB writes are billed
on the larger of the item's size before and after (read through a separate,
unmetered client), reads on the size of what came back; SQS and SNS requests
in 64 KB chunks; a Step Functions execution on the states of the wait machine.
Lambda time is measured around each handler call.
"""

from __future__ import annotations

import io
import json
import math
import threading
import time
from base64 import b64decode
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any

import boto3

from bench.harness import redirect_logs
from bench.prices import US_EAST_1, Prices
from hookline.adapters import aws
from hookline.wiring import topology

KB = 1024
SQS_CHUNK = 64 * KB
# Lambda writes START, END and REPORT lines of its own for every invocation.
PLATFORM_LOG_BYTES = 350


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
        }


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
        self._keys: dict[str, tuple[list[str], list[list[str]]]] = {}
        self._before: dict[int, list[tuple[str, dict[str, Any], int]]] = {}
        self._stdout = _CountingStream()
        self._logs = redirect_logs(self._stdout)
        self._transitions = len(topology.RETRY_WAIT.definition("x")["States"])

    # -- installation ---------------------------------------------------------------

    def install(self) -> None:
        boto3.setup_default_session()
        events = boto3.DEFAULT_SESSION.events
        events.register("before-call.dynamodb", self._dynamodb_before)
        events.register("after-call.dynamodb", self._dynamodb_after)
        events.register("before-parameter-build.sqs", self._sqs)
        events.register("before-parameter-build.sfn.StartExecution", self._sfn)
        events.register("before-parameter-build.sns.Publish", self._sns)
        aws.reset_clients()  # hookline's clients are rebuilt from the metered session
        # Log lines (Powertools logger and EMF metrics) go to a counter instead of the terminal.
        self._logs.__enter__()

    def uninstall(self) -> None:
        self._logs.__exit__(None, None, None)

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
        """One invocation: requests and GB-seconds (billed per started ms) at the function's configured memory."""
        started = time.perf_counter()
        result = handler(event, None)
        ms = math.ceil((time.perf_counter() - started) * 1000)
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

    def _schema(self, table: str) -> tuple[list[str], list[list[str]]]:
        if table not in self._keys:
            desc = self._raw.describe_table(TableName=table)["Table"]
            keys = [k["AttributeName"] for k in desc["KeySchema"]]
            indexes = [[k["AttributeName"] for k in g["KeySchema"]] for g in desc.get("GlobalSecondaryIndexes", [])]
            self._keys[table] = (keys, indexes)
        return self._keys[table]

    def _current(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
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
            context["hookline_meter_before"] = [(t, k, self._current(t, k)) for t, k in touched]

    def _dynamodb_after(self, model: Any, http_response: Any, context: dict[str, Any], **_: Any) -> None:
        touched: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = context.get("hookline_meter_before", [])
        for table, key, before in touched:
            after = self._current(table, key)
            self._add("dynamodb_write_units", write_units(item_size(before), item_size(after)))
            indexes = self._schema(table)[1]
            for index_keys in indexes:
                had = before is not None and all(k in before for k in index_keys)
                has = after is not None and all(k in after for k in index_keys)
                if not (had or has) or before == after:
                    continue
                moved = had and has and any(before[k] != after[k] for k in index_keys)  # type: ignore[index]
                size = item_size(after if has else before)
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


def _message_bytes(params: dict[str, Any]) -> int:
    size = len(params.get("MessageBody", "").encode())
    for name, attr in (params.get("MessageAttributes") or {}).items():
        size += len(name) + len(attr.get("DataType", "")) + len(str(attr.get("StringValue", "")).encode())
    return size
