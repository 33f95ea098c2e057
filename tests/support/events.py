"""Fabricated AWS events, shaped as API Gateway (HTTP API, payload 2.0) and SQS send them."""

from __future__ import annotations

import json
import uuid
from typing import Any


def http_event(
    method: str, path: str, body: Any = None, tenant: str | None = "acme", query: dict[str, str] | None = None, raw_body: str | None = None
) -> dict[str, Any]:
    text = raw_body if raw_body is not None else (None if body is None else json.dumps(body))
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "&".join(f"{k}={v}" for k, v in (query or {}).items()),
        "headers": {"content-type": "application/json"},
        "requestContext": {
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "test"},
            "requestId": str(uuid.uuid4()),
            "stage": "$default",
            "routeKey": "$default",
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": "localhost",
            "timeEpoch": 0,
        },
        "isBase64Encoded": False,
    }
    if query:
        event["queryStringParameters"] = query
    if text is not None:
        event["body"] = text
    if tenant is not None:
        event["requestContext"]["authorizer"] = {"lambda": {"tenant": tenant}}
    return event


def sqs_event(messages: list[dict[str, Any]], queue_arn: str = "arn:aws:sqs:us-east-1:123456789012:hookline-delivery") -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": m.get("MessageId", str(uuid.uuid4())),
                "receiptHandle": m.get("ReceiptHandle", "rh"),
                "body": m["Body"],
                "attributes": {
                    # As SQS counted it, for a message received with AttributeNames=["All"]; a made-up message is on its first receive
                    "ApproximateReceiveCount": m.get("Attributes", {}).get("ApproximateReceiveCount", "1"),
                    "SentTimestamp": "0",
                    "SenderId": "x",
                    "ApproximateFirstReceiveTimestamp": "0",
                    # A FIFO queue's (the ordered lane's): the endpoint's message group
                    **({"MessageGroupId": m["Attributes"]["MessageGroupId"]} if "MessageGroupId" in m.get("Attributes", {}) else {}),
                },
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": "us-east-1",
            }
            for m in messages
        ]
    }
