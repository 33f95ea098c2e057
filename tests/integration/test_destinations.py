"""Non-HTTP destinations end to end over moto: an endpoint delivers into a queue, topic, event bus, stream or bucket in
the customer's own account, through a role hookline assumes with the endpoint's external id, and every delivery
carries the Standard Webhooks headers that the official library verifies against the endpoint's secret."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import botocore.awsrequest
import pytest
from standardwebhooks.webhooks import Webhook

from hookline.adapters.dynamo import keys
from hookline.core.destinations import ROLE_NAME_PREFIX
from hookline.wiring import container, topology
from tests.conftest import Hookline

CUSTOMER_ACCOUNT = "111122223333"
REGION = "us-east-1"
ROLE_ARN = f"arn:aws:iam::{CUSTOMER_ACCOUNT}:role/{ROLE_NAME_PREFIX}orders"


def customer() -> boto3.Session:
    """The customer's own account (moto hands out credentials of the role's account)."""
    creds = boto3.client("sts").assume_role(RoleArn=f"arn:aws:iam::{CUSTOMER_ACCOUNT}:role/admin", RoleSessionName="customer")["Credentials"]
    return boto3.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name=REGION,
    )


def verified(secret: str, body: str, headers: dict[str, str]) -> dict[str, Any]:
    """The payload, once the official Standard Webhooks library has verified its signature."""
    payload: dict[str, Any] = Webhook(secret).verify(body, headers)
    return payload


def make_endpoint(hookline: Hookline, destination: dict[str, Any]) -> dict[str, Any]:
    status, endpoint = hookline.api("POST", "/v1/endpoints", {"destination": {**destination, "role_arn": ROLE_ARN}, "event_types": ["order.paid"]})
    assert status == 201, endpoint
    assert endpoint["url"] is None
    assert endpoint["destination"]["external_id"].startswith("hookline-")
    return endpoint


def send_order(hookline: Hookline, amount: int) -> str:
    status, answer = hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"amount": amount}})
    assert (status, answer["deliveries"]) == (202, 1), answer
    return str(answer["id"])


def receive_all(sqs: Any, queue_url: str, want: int) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    for _ in range(20):
        batch = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"], AttributeNames=["All"]).get("Messages", [])
        for m in batch:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
        got += batch
        if len(got) >= want and not batch:
            break
    return got


def queue_of(sqs: Any, name: str) -> tuple[str, str]:
    """A new queue of the customer's, where a subscription or a rule sends: its URL and ARN."""
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def attributes(message: dict[str, Any]) -> dict[str, str]:
    return {k: v["StringValue"] for k, v in message.get("MessageAttributes", {}).items()}


def delivered_ok(hookline: Hookline, event_id: str) -> dict[str, Any]:
    status, event = hookline.api("GET", f"/v1/events/{event_id}")
    assert status == 200
    [delivery] = event["deliveries"]
    return dict(delivery)


