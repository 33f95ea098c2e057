"""`HooklineClient`: the hookline API (v1) in Python, one method per route a producer or an operator uses."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Generic, TypeVar, cast

import requests

from ._transport import USER_AGENT_PREFIX, Retry, RetryPolicy, Transport, path_segment
from ._version import __version__
from .errors import HooklineError
from .models import (
    BroadcastAccepted,
    Customer,
    CustomerLimitsInput,
    DeliveryDetail,
    Endpoint,
    EndpointCreated,
    EndpointDelivery,
    EndpointDetail,
    Event,
    EventAccepted,
    EventBatchAccepted,
    EventInput,
    JsonObject,
    Page,
    PortalSession,
    Replay,
    ReplayAccepted,
)

T = TypeVar("T")

URL_ENV = "HOOKLINE_URL"  # the API's base URL, as `make run` exports it
KEY_ENV = "HOOKLINE_KEY"  # an API key

Moment = str | datetime


def new_idempotency_key() -> str:
    """A fresh event `id` (the API's idempotency key): `hlc_` and 32 hex digits, never mistaken for an `evt_` id."""
    return f"hlc_{uuid.uuid4().hex}"


def iso(moment: Moment) -> str:
    """An ISO 8601 time with a zone, as the API takes it: a string as given, an aware datetime in UTC."""
    if isinstance(moment, str):
        return moment
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no time zone: the API needs one (e.g. datetime.now(timezone.utc))")
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


class Paginator(Generic[T]):
    """Every item of a list, fetched a page at a time as the iteration goes (`pages()` gives the pages themselves)."""

    def __init__(self, fetch: Callable[[str | None], Page[T]]) -> None:
        self._fetch = fetch

    def pages(self) -> Iterator[Page[T]]:
        cursor: str | None = None
        while True:
            page = self._fetch(cursor)
            yield page
            if not page.next:
                return
            cursor = page.next

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.items


def _page(answer: Any) -> Page[Any]:
    return Page(items=list(answer.get("items") or []), next=answer.get("next") or None)


class _Resource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def _paged(self, path: str, params: Mapping[str, Any]) -> Paginator[Any]:
        def fetch(cursor: str | None) -> Page[Any]:
            return _page(self._t.request("GET", path, retry=Retry.IDEMPOTENT, params={**params, "cursor": cursor}))

        return Paginator(fetch)


class Events(_Resource):
    """`/v1/events`: send events (one, a batch, a broadcast) and read them back with their deliveries."""

    def send(
        self,
        type: str,
        data: Mapping[str, Any],
        *,
        id: str | None = None,
        customer: str | None = None,
        versions: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> EventAccepted:
        """Send one event (`POST /v1/events`) → `{"id": "evt_…", "deliveries": N}`.

        `id` is the idempotency key: the same id and body answer the first response and create nothing.
        Without one the client makes one for this call, so its retries never make a second event.
        `customer` routes it to that customer's endpoints only; `versions` adds your own renderings.
        """
        body: dict[str, Any] = {"type": type, "data": dict(data), "id": id or new_idempotency_key()}
        if customer is not None:
            body["customer"] = customer
        if versions is not None:
            body["versions"] = {k: dict(v) for k, v in versions.items()}
        try:
            return cast(EventAccepted, self._t.request("POST", "/v1/events", retry=Retry.IDEMPOTENT, body=body))
        except HooklineError as exc:  # a 503 may have stored the event: the caller repeats with this key, not a new one
            raise exc.keyed(body["id"]) from None

    def send_batch(self, events: Iterable[EventInput | Mapping[str, Any]]) -> EventBatchAccepted:
        """Send up to 100 events in one request (`POST /v1/events/batch`).

        Each event without an `id` gets one from the client, so the whole batch can be repeated safely.
        The answer has one result per event, in order: look at `failed` and each result's `status`
        (a 503 result can be sent again with the same id). Each result carries its event's idempotency key
        (`key`: yours, or the one the client made), so a failed one can be sent again as itself.
        """
        batch = [{**dict(e), "id": e.get("id") or new_idempotency_key()} for e in events]
        try:
            answer = cast(EventBatchAccepted, self._t.request("POST", "/v1/events/batch", retry=Retry.IDEMPOTENT, body={"events": batch}))
        except HooklineError as exc:
            exc.details.setdefault("keys", [e["id"] for e in batch])  # a whole-batch 503: repeat it with these ids
            raise
        for result in answer["results"]:
            if 0 <= result["index"] < len(batch):
                result["key"] = batch[result["index"]]["id"]
        return answer

    def broadcast(
        self, type: str, data: Mapping[str, Any], *, id: str | None = None, versions: Mapping[str, Mapping[str, Any]] | None = None
    ) -> BroadcastAccepted:
        """Send one event to every customer's subscribed endpoints and the tenant's own (`POST /v1/events/broadcast`)."""
        body: dict[str, Any] = {"type": type, "data": dict(data), "id": id or new_idempotency_key()}
        if versions is not None:
            body["versions"] = {k: dict(v) for k, v in versions.items()}
        try:
            return cast(BroadcastAccepted, self._t.request("POST", "/v1/events/broadcast", retry=Retry.IDEMPOTENT, body=body))
        except HooklineError as exc:
            raise exc.keyed(body["id"]) from None

    def get(self, id: str, *, limit: int | None = None, cursor: str | None = None) -> Event:
        """An event by its `evt_` id or the `id` you sent it with, with its deliveries and every attempt.

        `limit` and `cursor` page a broadcast's deliveries (`deliveries_next`).
        """
        answer = self._t.request("GET", f"/v1/events/{path_segment(id)}", retry=Retry.IDEMPOTENT, params={"limit": limit, "cursor": cursor})
        return cast(Event, answer)


class Endpoints(_Resource):
    """`/v1/endpoints`: where webhooks go."""

    def list(self, *, customer: str | None = None, page_size: int | None = None) -> Paginator[Endpoint]:
        """Every endpoint of the tenant (or of one `customer`), a page of `page_size` per request."""
        return self._paged("/v1/endpoints", {"customer": customer, "limit": page_size})

    def create(
        self,
        url: str | None = None,
        *,
        destination: Mapping[str, Any] | None = None,
        event_types: Iterable[str] | None = None,
        description: str | None = None,
        rate_limit_per_second: float | None = None,
        max_concurrency: int | None = None,
        headers: Mapping[str, str] | None = None,
        customer: str | None = None,
        version: str | None = None,
    ) -> EndpointCreated:
        """Register an endpoint (`POST /v1/endpoints`) → the endpoint with its signing `secret` (`whsec_…`): at `url`,
        or at a `destination` instead (`{"type": "poll"}`: a polling endpoint, read with `poll`).

        Not idempotent: retried only when the request cannot have reached the API.
        """
        body: dict[str, Any] = {"url": url} if destination is None else {"destination": dict(destination)}
        optional: dict[str, Any] = {
            "event_types": list(event_types) if event_types is not None else None,
            "description": description,
            "rate_limit_per_second": rate_limit_per_second,
            "max_concurrency": max_concurrency,
            "headers": dict(headers) if headers is not None else None,
            "customer": customer,
            "version": version,
        }
        body.update({k: v for k, v in optional.items() if v is not None})
        return cast(EndpointCreated, self._t.request("POST", "/v1/endpoints", retry=Retry.UNSAFE, body=body))

    def get(self, endpoint_id: str) -> EndpointDetail:
        """An endpoint with its `health` (circuit, success rate, last error, concurrency) and `backlog`."""
        return cast(EndpointDetail, self._t.request("GET", f"/v1/endpoints/{path_segment(endpoint_id)}", retry=Retry.IDEMPOTENT))

    def replay(self, endpoint_id: str, *, since: Moment, until: Moment, status: str | None = None) -> ReplayAccepted:
        """Replay the endpoint's `failed` (or `paused`) deliveries created in [since, until] (`POST …/replay`), as a job.

        The same request within a minute names the same replay, so a retry starts nothing new.
        """
        body: dict[str, Any] = {"since": iso(since), "until": iso(until)}
        if status is not None:
            body["status"] = status
        answer = self._t.request("POST", f"/v1/endpoints/{path_segment(endpoint_id)}/replay", retry=Retry.IDEMPOTENT, body=body)
        return cast(ReplayAccepted, answer)

    def poll(self, endpoint_id: str, *, cursor: str | None = None, limit: int | None = None) -> dict[str, Any]:
        """A polling endpoint's next webhooks after `cursor` (`GET …/poll`): `{"webhooks", "cursor", "done"}`, each
        webhook with the exact `body` and `headers` a push would send. The key may be the producer's or a poll token."""
        path = f"/v1/endpoints/{path_segment(endpoint_id)}/poll"
        return cast(dict[str, Any], self._t.request("GET", path, retry=Retry.IDEMPOTENT, params={"cursor": cursor, "limit": limit}))

    def create_poll_token(self, endpoint_id: str) -> dict[str, Any]:
        """A token that polls this endpoint and nothing else (`POST …/poll-tokens`): `token` is shown this once."""
        return cast(dict[str, Any], self._t.request("POST", f"/v1/endpoints/{path_segment(endpoint_id)}/poll-tokens", retry=Retry.UNSAFE))

    def revoke_poll_token(self, endpoint_id: str, token_id: str) -> None:
        self._t.request("DELETE", f"/v1/endpoints/{path_segment(endpoint_id)}/poll-tokens/{path_segment(token_id)}", retry=Retry.IDEMPOTENT)


class Deliveries(_Resource):
    """Deliveries: an endpoint's log (every one, by status, or of one event), its failed ones, and one by its event."""

    def list(
        self,
        endpoint_id: str,
        *,
        status: str = "all",
        event: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        newest_first: bool = True,
        page_size: int | None = None,
    ) -> Paginator[EndpointDelivery]:
        """The endpoint's deliveries created in [since, until], newest first: `status` all, succeeded, failed, pending
        or paused; `event` (an `evt_` id or the id you sent the event with): only its delivery to this endpoint.
        A `succeeded` page may hold fewer than `page_size` (the server filters the log's page)."""
        params = {
            "status": status,
            "event": event,
            "since": iso(since) if since is not None else None,
            "until": iso(until) if until is not None else None,
            "order": "desc" if newest_first else None,
            "limit": page_size,
        }
        return self._paged(f"/v1/endpoints/{path_segment(endpoint_id)}/deliveries", params)

    def failed(
        self,
        endpoint_id: str,
        *,
        status: str | None = None,
        since: Moment | None = None,
        until: Moment | None = None,
        newest_first: bool = False,
        page_size: int | None = None,
    ) -> Paginator[EndpointDelivery]:
        """The endpoint's failed deliveries (`status="paused"`: its paused ones) created in [since, until], oldest first."""
        params = {
            "status": status or "failed",
            "since": iso(since) if since is not None else None,
            "until": iso(until) if until is not None else None,
            "order": "desc" if newest_first else None,
            "limit": page_size,
        }
        return self._paged(f"/v1/endpoints/{path_segment(endpoint_id)}/deliveries", params)

    def get(self, event_id: str, delivery_id: str) -> DeliveryDetail:
        """One delivery (by its event's `evt_` id and its `dlv_` id) with every attempt and its event's type."""
        path = f"/v1/events/{path_segment(event_id)}/deliveries/{path_segment(delivery_id)}"
        return cast(DeliveryDetail, self._t.request("GET", path, retry=Retry.IDEMPOTENT))


class Replays(_Resource):
    def get(self, replay_id: str) -> Replay:
        """A replay's progress: `matched`, `queued`, `delivered`, `failed`, `status`."""
        return cast(Replay, self._t.request("GET", f"/v1/replays/{path_segment(replay_id)}", retry=Retry.IDEMPOTENT))


class Customers(_Resource):
    """`/v1/customers`: the tenant's customers and their portal sessions."""

    def put(
        self,
        uid: str,
        name: str,
        *,
        email: str | None = None,
        metadata: Mapping[str, str] | None = None,
        limits: CustomerLimitsInput | Mapping[str, Any] | None = None,
    ) -> Customer:
        """Create (201) or replace as a whole (200) the customer `uid` (`PUT /v1/customers/{uid}`); idempotent."""
        body: dict[str, Any] = {"name": name}
        if email is not None:
            body["email"] = email
        if metadata is not None:
            body["metadata"] = dict(metadata)
        if limits is not None:
            body["limits"] = dict(limits)
        return cast(Customer, self._t.request("PUT", f"/v1/customers/{path_segment(uid)}", retry=Retry.IDEMPOTENT, body=body))

    def get(self, uid: str) -> Customer:
        return cast(Customer, self._t.request("GET", f"/v1/customers/{path_segment(uid)}", retry=Retry.IDEMPOTENT))

    def list(self, *, page_size: int | None = None) -> Paginator[Customer]:
        """Every customer, in uid order."""
        return self._paged("/v1/customers", {"limit": page_size})

    def portal_session(self, uid: str, *, ttl_seconds: int | None = None, read_only: bool | None = None) -> PortalSession:
        """A portal session for the customer (`POST /v1/customers/{uid}/portal-sessions`): its token and link."""
        body: JsonObject = {}
        if ttl_seconds is not None:
            body["ttl_seconds"] = ttl_seconds
        if read_only is not None:
            body["read_only"] = read_only
        # A repeat makes a second token that nobody saw: harmless, so the call is retried like an idempotent one.
        answer = self._t.request("POST", f"/v1/customers/{path_segment(uid)}/portal-sessions", retry=Retry.IDEMPOTENT, body=body)
        return cast(PortalSession, answer)

    def portal_link(self, uid: str, *, ttl_seconds: int | None = None, read_only: bool | None = None) -> str:
        """The customer portal link to hand the customer (a new session; the token is in the URL's fragment)."""
        return self.portal_session(uid, ttl_seconds=ttl_seconds, read_only=read_only)["url"]


class HooklineClient:
    """The hookline API (v1).

        client = HooklineClient("http://127.0.0.1:8787", "hk_...")
        client.events.send("invoice.paid", {"invoice": "in_123"}, id="invoice-in_123-paid")

    `timeout` bounds each HTTP request (seconds). Calls are retried up to `max_retries` times on
    429, 5xx and connection errors (only when that is safe: see `Endpoints.create`), after an
    exponential backoff with jitter (`backoff_base` doubling up to `backoff_max` seconds) or the
    `Retry-After` the API sent (a wait longer than `max_retry_after` is not waited for: the error is
    raised). `session` lets you bring a configured `requests.Session` (proxies, certificates, pool
    size); `sleep` is how the client waits (tests pass a recorder). API errors raise `HooklineError`.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        max_retry_after: float = 60.0,
    ) -> None:
        policy = RetryPolicy(max_retries=max_retries, backoff_base=backoff_base, backoff_max=backoff_max, max_retry_after=max_retry_after)
        user_agent = f"{USER_AGENT_PREFIX}/{__version__}"
        self._transport = Transport(base_url, api_key, timeout=timeout, policy=policy, session=session, sleep=sleep, user_agent=user_agent)
        self.events = Events(self._transport)
        self.endpoints = Endpoints(self._transport)
        self.deliveries = Deliveries(self._transport)
        self.replays = Replays(self._transport)
        self.customers = Customers(self._transport)

    @classmethod
    def from_env(cls, **options: Any) -> HooklineClient:
        """A client for `$HOOKLINE_URL` with `$HOOKLINE_KEY` (what `make run` exports); `options` as for the constructor."""
        url, key = os.environ.get(URL_ENV), os.environ.get(KEY_ENV)
        if not url or not key:
            raise ValueError(f"set {URL_ENV} and {KEY_ENV} (make run prints both), or pass base_url and api_key to HooklineClient")
        return cls(url, key, **options)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def portal_link(self, customer: str, *, ttl_seconds: int | None = None, read_only: bool | None = None) -> str:
        """A new portal link for `customer` (see `Customers.portal_link`)."""
        return self.customers.portal_link(customer, ttl_seconds=ttl_seconds, read_only=read_only)

    def health(self) -> bool:
        """Whether the API answers `GET /health`."""
        answer = self._transport.request("GET", "/health", retry=Retry.IDEMPOTENT)
        return isinstance(answer, dict) and answer.get("status") == "ok"

    def close(self) -> None:
        """Close the HTTP session the client made (one passed in as `session` is left open)."""
        self._transport.close()

    def __enter__(self) -> HooklineClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"HooklineClient({self.base_url!r}, api_key=***)"
