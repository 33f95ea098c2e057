"""No two threads share a condition builder: boto3's is not thread-safe (hookline.adapters.aws)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase, ConditionExpressionBuilder, Key

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


class _Signal(ConditionBase):
    """A condition whose building tells `when` has happened, then waits for `then`."""

    expression_operator = "="
    expression_format = "{0} {operator} {1}"

    def __init__(self, *values: Any, when: threading.Event, then: threading.Event | None = None) -> None:
        super().__init__(*values)
        self._when, self._then = when, then

    def get_expression(self) -> dict[str, Any]:
        self._when.set()
        if self._then is not None:
            assert self._then.wait(timeout=10)
        return super().get_expression()


def _interleaved(builder: Any) -> Any:
    """Thread A builds `pk = 1 AND b = 2` and, between its two names, thread B starts a build of its own (which resets
    the builder's counters first, as boto3's injector does before every call). What A built, names and all."""
    a_halfway, b_reset, a_done = threading.Event(), threading.Event(), threading.Event()

    def a() -> Any:
        builder.reset()
        # And builds its left side (pk: #n0), then asks its right side, which waits until B has reset the counters
        condition = Key("pk").eq(1) & _Signal(Attr("b"), 2, when=a_halfway, then=b_reset)
        built = builder.build_expression(condition)
        a_done.set()
        return built

    def b() -> None:
        assert a_halfway.wait(timeout=10)
        builder.reset()
        builder.build_expression(_Signal(Attr("c"), 3, when=b_reset, then=a_done))

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.submit(a), pool.submit(b)
        second.result(timeout=20)
        return first.result(timeout=20)


def test_a_build_on_another_thread_never_renames_this_threads_attributes(hookline: Hookline) -> None:
    # Given boto3's own builder, shared as a Table shares it: a build on another thread mid-way names both of A's
    # attributes #n0 (what the fix prevents; the check that this test can fail)
    shared = _interleaved(ConditionExpressionBuilder())
    assert len(shared.attribute_name_placeholders) == 1
    # When the table's builder (one per thread) builds the same, interleaved the same way
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    built = _interleaved(table._injector._condition_builder)
    # Then A's expression names its two attributes apart
    assert built.attribute_name_placeholders == {"#n0": "pk", "#n1": "b"}
    assert built.condition_expression == "(#n0 = :v0 AND #n1 = :v1)"
