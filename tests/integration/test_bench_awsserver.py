"""bench.measurement.awsserver: the benchmark's AWS keeps its connections, as AWS does for a warm Lambda, and serves what moto serves."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import boto3
import pytest
import requests

from bench.measurement.harness import aws_server


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with aws_server() as url:
        yield url


def _client(service: str, url: str) -> object:
    return boto3.session.Session().client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")


def test_one_connection_serves_every_call(endpoint: str, caplog: pytest.LogCaptureFixture) -> None:
    dynamodb = _client("dynamodb", endpoint)
    with caplog.at_level(logging.DEBUG, logger="urllib3.connectionpool"):
        dynamodb.create_table(  # type: ignore[attr-defined]
            TableName="kept",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        for n in range(5):
            dynamodb.put_item(TableName="kept", Item={"pk": {"S": "a"}, "n": {"N": str(n)}})  # type: ignore[attr-defined]
        item = dynamodb.get_item(TableName="kept", Key={"pk": {"S": "a"}}, ConsistentRead=True)["Item"]  # type: ignore[attr-defined]
    assert item["n"] == {"N": "4"}
    opened = [r.getMessage() for r in caplog.records if "new HTTP connection" in r.getMessage() or "dropped connection" in r.getMessage()]
    assert opened == [f"Starting new HTTP connection (1): {endpoint.removeprefix('http://').rsplit(':', 1)[0]}:{endpoint.rsplit(':', 1)[1]}"]


def test_a_chunked_body_and_a_head_request_are_served(endpoint: str) -> None:
    s3 = _client("s3", endpoint)
    s3.create_bucket(Bucket="kept")  # type: ignore[attr-defined]
    s3.put_object(Bucket="kept", Key="k", Body=b"x" * 3000)  # type: ignore[attr-defined]
    assert s3.head_object(Bucket="kept", Key="k")["ContentLength"] == 3000  # type: ignore[attr-defined]

    def body() -> Iterator[bytes]:  # a generator: requests sends it with Transfer-Encoding: chunked
        yield b"first chunk, "
        yield b"second chunk"

    put = requests.put(endpoint + "/kept/chunked", data=body(), timeout=10)  # moto reads a request it cannot place as S3's
    assert put.status_code == 200, put.text
    assert s3.get_object(Bucket="kept", Key="chunked")["Body"].read() == b"first chunk, second chunk"  # type: ignore[attr-defined]
