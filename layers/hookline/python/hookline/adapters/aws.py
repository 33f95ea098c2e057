"""Lazily created, cached boto3 resources: nothing connects at import time.

boto3 honours AWS_ENDPOINT_URL, which is how local mode points every client at
the embedded moto server without a code path of its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from botocore.config import Config

# A delivery batch talks to AWS from many threads at once (one per task, one per endpoint while planning).
_CONFIG = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=3, read_timeout=10, max_pool_connections=128)


@cache
def dynamodb_table(name: str) -> Any:
    return boto3.resource("dynamodb", config=_CONFIG).Table(name)


@cache
def sqs_client() -> Any:
    return boto3.client("sqs", config=_CONFIG)


@cache
def stepfunctions_client() -> Any:
    return boto3.client("stepfunctions", config=_CONFIG)


@cache
def sns_client() -> Any:
    return boto3.client("sns", config=_CONFIG)


@cache
def sesv2_client() -> Any:
    return boto3.client("sesv2", config=_CONFIG)


def reset_clients() -> None:
    """Forget cached clients (tests start a fresh moto per test)."""
    dynamodb_table.cache_clear()
    sqs_client.cache_clear()
    stepfunctions_client.cache_clear()
    sns_client.cache_clear()
    sesv2_client.cache_clear()
