"""The OpenAPI document's parts that no route or model carries: its front matter (what the API is, where it
answers, how it authenticates) and the refusals many routes share, each named once and referenced by the routes'
`answers` (hookline.entrypoints.api.answers)."""

from __future__ import annotations

from typing import Any

from hookline.core.errors import envelope
from hookline.core.sessions import CUSTOMER_GONE

INFO: Any = {
    "title": "hookline API",
    "version": "0.1.0",
    "summary": "Reliable outbound webhooks, signed to the Standard Webhooks spec.",
    "description": 'Producers POST events; hookline fans each event out to the tenant\'s subscribed\nendpoints and delivers it as a signed HTTP POST, with retries, per-endpoint rate\nlimits and a circuit breaker.\n\n**Authentication.** Every route but `GET /health` needs `Authorization: Bearer <key>`.\nA key belongs to one tenant, and every route is scoped to it: an id of another\ntenant answers 404, exactly like an id that does not exist.\n\n**Errors** are `{"error": {"code", "message"}}` (see the `Error` schema). A\nrejected request changes nothing. Responses produced by API Gateway itself\n(a missing or refused key in the cloud, stage throttling) are\n`{"message": "..."}` instead (the `GatewayError` schema).\n\n**Pagination.** List routes return `{"items": [...], "next": cursor or null}`;\npass `next` back as `cursor` for the following page. A cursor is opaque and only\nvalid for the list (and tenant) that produced it.\n\n**Customers.** A tenant may have customers (`PUT /v1/customers/{uid}`), each\nnamed by a uid the tenant chooses. An endpoint belongs to one customer or to\nnone (the tenant\'s own). An event sent with `customer` reaches only that\ncustomer\'s subscribed endpoints; an event without one reaches only the\ntenant\'s own endpoints. No event ever reaches another customer\'s endpoint.\n\n**Portal sessions.** `POST /v1/customers/{uid}/portal-sessions` gives the\nproducer a link to hand one customer: a token (`hps_…`) that works as a\nbearer key on the same `/v1` routes, scoped to that customer. A session\nsees and acts on the customer\'s own endpoints (list, create, read, change,\ndelete, enable, rotate and reveal the secret, send a test event), their\ndeliveries, statistics, replays and one-off retries, the jobs of those\nendpoints (the re-queue a re-enable starts), and the events addressed to\nthe customer. Another customer\'s ids and the tenant\'s own\nendpoints and events answer 404, like ids that do not exist. Routes only\nthe producer may use (events in, customers, sessions) answer 403\n`forbidden`, and so does every mutating route for a `read_only` session.\nA session expires (401 `session_expired`) and is revoked with all of the\ncustomer\'s others by `DELETE /v1/customers/{uid}/portal-sessions`, within\n`HOOKLINE_AUTHORIZER_CACHE_SECONDS` (60 s at most). A session belongs to\nexactly the customer it was made for: once that customer is deleted, it\nanswers 401 `unauthorized` on its next request, and a customer made again\nunder the uid never inherits it.\n\n**Broadcasts.** `POST /v1/events/broadcast` sends one event to every\ncustomer\'s subscribed endpoints and the tenant\'s own. It answers 202 at\nonce; the fan-out runs off the request path, a page of endpoints at a time,\nand `GET /v1/events/{event_id}` shows its progress.\n\n**Bulk jobs.** Work over an unbounded set never runs inside a request:\nre-enabling an endpoint (`POST /v1/endpoints/{endpoint_id}/enable`)\nre-queues its paused backlog, and deleting a customer\n(`DELETE /v1/customers/{uid}`) deletes its endpoints, each by a **job**\nthat the answer names (`{"id", "status"}`). A job runs on the job queue a\nbounded page (100) per step, and `GET /v1/jobs/{job_id}` shows its\n`status` (`running`, `done` or `cancelled` with a `note`), `steps` and\n`counts`. A step that runs twice is counted once.\n`POST /v1/jobs/{job_id}/resume` queues a step of a running job again\n(an operator\'s tool for a job that stopped moving).\n\n**Payload versions.** A tenant\'s payload versions are named by date\n(`2026-10-01`); every tenant has `2026-01-01`, and one version is its\ndefault. Each endpoint is pinned to one (`version`): the tenant\'s default\nwhen it is created, unless it names another, and changing the default\nnever moves it; `PATCH` with another `version` sends a test event at that\nversion first. A delivery\'s body is `{"id", "type", "timestamp",\n"version", "data"}`, `data` in the shape of the endpoint\'s version, fixed\nwhen the event is accepted (the same bytes on every attempt). The producer\nsends `data` as of the default version and may add renderings for others\n(`versions`); the rest are derived by the JSON Patch downgrades of the\nevent-type catalog (`PUT /v1/event-types/{name}`), which also holds a\nJSON Schema per version that `data` must match (422 `schema_violation`\nwith the JSON pointer and the rule). An event that an endpoint\'s version\ncan neither carry nor derive is refused (422 `version_unavailable`,\nnaming the endpoint), so nothing is stored that could not be delivered.\nA version past its `sunset_at` cannot be pinned any more (422\n`version_sunset`); endpoints pinned to it keep receiving it.\n\n**Idempotency.** `id` on `POST /v1/events` is the tenant\'s idempotency key: the\nsame id with the same body returns the first response and creates nothing; the\nsame id with a different body is 409. On a 503, repeat the request with the same\n`id`.\n\n**Forward compatibility.** Response objects may gain fields; clients should\nignore fields they do not know. Request bodies are strict: an unknown field is\n422 `unknown_field`.\n',
    "license": {"name": "Apache 2.0", "identifier": "Apache-2.0"},
}
SERVERS: Any = [
    {
        "url": "https://{api-id}.execute-api.{region}.amazonaws.com",
        "description": "The deployed stack (API Gateway HTTP API, `$default` stage).",
        "variables": {
            "api-id": {"default": "abc123defg", "description": "The HTTP API's id (the stack output)."},
            "region": {"default": "us-east-1", "description": "The AWS region the stack is deployed in."},
        },
    },
    {"url": "http://localhost:8787", "description": "Local mode (`make run`)."},
]
SECURITY: Any = [{"bearerAuth": []}]
TAGS: Any = [
    {"name": "health", "description": "Liveness."},
    {"name": "endpoints", "description": "Where webhooks go, how fast, and how healthy each receiver is."},
    {"name": "events", "description": "Events in, deliveries and their attempts out."},
    {"name": "replays", "description": "Time-window replays of an endpoint's failed or paused deliveries."},
    {"name": "customers", "description": "The tenant's customers, each with its own endpoints and limits."},
    {
        "name": "jobs",
        "description": "Bulk jobs (an endpoint's paused backlog re-queued, a deleted customer's endpoints deleted), paged off the request path, and their progress.",
    },
    {"name": "portal", "description": "The customer portal page, and what it reads about its caller."},
    {"name": "catalog", "description": "Payload versions, each endpoint's pin, and the event-type catalog (schemas and downgrades per version)."},
]
SECURITY_SCHEMES: Any = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "hookline API key (hk_…) or portal session token (hps_…)",
        "description": "`Authorization: Bearer hk_…` (the producer's API key) or\n`Authorization: Bearer hps_…` (a customer's portal session). Keys are\ncreated by operators (`make api-key TENANT=…`); each belongs to one\ntenant. Sessions are made by the producer\n(`POST /v1/customers/{uid}/portal-sessions`); each belongs to one\ncustomer. A revoked key or session is refused within\n`HOOKLINE_AUTHORIZER_CACHE_SECONDS` (API Gateway caches the authorizer's\nanswer; 60 s at most); an expired session, or one whose customer was\ndeleted, is refused at once.\n",
    }
}
REFUSALS: dict[str, Any] = {
    "BadRequest": {
        "description": "The body is empty or not strict JSON (`malformed_json`: NaN, Infinity,\nlone surrogates and an object that names a key twice, at any depth, are\nrefused too; the message names the key), or not valid UTF-8 / base64\n(`malformed_body`).\n",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("malformed_json", "request body is not valid JSON"),
            }
        },
    },
    "Unauthorized": {
        "description": 'No API key. In the cloud API Gateway answers a request without an\n`Authorization` header itself, with `{"message": "Unauthorized"}`; local\nmode answers 401 `unauthorized` for a missing, unknown or revoked key.\nA portal session past its expiry is 401 `session_expired`, and one whose\ncustomer was deleted 401 `unauthorized`, in the cloud too (the API checks\nboth on every request).\n',
        "content": {
            "application/json": {
                "schema": {"anyOf": [{"$ref": "#/components/schemas/Error"}, {"$ref": "#/components/schemas/GatewayError"}]},
                "examples": {
                    "gateway": {"summary": "API Gateway (cloud)", "value": {"message": "Unauthorized"}},
                    "local": {
                        "summary": "Local mode",
                        "value": envelope("unauthorized", "Invalid, expired or revoked API key or portal session."),
                    },
                    "expired": {
                        "summary": "A portal session past its expiry",
                        "value": envelope("session_expired", "this portal session has expired; ask for a new link"),
                    },
                    "customer_gone": {
                        "summary": "A portal session whose customer was deleted",
                        "value": envelope("unauthorized", CUSTOMER_GONE),
                    },
                },
            }
        },
    },
    "Forbidden": {
        "description": 'An unknown or revoked API key or session (cloud; API Gateway\'s answer to\nthe authorizer\'s refusal, `{"message": "Forbidden"}`), or a portal\nsession on a route it may not use (`forbidden`: a producer-only route,\nor a mutating route for a read-only session).\n',
        "content": {
            "application/json": {
                "schema": {"anyOf": [{"$ref": "#/components/schemas/Error"}, {"$ref": "#/components/schemas/GatewayError"}]},
                "examples": {
                    "gateway": {"summary": "API Gateway (cloud)", "value": {"message": "Forbidden"}},
                    "session": {
                        "summary": "A portal session on a producer-only route",
                        "value": envelope("forbidden", "a portal session cannot use this route; it needs the producer's API key"),
                    },
                    "read_only": {
                        "summary": "A read-only session on a mutating route",
                        "value": envelope("forbidden", "this portal session is read-only"),
                    },
                },
            }
        },
    },
    "NotFound": {
        "description": "No such id for this tenant (or no such route).",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("not_found", "endpoint ep_01kkntq2cnt8b8hz3pj95wjvcc not found"),
            }
        },
    },
    "CustomerNotFound": {
        "description": "No such customer for this tenant (`customer_not_found`), or no such id (`not_found`).",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("customer_not_found", "customer org_4711 not found"),
            }
        },
    },
    "JobNotFound": {
        "description": "No such job for this tenant, or not one of a portal session's own endpoints (`job_not_found`).",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("job_not_found", "job job_01km5392zyx2x3fnt8zam6tbwc not found"),
            }
        },
    },
    "PayloadTooLarge": {
        "description": "The body is larger than `HOOKLINE_MAX_EVENT_BYTES` (256 KB by default).",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("payload_too_large", "request body is 300000 bytes; the limit is 262144"),
            }
        },
    },
    "ValidationFailed": {
        "description": "The body is not a JSON object, nests deeper than 32 levels, misses a\nrequired field, has a field of the wrong type or an invalid value, or has\nan unknown field. A number with a fraction or an exponent is kept as a\ndouble: one that a double cannot hold as written (`1e-400`, `1e400`, more\ndigits than a double keeps) is `validation_failed`, its message naming the\nnumber's JSON pointer; an integer is kept exactly. A name, a description or\na metadata value with a control character (U+0000 to U+001F, U+007F to\nU+009F; a description may hold tab and line feed) is `validation_failed`\nnaming the field. Codes: `validation_failed`, `missing_field`, `wrong_type`,\n`unknown_field`, `invalid_url`, `forbidden_url`, `forbidden_header`,\n`invalid_customer_uid`, `invalid_email`, `above_customer_limit` (a\ncustomer's endpoint set above the customer's `limits`; the message names\nthe ceiling), and for an endpoint's payload version `unknown_version`\nand `version_sunset` (a version past its `sunset_at` cannot be pinned).\n",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "examples": {
                    "unknown_field": {"value": envelope("unknown_field", "unknown field(s): secret")},
                    "forbidden_url": {"value": envelope("forbidden_url", "'url' is not allowed: private address")},
                    "version_sunset": {
                        "value": envelope("version_sunset", "version 2026-01-01 is past its sunset (2026-11-01T00:00:00.000Z): pin a newer version")
                    },
                },
            }
        },
    },
    "EventRefused": {
        "description": "The body is invalid as for any route (see `ValidationFailed`), or the\nevent cannot go out as its endpoints' payload versions expect:\n`schema_violation` (`data`, or a rendering in `versions`, does not\nmatch its type's schema at that version: `pointer` is the JSON pointer\ninto it, \"\" for the root, `rule` the JSON Schema keyword that failed,\n`version` the version checked), `version_unavailable` (an endpoint is\npinned to a version the event neither carries nor can derive: send it\nin `versions`; `version`, `endpoint_id`), `unknown_version` (a\nrendering for a version the tenant does not have), `invalid_schema`\n(the registered schema cannot validate this data). Nothing is stored.\n",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "examples": {
                    "schema_violation": {
                        "value": envelope(
                            "schema_violation",
                            "'data' does not match invoice.paid at version 2026-10-01: -1 is less than the minimum of 0 at /amount_cents",
                            pointer="/amount_cents",
                            rule="minimum",
                            version="2026-10-01",
                        )
                    },
                    "version_unavailable": {
                        "value": envelope(
                            "version_unavailable",
                            "endpoint ep_01kkntq2cnt8b8hz3pj95wjvcc is pinned to version 2026-01-01: version 2026-01-01 cannot be derived: 2026-10-01 of this type registers no transform; send it in 'versions'",
                            version="2026-01-01",
                            endpoint_id="ep_01kkntq2cnt8b8hz3pj95wjvcc",
                        )
                    },
                    "unknown_field": {"value": envelope("unknown_field", "unknown field(s): priority")},
                },
            }
        },
    },
    "InvalidQuery": {
        "description": "A query parameter is invalid: `limit` out of range, a bad `cursor`\n(`invalid_cursor`), a `since`/`until` that is not ISO 8601 with a time zone\nor not in order, or an unknown `status`.\n",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "examples": {
                    "limit": {"value": envelope("validation_failed", "'limit' must be between 1 and 100")},
                    "cursor": {"value": envelope("invalid_cursor", "cursor is not valid")},
                },
            }
        },
    },
    "TooManyRequests": {
        "description": "The stage's request throttle (API Gateway) was hit; back off and repeat.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GatewayError"}, "example": {"message": "Too Many Requests"}}},
    },
    "InternalError": {
        "description": "An unexpected failure (`internal_error`). Nothing is half-done that a repeat would duplicate.",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("internal_error", "internal error"),
            }
        },
    },
    "Unavailable": {
        "description": "A dependency failed (`unavailable`); repeat the same request.",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": envelope("unavailable", "the event could not be queued (ClientError); repeat the request with the same id"),
            }
        },
    },
}
