"""translate_failures (hookline.adapters.failures): botocore's errors leave an adapter's public methods as
DependencyFailed, chained to the original and naming it; everything else leaves them as it came."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.failures import translate_failures
from hookline.core.errors import DependencyFailed
from hookline.core.models import Endpoint


def _throttled() -> ClientError:
    return ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}}, "Query")


@translate_failures
class _Adapter:
    """An adapter in miniature: each method raises the failure it is handed, if any."""

    def rows(self, failure: Exception | None) -> Iterator[int]:
        yield 1
        yield 2
        if failure:
            raise failure

    def call(self, failure: Exception | None, result: object = None) -> object:
        if failure:
            raise failure
        return result

    def _private(self, failure: Exception) -> None:
        raise failure

    @staticmethod
    def pure(failure: Exception) -> None:
        raise failure


def _endpoint() -> Endpoint:
    return Endpoint(id="ep_1", tenant="acme", url="https://example.com/hook", secret="whsec_x", created_at="t", updated_at="t")


CALLS: dict[str, Callable[[EndpointRepository], object]] = {
    "get": lambda repo: repo.get("acme", "ep_1"),
    "create": lambda repo: repo.create(_endpoint(), most=100),
    "conditional delete": lambda repo: repo.delete("acme", "ep_1"),
    "page": lambda repo: repo.page("acme", 10, None),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_a_client_error_from_a_real_repository_becomes_dependency_failed(call: Callable[[EndpointRepository], object], aws: None) -> None:
    # Given a repository on a table that does not exist
    repo = EndpointRepository(boto3.resource("dynamodb").Table("hookline-no-such-table"))
    # When any of its methods reads or writes
    with pytest.raises(DependencyFailed) as caught:
        call(repo)
    # Then the service sees DependencyFailed naming botocore's error, chained to it
    assert caught.value.cause == "ResourceNotFoundException"
    assert isinstance(caught.value.__cause__, ClientError)
    assert caught.value.__cause__.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_real_generator_method_fails_when_iterated_not_when_called(aws: None) -> None:
    repo = EndpointRepository(boto3.resource("dynamodb").Table("hookline-no-such-table"))
    endpoints = repo.all_of_owner("acme", None)  # nothing is read yet, so nothing fails yet
    with pytest.raises(DependencyFailed) as caught:
        next(endpoints)
    assert caught.value.cause == "ResourceNotFoundException"


class _UnreachableTable:
    def __init__(self) -> None:
        self.error = EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")

    def get_item(self, **_: Any) -> dict[str, Any]:
        raise self.error


def test_a_botocore_error_that_is_not_a_client_error_becomes_dependency_failed() -> None:
    # Given a repository whose table cannot be reached
    table = _UnreachableTable()
    with pytest.raises(DependencyFailed) as caught:
        EndpointRepository(table).get("acme", "ep_1")
    assert caught.value.cause == "EndpointConnectionError"
    assert caught.value.__cause__ is table.error


def test_an_error_in_the_middle_of_a_generator_method_becomes_dependency_failed_after_the_items_before_it() -> None:
    failure = _throttled()
    got: list[int] = []
    with pytest.raises(DependencyFailed) as caught:
        got.extend(_Adapter().rows(failure))
    assert got == [1, 2]
    assert caught.value.__cause__ is failure
    # an error botocore has no class for is named by its AWS error code, not by the generic ClientError
    assert caught.value.cause == "ProvisionedThroughputExceededException"
    assert "ProvisionedThroughputExceededException" in str(caught.value)


def test_results_pass_through_unchanged() -> None:
    result = object()
    assert _Adapter().call(None, result) is result
    assert list(_Adapter().rows(None)) == [1, 2]


def test_an_error_that_is_not_botocore_s_passes_through_unchanged() -> None:
    failure = ValueError("not a dependency's")
    with pytest.raises(ValueError) as caught:
        _Adapter().call(failure)
    assert caught.value is failure
    assert caught.value.__cause__ is None
    with pytest.raises(ValueError) as caught:
        list(_Adapter().rows(failure))
    assert caught.value is failure


UNTRANSLATED: dict[str, Callable[[_Adapter, Exception], None]] = {
    "private method": lambda adapter, failure: adapter._private(failure),
    "static method": lambda _, failure: _Adapter.pure(failure),
}


@pytest.mark.parametrize("call", UNTRANSLATED.values(), ids=UNTRANSLATED.keys())
def test_private_and_static_methods_are_left_as_they_are(call: Callable[[_Adapter, Exception], None]) -> None:
    # The public methods that call them translate what they raise; they are not a port's surface.
    failure = _throttled()
    with pytest.raises(ClientError) as caught:
        call(_Adapter(), failure)
    assert caught.value is failure
