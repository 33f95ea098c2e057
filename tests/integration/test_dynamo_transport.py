"""hookline.adapters.dynamo.transport on real sockets: hookline's Table sends DynamoDB's requests itself on kept
connections (over TLS verified as botocore verifies) and reads the answers as botocore does; what it cannot finish,
botocore's own send takes over. And hookline.adapters.dynamo.calls: a later call is made from what botocore built for
the first, and behaves alike."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary
from botocore.config import Config
from botocore.exceptions import ClientError, SSLError

from bench.measurement.harness import aws_server
from hookline.adapters import aws
from hookline.adapters.dynamo.calls import DataPlaneCalls
from hookline.adapters.dynamo.transport import Connections, FastSend, target
from tests.support.certificates import make_certificates

CREDENTIALS = {"aws_access_key_id": "AKIDTEST", "aws_secret_access_key": "secret", "region_name": "us-east-1"}


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    with aws_server() as url:
        yield url


@pytest.fixture
def table(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """hookline's own Table (hookline.adapters.aws.dynamodb_table) on moto served over kept-alive HTTP."""
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    boto3.setup_default_session()
    name = f"transport-{uuid.uuid4().hex}"  # one moto server serves the module: a name never used before
    boto3.client("dynamodb").create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    aws.reset_clients()
    yield aws.dynamodb_table(name)
    aws.reset_clients()
    boto3.setup_default_session()


def test_a_tables_calls_go_out_on_one_kept_connection_and_read_as_boto3s(table: Any) -> None:
    sender = aws.fast_send(table.name)
    item = {"pk": "a", "sk": "1", "n": 3, "blob": Binary(b"\x00\xff"), "m": {"B": "x", "l": [1, None, True]}, "s": {"x", "y"}}
    table.put_item(Item=item)
    table.update_item(Key={"pk": "a", "sk": "1"}, UpdateExpression="SET n = n + :one", ExpressionAttributeValues={":one": 1})
    for sk in "234":
        table.put_item(Item={"pk": "a", "sk": sk})
    got = table.get_item(Key={"pk": "a", "sk": "1"}, ConsistentRead=True)["Item"]
    queried = table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "a"}, Limit=2)
    batch = table.meta.client.batch_get_item(RequestItems={table.name: {"Keys": [{"pk": "a", "sk": "2"}, {"pk": "a", "sk": "9"}]}})

    assert got == {**item, "n": 4}
    assert [i["sk"] for i in queried["Items"]] == ["1", "2"]
    assert queried["LastEvaluatedKey"] == {"pk": "a", "sk": "2"}
    assert batch["Responses"][table.name] == [{"pk": "a", "sk": "2"}]
    assert (sender.sent, sender.handed_over) == (8, 0)
    assert sender.connections.opened == 1


