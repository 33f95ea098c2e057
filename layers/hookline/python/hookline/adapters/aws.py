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
def _client(service: str) -> Any:
    return boto3.client(service, config=_CONFIG)


def sqs_client() -> Any:
    return _client("sqs")


def stepfunctions_client() -> Any:
    return _client("stepfunctions")


def sns_client() -> Any:
    return _client("sns")


def sesv2_client() -> Any:
    return _client("sesv2")


def reset_clients() -> None:
    """Forget cached clients (tests start a fresh moto per test)."""
    dynamodb_table.cache_clear()
    _client.cache_clear()