def test_an_sqs_destination_gets_each_event_once_with_verifiable_attributes(hookline: Hookline) -> None:
    sqs = customer().client("sqs")
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    endpoint = make_endpoint(hookline, {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders"})
    ids = [send_order(hookline, amount) for amount in (150, 50)]
    hookline.pump()
    messages = receive_all(sqs, queue_url, 2)
    # Each event once, with the exact body an HTTP receiver gets, verified by the official library with the endpoint's secret
    assert len(messages) == 2
    payloads = [verified(endpoint["secret"], m["Body"], attributes(m)) for m in messages]
    assert sorted((p["id"], p["data"]["amount"]) for p in payloads) == sorted(zip(ids, (150, 50), strict=True))
    assert {attributes(m)["webhook-id"] for m in messages} == set(ids)
    # And the attempt log shows the AWS request, as it shows an HTTP answer
    delivery = delivered_ok(hookline, ids[0])
    assert delivery["status"] == "succeeded"
    [attempt] = delivery["attempts"]
    assert (attempt["status_code"], attempt["error"]) == (200, None)
    assert set(json.loads(attempt["response_body"])) == {"request_id", "message_id"}


def test_a_fifo_queue_gets_the_endpoint_as_group_and_the_delivery_as_deduplication_id(hookline: Hookline) -> None:
    sqs = customer().client("sqs")
    queue_url = sqs.create_queue(QueueName="orders.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    endpoint = make_endpoint(hookline, {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders.fifo"})
    event_id = send_order(hookline, 7)
    hookline.pump()
    [message] = receive_all(sqs, queue_url, 1)
    assert message["Attributes"]["MessageGroupId"] == endpoint["id"]
    assert message["Attributes"]["MessageDeduplicationId"] == delivered_ok(hookline, event_id)["id"]
    assert verified(endpoint["secret"], message["Body"], attributes(message))["id"] == event_id


def test_an_sns_destination_reaches_a_subscribed_queue_with_verifiable_attributes(hookline: Hookline) -> None:
    account = customer()
    sns, sqs = account.client("sns"), account.client("sqs")
    topic_arn = sns.create_topic(Name="orders")["TopicArn"]
    queue_url, queue_arn = queue_of(sqs, "orders-from-sns")
    sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"})
    endpoint = make_endpoint(hookline, {"type": "sns", "topic_arn": topic_arn})
    event_id = send_order(hookline, 150)
    hookline.pump()
    [message] = receive_all(sqs, queue_url, 1)
    assert verified(endpoint["secret"], message["Body"], attributes(message))["id"] == event_id


def test_an_eventbridge_destination_reaches_a_rule_target_with_the_signature_in_the_detail(hookline: Hookline) -> None:
    account = customer()
    events, sqs = account.client("events"), account.client("sqs")
    bus_arn = events.create_event_bus(Name="orders")["EventBusArn"]
    queue_url, queue_arn = queue_of(sqs, "orders-from-events")
    # The customer's rule matches on the webhook itself: the payload is in the detail
    events.put_rule(
        Name="big-orders",
        EventBusName="orders",
        EventPattern=json.dumps({"source": ["shop"], "detail": {"payload": {"data": {"amount": [{"numeric": [">=", 100]}]}}}}),
    )
    events.put_targets(Rule="big-orders", EventBusName="orders", Targets=[{"Id": "queue", "Arn": queue_arn}])
    endpoint = make_endpoint(hookline, {"type": "eventbridge", "event_bus_arn": bus_arn, "source": "shop"})
    big, _small = send_order(hookline, 150), send_order(hookline, 50)
    hookline.pump()
    [message] = receive_all(sqs, queue_url, 1)
    event = json.loads(message["Body"])
    assert (event["source"], event["detail-type"]) == ("shop", "order.paid")
    detail = event["detail"]
    assert verified(endpoint["secret"], detail["body"], detail["metadata"])["id"] == big
    assert detail["payload"]["data"] == {"amount": 150}


def test_a_kinesis_destination_gets_one_record_per_delivery_keyed_by_customer_or_event(hookline: Hookline) -> None:
    kinesis = customer().client("kinesis")
    kinesis.create_stream(StreamName="orders", ShardCount=1)
    stream_arn = kinesis.describe_stream(StreamName="orders")["StreamDescription"]["StreamARN"]
    endpoint = make_endpoint(hookline, {"type": "kinesis", "stream_arn": stream_arn})
    event_id = send_order(hookline, 150)
    hookline.pump()
    shard = kinesis.describe_stream(StreamName="orders")["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="orders", ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    [record] = kinesis.get_records(ShardIterator=iterator)["Records"]
    assert record["PartitionKey"] == event_id  # the tenant's own event: no customer
    envelope = json.loads(record["Data"])
    assert verified(endpoint["secret"], envelope["body"], envelope["metadata"])["id"] == event_id


def test_an_s3_destination_gets_one_object_per_event_under_its_day(hookline: Hookline) -> None:
    s3 = customer().client("s3")
    s3.create_bucket(Bucket="acme-webhooks")
    endpoint = make_endpoint(hookline, {"type": "s3", "bucket": "acme-webhooks", "prefix": "hookline/orders/"})
    assert endpoint["destination"]["prefix"] == "hookline/orders"
    event_id = send_order(hookline, 150)
    hookline.pump()
    [listed] = s3.list_objects_v2(Bucket="acme-webhooks")["Contents"]
    day = datetime.now(UTC).strftime("%Y/%m/%d")
    assert listed["Key"] == f"hookline/orders/{day}/{event_id}.json"
    got = s3.get_object(Bucket="acme-webhooks", Key=listed["Key"])
    assert verified(endpoint["secret"], got["Body"].read().decode(), got["Metadata"])["id"] == event_id


# -- access ------------------------------------------------------------------------------------------------------


@pytest.fixture
def denying(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """The customer's queue policy, switchable: while it denies, SendMessage answers AccessDenied (moto keeps no resource
    policies, so a botocore hook on hookline's own session answers as SQS would); everything else runs for real."""
    state = {"deny": False}

    def answer(**_: Any) -> Any:
        if not state["deny"]:
            return None
        response = botocore.awsrequest.AWSResponse("https://sqs.us-east-1.amazonaws.com/", 403, {}, None)
        return response, {
            "Error": {"Code": "AccessDenied", "Message": "Access to the resource is denied."},
            "ResponseMetadata": {"HTTPStatusCode": 403, "RequestId": "denied-1"},
        }

    real = boto3.Session

    def session(*args: Any, **kwargs: Any) -> boto3.Session:
        made = real(*args, **kwargs)
        made.events.register("before-call.sqs.SendMessage", answer)
        return made

    monkeypatch.setattr(boto3, "Session", session)  # the adapter imports boto3 with its first client
    monkeypatch.setenv("HOOKLINE_RETRY_BASE_SECONDS", "1")  # the retry that parks each delivery comes within seconds
    container.reset()

    def deny(on: bool) -> None:
        state["deny"] = on

    yield deny


def test_a_destination_that_denies_access_is_disabled_and_loses_nothing(hookline: Hookline, denying: Callable[[bool], None]) -> None:
    sqs = customer().client("sqs")
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    endpoint = make_endpoint(hookline, {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders"})
    # Given the customer's queue denies hookline
    denying(True)
    ids = [send_order(hookline, amount) for amount in (1, 2, 3)]
    hookline.pump()
    # Then the endpoint is disabled with the reason, and the deliveries are paused, not failed
    status, shown = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")
    assert (shown["status"], shown["disabled_reason"]) == ("disabled", "access_denied")
    hookline.pump_until(lambda: all(delivered_ok(hookline, i)["status"] == "paused" for i in ids), seconds=60)
    first = delivered_ok(hookline, ids[0])["attempts"][0]
    assert (first["error"], first["outcome"], json.loads(first["response_body"])) == ("aws.AccessDenied", "retrying", {"request_id": "denied-1"})
    assert receive_all(sqs, queue_url, 0) == []
    # When the customer fixes the policy and enables the endpoint (its test event goes through)
    denying(False)
    status, enabled = hookline.api("POST", f"/v1/endpoints/{endpoint['id']}/enable")
    assert status == 200, enabled
    hookline.pump_until(lambda: all(delivered_ok(hookline, i)["status"] == "succeeded" for i in ids), seconds=60)
    # Then every paused delivery arrives (beside the enable's test event)
    got = [verified(endpoint["secret"], m["Body"], attributes(m)) for m in receive_all(sqs, queue_url, 4)]
    assert sorted(p["id"] for p in got if p["type"] == "order.paid") == sorted(ids)


def test_an_earlier_releases_destination_without_a_role_is_never_sent_to_and_loses_nothing(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint stored without a role (an earlier release let a destination's resource policy grant hookline's own
    role, which any tenant could then name): it reads back, but nothing goes out as hookline's role until a role is set."""
    sqs = customer().client("sqs")
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    endpoint = make_endpoint(hookline, {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders"})
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    key = keys.endpoint("acme", endpoint["id"])
    stored = json.loads(table.get_item(Key=key)["Item"]["destination"])
    table.update_item(Key=key, UpdateExpression="SET destination = :d", ExpressionAttributeValues={":d": json.dumps({**stored, "role_arn": None})})
    calls: list[str] = []
    real = boto3.Session

    def session(*args: Any, **kwargs: Any) -> boto3.Session:
        made = real(*args, **kwargs)
        made.events.register("before-call.*.*", lambda model, **_: calls.append(model.name))
        return made

    monkeypatch.setattr(boto3, "Session", session)  # the adapter imports boto3 with its first client
    monkeypatch.setenv("HOOKLINE_RETRY_BASE_SECONDS", "1")
    container.reset()
    # Given it reads back, its role shown as none
    status, shown = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")
    assert (status, shown["destination"]["role_arn"]) == (200, None)
    # When events are sent to it
    ids = [send_order(hookline, amount) for amount in (1, 2)]
    hookline.pump()
    # Then no call went to AWS as hookline's role (no role assumed, no message put): the attempts fail as access denied,
    # which disables the endpoint and parks its deliveries
    assert [c for c in calls if c in ("AssumeRole", "SendMessage")] == []
    assert receive_all(sqs, queue_url, 0) == []
    status, shown = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")
    assert (shown["status"], shown["disabled_reason"]) == ("disabled", "access_denied")
    hookline.pump_until(lambda: all(delivered_ok(hookline, i)["status"] == "paused" for i in ids), seconds=60)
    first = delivered_ok(hookline, ids[0])["attempts"][0]
    assert first["error"] == "aws.AccessDenied"
    # When the customer sets a role and enables the endpoint, Then every parked delivery arrives through that role
    fixed = {"type": "sqs", "queue_url": f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders", "role_arn": ROLE_ARN}
    status, patched = hookline.api("PATCH", f"/v1/endpoints/{endpoint['id']}", {"destination": fixed})
    assert status == 200, patched
    status, enabled = hookline.api("POST", f"/v1/endpoints/{endpoint['id']}/enable")
    assert status == 200, enabled
    hookline.pump_until(lambda: all(delivered_ok(hookline, i)["status"] == "succeeded" for i in ids), seconds=60)
    assert "AssumeRole" in calls
    assert len(receive_all(sqs, queue_url, 3)) == 3  # the two, and the enable's test event


def test_a_destination_in_the_stacks_own_account_is_refused(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_OWN_ACCOUNT_ID", "123456789012")
    container.reset()
    for destination in (
        {"type": "sqs", "queue_url": "https://sqs.us-east-1.amazonaws.com/123456789012/hookline-delivery", "role_arn": ROLE_ARN},
        {"type": "s3", "bucket": "anything", "role_arn": f"arn:aws:iam::123456789012:role/{ROLE_NAME_PREFIX}x"},
    ):
        status, body = hookline.api("POST", "/v1/endpoints", {"destination": destination})
        assert (status, body["error"]["code"]) == (422, "forbidden_destination"), body
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


@pytest.mark.parametrize(
    ("destination", "names"),
    [
        ({"type": "ftp", "url": "ftp://x"}, "destination.type"),
        ({"type": "sqs"}, "destination.queue_url"),
        ({"type": "sqs", "queue_url": "https://evil.example.com/111122223333/q"}, "destination.queue_url"),
        ({"type": "sns", "topic_arn": "arn:aws:sns:us-east-1:111122223333:t", "role_arn": "arn:aws:iam::111122223333:role/admin"}, "destination.role_arn"),
        ({"type": "s3", "bucket": "Not_A_Bucket"}, "destination.bucket"),
        ({"type": "s3", "bucket": "ok-bucket", "prefix": "../up", "role_arn": ROLE_ARN}, "destination.prefix"),
        (
            {"type": "eventbridge", "event_bus_arn": "arn:aws:events:us-east-1:111122223333:event-bus/b", "source": "aws.fake", "role_arn": ROLE_ARN},
            "destination.source",
        ),
        ({"type": "sqs", "queue_url": "https://sqs.us-east-1.amazonaws.com/111122223333/q"}, "'destination.role_arn' is required"),
        ({"type": "kinesis", "stream_arn": "arn:aws:kinesis:us-east-1:111122223333:stream/s", "prefix": "x"}, "'prefix'"),
    ],
)
def test_a_malformed_destination_is_a_422_naming_the_part(hookline: Hookline, destination: dict[str, Any], names: str) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", {"destination": destination})
    assert (status, body["error"]["code"]) == (422, "invalid_destination"), body
    assert names in body["error"]["message"]
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


def test_the_role_template_trusts_hookline_only_with_the_endpoints_external_id(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    delivery_role = "arn:aws:iam::123456789012:role/hookline-DeliveryFunctionRole"
    monkeypatch.setenv("HOOKLINE_DELIVERY_ROLE_ARNS", delivery_role)
    container.reset()
    queue_url = f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/orders"
    endpoint = make_endpoint(hookline, {"type": "sqs", "queue_url": queue_url})
    status, template = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}/role-template")
    assert status == 200, template
    role = template["Resources"]["HooklineDeliveryRole"]["Properties"]
    # The role the endpoint names, trusting the delivery role only with this endpoint's external id
    assert role["RoleName"] == ROLE_ARN.rsplit("/", 1)[1]
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"AWS": [delivery_role]}
    assert trust["Condition"] == {"StringEquals": {"sts:ExternalId": endpoint["destination"]["external_id"]}}
    # And allowing the one put on the one queue
    allowed = role["Policies"][0]["PolicyDocument"]["Statement"][0]
    assert allowed == {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": f"arn:aws:sqs:{REGION}:{CUSTOMER_ACCOUNT}:orders"}
    # And CloudFormation takes it: moto's CloudFormation creates the role from it
    cfn = customer().client("cloudformation")
    cfn.create_stack(StackName="hookline-role", TemplateBody=json.dumps(template), Capabilities=["CAPABILITY_NAMED_IAM"])
    outputs = cfn.describe_stacks(StackName="hookline-role")["Stacks"][0]["Outputs"]
    assert outputs == [{"OutputKey": "RoleArn", "OutputValue": ROLE_ARN, "Description": "Give this as the destination's role_arn."}]
    # An HTTP endpoint needs none
    status, http = hookline.api("POST", "/v1/endpoints", {"url": "https://receiver.example.com/x"})
    status, body = hookline.api("GET", f"/v1/endpoints/{http['id']}/role-template")
    assert (status, body["error"]["code"]) == (409, "not_an_aws_destination")