def test_a_refused_condition_raises_botocores_error_with_the_same_answer(table: Any) -> None:
    table.put_item(Item={"pk": "c", "sk": "1", "version": 2})
    plain = boto3.session.Session().resource("dynamodb").Table(table.name)  # botocore's own send, for comparison
    answers = []
    for through in (table, plain):
        with pytest.raises(through.meta.client.exceptions.ConditionalCheckFailedException) as refused:
            through.put_item(
                Item={"pk": "c", "sk": "1", "version": 3},
                ConditionExpression="version = :v",
                ExpressionAttributeValues={":v": 1},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        answers.append(refused.value.response)
    ours, botocores = answers
    assert ours["Error"] == botocores["Error"]
    assert ours["Item"] == botocores["Item"] == {"pk": {"S": "c"}, "sk": {"S": "1"}, "version": {"N": "2"}}
    with pytest.raises(ClientError) as invalid:
        table.update_item(Key={"pk": "c", "sk": "1"}, UpdateExpression="SET = nonsense")
    assert invalid.value.response["Error"]["Code"] == "ValidationException"
    assert aws.fast_send(table.name).handed_over == 0


def test_under_a_proxy_botocore_sends(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # botocore itself goes straight to the local endpoint
    sender = aws.fast_send(table.name)
    table.put_item(Item={"pk": "p", "sk": "1"})
    assert table.get_item(Key={"pk": "p", "sk": "1"})["Item"] == {"pk": "p", "sk": "1"}
    assert sender.sent == 0


# -- a scripted DynamoDB: what the transport does with a closed connection, a throttle, a 5xx, a bad checksum ----------


class Scripted:
    """A DynamoDB endpoint that answers each request with the next of `answers`: (status, body, how), where `how`
    is "" (keep the connection), "close" (answer, then close the connection without saying so), "bad-crc", "cut"
    (a body ten bytes short of its Content-Length, then the connection closed) or "interim" (a 100 Continue first)."""

    def __init__(self, answers: list[tuple[int, dict[str, Any], str]]):
        self.answers = list(answers)
        self.requests: list[dict[str, str]] = []
        self.connections = 0
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                scripted.connections += 1

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                scripted.requests.append({k.lower(): v for k, v in self.headers.items()})
                status, body, how = scripted.answers.pop(0)
                data = json.dumps(body).encode()
                if how == "interim":
                    self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                self.send_response(status)
                self.send_header("Content-Type", "application/x-amz-json-1.0")
                self.send_header("x-amzn-RequestId", f"req-{len(scripted.requests)}")
                self.send_header("x-amz-crc32", str(zlib.crc32(data) + (1 if how == "bad-crc" else 0)))
                self.send_header("Content-Length", str(len(data) + (10 if how == "cut" else 0)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                if how in ("close", "cut"):
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


ITEM = {"Item": {"pk": {"S": "a"}}}
THROTTLED = {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", "message": "slow down"}


def _scripted(answers: list[tuple[int, dict[str, Any], str]], monkeypatch: pytest.MonkeyPatch) -> tuple[Scripted, Any, FastSend, list[float]]:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    endpoint = Scripted(answers)
    client = boto3.session.Session().client(
        "dynamodb", endpoint_url=endpoint.url, config=Config(retries={"mode": "standard", "max_attempts": 3}), **CREDENTIALS
    )
    pauses: list[float] = []
    sender = FastSend(client, Connections(connect_timeout=3, read_timeout=5, most_idle=4), pause=pauses.append)
    client.meta.events.register_last("before-call", sender)
    return endpoint, client, sender, pauses


def test_a_kept_connection_the_server_closed_is_not_a_try(monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, client, sender, pauses = _scripted([(200, ITEM, "close"), (200, ITEM, ""), (200, ITEM, "")], monkeypatch)
    try:
        answers = [client.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"] for _ in range(3)]
    finally:
        endpoint.close()
    assert answers == [ITEM["Item"]] * 3
    assert (sender.sent, sender.handed_over, pauses) == (3, 0, [])
    assert (endpoint.connections, sender.connections.opened) == (2, 2)
    assert all(r["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDTEST/") for r in endpoint.requests)


@pytest.mark.parametrize(
    ("first", "why"),
    [((400, THROTTLED, ""), "a throttle"), ((500, {"message": "oops"}, ""), "a 5xx"), ((200, ITEM, "bad-crc"), "a checksum that does not match")],
)
def test_a_try_that_did_not_finish_is_botocores_to_send_again(first: tuple[int, dict[str, Any], str], why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, client, sender, pauses = _scripted([first, (200, {"Item": {"pk": {"S": "again"}}}, "")], monkeypatch)
    try:
        answer = client.get_item(TableName="t", Key={"pk": {"S": "a"}})
    finally:
        endpoint.close()
    assert answer["Item"] == {"pk": {"S": "again"}}, why
    assert (sender.sent, sender.handed_over, len(pauses)) == (0, 1, 1)
    assert 0 <= pauses[0] <= 1.0
    assert [("amz-sdk-invocation-id" in r) for r in endpoint.requests] == [False, True]  # the second is botocore's own send


def test_an_answer_cut_short_on_a_kept_connection_is_a_try_botocore_sends_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unlike a kept connection closed before any answer, a body cut short means the request reached DynamoDB: it is
    not sent again at once as if it had not, but handed to botocore's send as a failed try."""
    endpoint, client, sender, pauses = _scripted([(200, ITEM, ""), (200, ITEM, "cut"), (200, {"Item": {"pk": {"S": "again"}}}, "")], monkeypatch)
    try:
        first = client.get_item(TableName="t", Key={"pk": {"S": "a"}})
        second = client.get_item(TableName="t", Key={"pk": {"S": "a"}})
    finally:
        endpoint.close()
    assert (first["Item"], second["Item"]) == (ITEM["Item"], {"pk": {"S": "again"}})
    assert (sender.sent, sender.handed_over, len(pauses)) == (1, 1, 1)
    assert [("amz-sdk-invocation-id" in r) for r in endpoint.requests] == [False, False, True]


def test_an_informational_answer_before_the_answer_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, client, sender, _ = _scripted([(200, ITEM, "interim"), (200, ITEM, "")], monkeypatch)
    try:
        answers = [client.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"] for _ in range(2)]
    finally:
        endpoint.close()
    assert answers == [ITEM["Item"]] * 2
    assert (sender.sent, sender.handed_over, endpoint.connections) == (2, 0, 1)


def test_an_answer_that_is_a_refusal_is_not_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    refused = {"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed"}
    endpoint, client, sender, _ = _scripted([(400, refused, "")], monkeypatch)
    try:
        with pytest.raises(client.exceptions.ConditionalCheckFailedException):
            client.put_item(TableName="t", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
    finally:
        endpoint.close()
    assert (sender.sent, sender.handed_over, len(endpoint.requests)) == (1, 0, 1)


# -- hookline.adapters.dynamo.calls: a later call made from what botocore built for the first -------------------------


def test_a_tables_later_calls_send_what_botocore_built_for_the_first(table: Any) -> None:
    client = table.meta.client
    calls = client._make_api_call
    assert isinstance(calls, DataPlaneCalls)
    seen: list[tuple[str, Any, str, dict[str, str]]] = []

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        headers = {k: v for k, v in params["headers"].items() if k.lower() not in ("x-amzn-trace-id", "user-agent")}
        body = json.loads(params["body"])
        if model.name == "TransactWriteItems":  # botocore's idempotency token: a new one each call, on either path
            assert len(body.pop("ClientRequestToken")) == 36
        seen.append((model.name, body, params["url"], headers))

    client.meta.events.register("before-call.dynamodb", record)
    item = {"pk": "t", "sk": "1", "n": 3, "blob": Binary(b"\x00\xff"), "m": {"B": "x", "l": [1, None, True]}, "s": {"x", "y"}}
    key = {"pk": "t", "sk": "1"}
    rounds: list[list[Any]] = []
    for _ in range(2):
        answers = [
            table.put_item(Item=item),
            table.update_item(
                Key=key, UpdateExpression="SET n = :n", ConditionExpression=Attr("n").eq(3), ExpressionAttributeValues={":n": 3}, ReturnValues="ALL_NEW"
            )["Attributes"],
            table.get_item(Key=key, ConsistentRead=True)["Item"],
            table.query(KeyConditionExpression=Key("pk").eq("t"), Limit=1)["Items"],
            client.batch_get_item(RequestItems={table.name: {"Keys": [key]}})["Responses"],
            client.batch_write_item(RequestItems={table.name: [{"PutRequest": {"Item": {"pk": "t", "sk": "2"}}}]})["UnprocessedItems"],
            client.transact_write_items(
                TransactItems=[{"ConditionCheck": {"TableName": table.name, "Key": key, "ConditionExpression": "attribute_exists(pk)"}}]
            ),
        ]
        rounds.append([{k: v for k, v in a.items() if k != "ResponseMetadata"} if isinstance(a, dict) else a for a in answers])
    assert rounds[0] == rounds[1]
    assert rounds[0][2] == item
    operations = ["PutItem", "UpdateItem", "GetItem", "Query", "BatchGetItem", "BatchWriteItem", "TransactWriteItems"]
    assert calls.learned == {(op, (table.name,)) for op in operations}
    assert [s[0] for s in seen] == operations * 2
    assert seen[: len(operations)] == seen[len(operations) :]  # the same requests, built by botocore, then from its templates
    assert aws.fast_send(table.name).sent == 2 * len(operations)


def _learning(client: Any) -> DataPlaneCalls:
    calls = DataPlaneCalls(client)
    calls.install()
    return calls


def test_a_call_from_a_template_botocore_cannot_finish_goes_on_with_botocores_send(monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, client, sender, _pauses = _scripted([(200, ITEM, ""), (500, {"message": "oops"}, ""), (200, {"Item": {"pk": {"S": "again"}}}, "")], monkeypatch)
    calls = _learning(client)
    try:
        answers = [client.get_item(TableName="t", Key={"pk": {"S": "a"}})["Item"] for _ in range(2)]
    finally:
        endpoint.close()
    assert answers == [ITEM["Item"], {"pk": {"S": "again"}}]
    assert calls.learned == {("GetItem", ("t",))}
    assert (sender.sent, sender.handed_over) == (1, 1)
    assert [("amz-sdk-invocation-id" in r) for r in endpoint.requests] == [False, False, True]  # the third is botocore's own send


def test_a_refusal_of_a_call_from_a_template_is_botocores_error() -> None:
    refused = {"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed", "Item": ITEM["Item"]}
    errors = []
    for learn in (False, True):
        with pytest.MonkeyPatch.context() as monkeypatch:
            endpoint, client, _sender, _ = _scripted([(200, {}, ""), (400, refused, "")], monkeypatch)
            calls = _learning(client) if learn else None
            try:
                client.put_item(TableName="t", Item={"pk": {"S": "a"}})
                with pytest.raises(client.exceptions.ConditionalCheckFailedException) as caught:
                    client.put_item(TableName="t", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
            finally:
                endpoint.close()
            assert calls is None or calls.learned == {("PutItem", ("t",))}
            errors.append({k: v for k, v in caught.value.response.items() if k != "ResponseMetadata"})
    assert errors[0] == errors[1]
    assert (errors[1]["Error"], errors[1]["Item"]) == ({"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}, ITEM["Item"])


# -- over TLS, as to DynamoDB's own endpoint: the certificate is verified, and the connection kept ---------------------


@contextmanager
def tls_front(backend: str, key: Path, cert: Path) -> Iterator[tuple[int, list[str]]]:
    """A TLS endpoint on loopback in front of the moto server at `backend`, with the certificate: its port, and one
    entry per TLS connection it accepted ("ok", or the handshake's failure)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    backend_address = target(backend).origin[1:]
    accepted: list[str] = []

    def pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def serve(server: socket.socket) -> None:
        while True:
            try:
                raw, _ = server.accept()
            except OSError:
                return
            try:
                front = context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError) as exc:
                accepted.append(type(exc).__name__)
                raw.close()
                continue
            accepted.append("ok")
            back = socket.create_connection(backend_address)
            threading.Thread(target=pipe, args=(front, back), daemon=True).start()
            threading.Thread(target=pipe, args=(back, front), daemon=True).start()

    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=serve, args=(server,), daemon=True).start()
        yield server.getsockname()[1], accepted


def test_over_tls_the_tables_calls_verify_the_endpoints_certificate_on_one_kept_connection(
    table: Any, moto_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_certificates(tmp_path, ["localhost"])
    with tls_front(moto_endpoint, tmp_path / "localhost.key", tmp_path / "localhost.pem") as (port, accepted):
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"https://localhost:{port}")
        monkeypatch.setenv("AWS_CA_BUNDLE", str(tmp_path / "ca.pem"))  # as botocore takes it: the CA that signed the endpoint's
        aws.reset_clients()
        boto3.setup_default_session()
        secure = aws.dynamodb_table(table.name)
        sender = aws.fast_send(table.name)
        secure.put_item(Item={"pk": "t", "sk": "1", "n": 1})
        secure.update_item(Key={"pk": "t", "sk": "1"}, UpdateExpression="SET n = n + :one", ExpressionAttributeValues={":one": 1})
        got = secure.get_item(Key={"pk": "t", "sk": "1"}, ConsistentRead=True)["Item"]
        sent, handed_over, opened = sender.sent, sender.handed_over, sender.connections.opened

        monkeypatch.setenv("AWS_CA_BUNDLE", str(tmp_path / "stranger-ca.pem"))  # a CA that signed nothing of the endpoint's
        aws.reset_clients()
        boto3.setup_default_session()
        untrusting = aws.dynamodb_table(table.name)
        with pytest.raises(SSLError):
            untrusting.get_item(Key={"pk": "t", "sk": "1"})
        refused = aws.fast_send(table.name)

    assert got == {"pk": "t", "sk": "1", "n": 2}
    assert (sent, handed_over, opened) == (3, 0, 1)  # hookline's own send, over one verified connection
    assert accepted[0] == "ok" and accepted.count("ok") == 1
    # Its own try refused the certificate and handed the call over; botocore's send refused it too: nothing went out
    assert (refused.sent, refused.handed_over) == (0, 1)
    assert "ok" not in accepted[1:]
