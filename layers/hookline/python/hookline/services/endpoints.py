"""Endpoint management: create, read, change, delete, reveal and rotate the secret, send a test event,
re-enable after one, and read health and statistics. Every call is tenant-scoped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from hookline.core import auth, destinations, ids, notifications, rotation, signing, validation
from hookline.core.adaptive import current
from hookline.core.breaker import Breaker
from hookline.core.clock import iso, iso_epoch
from hookline.core.contract.auth import given as given_auth
from hookline.core.contract.auth import token_url_refusal
from hookline.core.contract.endpoints import (
    CreateEndpoint,
    EndpointCreated,
    EndpointEnabled,
    EndpointPage,
    EndpointSecret,
    EndpointWithHealth,
    Jwks,
    PreviousSecretShown,
    RoleTemplate,
    SecretRotated,
    SecretsState,
    TestAttempt,
    TestOutcome,
    UpdateEndpoint,
)
from hookline.core.contract.endpoints import Endpoint as EndpointAnswer
from hookline.core.contract.stats import Stats
from hookline.core.customers import endpoint_limits
from hookline.core.destinations import Destination
from hookline.core.errors import Conflict, DependencyFailed, FailedDependency, NotFound, Unavailable, ValidationFailed
from hookline.core.jobs import REQUEUE_PAUSED
from hookline.core.models import ENDPOINT_LIMIT_REACHED, Endpoint, webhook_body
from hookline.core.planning import retry_lane_only
from hookline.core.ratelimit import Limiter, current_rate
from hookline.core.responses import HttpResult
from hookline.core.rules import EndpointRules
from hookline.core.settings import Settings
from hookline.core.stats import add_up, hour_counts, success_rate, summary
from hookline.core.webhook import Outbound, request_headers
from hookline.services.customers import require_customer
from hookline.services.delivery.endpoint_pool import EndpointPool
from hookline.services.ports import (
    CatalogReader,
    ClientCertificates,
    CustomerReader,
    EndpointDeliveries,
    EndpointHealthStore,
    EndpointStore,
    JobStarter,
    LineHeadReader,
    Notify,
    Sealer,
    Sender,
    StatsReader,
)

TEST_EVENT_TYPE = "hookline.test"
BACKLOG_COUNT_BOUND = 1000  # failed and paused deliveries counted per endpoint read, at most


@dataclass(frozen=True)
class EndpointDeps:
    """What re-enabling and health reporting need besides the endpoint table."""

    states: EndpointHealthStore
    events: EndpointDeliveries
    sender: Sender
    jobs: JobStarter  # re-enabling's re-queue of the paused backlog
    notify: Notify
    lines: LineHeadReader | None = None  # which delivery holds an ordered endpoint's line


def _accepted(result: HttpResult) -> bool:
    return result.status_code is not None and 200 <= result.status_code <= 299


@dataclass(frozen=True)
class EndpointService:
    repo: EndpointStore
    customers: CustomerReader
    settings: Settings
    clock: Callable[[], datetime]
    deps: EndpointDeps
    catalog: CatalogReader
    # The delivery rules, built from the settings (hookline.core.config.endpoint_rules): what health shows is what delivery does.
    rules: EndpointRules
    stats_reader: StatsReader | None = None
    sealer: Sealer | None = None  # seals an endpoint's `auth` secrets; None: a stack without a key refuses `auth`
    certificates: ClientCertificates | None = None  # checks an mTLS endpoint's certificate and key; None: not checked
    reads: EndpointPool = field(default_factory=lambda: EndpointPool(4), compare=False)  # an endpoint's reads, side by side

    def create(self, tenant: str, data: CreateEndpoint) -> EndpointCreated:
        """A new endpoint, pinned to the payload version it names or else the tenant's default (never one past its sunset).
        Its URL must be one the stack may send to (the settings' policy; the request's model checked its form)."""
        url, destination = data.place()
        self._check_place(url, destination, data.headers)
        ceiling = require_customer(self.customers, tenant, data.customer).limits if data.customer else None
        rate, concurrency = endpoint_limits(ceiling, *data.limits())
        versions, _ = self.catalog.load(tenant, ())
        version = versions.pinnable(data.version or versions.default, self.clock())
        now = iso(self.clock())
        ep = Endpoint(
            id=ids.new_id(ids.ENDPOINT, int(self.clock().timestamp() * 1000)),
            tenant=tenant,
            url=url,
            destination=destination,
            external_id=destinations.generate_external_id() if destination is not None else "",
            secret=signing.generate_secret(),
            event_types=data.event_types,
            description=data.description,
            rate_limit_per_second=rate,
            max_concurrency=concurrency,
            headers=tuple(data.headers.items()),
            created_at=now,
            updated_at=now,
            customer=data.customer,
            version=version,
            filter=data.filter,
            ordered=data.ordered,
            signing=data.signing,
            signing_key=signing.generate_key() if data.signing.uses_ed25519 else "",
        )
        ep = replace(ep, auth=self._sealed(ep, given_auth(data.auth)))
        if not self.repo.create(ep, self.settings.max_endpoints_per_owner):
            whose = f"customer {data.customer}" if data.customer else "the tenant's own endpoints"
            raise Conflict(
                f"{whose} already has the most endpoints one owner may have ({self.settings.max_endpoints_per_owner}): delete one first",
                code=ENDPOINT_LIMIT_REACHED,
            )
        # The API shows the secret here, on rotation and on `GET …/secret`: never in the endpoint itself.
        return EndpointCreated.of(ep, secret=ep.secret)

    def get(self, tenant: str, endpoint_id: str) -> Endpoint:
        ep = self.repo.get(tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        if ep is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        return ep

    def list(self, tenant: str, limit: int, cursor: str | None = None, customer: str | None = None, since: str = "") -> EndpointPage:
        """A page of `limit` of the tenant's endpoints, or only of one customer's (404 customer_not_found if it has none such).
        `since`: only those made then or later (a portal session's customer's creation: one an earlier customer of the
        uid made is not shown, so a page may hold fewer than `limit` until the deletion job has removed them)."""
        if customer is None:
            items, nxt = self.repo.page(tenant, limit, cursor)
        else:
            uid = require_customer(self.customers, tenant, customer).uid
            items, nxt = self.repo.page_of_owner(tenant, uid, limit, cursor)
        return EndpointPage(items=[EndpointAnswer.of(e) for e in items if e.created_at >= since], next=nxt)

    def update(self, tenant: str, endpoint_id: str, body: UpdateEndpoint) -> EndpointAnswer:
        """Change the endpoint (the fields the body gives). A new payload version must be pinnable, and the endpoint must first accept
        a test event at that version (424 with the attempt otherwise, and nothing changes)."""
        current = self.get(tenant, endpoint_id)
        changes = body.changes()
        if "url" in changes:
            self._check_place(changes["url"], changes["destination"], dict(changes.get("headers", current.headers)))
            if changes["destination"] is not None and not current.external_id:
                changes["external_id"] = destinations.generate_external_id()
        elif "headers" in changes:
            self._check_place(current.url, current.destination, dict(changes["headers"]))
        self._ensure_within_ceiling(current, changes)
        if "signing" in changes and changes["signing"].uses_ed25519 and not current.signing_key:
            changes["signing_key"] = signing.generate_key()  # made once; rotations replace it
        if changes.get("version", current.version) != current.version:
            versions, _ = self.catalog.load(tenant, ())
            versions.pinnable(changes["version"], self.clock())
            tested = replace(current, **{k: v for k, v in changes.items() if k in ("url", "destination", "external_id", "headers", "version")})
            self._require_test(tested, "it stays pinned to " + current.version)
        if "auth" in changes:
            changes["auth"] = self._sealed(replace(current, **{k: v for k, v in changes.items() if k in ("url", "destination")}), changes["auth"])
        elif "url" in changes:
            self._check_auth(changes["url"], changes["destination"], current.auth.type if current.auth else None)
        if changes.get("status") == "active":
            changes["disabled_reason"] = None
        elif changes.get("status") == "disabled" and current.status != "disabled":
            changes["disabled_reason"] = "manual"
        updated = replace(current, **changes, updated_at=iso(self.clock()))
        if not self.repo.save(updated):
            raise NotFound(f"endpoint {endpoint_id} not found")  # deleted meanwhile
        return EndpointAnswer.of(updated)

    def _check_place(self, url: str, destination: Destination | None, headers: dict[str, str]) -> None:
        """An HTTP URL the stack may send to (the settings' policy; the model checked its form), or a destination outside
        the stack's own account. Custom headers go with HTTP requests only: a destination has nowhere to put them."""
        if destination is None:
            validation.validate_url(url, self.settings.url_policy)
            return
        why = destinations.refusal(destination, self.settings.own_account_id)
        if why:
            raise ValidationFailed(why, code="forbidden_destination")
        if headers:
            raise ValidationFailed(f"custom 'headers' are sent to http destinations only, not to {destination.type}", code=destinations.CODE)

    def _sealed(self, endpoint: Endpoint, given: dict[str, Any] | None) -> auth.EndpointAuth | None:
        """The endpoint's `auth` as kept: its secret fields sealed under its tenant and id. A token URL must be one the
        stack may send to, judged as the endpoint's URL is; `auth` goes with HTTP endpoints only, mTLS with https."""
        if given is None:
            return None
        kind, shown, secret = auth.split(given)
        self._check_auth(endpoint.url, endpoint.destination, kind)
        if "token_url" in shown:
            try:
                validation.validate_url(shown["token_url"], self.settings.url_policy)
            except ValidationFailed as exc:
                raise token_url_refusal(exc) from None
        if kind == auth.MTLS and self.certificates is not None:
            why = self.certificates.refusal(shown["certificate"], secret["private_key"])
            if why:
                raise ValidationFailed(f"'auth': {why}", code="invalid_auth")
        if self.sealer is None:
            raise Unavailable("this stack has no key to keep an endpoint's auth secrets (HOOKLINE_SECRETS_KEY_ARN is empty)")
        sealed = self.sealer.seal(auth.secrets_text(secret), auth.seal_context(endpoint.tenant, endpoint.id))
        return auth.EndpointAuth(kind, tuple(shown.items()), sealed)

    @staticmethod
    def _check_auth(url: str, destination: Destination | None, kind: str | None) -> None:
        if kind is None:
            return
        if destination is not None:
            raise ValidationFailed(f"'auth' is sent to http destinations only, not to {destination.type}", code="invalid_auth")
        if kind == auth.MTLS and not url.lower().startswith("https:"):
            raise ValidationFailed("'auth' of type mtls needs an https URL: a client certificate is presented in the TLS handshake", code="invalid_auth")

    def _ensure_within_ceiling(self, current: Endpoint, changes: dict[str, Any]) -> None:
        """A customer's endpoint may be set no higher than the customer's limits (a 422 naming the ceiling)."""
        limited = {k: changes[k] for k in ("rate_limit_per_second", "max_concurrency") if k in changes}
        if not current.customer or not limited:
            return
        customer = self.customers.get(current.tenant, current.customer)
        if customer is not None:  # else the customer is being deleted, and its endpoints with it
            customer.limits.ensure_within(**limited)

    def delete(self, tenant: str, endpoint_id: str) -> None:
        if not ids.is_id(endpoint_id, ids.ENDPOINT) or not self.repo.delete(tenant, endpoint_id):
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")

    def rotate_secret(self, tenant: str, endpoint_id: str) -> SecretRotated:
        """A new signing secret, shown in the answer. The one it replaces keeps signing until now + the overlap, and
        every earlier one until its own end (hookline.core.rotation).

        The write is conditional on the current secret this call read: of concurrent rotations one lands, and each
        other answers 409 `rotation_conflict` with what signs now (never a secret: the loser made none). A rotation
        that would make more than MAX_LIVE_SECRETS sign answers 409 `too_many_secrets`, naming when the oldest stops."""
        endpoint = self.get(tenant, endpoint_id)
        now = self.clock()
        overlap = self.settings.secret_overlap_seconds
        kept = rotation.kept_after_rotation(endpoint.secret, endpoint.previous_secrets, endpoint.rotated_at, now.timestamp(), overlap)
        if isinstance(kept, rotation.TooManySecrets):
            raise Conflict(
                f"{rotation.MAX_LIVE_SECRETS} secrets already sign this endpoint's deliveries, the most at once; "
                f"the oldest stops signing at {iso_epoch(kept.oldest_until)}: rotate again then",
                code=rotation.TOO_MANY_SECRETS,
                secrets=self._secrets_state(endpoint, now.timestamp()),
            )
        change = rotation.Rotation(endpoint.secret, signing.generate_secret(), kept, now.timestamp(), iso(now), **self._new_key(endpoint, now.timestamp()))
        landed, current = self.repo.rotate_secret(tenant, endpoint_id, change)
        if not landed and current is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        if current is not None:
            raise Conflict(
                "another rotation of this endpoint's secret landed first, and this one made none: GET /v1/endpoints/{id}/secret shows the secret it made",
                code=rotation.ROTATION_CONFLICT,
                secrets=self._secrets_state(current, now.timestamp()),
            )
        public = signing.public_key(change.new_key) if change.new_key else None
        return SecretRotated(secret=change.new_secret, previous_secret_valid_until=iso_epoch(kept[0].valid_until), public_key=public)

    def _new_key(self, endpoint: Endpoint, now: float) -> dict[str, Any]:
        """An Ed25519 endpoint's key rotates with its secret, by the same rule: a new key pair, and the key it replaces
        signing until now + the overlap, every earlier one until its own end. Nothing for an endpoint without one."""
        if not (endpoint.signing.uses_ed25519 and endpoint.signing_key):
            return {}
        kept = rotation.kept_after_rotation(endpoint.signing_key, endpoint.previous_keys, endpoint.rotated_at, now, self.settings.secret_overlap_seconds)
        # Keys rotate only with secrets, and the first was made with or after the first secret: never more keys than secrets sign.
        assert not isinstance(kept, rotation.TooManySecrets)
        return {"new_key": signing.generate_key(), "previous_keys": kept}

    def jwks(self, tenant: str, customer: str | None, since: str = "") -> Jwks:
        """The current and still-signing previous Ed25519 public keys of the tenant's endpoints (a portal session's:
        its customer's only, those made `since` its customer's creation, as `list` shows them), as a JSON Web Key Set.
        Reads every endpoint of the owner, or of the tenant."""
        now = self.clock().timestamp()
        overlap = self.settings.secret_overlap_seconds
        owner = None if customer is None else require_customer(self.customers, tenant, customer).uid
        keys = [
            signing.jwk(signing.public_key(key), endpoint_id=ep.id)
            for ep in self._every(tenant, owner)
            if ep.signing.uses_ed25519 and ep.created_at >= since
            for key in ep.signing_keys(now, overlap)
        ]
        return Jwks.model_validate({"keys": keys})

    def _every(self, tenant: str, owner: str | None) -> Iterator[Endpoint]:
        """Every endpoint of the tenant, or (`owner`) of one customer, a page at a time."""
        cursor: str | None = None
        while True:
            items, cursor = self.repo.page(tenant, 100, cursor) if owner is None else self.repo.page_of_owner(tenant, owner, 100, cursor)
            yield from items
            if cursor is None:
                return

    def _secrets_state(self, endpoint: Endpoint, now: float) -> dict[str, Any]:
        """What signs the endpoint's deliveries now, without a secret (a refused rotation's answer)."""
        live = endpoint.live_previous(now, self.settings.secret_overlap_seconds)
        return SecretsState(current_created_at=self._secret_created_at(endpoint), previous_valid_until=[iso_epoch(p.valid_until) for p in live]).model_dump()

    @staticmethod
    def _secret_created_at(endpoint: Endpoint) -> str:
        return iso_epoch(endpoint.rotated_at) if endpoint.rotated_at is not None else endpoint.created_at

    def secret(self, tenant: str, endpoint_id: str) -> EndpointSecret:
        """The current signing secret, when it was made, and every previous one still signing with its end."""
        endpoint = self.get(tenant, endpoint_id)
        live = endpoint.live_previous(self.clock().timestamp(), self.settings.secret_overlap_seconds)
        shown = [PreviousSecretShown(secret=p.secret, valid_until=iso_epoch(p.valid_until)) for p in live]
        newest = {"previous_secret": shown[0].secret, "previous_expires_at": shown[0].valid_until} if shown else {}
        return EndpointSecret(secret=endpoint.secret, created_at=self._secret_created_at(endpoint), previous_secrets=shown, **newest)

    def role_template(self, tenant: str, endpoint_id: str) -> RoleTemplate:
        """The CloudFormation template of the role to create in the customer's account for the endpoint's destination
        (hookline.core.destinations.role_template): 409 for an HTTP or polling endpoint, which needs none."""
        endpoint = self.get(tenant, endpoint_id)
        if endpoint.destination is None or endpoint.destination.pulled:
            kind = "http" if endpoint.destination is None else endpoint.destination.type
            raise Conflict(f"an {kind} endpoint needs no role: only a queue, topic, event bus, stream or bucket does", code="not_an_aws_destination")
        trusted = tuple(arn for arn in self.settings.delivery_role_arns.split(",") if arn)
        if not trusted:
            raise Unavailable("this stack does not know its delivery roles (HOOKLINE_DELIVERY_ROLE_ARNS is empty)")
        return RoleTemplate.model_validate(destinations.role_template(endpoint.destination, endpoint.external_id, endpoint.id, trusted))

    def test(self, tenant: str, endpoint_id: str) -> TestAttempt:
        """Send a signed `hookline.test` event to the endpoint now, whatever its status, and answer with the attempt.

        Nothing is stored: no event, no delivery, no change to the endpoint or its health.
        """
        endpoint = self.get(tenant, endpoint_id)
        test_id, message = self._test_request(endpoint)
        result = self.deps.sender.send(endpoint, message)  # the guarded sender's timeouts bound it
        return TestAttempt(
            webhook_id=test_id,
            status_code=result.status_code,
            error=result.error,
            duration_ms=result.duration_ms,
            succeeded=_accepted(result),
            response_body=result.body[: self.settings.response_body_limit_bytes],
        )

    def _test_request(self, endpoint: Endpoint) -> tuple[str, Outbound]:
        """One `hookline.test` webhook for the endpoint at its payload version: its id, and its body with the signed headers (the endpoint's own included)."""
        now = self.clock()
        test_id = ids.new_id(ids.EVENT, int(now.timestamp() * 1000))
        data = {"endpoint_id": endpoint.id, "message": "hookline test event"}
        body = webhook_body(test_id, TEST_EVENT_TYPE, iso(now), data, endpoint.version).encode()
        headers = request_headers(endpoint, test_id, now.timestamp(), body, self.settings.secret_overlap_seconds)
        return test_id, Outbound(body, headers, test_id, TEST_EVENT_TYPE, iso(now), endpoint.customer, endpoint.id, "")

    def describe(self, tenant: str, endpoint_id: str) -> EndpointWithHealth:
        """The endpoint with its health: circuit, the last 24 hours' success rate, last error, effective rate, and how
        the last email to its customer went (`last_email`: sent, or failed and why; null before any)."""
        if not ids.is_id(endpoint_id, ids.ENDPOINT):
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        moment = self.clock()
        now = moment.timestamp()
        stats = self.stats_reader

        # Its five reads side by side (the endpoint with its state, a day's statistics, three backlog counts): one round trip's wait, not five.
        def read(which: str) -> Any:
            if which == "state":
                return self.deps.states.load(tenant, endpoint_id)
            if which == "stats":
                return stats.window(tenant, endpoint_id, moment - timedelta(hours=24), moment) if stats is not None else {}
            return self.deps.events.count_by_status(tenant, endpoint_id, which, BACKLOG_COUNT_BOUND)

        (endpoint, breaker, limiter), recent, (failed, more_failed), (paused, more_paused), (pending, more_pending) = self.reads.map(
            read, ["state", "stats", "failed", "paused", "pending"]
        )
        if endpoint is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        return EndpointWithHealth.of(
            endpoint,
            health={
                "circuit": {
                    "state": breaker.state,
                    "consecutive_failures": breaker.consecutive_failures,
                    "open_until": iso_epoch(breaker.open_until) if breaker.state != "closed" else None,
                    "trips": breaker.trips,
                },
                "success_rate": success_rate(recent),
                "attempts": int(recent.get("attempts", 0)),
                "last_error": breaker.last_error or None,
                "last_error_at": iso_epoch(breaker.last_failure_at),
                "effective_rate_per_second": round(current_rate(limiter, endpoint.rate_limit_per_second, now, self.rules.limiter), 3),
                "concurrency": self._concurrency(endpoint, breaker, limiter),
                "last_email": endpoint.last_email.public() if endpoint.last_email is not None else None,
            },
            backlog={"failed": failed, "paused": paused, "pending": pending, "more": more_failed or more_paused or more_pending},
            line=self._line_head(endpoint),
        )

    def _line_head(self, endpoint: Endpoint) -> dict[str, Any] | None:
        """An ordered endpoint's line head (one more read, for ordered endpoints only); None for any other."""
        if not endpoint.ordered or self.deps.lines is None:
            return None
        head = self.deps.lines.head(endpoint.tenant, endpoint.id)
        return head.public() if head is not None else None

    def _concurrency(self, endpoint: Endpoint, breaker: Breaker, limiter: Limiter) -> dict[str, Any]:
        """The adaptive concurrency limit now, under its ceiling, with the latency it learned from and the lane the endpoint is served from."""
        adaptive = self.rules.limiter.adaptive
        return {
            "limit": current(limiter.concurrency, endpoint.max_concurrency, adaptive),
            "ceiling": endpoint.max_concurrency,
            "latency_ms": round(limiter.rtt_long * 1000, 1) if limiter.rtt_long else None,
            "lane": "retry" if retry_lane_only(breaker, limiter, adaptive) else "first",
        }

    def enable(self, tenant: str, endpoint_id: str) -> EndpointEnabled:
        """Send a test event; on 2xx start the job that re-queues the paused backlog, then mark the endpoint active.

        The answer comes in bounded time whatever the backlog: the job (`requeue`, its id and status; progress at
        `GET /v1/jobs/{id}`) moves it a page at a time at the endpoint's rate (hookline.services.bulk). The job
        is started first and waits for the endpoint to be active, so a crash in between leaves the endpoint
        disabled with its backlog paused, never active with a stranded backlog. On any other test outcome
        nothing changes and FailedDependency (424) says why.
        """
        endpoint = self.get(tenant, endpoint_id)
        outcome = self._require_test(endpoint, "it stays disabled")
        try:
            job = self.deps.jobs.start(tenant, REQUEUE_PAUSED, {"endpoint_id": endpoint_id})
        except DependencyFailed as exc:
            raise Unavailable(
                f"the re-queue of the paused deliveries could not be started ({exc.cause}); the endpoint stays disabled: repeat the request"
            ) from None
        active = replace(endpoint, status="active", disabled_reason=None, updated_at=iso(self.clock()))
        if not self.repo.save(active):
            raise NotFound(f"endpoint {endpoint_id} not found")  # deleted meanwhile: the job ends by itself
        self.deps.states.reset_breaker(tenant, endpoint_id)
        if endpoint.status != "active":
            self.deps.notify(notifications.RECOVERED, tenant=tenant, endpoint_id=endpoint_id, requeue_job=job.id)
        return EndpointEnabled.of(active, test=outcome, requeue=job.summary())

    def _require_test(self, endpoint: Endpoint, otherwise: str) -> TestOutcome:
        """Send a test event; its outcome if the endpoint accepted it, else FailedDependency (424) saying what stays as it is."""
        test_id, message = self._test_request(endpoint)
        result = self.deps.sender.send(endpoint, message)
        outcome = TestOutcome(
            webhook_id=test_id, status_code=result.status_code, error=result.error, duration_ms=result.duration_ms, detail=result.detail[:300]
        )
        if not _accepted(result):
            raise FailedDependency(f"the endpoint did not accept the test event; {otherwise}", outcome.model_dump())
        return outcome

    def stats(self, tenant: str, endpoint_id: str, since: str | None = None, until: str | None = None, series: str | None = None) -> Stats:
        """Attempts, outcomes, latency percentiles and the two health rates over [since, until] (default: the last 24 h);
        with `series` `hour`, also the counters of each hour."""
        self.get(tenant, endpoint_id)
        start, end = validation.stats_window({k: v for k, v in (("since", since), ("until", until)) if v is not None}, self.clock())
        if series not in (None, "", "hour"):
            raise ValidationFailed("'series' must be 'hour' (the counters of each hour in the window)")
        if self.stats_reader is None:
            return Stats.model_validate(summary({}, start, end))
        if not series:
            return Stats.model_validate(summary(self.stats_reader.window(tenant, endpoint_id, start, end), start, end))
        hours = self.stats_reader.hours(tenant, endpoint_id, start, end)
        return Stats.model_validate({**summary(add_up(c for _, c in hours), start, end), "series": [hour_counts(hour, counts) for hour, counts in hours]})
