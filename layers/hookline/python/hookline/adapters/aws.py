"""Lazily created, cached boto3 resources: nothing connects, nor imports boto3, at import time.

boto3 honours AWS_ENDPOINT_URL, which is how local mode points every client at
the embedded moto server without a code path of its own. boto3 and botocore (and hookline's DynamoDB transport,
codec and calls, which import them) are imported by the first client or table made: importing them is about half
a second of a cold start's CPU, and a function pays it once, on the first request that calls AWS.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boto3.dynamodb.conditions import ConditionExpressionBuilder
    from botocore.config import Config

    from hookline.adapters.dynamo.transport import FastSend


@cache
def _config() -> Config:
    """What every client is made with.

    A delivery batch talks to AWS from many threads at once (one per task, one per endpoint while planning).
    botocore's client-side parameter validation is off: it re-checks, on every call, requests hookline builds itself
    (and the service validates them anyway), and cost about a tenth of the delivery handler's CPU (docs/benchmarks.md).
    """
    from botocore.config import Config

    return Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=3, read_timeout=10, max_pool_connections=128, parameter_validation=False)


class ThreadLocalConditionBuilder:
    """boto3's ConditionExpressionBuilder, one per thread.

    boto3's resource layer turns Key(...) and Attr(...) conditions into expressions with one builder per Table,
    whose placeholder counters every call resets: a call on another thread resetting them mid-build names two
    attributes `#n0`, and the request then asks for the wrong thing ("Query condition missed key schema element",
    or a conditional write that checks another attribute). hookline calls one Table from many threads at once (a
    batch's endpoints and tasks side by side), so each thread builds its expressions with a builder of its own.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def own(self) -> ConditionExpressionBuilder:
        builder: ConditionExpressionBuilder | None = getattr(self._local, "builder", None)
        if builder is None:
            from boto3.dynamodb.conditions import ConditionExpressionBuilder

            builder = self._local.builder = ConditionExpressionBuilder()
        return builder

    def reset(self) -> None:
        self.own().reset()

    def build_expression(self, condition: Any, is_key_condition: bool = False) -> Any:
        return self.own().build_expression(condition, is_key_condition=is_key_condition)


@cache
def dynamodb_table(name: str) -> Any:
    import boto3

    from hookline.adapters.dynamo.calls import DataPlaneCalls
    from hookline.adapters.dynamo.codec import AttributeCodec
    from hookline.adapters.dynamo.transport import Connections, FastSend

    config = _config()
    table = boto3.resource("dynamodb", config=config).Table(name)
    # The builder lives on the Table's transformation injector (boto3.dynamodb.transform): a boto3 that moved it
    # fails here, at the first use, rather than racing (tests/integration/test_per_thread_tables.py).
    injector = table._injector
    if not hasattr(injector, "_condition_builder"):
        raise RuntimeError("boto3's DynamoDB resource no longer keeps its condition builder where hookline replaces it")
    injector._condition_builder = ThreadLocalConditionBuilder()
    client = table.meta.client
    # boto3's conversions of values and conditions, compiled per operation (hookline.adapters.dynamo.codec)
    AttributeCodec(injector._condition_builder).install(client.meta.events)
    # The data plane's requests go out on connections of hookline's own (hookline.adapters.dynamo.transport): the
    # last of the client's `before-call` handlers (botocore calls the most specific event's first, so the least
    # specific name, last), so every one before it still runs: botocore's own (the recursion detection header),
    # an injected fault, a stubber.
    connections = Connections(connect_timeout=config.connect_timeout, read_timeout=config.read_timeout, most_idle=config.max_pool_connections)
    _fast_sends[name] = FastSend(client, connections)
    client.meta.events.register_last("before-call", _fast_sends[name], unique_id="hookline-fast-send")
    # Its data-plane calls made from what botocore built for the first of each (hookline.adapters.dynamo.calls)
    DataPlaneCalls(client).install()
    return table


_fast_sends: dict[str, FastSend] = {}


def fast_send(table_name: str) -> FastSend:
    """The FastSend of `dynamodb_table(table_name)`: what it sent itself, what it handed to botocore."""
    dynamodb_table(table_name)
    return _fast_sends[table_name]


@cache
def _client(service: str) -> Any:
    import boto3

    return boto3.client(service, config=_config())


@cache
def dynamodb_client() -> Any:
    """A DynamoDB client made by botocore alone, not boto3: importing boto3 imports its resource layer, which the
    authorizer's reads by key (hookline.adapters.dynamo.lookup) do not need. The same configuration as every client;
    botocore reads the region and AWS_ENDPOINT_URL from the environment as boto3 does."""
    from botocore.session import get_session

    return get_session().create_client("dynamodb", config=_config())


def region() -> str:
    """The region the functions run in (boto3's default: AWS_REGION in Lambda, AWS_DEFAULT_REGION elsewhere)."""
    import boto3

    return boto3.Session().region_name or "us-east-1"


def sqs_client() -> Any:
    return _client("sqs")


def stepfunctions_client() -> Any:
    return _client("stepfunctions")


def sns_client() -> Any:
    return _client("sns")


def sesv2_client() -> Any:
    return _client("sesv2")


def kms_client() -> Any:
    return _client("kms")


def reset_clients() -> None:
    """Forget cached clients (tests start a fresh moto per test)."""
    dynamodb_table.cache_clear()
    dynamodb_client.cache_clear()
    _client.cache_clear()
    for sender in _fast_sends.values():
        sender.close()
    _fast_sends.clear()
