"""End to end through local mode: HTTP front door -> authorizer -> api -> SQS -> delivery -> receiver.

Everything runs in this process on free ports: moto's server, the real
handlers from functions/, the front door and the SQS poller.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import boto3
import pytest
import requests
from standardwebhooks.webhooks import Webhook

from hookline.wiring import topology
from local.receiver import WebhookReceiver
from local.run import LocalHookline

pytestmark = pytest.mark.slow

DEADLINE_SECONDS = 20
KEY = "testkey123456"  # seeded by the local_hookline fixture as acme:testkey123456


def auth(key: str = KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def wait_for(condition: Any, timeout: float = DEADLINE_SECONDS, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s; last value: {last!r}")


def test_health_answers_without_an_api_key(local_hookline: LocalHookline) -> None:
    # Given local mode is running
    # When GET /health is called without an Authorization header
    response = requests.get(f"{local_hookline.base_url}/health", timeout=10)
    # Then it answers 200
    assert response.status_code == 200


@pytest.mark.parametrize("headers", [{}, auth("wrong-key"), {"Authorization": "testkey123456"}], ids=["missing", "wrong", "no-bearer"])
def test_requests_without_a_valid_key_get_401_json(local_hookline: LocalHookline, headers: dict[str, str]) -> None:
    # Given local mode is running with the key acme:testkey123456
    # When a /v1 route is called without that key
    response = requests.get(f"{local_hookline.base_url}/v1/endpoints", headers=headers, timeout=10)
    # Then the front door answers 401 with a JSON error, as API Gateway would refuse it
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["code"] == "unauthorized"


def test_the_seeded_key_is_accepted(local_hookline: LocalHookline) -> None:
    # Given the key seeded from HOOKLINE_API_KEYS
    assert local_hookline.api_key == KEY
    assert local_hookline.keys == [("acme", KEY)]
    # When it lists endpoints
    response = requests.get(f"{local_hookline.base_url}/v1/endpoints", headers=auth(), timeout=10)
    # Then the authorizer lets it through to the api function
    assert response.status_code == 200, response.text


def test_delivery_queue_redrives_to_its_dead_letter_queue(local_hookline: LocalHookline) -> None:
    # Given the queues provisioned from the topology
    sqs = boto3.client("sqs", endpoint_url=local_hookline.aws_endpoint, region_name=local_hookline.region)
    for spec in topology.QUEUES:
        if spec.dead_letter is None:
            continue
        # When the source queue's attributes are read
        attrs = sqs.get_queue_attributes(QueueUrl=local_hookline.resources[spec.env], AttributeNames=["All"])["Attributes"]
        # Then its redrive policy points at a queue whose name ends in -dlq (-dlq.fifo for a FIFO one), with the spec's settings
        policy = json.loads(attrs["RedrivePolicy"])
        assert policy["deadLetterTargetArn"].endswith("-dlq.fifo" if spec.fifo else "-dlq")
        assert attrs.get("FifoQueue", "false") == str(spec.fifo).lower()
        assert policy["deadLetterTargetArn"].endswith(":" + spec.dead_letter.physical_name(local_hookline.prefix))
        assert int(policy["maxReceiveCount"]) == spec.max_receive_count
        assert int(attrs["VisibilityTimeout"]) == spec.visibility_timeout_seconds
        assert int(attrs["MessageRetentionPeriod"]) == spec.retention_seconds


def test_the_jobs_queues_are_provisioned_and_polled(local_hookline: LocalHookline) -> None:
    # Given local mode provisioned from the topology, which has a jobs queue with its own dead-letter queue
    sqs = boto3.client("sqs", endpoint_url=local_hookline.aws_endpoint, region_name=local_hookline.region)
    # When the environment and the queues are read
    jobs_url = local_hookline.resources[topology.JOBS_QUEUE.env]
    jobs_dlq_url = local_hookline.resources[topology.JOBS_DLQ.env]
    # Then both jobs queues exist under their physical names, and their URLs are in the functions' environment
    assert jobs_url.endswith("/" + topology.JOBS_QUEUE.physical_name(local_hookline.prefix))
    assert jobs_dlq_url.endswith("/" + topology.JOBS_DLQ.physical_name(local_hookline.prefix))
    assert os.environ[topology.JOBS_QUEUE.env] == jobs_url
    assert os.environ[topology.JOBS_DLQ.env] == jobs_dlq_url
    assert set(sqs.list_queues()["QueueUrls"]) >= {local_hookline.resources[q.env] for q in topology.QUEUES}
    # And every function with an sqs_source has one poller on its queue with its batch size, the jobs function included
    settings = local_hookline.settings
    assert settings is not None
    polled = {p.name: (p.queue_url, p.batch_size) for p in local_hookline.pollers}
    expected = {
        spec.name: (local_hookline.resources[spec.sqs_source.queue.env], int(getattr(settings, spec.sqs_source.batch_size_setting)))
        for spec in topology.FUNCTIONS
        if spec.sqs_source is not None
    }
    assert polled == expected
    assert polled[topology.JOBS.name] == (jobs_url, settings.jobs_batch_size)
    # And the banner names every queue (the previous release's job queue too, drained by the sweep) and the jobs poller
    banner = local_hookline.banner()
    assert all(q.physical_name(local_hookline.prefix) in banner for q in topology.QUEUES)
    assert f"{topology.JOBS_QUEUE.physical_name(local_hookline.prefix)} -> {topology.JOBS.name}" in banner


def test_local_mode_has_the_tables_indexes_and_the_topics(local_hookline: LocalHookline) -> None:
    # Given local mode provisioned from the topology on its moto server
    dynamodb = boto3.client("dynamodb", endpoint_url=local_hookline.aws_endpoint, region_name=local_hookline.region)
    sns = boto3.client("sns", endpoint_url=local_hookline.aws_endpoint, region_name=local_hookline.region)
    # When the table and the topics are described
    table = dynamodb.describe_table(TableName=local_hookline.resources[topology.TABLE.env])["Table"]
    topics = {t["TopicArn"] for t in sns.list_topics()["Topics"]}
    # Then the table has each of its spec's indexes, and every topic exists under the ARN its env var carries
    assert [i["IndexName"] for i in table["GlobalSecondaryIndexes"]] == [i.name for i in topology.TABLE.indexes]
    for spec in topology.TOPICS:
        assert local_hookline.resources[spec.env] in topics
        assert local_hookline.resources[spec.env].endswith(":" + spec.physical_name(local_hookline.prefix))


def test_an_event_is_delivered_once_and_verifies(local_hookline: LocalHookline, receiver: WebhookReceiver) -> None:
    base = local_hookline.base_url
    # Given an endpoint registered for the receiver, whose signing secret the receiver verifies with
    created = requests.post(f"{base}/v1/endpoints", json={"url": receiver.url}, headers=auth(), timeout=10)
    assert created.status_code == 201, created.text
    endpoint = created.json()
    assert endpoint["id"].startswith("ep_")
    assert endpoint["secret"].startswith("whsec_")
    receiver.secret = endpoint["secret"]

    # When an event is posted
    posted = requests.post(f"{base}/v1/events", json={"type": "invoice.paid", "data": {"invoice": "inv_1", "amount": 4200}}, headers=auth(), timeout=10)

    # Then it is accepted with one delivery
    assert posted.status_code == 202, posted.text
    accepted = posted.json()
    assert accepted["id"].startswith("evt_")
    assert accepted["deliveries"] == 1

    # And the receiver gets it, with a valid Standard Webhooks signature
    assert receiver.arrived.wait(DEADLINE_SECONDS), "the receiver got no webhook"
    webhook = receiver.received[0]
    assert webhook.verified, webhook.error
    Webhook(endpoint["secret"]).verify(webhook.body, webhook.headers)  # and once more, explicitly
    assert webhook.headers["webhook-id"] == accepted["id"]
    assert json.loads(webhook.body)["data"] == {"invoice": "inv_1", "amount": 4200}

    # And the event reads back as delivered in exactly one attempt that got a 200
    def delivered() -> dict[str, Any] | None:
        body: dict[str, Any] = requests.get(f"{base}/v1/events/{accepted['id']}", headers=auth(), timeout=10).json()
        deliveries = body.get("deliveries") or []
        return body if deliveries and deliveries[0]["status"] == "succeeded" else None

    event = wait_for(delivered)
    assert event["type"] == "invoice.paid"
    (delivery,) = event["deliveries"]
    assert delivery["endpoint_id"] == endpoint["id"]
    assert len(delivery["attempts"]) == 1
    assert delivery["attempts"][0]["status_code"] == 200
    assert len(receiver.received) == 1


def test_a_failed_attempt_is_retried_through_the_retry_queue(local_hookline: LocalHookline) -> None:
    base = local_hookline.base_url
    # Given a receiver that answers 503 once, then 200
    with WebhookReceiver(script=[503]) as receiver:
        created = requests.post(f"{base}/v1/endpoints", json={"url": receiver.url, "event_types": ["order.shipped"]}, headers=auth(), timeout=10)
        assert created.status_code == 201, created.text
        receiver.secret = created.json()["secret"]

        # When an event it subscribes to is posted
        posted = requests.post(f"{base}/v1/events", json={"type": "order.shipped", "data": {"order": 7}}, headers=auth(), timeout=10)
        assert posted.status_code == 202, posted.text
        event_id = posted.json()["id"]

        # Then the delivery succeeds on the second attempt, after the first one's 503
        def delivered() -> dict[str, Any] | None:
            body: dict[str, Any] = requests.get(f"{base}/v1/events/{event_id}", headers=auth(), timeout=10).json()
            mine = [d for d in body.get("deliveries") or [] if d["endpoint_id"] == created.json()["id"]]
            return mine[0] if mine and mine[0]["status"] == "succeeded" else None

        delivery = wait_for(delivered)
        assert [a["status_code"] for a in delivery["attempts"]] == [503, 200]
        assert [w.status for w in receiver.received] == [503, 200]
        assert all(w.verified for w in receiver.received)
        # And both attempts carried the same webhook-id, so the receiver can deduplicate
        assert {w.headers["webhook-id"] for w in receiver.received} == {event_id}


def test_an_sqs_destination_created_with_the_aws_cli_receives_signed_messages(local_hookline: LocalHookline) -> None:
    # Given a queue a customer made on local mode's embedded AWS (as `aws --endpoint-url … sqs create-queue` would)
    sqs = boto3.client("sqs", endpoint_url=local_hookline.aws_endpoint, region_name=local_hookline.region)
    queue_url = sqs.create_queue(QueueName="customer-orders")["QueueUrl"]
    account = queue_url.rstrip("/").split("/")[-2]
    destination = {
        "type": "sqs",
        "queue_url": f"https://sqs.{local_hookline.region}.amazonaws.com/{account}/customer-orders",
        "role_arn": f"arn:aws:iam::{account}:role/hookline-delivery-orders",  # local mode's STS hands out its credentials
    }
    created = requests.post(
        f"{local_hookline.base_url}/v1/endpoints",
        json={"destination": destination, "event_types": ["order.shipped"]},
        headers=auth(),
        timeout=10,
    )
    assert created.status_code == 201, created.text
    # When an event is sent
    sent = requests.post(f"{local_hookline.base_url}/v1/events", json={"type": "order.shipped", "data": {"n": 1}}, headers=auth(), timeout=10)
    assert sent.status_code == 202, sent.text

    def received() -> list[dict[str, Any]]:
        return sqs.receive_message(QueueUrl=queue_url, MessageAttributeNames=["All"], WaitTimeSeconds=1).get("Messages", [])

    # Then the queue gets it once, and the official library verifies it with the endpoint's secret
    [message] = wait_for(received)
    headers = {k: v["StringValue"] for k, v in message["MessageAttributes"].items()}
    assert Webhook(created.json()["secret"]).verify(message["Body"], headers)["id"] == sent.json()["id"]
