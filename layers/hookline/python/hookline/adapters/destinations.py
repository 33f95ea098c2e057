"""Sending one delivery to an endpoint's destination: an HTTP POST (hookline.adapters.http), or a message, event,
record or object in the customer's own AWS account. One adapter per destination type behind the `Sender` port.

Access to the customer's account: hookline assumes the destination's `role_arn` with the endpoint's external id and
caches the credentials (per role and external id) until shortly before they expire. Nothing goes out as hookline's
own delivery role (an earlier release's endpoint without a role is refused before any call:
hookline.core.destinations.refusal). Every AWS error becomes an
HttpResult with the error code (`aws.<Code>`, classified by hookline.core.classify) and the request id in place of a
status and body; a success keeps the request id (and the message's id) as its body.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError

from hookline.core import classify, destinations
from hookline.core.destinations import Destination
from hookline.core.models import Endpoint
from hookline.core.responses import HttpResult
from hookline.core.webhook import Outbound

if TYPE_CHECKING:
    import boto3
    from botocore.config import Config
ROLE_SESSION_NAME = "hookline-delivery"
REFRESH_BEFORE_EXPIRY_SECONDS = 300  # assumed-role credentials are renewed this long before they expire


@cache
def _config() -> Config:
    """The SDK retries throttling and 5xx itself a little; hookline's own backoff does the rest.

    Made with the first client (as boto3's session): importing botocore's client machinery is a good part of a cold
    start, and most deliveries go to HTTP endpoints (hookline.adapters.aws).
    """
    from botocore.config import Config

    return Config(retries={"mode": "standard", "max_attempts": 2}, connect_timeout=3, read_timeout=10, max_pool_connections=64)


@dataclass(frozen=True)
class _Credentials:
    key: str
    secret: str
    token: str
    expires_at: float  # epoch seconds


class AwsDestinations:
    """Messages, events, records and objects in customers' AWS accounts."""

    def __init__(self, region: str, own_account: str = "", clock: Callable[[], float] = time.time, session: boto3.Session | None = None):
        self._region = region
        self._own_account = own_account
        self._clock = clock
        self._given_session = session
        self._lock = threading.Lock()
        self._credentials: dict[tuple[str, str], _Credentials] = {}
        self._clients: dict[tuple[str, str, str, str, float], Any] = {}

    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult:
        started = time.monotonic()
        destination = endpoint.destination
        if destination is None:
            raise ValueError("an HTTP endpoint has no AWS destination")
        refused = destinations.refusal(destination, self._own_account)
        if refused:  # accepted before the stack knew its account, or stored by hand: never sent
            return HttpResult(None, classify.aws_error("AccessDenied"), _ms(started), detail=refused)
        try:
            client = self._client(destinations.KINDS[destination.type].service, destination.region or self._region, destination.role_arn, endpoint.external_id)
            request_id, message_id = PUTS[destination.type](client, destination, endpoint, message)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            meta = exc.response.get("ResponseMetadata", {})
            code = str(error.get("Code") or f"HTTP{meta.get('HTTPStatusCode', '')}")
            return HttpResult(None, classify.aws_error(code), _ms(started), body=_request(meta.get("RequestId")), detail=str(error.get("Message", ""))[:300])
        except _EntryFailed as exc:
            return HttpResult(None, classify.aws_error(exc.code), _ms(started), body=_request(exc.request_id), detail=exc.message[:300])
        except (ConnectTimeoutError, ReadTimeoutError) as exc:
            return HttpResult(None, classify.TIMEOUT, _ms(started), detail=str(exc)[:300])
        except (EndpointConnectionError, BotoCoreError) as exc:
            return HttpResult(None, classify.CONNECTION_ERROR, _ms(started), detail=str(exc)[:300])
        return HttpResult(200, None, _ms(started), body=json.dumps({"request_id": request_id, "message_id": message_id}))

    # -- clients, as hookline's own role or an assumed one ----------------------------------------------------------

    @property
    def _session(self) -> boto3.Session:
        if self._given_session is None:
            import boto3

            self._given_session = boto3.Session()
        return self._given_session

    def _client(self, service: str, region: str, role_arn: str, external_id: str) -> Any:
        if not role_arn or not external_id:  # `refusal` stops such a destination first: never call as hookline's own role
            raise ValueError("a destination is called only through its role, with the endpoint's external id")
        credentials = self._assumed(role_arn, external_id)
        key = (service, region, role_arn, external_id, credentials.expires_at)
        with self._lock:
            client = self._clients.get(key)
        if client is not None:
            return client
        client = self._session.client(
            service,
            region_name=region,
            config=_config(),
            aws_access_key_id=credentials.key,
            aws_secret_access_key=credentials.secret,
            aws_session_token=credentials.token,
        )
        with self._lock:
            # Clients of expired credentials go: the cache holds at most the live ones.
            now = self._clock()
            for stale in [k for k in self._clients if k[4] - REFRESH_BEFORE_EXPIRY_SECONDS <= now]:
                del self._clients[stale]
            self._clients[key] = client
        return client

    def _assumed(self, role_arn: str, external_id: str) -> _Credentials:
        now = self._clock()
        with self._lock:
            cached = self._credentials.get((role_arn, external_id))
        if cached is not None and cached.expires_at - REFRESH_BEFORE_EXPIRY_SECONDS > now:
            return cached
        sts = self._session.client("sts", region_name=self._region, config=_config())
        answer = sts.assume_role(RoleArn=role_arn, RoleSessionName=ROLE_SESSION_NAME, ExternalId=external_id, DurationSeconds=destinations.ROLE_SESSION_SECONDS)
        c = answer["Credentials"]
        fresh = _Credentials(c["AccessKeyId"], c["SecretAccessKey"], c["SessionToken"], c["Expiration"].timestamp())
        with self._lock:
            self._credentials[(role_arn, external_id)] = fresh
        return fresh


class MailboxPutter(Protocol):
    """What DestinationSender needs of a polling endpoint's mailbox (hookline.adapters.dynamo.mailbox.Mailbox)."""

    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult: ...


class HttpPoster(Protocol):
    """What DestinationSender needs of the HTTP client (hookline.adapters.http.WebhookClient)."""

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResult: ...


class AuthPoster(Protocol):
    """What DestinationSender needs to POST to an endpoint with `auth` (hookline.adapters.endpoint_auth.AuthenticatedPoster)."""

    def post(self, endpoint: Endpoint, body: bytes, headers: dict[str, str]) -> HttpResult: ...


@dataclass(frozen=True)
class DestinationSender:
    """The `Sender`: HTTP endpoints through the SSRF-guarded client (with their `auth`'s credentials, when they have
    one), polling endpoints into their mailbox, the others through their AWS adapter."""

    http: HttpPoster
    aws: AwsDestinations
    mailbox: MailboxPutter | None = None
    authenticated: AuthPoster | None = None  # None: a stack without a key to open `auth` secrets with

    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult:
        if endpoint.destination is None:
            if endpoint.auth is None:
                return self.http.post(endpoint.url, message.body, dict(message.headers))
            if self.authenticated is None:
                return HttpResult(None, classify.AUTH_FAILED, 0, detail="this stack has no key to open the endpoint's auth secrets with")
            return self.authenticated.post(endpoint, message.body, dict(message.headers))
        if endpoint.destination.pulled:
            if self.mailbox is None:
                raise RuntimeError("a polling endpoint's delivery needs the mailbox: wire one (hookline.wiring.container)")
            return self.mailbox.send(endpoint, message)
        return self.aws.send(endpoint, message)


# -- one put per destination type ------------------------------------------------------------------------------------


class _EntryFailed(Exception):
    """A call that answered 200 but refused the entry (EventBridge's PutEvents)."""

    def __init__(self, code: str, message: str, request_id: str | None):
        super().__init__(message)
        self.code, self.message, self.request_id = code, message, request_id


def _attributes(message: Outbound) -> dict[str, dict[str, str]]:
    return {name: {"DataType": "String", "StringValue": value} for name, value in destinations.signature_of(message.headers).items()}


def _ordering(destination: Destination, message: Outbound) -> dict[str, str]:
    """A FIFO queue's or topic's group (the endpoint) and deduplication id (the delivery; a test event's own id)."""
    if not destination.fifo:
        return {}
    return {"MessageGroupId": message.endpoint_id, "MessageDeduplicationId": message.delivery_id or message.event_id}


def _put_sqs(client: Any, d: Destination, _e: Endpoint, m: Outbound) -> tuple[str | None, str | None]:
    answer = client.send_message(QueueUrl=d.address, MessageBody=m.body.decode(), MessageAttributes=_attributes(m), **_ordering(d, m))
    return _request_id(answer), answer.get("MessageId")


def _put_sns(client: Any, d: Destination, _e: Endpoint, m: Outbound) -> tuple[str | None, str | None]:
    answer = client.publish(TopicArn=d.address, Message=m.body.decode(), MessageAttributes=_attributes(m), **_ordering(d, m))
    return _request_id(answer), answer.get("MessageId")


def _put_eventbridge(client: Any, d: Destination, _e: Endpoint, m: Outbound) -> tuple[str | None, str | None]:
    entry = {
        "Source": d.source or destinations.DEFAULT_EVENT_SOURCE,
        "DetailType": m.event_type,
        "Detail": json.dumps(destinations.event_detail(m.headers, m.body), separators=(",", ":"), ensure_ascii=False),
        "EventBusName": d.address,
    }
    answer = client.put_events(Entries=[entry])
    result = (answer.get("Entries") or [{}])[0]
    if answer.get("FailedEntryCount") or result.get("ErrorCode"):
        raise _EntryFailed(str(result.get("ErrorCode") or "InternalFailure"), str(result.get("ErrorMessage") or ""), _request_id(answer))
    return _request_id(answer), result.get("EventId")


def _put_kinesis(client: Any, d: Destination, _e: Endpoint, m: Outbound) -> tuple[str | None, str | None]:
    data = json.dumps(destinations.envelope(m.headers, m.body), separators=(",", ":"), ensure_ascii=False).encode()
    answer = client.put_record(StreamARN=d.address, Data=data, PartitionKey=destinations.partition_key(m.customer, m.event_id))
    return _request_id(answer), answer.get("SequenceNumber")


def _put_s3(client: Any, d: Destination, _e: Endpoint, m: Outbound) -> tuple[str | None, str | None]:
    answer = client.put_object(
        Bucket=d.address,
        Key=destinations.object_key(d.prefix, m.created_at, m.event_id),
        Body=m.body,
        ContentType="application/json",
        Metadata=destinations.signature_of(m.headers),
        ExpectedBucketOwner=destinations.role_account(d.role_arn),  # a bucket by that name in another account is not written to
    )
    return _request_id(answer), answer.get("ETag")


# The put of each type of hookline.core.destinations.KINDS but http (DestinationSender posts that) and poll (its mailbox,
# hookline.adapters.dynamo.mailbox); a test holds them equal.
PUTS: dict[str, Callable[[Any, Destination, Endpoint, Outbound], tuple[str | None, str | None]]] = {
    "sqs": _put_sqs,
    "sns": _put_sns,
    "eventbridge": _put_eventbridge,
    "kinesis": _put_kinesis,
    "s3": _put_s3,
}


def _request_id(answer: dict[str, Any]) -> str | None:
    meta = answer.get("ResponseMetadata") or {}
    return meta.get("RequestId") or (meta.get("HTTPHeaders") or {}).get("x-amz-request-id")


def _request(request_id: str | None) -> str:
    return json.dumps({"request_id": request_id}) if request_id else ""


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
