"""Routes of endpoints: where webhooks go, how fast, how healthy each receiver is, its secret, a test event and re-enabling.

(An endpoint's deliveries, failures and replays are routes of hookline.entrypoints.api.events and .jobs.)
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from pydantic import WithJsonSchema

from hookline.core import polling
from hookline.core.access import Access
from hookline.core.contract.common import CUSTOMER_UID_SCHEMA, Error, given
from hookline.core.contract.endpoints import (
    ENDPOINT_EXAMPLE,
    CreateEndpoint,
    Endpoint,
    EndpointCreated,
    EndpointEnabled,
    EndpointPage,
    EndpointSecret,
    EndpointWithHealth,
    Jwks,
    RoleTemplate,
    RotationRefused,
    SecretRotated,
    TestAttempt,
    TestEventFailed,
    UpdateEndpoint,
)
from hookline.core.contract.polling import PollPage, PollTokenCreated
from hookline.core.contract.stats import Stats
from hookline.core.destinations import Destination, role_template
from hookline.core.errors import envelope
from hookline.core.models import ENDPOINT_LIMIT_REACHED
from hookline.core.rotation import MAX_LIVE_SECRETS, ROTATION_CONFLICT
from hookline.core.settings import DEFAULT_MAX_ENDPOINTS_PER_OWNER
from hookline.entrypoints.api.answers import answers, ok, refusal
from hookline.entrypoints.api.params import DEFAULT_LIMIT, Cursor, EndpointId, Limit, Since, Until, page_limit
from hookline.entrypoints.api.routing import Router, allow, caller, container, no_content, respond

router = Router()
TAGS = ["endpoints"]

ROLE_TEMPLATE_EXAMPLE = role_template(
    Destination("sqs", "https://sqs.eu-west-1.amazonaws.com/111122223333/orders", "arn:aws:iam::111122223333:role/hookline-delivery-orders"),
    "hookline-5f0c9e2a4b7d4c1e8a3f6b2d9e0c7a14",
    "ep_01kkntq2cnt8b8hz3pj95wjvcc",
    ("arn:aws:iam::444455556666:role/hookline-DeliveryFunctionRole", "arn:aws:iam::444455556666:role/hookline-RetryFunctionRole"),
)

# -- parameters --------------------------------------------------------------------------------------------------

CustomerFilter = Annotated[
    str | None,
    given("customer"),
    WithJsonSchema(CUSTOMER_UID_SCHEMA),
    Query(
        description="Only this customer's endpoints; an unknown customer is 404 `customer_not_found`.",
        openapi_examples={"customer": {"value": "org_4711"}},
    ),
]
Series = Annotated[
    str | None, given("series"), WithJsonSchema({"type": "string", "enum": ["hour"]}), Query(description="`hour`: add the hour-by-hour counters.")
]

# -- examples ----------------------------------------------------------------------------------------------------

_ATTEMPT = {"webhook_id": "evt_01kkntq2cnv3p8ds366nbgx561", "status_code": 200, "error": None, "duration_ms": 87}
_CREATE_EXAMPLES: dict[str, Any] = {
    "minimal": {"summary": "Every event type, default limits", "value": {"url": "https://example.com/webhooks/hookline"}},
    "full": {
        "summary": "Filtered, rate-limited, with custom headers",
        "value": {
            "url": "https://billing.example.com/webhooks",
            "event_types": ["invoice.paid", "invoice.voided"],
            "description": "Billing service",
            "rate_limit_per_second": 5,
            "max_concurrency": 2,
            "headers": {"X-Api-Key": "b1llIng-rcv-7f3a", "X-Environment": "production"},
        },
    },
    "for_customer": {
        "summary": "One of a customer's endpoints",
        "value": {"url": "https://hooks.customer.example.net/hookline", "customer": "org_4711", "event_types": ["invoice.paid"]},
    },
    "polling": {
        "summary": "Polled by its receiver (GET /v1/endpoints/{endpoint_id}/poll): nothing is pushed",
        "value": {"destination": {"type": "poll"}, "event_types": ["order.paid"], "customer": "org_4711"},
    },
    "aws_queue": {
        "summary": "Into the customer's own SQS queue, through a role of theirs hookline assumes",
        "value": {
            "destination": {
                "type": "sqs",
                "queue_url": "https://sqs.eu-west-1.amazonaws.com/111122223333/orders",
                "role_arn": "arn:aws:iam::111122223333:role/hookline-delivery-orders",
            },
            "event_types": ["order.paid"],
        },
    },
    "signed": {
        "summary": "Signed with Ed25519 (`v1a`), and in GitHub's format too until its receiver has moved",
        "value": {
            "url": "https://hooks.example.org/github-style",
            "signing": {
                "scheme": "standard-webhooks",
                "algorithm": "ed25519",
                "also": [{"scheme": "hmac", "preset": "github"}],
                "also_until": "2027-03-01T00:00:00Z",
            },
        },
    },
    "pinned": {
        "summary": "Pinned to a named version (`2026-01-01`, which every tenant has), whatever the default is then",
        "value": {"url": "https://ledger.example.com/webhooks", "event_types": ["invoice.paid"], "version": "2026-01-01"},
    },
}
_UPDATE_EXAMPLES: dict[str, Any] = {
    "retarget": {"summary": "New URL and event types", "value": {"url": "https://billing.example.com/webhooks/v2", "event_types": ["invoice.paid"]}},
    "disable": {"summary": "Stop delivering for now", "value": {"status": "disabled"}},
    "upgrade": {"summary": "Move to a newer payload version (after a test event at it)", "value": {"version": "2026-10-01"}},
    "signing": {
        "summary": "Sign in a custom HMAC format its receiver already verifies",
        "value": {"signing": {"scheme": "hmac", "header": "X-Signature", "prefix": "sha256=", "algorithm": "sha256", "signed": "{timestamp}.{body}"}},
    },
}
_CRM = {
    **ENDPOINT_EXAMPLE,
    "id": "ep_01kkntq2cnnx6b2cektj3mapxa",
    "url": "https://crm.example.com/hooks/hookline",
    "event_types": [],
    "description": "",
    "rate_limit_per_second": 10.0,
    "max_concurrency": 5,
    "headers": {},
}
_ONE_HEADER = {"X-Environment": "production"}
_HEALTHY_CIRCUIT = {"state": "closed", "consecutive_failures": 0, "open_until": None, "trips": 0}
_CONCURRENCY = {"limit": 5, "ceiling": 5, "latency_ms": 84.2, "lane": "first"}
_WITH_HEALTH_EXAMPLES: dict[str, Any] = {
    "healthy": {
        "summary": "A healthy endpoint",
        "value": {
            **ENDPOINT_EXAMPLE,
            "headers": _ONE_HEADER,
            "health": {
                "circuit": _HEALTHY_CIRCUIT,
                "success_rate": 1.0,
                "attempts": 1284,
                "last_error": None,
                "last_error_at": None,
                "effective_rate_per_second": 5.0,
                "concurrency": _CONCURRENCY,
                "last_email": None,
            },
            "backlog": {"failed": 0, "paused": 0, "pending": 0, "more": False},
        },
    },
    "struggling": {
        "summary": "Open circuit, paused by a receiver's Retry-After",
        "value": {
            **_CRM,
            "paused_until": "2026-03-15T10:05:00Z",
            "health": {
                "circuit": {"state": "open", "consecutive_failures": 10, "open_until": "2026-03-15T10:06:00.000Z", "trips": 1},
                "success_rate": 0.62,
                "attempts": 213,
                "last_error": "503",
                "last_error_at": "2026-03-15T10:05:00.000Z",
                "effective_rate_per_second": 5.0,
                "concurrency": _CONCURRENCY,
                "last_email": None,
            },
            "backlog": {"failed": 47, "paused": 0, "pending": 2, "more": False},
        },
    },
    "disabled_email_failed": {
        "summary": "Disabled (410 Gone), and its customer's email refused by SES",
        "value": {
            **_CRM,
            "id": "ep_01kkntq2cpa0r4e1v6hbm1zq7d",
            "customer": "org_4711",
            "url": "https://shop.example.net/hooks",
            "description": "Orders",
            "status": "disabled",
            "disabled_reason": "gone",
            "updated_at": "2026-03-16T08:00:00.120Z",
            "health": {
                "circuit": {**_HEALTHY_CIRCUIT, "consecutive_failures": 1},
                "success_rate": 0.97,
                "attempts": 4310,
                "last_error": "410",
                "last_error_at": "2026-03-16T08:00:00.120Z",
                "effective_rate_per_second": 10.0,
                "concurrency": {**_CONCURRENCY, "latency_ms": 61.0},
                "last_email": {"outcome": "failed", "at": "2026-03-16T08:00:00.214Z", "about": "disabled", "error": "MessageRejected"},
            },
            "backlog": {"failed": 0, "paused": 3, "pending": 0, "more": False},
        },
    },
}


def _test_failed(message: str, status_code: int, duration_ms: int) -> dict[str, Any]:
    return envelope("test_event_failed", message, attempt={**_ATTEMPT, "status_code": status_code, "duration_ms": duration_ms, "detail": ""})


# -- routes ------------------------------------------------------------------------------------------------------


@router.post(
    "/v1/endpoints",
    operation_id="createEndpoint",
    tags=TAGS,
    summary="Register an endpoint",
    description=(
        "Creates an active endpoint and returns its signing secret (`whsec_…`). The\n"
        "secret is shown here, on rotation and by `GET …/secret`. No or empty\n"
        "`event_types` subscribes the endpoint to every event type. With\n"
        "`customer`, the endpoint belongs to that customer for life: it receives\n"
        "only the events sent for that customer, and its rate and concurrency may\n"
        "not exceed the customer's `limits` (422 `above_customer_limit`, naming the\n"
        "ceiling; left out, they default to the endpoint defaults or the ceiling,\n"
        "whichever is lower). An unknown customer is 404 `customer_not_found`.\n"
        "\n"
        "The endpoint is pinned to a payload `version`: the one it names, else\n"
        "the tenant's default at this moment (a later change of the default\n"
        "does not move it). An unknown version is 422 `unknown_version`; one\n"
        "past its `sunset_at` is 422 `version_sunset`.\n"
        "\n"
        "One owner (a customer, or the tenant's own) has at most\n"
        f"`HOOKLINE_MAX_ENDPOINTS_PER_OWNER` endpoints ({DEFAULT_MAX_ENDPOINTS_PER_OWNER} by default): one more is\n"
        "409 `endpoint_limit_reached`, and deleting one makes room.\n"
    ),
    responses=answers(
        ok(
            201,
            EndpointCreated,
            "Created. The response carries the signing secret.",
            example={**ENDPOINT_EXAMPLE, "secret": "whsec_F6olegGyEf36/vms9m44a0nOwYo8ufdX"},
        ),
        "BadRequest",
        "CustomerNotFound",
        refusal(
            409,
            "The owner already has the most endpoints it may have (`endpoint_limit_reached`).",
            envelope(
                ENDPOINT_LIMIT_REACHED, f"customer acme already has the most endpoints one owner may have ({DEFAULT_MAX_ENDPOINTS_PER_OWNER}): delete one first"
            ),
        ),
        "PayloadTooLarge",
        "ValidationFailed",
    ),
)
@allow(Access.WRITE)
def create_endpoint(body: Annotated[CreateEndpoint, Body(openapi_examples=_CREATE_EXAMPLES)]) -> Response[EndpointCreated]:
    who = caller()
    # A portal session's endpoint is its customer's, whatever the body names (another customer's: 404).
    owned = body.model_copy(update={"customer": container.access_guard().owner(who, body.customer)})
    return respond(201, container.endpoint_service().create(who.tenant, owned))


@router.get(
    "/v1/endpoints",
    operation_id="listEndpoints",
    tags=TAGS,
    summary="List endpoints",
    description=("The tenant's endpoints, paged (by `customer`: only that customer's, from\nan index of endpoints by owner). Secrets are never shown.\n"),
    responses=answers(
        ok(
            200,
            EndpointPage,
            "One page of endpoints.",
            example={
                "items": [
                    {**ENDPOINT_EXAMPLE, "customer": "org_4711", "headers": _ONE_HEADER},
                    {**_CRM, "status": "disabled", "updated_at": "2026-03-19T14:02:11.204Z", "disabled_reason": "failing"},
                ],
                "next": "eyJwayI6ICJUI2FjbWUiLCAic2siOiAiRVAjZXBfMDFra250cTJjbm54NmIyY2VrdGozbWFweGEifQ",
            },
        ),
        "CustomerNotFound",
        "InvalidQuery",
    ),
)
@allow(Access.READ)
def list_endpoints(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None, customer: CustomerFilter = None) -> Response[EndpointPage]:
    who = caller()
    owner = container.access_guard().owner(who, customer)
    return respond(200, container.endpoint_service().list(who.tenant, limit, cursor, owner, since=who.since))


@router.get(
    "/v1/endpoints/<endpoint_id>",
    operation_id="getEndpoint",
    tags=TAGS,
    summary="Read an endpoint and its health",
    description=(
        "The endpoint (without its secret) and its `health`: the circuit breaker,\n"
        "the success rate of the last 24 hours' attempts, the last error, the\n"
        "effective rate (lowered for a while after a 429), and how the last email\n"
        "to the endpoint's customer went (`last_email`: a failed one says why).\n"
    ),
    responses=answers(ok(200, EndpointWithHealth, "The endpoint with its health.", examples=_WITH_HEALTH_EXAMPLES), "NotFound"),
)
@allow(Access.READ, "endpoint")
def get_endpoint(endpoint_id: EndpointId) -> Response[EndpointWithHealth]:
    return respond(200, container.endpoint_service().describe(caller().tenant, endpoint_id))


@router.patch(
    "/v1/endpoints/<endpoint_id>",
    operation_id="updateEndpoint",
    tags=TAGS,
    summary="Change an endpoint",
    description=(
        "Changes only the fields given. `status: disabled` pauses new deliveries\n"
        "(`disabled_reason: manual`); `status: active` resumes them without a test\n"
        "event (use `POST …/enable` to test the receiver and queue the paused backlog).\n"
        "\n"
        "A new `version` (a pin to another payload version, usually an upgrade)\n"
        "is taken only after the endpoint accepts a signed `hookline.test` event\n"
        'rendered at that version (`{"id", "type", "timestamp", "version",\n'
        '"data"}`): on any answer but a 2xx nothing changes and the answer is 424\n'
        "with the attempt. Deliveries of events accepted before the change keep\n"
        "the version they were rendered at. An unknown version is 422\n"
        "`unknown_version`; one past its `sunset_at` is 422 `version_sunset`.\n"
    ),
    responses=answers(
        ok(
            200,
            Endpoint,
            "The endpoint as changed.",
            example={
                **ENDPOINT_EXAMPLE,
                "url": "https://billing.example.com/webhooks/v2",
                "event_types": ["invoice.paid"],
                "status": "disabled",
                "headers": _ONE_HEADER,
                "updated_at": "2026-03-16T08:00:12.031Z",
                "disabled_reason": "manual",
            },
        ),
        "BadRequest",
        "NotFound",
        "PayloadTooLarge",
        "ValidationFailed",
        refusal(
            424,
            "A new `version` was asked for and the receiver did not accept the test event at it; the endpoint is unchanged.",
            _test_failed("the endpoint did not accept the test event; it stays pinned to 2026-01-01", 500, 97),
            model=TestEventFailed,
        ),
    ),
)
@allow(Access.WRITE, "endpoint")
def patch_endpoint(endpoint_id: EndpointId, body: Annotated[UpdateEndpoint, Body(openapi_examples=_UPDATE_EXAMPLES)]) -> Response[Endpoint]:
    change = container.access_guard().endpoint_change(caller(), body)
    return respond(200, container.endpoint_service().update(caller().tenant, endpoint_id, change))


@router.delete(
    "/v1/endpoints/<endpoint_id>",
    operation_id="deleteEndpoint",
    tags=TAGS,
    summary="Delete an endpoint",
    description="Deliveries still queued for it end with a failed `endpoint_deleted` attempt.",
    responses=answers(ok(204, None, "Deleted (no body)."), "NotFound"),
)
@allow(Access.WRITE, "endpoint")
def delete_endpoint(endpoint_id: EndpointId) -> Response[None]:
    container.endpoint_service().delete(caller().tenant, endpoint_id)
    return no_content()


@router.get(
    "/v1/endpoints/<endpoint_id>/secret",
    operation_id="getEndpointSecret",
    tags=TAGS,
    summary="Reveal the signing secret",
    description=(
        "The endpoint's current signing secret and when it was made, and every secret a\n"
        "rotation replaced that still signs every delivery (`previous_secrets`), each until\n"
        "its own `valid_until` (`HOOKLINE_SECRET_OVERLAP_SECONDS` after the rotation that\n"
        "replaced it, whatever rotations followed). `previous_secret` and\n"
        "`previous_expires_at` repeat the first of them. The secret is never logged.\n"
    ),
    responses=answers(
        ok(
            200,
            EndpointSecret,
            "The secret, and the previous ones while they still sign.",
            example={
                "secret": "whsec_TxQUo8Q3+Cq9ftr+aF1C8EY0LU5tK8Ko",
                "created_at": "2026-03-14T09:26:53.589Z",
                "previous_secrets": [{"secret": "whsec_F6olegGyEf36/vms9m44a0nOwYo8ufdX", "valid_until": "2026-03-15T09:26:53.589Z"}],
                "previous_secret": "whsec_F6olegGyEf36/vms9m44a0nOwYo8ufdX",
                "previous_expires_at": "2026-03-15T09:26:53.589Z",
            },
        ),
        "NotFound",
    ),
)
@allow(Access.READ, "endpoint")
def get_secret(endpoint_id: EndpointId) -> Response[EndpointSecret]:
    return respond(200, container.endpoint_service().secret(caller().tenant, endpoint_id))


@router.get(
    "/v1/endpoints/<endpoint_id>/role-template",
    operation_id="getEndpointRoleTemplate",
    tags=TAGS,
    summary="The CloudFormation template of a destination's role",
    description=(
        "For an endpoint that delivers into the customer's AWS account (a queue, topic, event bus,\n"
        "stream or bucket): a CloudFormation template of the role hookline assumes to do so, to deploy\n"
        "in that account (`aws cloudformation deploy --template-file role.json --stack-name …\n"
        "--capabilities CAPABILITY_NAMED_IAM`). The role trusts hookline's delivery roles only with the\n"
        "endpoint's `external_id` and allows the one put on the one resource. An HTTP endpoint needs\n"
        "none: 409 `not_an_aws_destination`.\n"
    ),
    responses=answers(
        ok(200, RoleTemplate, "The template, as JSON.", example=ROLE_TEMPLATE_EXAMPLE),
        "NotFound",
        refusal(409, "An HTTP endpoint needs no role.", envelope("not_an_aws_destination", "an http endpoint needs no role")),
    ),
)
@allow(Access.READ, "endpoint")
def get_role_template(endpoint_id: EndpointId) -> Response[RoleTemplate]:
    return respond(200, container.endpoint_service().role_template(caller().tenant, endpoint_id))


@router.post(
    "/v1/endpoints/<endpoint_id>/secret/rotate",
    operation_id="rotateEndpointSecret",
    tags=TAGS,
    summary="Rotate the signing secret",
    description=(
        "A new secret (`GET …/secret` shows it again). The secret it replaces keeps\n"
        "signing until `previous_secret_valid_until` (`HOOKLINE_SECRET_OVERLAP_SECONDS`,\n"
        "24 h by default), and every earlier one until its own end: each delivery carries\n"
        "one signature per live secret, space-separated, so receivers can switch without\n"
        f"a gap. At most {MAX_LIVE_SECRETS} secrets sign at once: a rotation that would make more\n"
        "is refused (409 `too_many_secrets`, naming when the oldest stops signing). Of\n"
        "concurrent rotations one lands; the others answer 409 `rotation_conflict` and\n"
        "made no secret. Either 409 says what signs now, without a secret. No request body.\n"
        "An endpoint signing with Ed25519 gets a new key pair with the secret (`public_key`); the key it\n"
        "replaces signs until `previous_secret_valid_until` too. GitHub's, Shopify's and a custom HMAC\n"
        "format carry one signature, the new secret's, from the rotation on.\n"
    ),
    responses=answers(
        ok(
            200,
            SecretRotated,
            "The new secret.",
            example={"secret": "whsec_TxQUo8Q3+Cq9ftr+aF1C8EY0LU5tK8Ko", "previous_secret_valid_until": "2026-03-15T09:26:53.589Z"},
        ),
        "NotFound",
        refusal(
            409,
            "Another rotation landed first (`rotation_conflict`), or one more secret would sign than the most (`too_many_secrets`).",
            model=RotationRefused,
            example=envelope(
                ROTATION_CONFLICT,
                "another rotation of this endpoint's secret landed first, and this one made none: GET /v1/endpoints/{id}/secret shows the secret it made",
                secrets={"current_created_at": "2026-03-14T09:26:53.589Z", "previous_valid_until": ["2026-03-15T09:26:53.589Z"]},
            ),
        ),
    ),
)
@allow(Access.WRITE, "endpoint")
def rotate_secret(endpoint_id: EndpointId) -> Response[SecretRotated]:
    return respond(200, container.endpoint_service().rotate_secret(caller().tenant, endpoint_id))


@router.get(
    "/v1/jwks",
    operation_id="getSigningKeys",
    tags=TAGS,
    summary="The Ed25519 public keys, as a JSON Web Key Set",
    description=(
        "The public keys that verify the `v1a` (Ed25519) signatures of the caller's endpoints (a portal\n"
        "session's: its customer's only): each endpoint's current key and every key a rotation replaced that\n"
        "still signs, as RFC 8037 OKP keys, `kid` the RFC 7638 thumbprint and `endpoint_id` the endpoint.\n"
        "Each endpoint also shows its current key as `signing.public_key` (`whpk_…`). Private keys are never shown.\n"
    ),
    responses=answers(
        ok(
            200,
            Jwks,
            "The key set (empty when no endpoint signs with Ed25519).",
            example={
                "keys": [
                    {
                        "kty": "OKP",
                        "crv": "Ed25519",
                        "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                        "kid": "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
                        "use": "sig",
                        "alg": "EdDSA",
                        "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
                    }
                ]
            },
        ),
    ),
)
@allow(Access.READ)
def get_signing_keys() -> Response[Jwks]:
    who = caller()
    return respond(200, container.endpoint_service().jwks(who.tenant, who.customer, since=who.since))


@router.post(
    "/v1/endpoints/<endpoint_id>/test",
    operation_id="testEndpoint",
    tags=TAGS,
    summary="Send a test event",
    description=(
        "Sends a signed test event (type `hookline.test`, at the endpoint's\n"
        "payload `version`) to the endpoint now, synchronously, through the\n"
        "same SSRF-guarded client as every delivery and\n"
        "bounded by its request timeout (`HOOKLINE_REQUEST_TIMEOUT_SECONDS`). A disabled\n"
        "endpoint can be tested too. Whatever the receiver answers, the answer is 200\n"
        "with the attempt (`succeeded` says whether it was a 2xx). The test send creates\n"
        "no stored event and no delivery, and changes neither the endpoint nor its\n"
        "health; use `POST …/enable` to re-enable after a successful test.\n"
        "No request body.\n"
    ),
    responses=answers(
        ok(200, TestAttempt, "The test attempt, successful or not.", example={**_ATTEMPT, "succeeded": True, "response_body": "ok"}),
        "NotFound",
    ),
)
@allow(Access.WRITE, "endpoint")
def test_endpoint(endpoint_id: EndpointId) -> Response[TestAttempt]:
    return respond(200, container.endpoint_service().test(caller().tenant, endpoint_id))


@router.post(
    "/v1/endpoints/<endpoint_id>/enable",
    operation_id="enableEndpoint",
    tags=TAGS,
    summary="Test and (re-)enable an endpoint",
    description=(
        "Sends a signed test event (type `hookline.test`, at the endpoint's payload\n"
        "`version`) to the endpoint, synchronously. On a 2xx it starts the job that\n"
        "re-queues the endpoint's paused deliveries, then marks the endpoint\n"
        "`active` and resets its circuit breaker. The answer names the job\n"
        "(`requeue`: its `id` and `status`) and comes at once, however large the\n"
        "backlog: the job moves it a page of 100 per step at the endpoint's rate\n"
        "(`GET /v1/jobs/{job_id}` shows how far it got, `counts.requeued`). The\n"
        "job starts before the endpoint is marked active and waits for it, so a\n"
        "failure in between leaves the endpoint disabled with its backlog paused.\n"
        "If the test event is not accepted, nothing changes and the answer is 424\n"
        "with the test attempt's outcome; if the job cannot be started, 503 and the\n"
        "endpoint stays disabled (repeat the request). No request body.\n"
    ),
    responses=answers(
        ok(
            200,
            EndpointEnabled,
            "The receiver accepted the test event; the re-queue job is started and the endpoint is active.",
            example={
                **_CRM,
                "updated_at": "2026-03-20T07:45:09.118Z",
                "test": {**_ATTEMPT, "detail": ""},
                "requeue": {"id": "job_01km5392zyx2x3fnt8zam6tbwc", "status": "running"},
            },
        ),
        "NotFound",
        refusal(
            424,
            "The receiver did not accept the test event; the endpoint is unchanged.",
            _test_failed("the endpoint did not accept the test event; it stays disabled", 503, 212),
            model=TestEventFailed,
        ),
        refusal(
            503,
            "The re-queue job could not be started (`unavailable`); the endpoint stays disabled. Repeat the request.",
            envelope(
                "unavailable", "the re-queue of the paused deliveries could not be started (ClientError); the endpoint stays disabled: repeat the request"
            ),
            model=Error,
        ),
    ),
)
@allow(Access.WRITE, "endpoint")
def enable_endpoint(endpoint_id: EndpointId) -> Response[EndpointEnabled]:
    return respond(200, container.endpoint_service().enable(caller().tenant, endpoint_id))


@router.get(
    "/v1/endpoints/<endpoint_id>/stats",
    operation_id="getEndpointStats",
    tags=TAGS,
    summary="Delivery statistics of an endpoint",
    description=(
        "Attempts and their outcomes, latency percentiles and the two health rates\n"
        "over `[since, until]` (default: the 24 hours up to now), from hourly\n"
        "counters: the window is widened to whole hours. A percentile is the upper\n"
        "bound of its latency bucket (30001 for the open-ended one); rates and\n"
        "percentiles are null without data. With `series=hour` the answer also\n"
        "lists the counters of each hour of the window that has any (the portal's\n"
        "failure chart: `ended_failed` counts the deliveries that failed for good\n"
        "in that hour).\n"
    ),
    responses=answers(
        ok(
            200,
            Stats,
            "The statistics.",
            example={
                "since": "2026-03-13T09:26:53.589000Z",
                "until": "2026-03-14T09:26:53.589000Z",
                "granularity": "hour",
                "series": [{"hour": "2026-03-14T08:00:00Z", "attempts": 1280, "succeeded": 1262, "failed": 18, "ended_succeeded": 1262, "ended_failed": 1}],
                "attempts": 1280,
                "succeeded": 1262,
                "failed": 18,
                "latency_ms": {"p50": 100, "p95": 250, "p99": 1000},
                "first_attempt_delivery_rate": 0.9871,
                "eventual_delivery_success_rate": 0.9992,
            },
        ),
        "NotFound",
        "InvalidQuery",
    ),
)
@allow(Access.READ, "endpoint")
def endpoint_stats(endpoint_id: EndpointId, since: Since = None, until: Until = None, series: Series = None) -> Response[Stats]:
    return respond(200, container.endpoint_service().stats(caller().tenant, endpoint_id, since, until, series))


# -- polling endpoints ---------------------------------------------------------------------------------------------

PollLimit = Annotated[
    int,
    given("limit", page_limit),
    WithJsonSchema({"type": "integer", "minimum": 1, "maximum": polling.MAX_LIMIT, "default": polling.DEFAULT_LIMIT}),  # read by its rule (given)
    Query(description=f"The most webhooks to answer (at most {polling.MAX_LIMIT})."),
]
TokenId = Annotated[str, Path(description="A poll token's id (`pt_…`).")]


@router.get(
    "/v1/endpoints/<endpoint_id>/poll",
    operation_id="pollEndpoint",
    tags=TAGS,
    summary="Poll a polling endpoint for its next webhooks",
    description=(
        'For an endpoint whose destination is `{"type": "poll"}`: the webhooks after `cursor` (from\n'
        "the first, without one), in order of acceptance, each with the exact body and headers a push\n"
        "would send, signed as the endpoint signs; the cursor past them; and `done` when nothing more\n"
        "is there now. A webhook becomes readable a few seconds after its acceptance. Called with the\n"
        "producer's key, a portal session of the endpoint's customer (not read-only) or a poll token of\n"
        "this endpoint (`POST /v1/endpoints/{endpoint_id}/poll-tokens`). One DynamoDB query a poll.\n"
    ),
    responses=answers(
        ok(200, PollPage, "The next webhooks.", example={"webhooks": [], "cursor": None, "done": True}),
        "NotFound",
        "InvalidQuery",
        refusal(409, "Not a polling endpoint.", envelope(polling.NOT_POLLING, 'only a polling endpoint (destination {"type": "poll"}) is polled')),
    ),
)
@allow(Access.POLL, "polled_endpoint")
def poll_endpoint(endpoint_id: EndpointId, cursor: Cursor = None, limit: PollLimit = polling.DEFAULT_LIMIT) -> Response[PollPage]:
    return respond(200, PollPage.model_validate(container.poll_service().poll(caller(), endpoint_id, cursor, limit)))


@router.post(
    "/v1/endpoints/<endpoint_id>/poll-tokens",
    operation_id="createPollToken",
    tags=TAGS,
    summary="Make a poll token of a polling endpoint",
    description=(
        "A token (`hlpt_…`, shown once, stored only as a hash) that polls this endpoint and does\n"
        "nothing else: give it to the receiver. Revoke it with DELETE; a revoked token stops working\n"
        "within `HOOKLINE_AUTHORIZER_CACHE_SECONDS`.\n"
    ),
    responses=answers(
        ok(
            201,
            PollTokenCreated,
            "The token.",
            example={
                "id": "pt_01kkntq2cnt8b8hz3pj95wjvcc",
                "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
                "token": "hlpt_01kkntq2cnt8b8hz3pj95wjvcc_Vq3x9XbK2mPz7Lw4Yt8Rn1Hs6Jd0Gf5Ce3Ua2Qo9Ik7",
                "created_at": "2026-03-14T09:26:53.589Z",
            },
        ),
        "NotFound",
        refusal(409, "Not a polling endpoint.", envelope(polling.NOT_POLLING, "not a polling endpoint")),
    ),
)
@allow(Access.PRODUCER, "endpoint")
def create_poll_token(endpoint_id: EndpointId) -> Response[PollTokenCreated]:
    return respond(201, PollTokenCreated.model_validate(container.poll_service().make_token(caller().tenant, endpoint_id)))


@router.delete(
    "/v1/endpoints/<endpoint_id>/poll-tokens/<token_id>",
    operation_id="revokePollToken",
    tags=TAGS,
    summary="Revoke a poll token",
    description="The token stops working within `HOOKLINE_AUTHORIZER_CACHE_SECONDS`; an unknown id is 404 `poll_token_not_found`.\n",
    responses=answers(ok(204, None, "Revoked."), "NotFound"),
)
@allow(Access.PRODUCER, "endpoint")
def revoke_poll_token(endpoint_id: EndpointId, token_id: TokenId) -> Response[None]:
    container.poll_service().revoke_token(caller().tenant, endpoint_id, token_id)
    return no_content()
