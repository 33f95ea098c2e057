"""The DynamoDB adapters keep the storage ports' contracts: the checks the in-memory fakes pass
(tests/fakes/contracts.py, run on the fakes in tests/unit/services), here against moto."""

from __future__ import annotations

from collections.abc import Callable

import boto3
import pytest

from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.events import EventRepository
from hookline.adapters.dynamo.replays import ReplayRepository
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.adapters.dynamo.stats import StatsRepository
from hookline.wiring import topology
from local.resources import create_table
from tests.fakes.contracts import CHECKS, Stores


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_dynamodb_adapters_keep_the_contract(check: Callable[[Stores], None], aws: None) -> None:
    name = create_table(boto3.client("dynamodb"), topology.TABLE, "contracts")
    table = boto3.resource("dynamodb").Table(name)
    check(
        Stores(
            EndpointRepository(table, settle_seconds=0),  # the tenant's own from the index as soon as its mark is written
            EndpointStateRepository(table),
            EventRepository(table),
            ReplayRepository(table),
            CustomerRepository(table),
            StatsRepository(table),
        )
    )
