"""local.moto_speedups keeps moto's SQS behaviour: only the cost of a send stops growing with the backlog."""

from __future__ import annotations

import boto3
from freezegun import freeze_time
from moto import mock_aws

from local import moto_speedups


def test_sends_behave_as_moto_does_with_the_speed_up_installed() -> None:
    moto_speedups.install()
    moto_speedups.install()  # idempotent
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        standard = sqs.create_queue(QueueName="std")["QueueUrl"]
        fifo = sqs.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
        for _ in range(3):
            sqs.send_message(QueueUrl=standard, MessageBody="same")
            sqs.send_message(QueueUrl=fifo, MessageBody="same", MessageGroupId="g")
        # A standard queue keeps every copy; the FIFO queue's content-based deduplication still drops the repeats
        counts = {url: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]["ApproximateNumberOfMessages"] for url in (standard, fifo)}
        assert counts == {standard: "3", fifo: "1"}
        # And the queues' attributes read outside a send are moto's own, in full
        attrs = sqs.get_queue_attributes(QueueUrl=fifo, AttributeNames=["All"])["Attributes"]
        assert attrs["ContentBasedDeduplication"] == "true" and attrs["FifoQueue"] == "true" and "VisibilityTimeout" in attrs


def test_queries_answer_as_moto_does_with_the_speed_up_installed() -> None:
    """Table and index queries, forwards, backwards and paged, give moto's own results in moto's order."""

    def answers() -> list[object]:
        with mock_aws():
            ddb = boto3.client("dynamodb", region_name="us-east-1")
            index = {"IndexName": "gsi", "KeySchema": [{"AttributeName": "gp", "KeyType": "HASH"}, {"AttributeName": "gs", "KeyType": "RANGE"}]}
            ddb.create_table(
                TableName="t",
                BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gp", "gs")],
                GlobalSecondaryIndexes=[{**index, "Projection": {"ProjectionType": "ALL"}}],
            )
            for i in range(60):
                item = {"pk": {"S": f"p{i % 4}"}, "sk": {"S": f"s{(i * 7) % 60:02d}"}, "n": {"N": str(i)}}
                if i % 3:
                    item |= {"gp": {"S": f"g{i % 2}"}, "gs": {"S": f"x{i % 5}"}}  # sparse, with ties on the index's sort key
                ddb.put_item(TableName="t", Item=item)
            out: list[object] = []
            for query in (
                {"KeyConditionExpression": "pk = :v", "ExpressionAttributeValues": {":v": {"S": "p1"}}},
                {
                    "KeyConditionExpression": "pk = :v AND sk > :s",
                    "ExpressionAttributeValues": {":v": {"S": "p2"}, ":s": {"S": "s20"}},
                    "ScanIndexForward": False,
                },
                {"KeyConditionExpression": "pk = :v", "ExpressionAttributeValues": {":v": {"S": "nope"}}},
                {"IndexName": "gsi", "KeyConditionExpression": "gp = :v", "ExpressionAttributeValues": {":v": {"S": "g1"}}},
                {
                    "IndexName": "gsi",
                    "KeyConditionExpression": "gp = :v AND begins_with(gs, :s)",
                    "ExpressionAttributeValues": {":v": {"S": "g0"}, ":s": {"S": "x2"}},
                },
                {"IndexName": "gsi", "KeyConditionExpression": "gp = :v", "ExpressionAttributeValues": {":v": {"S": "g0"}}, "Select": "COUNT"},
            ):
                pages, start = [], {}
                while True:
                    page = ddb.query(TableName="t", Limit=4, **query, **start)
                    pages.append([(i["pk"]["S"], i["sk"]["S"]) for i in page.get("Items", [])] or page.get("Count"))
                    if "LastEvaluatedKey" not in page:
                        break
                    start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
                out.append(pages)
            return out

    moto_speedups.install()
    with moto_speedups.queries_as_moto_makes_them():
        unpatched = answers()
    patched = answers()
    assert patched[0] and patched[3]  # the queries found something
    assert patched == unpatched


def test_receives_behave_as_moto_does_with_the_speed_up_installed() -> None:
    moto_speedups.install()
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        kept = sqs.create_queue(QueueName="kept")["QueueUrl"]
        for i in range(12):
            sqs.send_message(QueueUrl=kept, MessageBody=str(i))
        got = sqs.receive_message(QueueUrl=kept, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
        # Ten are handed out, with their attributes; the rest wait, and the queue's counts say so
        assert len(got) == 10 and all("SentTimestamp" in m["Attributes"] for m in got)
        attrs = sqs.get_queue_attributes(QueueUrl=kept, AttributeNames=["All"])["Attributes"]
        assert (attrs["ApproximateNumberOfMessages"], attrs["ApproximateNumberOfMessagesNotVisible"]) == ("2", "10")
        # And a message past the queue's retention period is not handed out, as moto decides it
        short = sqs.create_queue(QueueName="short", Attributes={"MessageRetentionPeriod": "60"})["QueueUrl"]
        with freeze_time("2026-12-01T10:00:00Z") as clock:
            sqs.send_message(QueueUrl=short, MessageBody="old")
            clock.tick(120)
            assert "Messages" not in sqs.receive_message(QueueUrl=short, MaxNumberOfMessages=10)


def test_the_server_still_finds_each_service() -> None:
    from moto import backends

    moto_speedups.install()
    listed = backends.list_of_moto_modules()
    assert "dynamodb" in listed and "sqs" in listed and "__pycache__" not in listed
    assert backends.list_of_moto_modules() is listed  # read once
