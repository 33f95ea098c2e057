"""No two threads share a condition builder: boto3's is not thread-safe (hookline.adapters.aws)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from boto3.dynamodb.conditions import Key

from hookline.adapters import aws
from hookline.wiring import topology
from tests.conftest import Hookline


def test_each_thread_builds_its_expressions_with_a_builder_of_its_own(hookline: Hookline) -> None:
    # Given the table as the adapters get it: one resource, one client, for every thread
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    builder = table._injector._condition_builder
    assert isinstance(builder, aws.ThreadLocalConditionBuilder)
    # When it is used from this thread twice and from four pool threads at once
    here = {id(builder.own()), id(builder.own())}
    with ThreadPoolExecutor(4) as pool:
        barrier = threading.Barrier(4)

        def builder_of_this_thread(_: int) -> int:
            barrier.wait(timeout=10)  # all four threads at once, so none reuses another's thread
            return id(builder.own())

        elsewhere = set(pool.map(builder_of_this_thread, range(4)))
    # Then one thread keeps its one builder, and every other thread has its own
    assert len(here) == 1 and len(elsewhere) == 4 and not here & elsewhere


def test_queries_from_many_threads_at_once_each_ask_what_they_mean(hookline: Hookline) -> None:
    # Given items under two partitions
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    for pk in ("A", "B"):
        for n in range(3):
            table.put_item(Item={"pk": f"TEST#{pk}", "sk": f"{n}", "kind": pk})

    # When 200 queries with two-part key conditions run on 8 threads at once (a shared resource's builder names two
    # attributes #n0 when another thread resets it mid-build, and moto then refuses the query or answers another)
    def query(i: int) -> set[str]:
        pk = "A" if i % 2 else "B"
        items = table.query(KeyConditionExpression=Key("pk").eq(f"TEST#{pk}") & Key("sk").between("0", "9"))["Items"]
        return {str(item["kind"]) for item in items} | {pk}

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(query, range(200)))
    # Then every query found its own partition's items alone
    assert all(len(kinds) == 1 for kinds in answers)
